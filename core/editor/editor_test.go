package editor

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/tools"
)

func TestReportNew(t *testing.T) {
	d := func(line int, sev int, msg, text string) Diagnostic {
		return Diagnostic{Path: "/w/a.go", Line: line, Col: 1, Severity: sev, Source: "ls", Message: msg, Text: text}
	}
	tests := []struct {
		name   string
		before []Diagnostic
		after  []Diagnostic
		want   []int // lines of the new ones
	}{
		{"all new, errors first", nil, []Diagnostic{d(1, 2, "y", "b"), d(3, 1, "x", "a"), d(2, 1, "x", "c")}, []int{2, 3, 1}},
		{"moved line is old", []Diagnostic{d(1, 1, "x", " a")}, []Diagnostic{d(5, 1, "x", "a ")}, nil},
		{"second copy is new", []Diagnostic{d(1, 1, "x", "a")}, []Diagnostic{d(1, 1, "x", "a"), d(2, 1, "x", "a")}, []int{2}},
		{"info and hints dropped", nil, []Diagnostic{d(1, 3, "x", "a"), d(2, 4, "y", "b")}, nil},
		{"duplicates once", nil, []Diagnostic{d(4, 1, "x", "a"), d(4, 1, "x", "a")}, []int{4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []int
			for _, x := range (Report{Before: tt.before, After: tt.after}).New() {
				got = append(got, x.Line)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("new lines %v, want %v", got, tt.want)
			}
		})
	}
}

// A flood of diagnostics is cut to a short, readable list.
func TestFeedbackCapped(t *testing.T) {
	var r Report
	for i := range 10000 {
		r.After = append(r.After, Diagnostic{Path: "/w/a.go", Line: i + 1, Col: 2, Severity: SevError, Message: strings.Repeat("m", 500) + fmt.Sprint(i)})
	}
	out := Feedback(r, func(p string) string { return strings.TrimPrefix(p, "/w/") })
	if n := strings.Count(out, "\nerror a.go:"); n != maxNewDiagnostics {
		t.Errorf("%d diagnostics listed", n)
	}
	if !strings.Contains(out, "… and 9980 more") || len(out) > 6000 {
		t.Errorf("feedback of %d bytes:\n%.300s", len(out), out)
	}
	if Feedback(Report{}, nil) != "" {
		t.Error("feedback without diagnostics")
	}
}

func TestListDecodesEmptyObject(t *testing.T) {
	var a Answer
	if err := json.Unmarshal([]byte(`{"locations":{},"diagnostics":[{"line":2}],"servers":1}`), &a); err != nil || len(a.Locations) != 0 || len(a.Diagnostics) != 1 {
		t.Errorf("%+v %v", a, err)
	}
}

// scripted is an editor whose answers the test sets.
type scripted struct {
	queries []Query
	answer  func(Query) (Answer, error)
}

func (s *scripted) HasLSP(context.Context) bool { return true }
func (s *scripted) Snapshot(context.Context, []string) ([]Diagnostic, error) {
	return nil, nil
}
func (s *scripted) Diagnostics(_ context.Context, paths []string, _ time.Duration) (Report, error) {
	return Report{Servers: 1, After: []Diagnostic{{Path: paths[0], Line: 1, Col: 1, Severity: SevInfo, Message: "note"}}}, nil
}
func (s *scripted) LSP(ctx context.Context, q Query) (Answer, error) {
	s.queries = append(s.queries, q)
	return s.answer(q)
}

func TestLSPTool(t *testing.T) {
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\nfunc use() { target() }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := tools.NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(root, "a.go"), filepath.Join(root, "b.go")
	tests := []struct {
		name    string
		args    string
		answer  func(Query) (Answer, error)
		want    string
		wantQ   string // the last query, as Op:line:col
		prepErr string
	}{
		{"definition at a column found from the symbol", `{"operation":"definition","path":"a.go","line":3,"symbol":"target"}`,
			func(Query) (Answer, error) {
				return Answer{Servers: 1, Locations: List[Location]{{Path: b, Line: 5, Col: 6, Text: "func target() {}"}}}, nil
			}, "b.go:5: func target() {}", "definition:3:14", ""},
		{"definition by name from workspace symbols", `{"operation":"definition","symbol":"target"}`,
			func(q Query) (Answer, error) {
				return Answer{Servers: 1, Locations: List[Location]{{Path: "/usr/lib/x.go", Line: 1, Name: "target", Kind: "function"}, {Path: b, Line: 5, Name: "target", Kind: "function", Text: "func target() {}"}}}, nil
			}, "b.go:5 function target: func target() {}", "workspace_symbols:0:0", ""},
		{"references withhold outside paths and text", `{"operation":"references","path":"a.go","line":3,"column":14}`,
			func(Query) (Answer, error) {
				return Answer{Servers: 1, Locations: List[Location]{{Path: a, Line: 3, Text: "func use() { target() }"}, {Path: "/etc/x", Line: 2, Text: "secret"}}}, nil
			}, "a.go:3: func use() { target() }\n(1 location outside the workspace withheld)", "references:3:14", ""},
		{"hover by a name found only outside asks nothing there", `{"operation":"hover","symbol":"Secret"}`,
			func(q Query) (Answer, error) {
				return Answer{Servers: 1, Hover: "SECRET DOC", Locations: List[Location]{{Path: "/etc/secret.go", Line: 4, Name: "Secret"}}}, nil
			}, `error: the language servers found "Secret" only outside the workspace; what is there is withheld`, "workspace_symbols:0:0", ""},
		{"diagnostics of the open files withhold outside ones", `{"operation":"diagnostics"}`,
			func(Query) (Answer, error) {
				return Answer{Servers: 1, Diagnostics: List[Diagnostic]{{Path: "/etc/secret.go", Line: 1, Message: "secret"}, {Path: a, Line: 2, Col: 3, Severity: SevError, Message: "bad"}}}, nil
			}, "error a.go:2:3 bad\n(1 diagnostic outside the workspace withheld)", "diagnostics:0:0", ""},
		{"hover", `{"operation":"hover","path":"a.go","line":3}`,
			func(Query) (Answer, error) { return Answer{Servers: 1, Hover: "func target()"}, nil }, "func target()", "hover:3:1", ""},
		{"no server", `{"operation":"hover","path":"a.go","line":3}`,
			func(Query) (Answer, error) { return Answer{}, nil }, "no language server answers hover for a.go", "hover:3:1", ""},
		{"timeout", `{"operation":"hover","path":"a.go","line":3}`,
			func(Query) (Answer, error) { return Answer{}, context.DeadlineExceeded }, "error: the language server did not answer within 5s", "hover:3:1", ""},
		{"unknown symbol", `{"operation":"references","symbol":"nope"}`,
			func(Query) (Answer, error) { return Answer{Servers: 1}, nil }, `error: no symbol named "nope"`, "workspace_symbols:0:0", ""},
		{"diagnostics of a file not loaded", `{"operation":"diagnostics","path":"a.go"}`,
			func(Query) (Answer, error) { return Answer{}, nil }, "info a.go:1:1 note", "diagnostics:0:0", ""},
		{"diagnostics of an open file", `{"operation":"diagnostics","path":"a.go"}`,
			func(Query) (Answer, error) {
				return Answer{Loaded: true, Servers: 1, Diagnostics: List[Diagnostic]{{Path: a, Line: 2, Col: 3, Severity: SevError, Message: "bad"}}}, nil
			}, "error a.go:2:3 bad", "diagnostics:0:0", ""},
		{"diagnostics of the open files", `{"operation":"diagnostics"}`,
			func(Query) (Answer, error) { return Answer{Servers: 1}, nil }, "no diagnostics in the open files", "diagnostics:0:0", ""},
		{"outside the workspace", `{"operation":"hover","path":"../x.go","line":1}`, nil, "", "", "outside"},
		{"bad operation", `{"operation":"rename"}`, nil, "", "", "unknown lsp operation"},
		{"no position", `{"operation":"definition"}`, nil, "", "", "needs a position"},
		{"unknown argument", `{"operation":"hover","file":"a.go"}`, nil, "", "", "unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ed := &scripted{answer: tt.answer}
			inv, err := Tool{Editor: ed}.Prepare(context.Background(), ws, json.RawMessage(tt.args))
			if tt.prepErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.prepErr) {
					t.Fatalf("prepare error %v, want %q", err, tt.prepErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			res := inv.Run(context.Background())
			if !strings.HasPrefix(res.Output, tt.want) {
				t.Errorf("output %q, want %q", res.Output, tt.want)
			}
			if tt.wantQ != "" {
				q := ed.queries[len(ed.queries)-1]
				if got := fmt.Sprintf("%s:%d:%d", q.Op, q.Line, q.Column); got != tt.wantQ {
					t.Errorf("query %s, want %s", got, tt.wantQ)
				}
			}
		})
	}
}
