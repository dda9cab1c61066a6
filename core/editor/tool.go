package editor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/text"
	"github.com/coder-nvim/coder-nvim/core/tools"
)

// ToolName is the name of the language-server tool.
const ToolName = "lsp"

// Limits of one lsp result.
const (
	maxLocations = 50
	maxHover     = 2000
	maxLineText  = 160
	// DefaultTimeout bounds one query when Tool.Timeout is 0.
	DefaultTimeout = 5 * time.Second
)

// Tool is the lsp tool: read-only navigation through the editor's
// language servers. Its schema is kept small: it is sent with every
// request while a server is attached.
type Tool struct {
	Editor  Editor
	Timeout time.Duration // per query; 0: DefaultTimeout
}

var toolSpec = llm.Tool{Type: "function", Function: llm.FunctionDef{
	Name: ToolName,
	Description: "Ask the editor's language servers (read-only). Position: path + line (+ column, 1-based), or a symbol name. " +
		"symbols: a file's symbols (path) or a workspace search (symbol). diagnostics: a file's errors (path) or all open files'.",
	Parameters: json.RawMessage(`{"type":"object","properties":{"operation":{"enum":["definition","references","hover","symbols","diagnostics"]},` +
		`"path":{"type":"string"},"line":{"type":"integer"},"column":{"type":"integer"},"symbol":{"type":"string"}},` +
		`"required":["operation"],"additionalProperties":false}`),
}}

// Spec is the tool's entry in the request.
func (Tool) Spec() llm.Tool { return toolSpec }

// Kind is read: allowed in plan mode and by every preset.
func (Tool) Kind() tools.Kind { return tools.KindRead }

type toolArgs struct {
	Operation string `json:"operation"`
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	Symbol    string `json:"symbol"`
}

// Prepare checks the arguments and resolves the path inside the
// workspace; a path outside it is refused as by every file tool.
func (t Tool) Prepare(_ context.Context, ws *tools.Workspace, raw json.RawMessage) (*tools.Invocation, error) {
	var a toolArgs
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("invalid arguments for lsp: %s; send {\"operation\": …, \"path\"/\"line\"/\"column\" or \"symbol\"}", strings.TrimPrefix(err.Error(), "json: "))
	}
	a.Symbol = strings.TrimSpace(a.Symbol)
	switch a.Operation {
	case "definition", "references", "hover":
		if a.Path == "" && a.Symbol == "" {
			return nil, fmt.Errorf("lsp %s needs a position: path and line (1-based), or a symbol name", a.Operation)
		}
	case "symbols":
		if a.Path == "" && a.Symbol == "" {
			return nil, errors.New("lsp symbols needs a path (the file's symbols) or a symbol (a workspace search)")
		}
	case "diagnostics":
	default:
		return nil, fmt.Errorf("unknown lsp operation %q: want definition, references, hover, symbols or diagnostics", a.Operation)
	}
	if a.Line < 0 || a.Column < 0 {
		return nil, errors.New("line and column are 1-based and must not be negative")
	}
	var abs, rel string
	var paths []string
	if a.Path != "" {
		var err error
		if abs, rel, err = ws.Resolve(a.Path); err != nil {
			return nil, err
		}
		if _, err := tools.StatFile(abs, rel, 0); err != nil {
			return nil, err
		}
		paths = []string{rel}
	}
	title := "lsp " + a.Operation
	switch {
	case rel != "" && a.Line > 0:
		title += fmt.Sprintf(" %s:%d", rel, a.Line)
	case rel != "":
		title += " " + rel
	}
	if a.Symbol != "" {
		title += " " + a.Symbol
	}
	r := &runner{t: t, ws: ws, a: a, abs: abs}
	inv := tools.NewInvocation(ToolName, tools.KindRead, title, r.run)
	inv.Paths = paths
	return inv, nil
}

// runner runs one prepared lsp call.
type runner struct {
	t   Tool
	ws  *tools.Workspace
	a   toolArgs
	abs string
}

func (r *runner) run(ctx context.Context) tools.Result {
	timeout := r.t.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	// The editor's own wait for a file's first diagnostics ends first,
	// with what it has.
	ctx, cancel := context.WithTimeout(ctx, timeout+time.Second)
	defer cancel()
	out, err := r.answer(ctx, timeout)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("the language server did not answer within %s; try again, or use grep and read", timeout)
		}
		msg := "error: " + err.Error()
		return tools.Result{Output: msg, Display: msg, Summary: msg, IsError: true}
	}
	summary, _, _ := strings.Cut(out, "\n")
	return tools.Result{Output: out, Display: out, Summary: oneLine(summary, 120)}
}

func (r *runner) answer(ctx context.Context, timeout time.Duration) (string, error) {
	a, ed := r.a, r.t.Editor
	switch a.Operation {
	case "diagnostics":
		if r.abs == "" {
			ans, err := ed.LSP(ctx, Query{Op: OpDiagnostics})
			if err != nil {
				return "", err
			}
			return r.diagnostics(ans.Diagnostics, "the open files"), nil
		}
		// An open buffer answers as it is; a file not loaded is loaded
		// and its servers waited for, as after an edit.
		ans, err := ed.LSP(ctx, Query{Op: OpDiagnostics, Path: r.abs})
		if err != nil {
			return "", err
		}
		if ans.Loaded {
			return r.diagnostics(ans.Diagnostics, r.rel(r.abs)), nil
		}
		rep, err := ed.Diagnostics(ctx, []string{r.abs}, timeout)
		if err != nil {
			return "", err
		}
		return r.diagnostics(rep.After, r.rel(r.abs)), nil
	case "symbols":
		q := Query{Op: OpWorkspaceSymbols, Symbol: a.Symbol}
		if r.abs != "" {
			q = Query{Op: OpDocumentSymbols, Path: r.abs}
		}
		ans, err := ed.LSP(ctx, q)
		if err != nil {
			return "", err
		}
		locs := ans.Locations
		if r.abs != "" && a.Symbol != "" {
			locs = matching(locs, a.Symbol)
		}
		return r.locations(locs, "no symbols found", ans.Servers), nil
	}
	pos, err := r.position(ctx)
	if err != nil {
		return "", err
	}
	if a.Operation == "definition" && a.Line == 0 && pos.Name != "" {
		// Found by name: the symbol's own location is its definition.
		return r.locations([]Location{pos}, "", 1), nil
	}
	op := map[string]string{"definition": OpDefinition, "references": OpReferences, "hover": OpHover}[a.Operation]
	ans, err := ed.LSP(ctx, Query{Op: op, Path: pos.Path, Line: pos.Line, Column: pos.Col})
	if err != nil {
		return "", err
	}
	if op == OpHover {
		if ans.Servers == 0 {
			return "no language server answers hover for " + r.rel(pos.Path), nil
		}
		if strings.TrimSpace(ans.Hover) == "" {
			return fmt.Sprintf("nothing to show at %s:%d:%d", r.rel(pos.Path), pos.Line, pos.Col), nil
		}
		return text.Truncate(strings.TrimSpace(ans.Hover), maxHover), nil
	}
	return r.locations(ans.Locations, fmt.Sprintf("no %s found at %s:%d:%d", a.Operation, r.rel(pos.Path), pos.Line, pos.Col), ans.Servers), nil
}

// position is where a definition, references or hover query asks: the
// given path and line (the column found from the symbol or the first
// non-blank character when not given), else the symbol found by name in
// the workspace, then in the file's own symbols.
func (r *runner) position(ctx context.Context) (Location, error) {
	a := r.a
	if r.abs != "" && a.Line > 0 {
		col := a.Column
		if col == 0 {
			col = r.columnOf(ctx, a.Line, a.Symbol)
		}
		return Location{Path: r.abs, Line: a.Line, Col: col}, nil
	}
	if a.Symbol == "" {
		return Location{}, fmt.Errorf("lsp %s needs a line with the path, or a symbol name", a.Operation)
	}
	ans, err := r.t.Editor.LSP(ctx, Query{Op: OpWorkspaceSymbols, Symbol: a.Symbol})
	if err != nil {
		return Location{}, err
	}
	found := matching(ans.Locations, a.Symbol)
	if len(found) == 0 && r.abs != "" {
		if ans, err = r.t.Editor.LSP(ctx, Query{Op: OpDocumentSymbols, Path: r.abs}); err != nil {
			return Location{}, err
		}
		found = matching(ans.Locations, a.Symbol)
	}
	for _, l := range found {
		if _, ok := r.inside(l.Path); ok {
			return l, nil
		}
	}
	if len(found) > 0 {
		// Asking there would load a file outside the workspace and
		// return its text.
		return Location{}, fmt.Errorf("the language servers found %q only outside the workspace; what is there is withheld, as the file tools refuse to read it", a.Symbol)
	}
	return Location{}, fmt.Errorf("no symbol named %q found by the language servers; give path and line instead", a.Symbol)
}

// columnOf is the 1-based column of the first whole-word occurrence of
// symbol on the line of the file, else of its first non-blank character.
func (r *runner) columnOf(ctx context.Context, line int, symbol string) int {
	data, err := r.ws.ReadFile(ctx, r.abs)
	if err != nil {
		return 1
	}
	lines := strings.Split(string(data), "\n")
	if line > len(lines) {
		return 1
	}
	text := lines[line-1]
	if symbol != "" {
		for from := 0; ; {
			i := strings.Index(text[from:], symbol)
			if i < 0 {
				break
			}
			i += from
			end := i + len(symbol)
			if (i == 0 || !isWord(rune(text[i-1]))) && (end == len(text) || !isWord(rune(text[end]))) {
				return i + 1
			}
			from = i + 1
		}
	}
	for i, c := range text {
		if !unicode.IsSpace(c) {
			return i + 1
		}
	}
	return 1
}

func isWord(c rune) bool { return c == '_' || unicode.IsLetter(c) || unicode.IsDigit(c) }

// matching keeps the symbols named name ("pkg.Name" and "Type.Name"
// match "Name" too).
func matching(locs []Location, name string) []Location {
	var out []Location
	for _, l := range locs {
		if l.Name == name || strings.HasSuffix(l.Name, "."+name) {
			out = append(out, l)
		}
	}
	return out
}

// inside maps an absolute path to its workspace-relative form.
func (r *runner) inside(abs string) (string, bool) {
	rel, err := filepath.Rel(r.ws.Root(), abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return abs, false
	}
	return filepath.ToSlash(rel), true
}

func (r *runner) rel(abs string) string {
	p, _ := r.inside(abs)
	return p
}

// locations lists places as `path:line: text`; the text of a line
// outside the workspace is not shown.
func (r *runner) locations(locs []Location, none string, servers int) string {
	if servers == 0 {
		return "no language server answers this operation for that file"
	}
	if len(locs) == 0 {
		return none
	}
	var inside []Location
	for _, l := range locs {
		if _, ok := r.inside(l.Path); ok {
			inside = append(inside, l)
		}
	}
	withheld := len(locs) - len(inside)
	if len(inside) == 0 {
		return strings.TrimSuffix(none+"\n"+withheldNote(withheld, "location"), "\n")
	}
	var b strings.Builder
	for i, l := range inside {
		if i == maxLocations {
			fmt.Fprintf(&b, "… and %d more\n", len(inside)-i)
			break
		}
		p := r.rel(l.Path)
		b.WriteString(fmt.Sprintf("%s:%d", p, l.Line))
		if l.Name != "" {
			b.WriteString(" " + oneLine(l.Kind+" "+l.Name, 80))
		}
		if strings.TrimSpace(l.Text) != "" {
			b.WriteString(": " + oneLine(l.Text, maxLineText))
		}
		b.WriteString("\n")
	}
	b.WriteString(withheldNote(withheld, "location"))
	return strings.TrimSuffix(b.String(), "\n")
}

// withheldNote names what outside the workspace was left out (paths and
// text alike, as the file tools refuse to read there).
func withheldNote(n int, what string) string {
	if n == 0 {
		return ""
	}
	if n > 1 {
		what += "s"
	}
	return fmt.Sprintf("(%d %s outside the workspace withheld)\n", n, what)
}

func (r *runner) diagnostics(ds []Diagnostic, where string) string {
	var inside []Diagnostic
	for _, d := range ds {
		if _, ok := r.inside(d.Path); ok {
			inside = append(inside, d)
		}
	}
	note := withheldNote(len(ds)-len(inside), "diagnostic")
	if len(inside) == 0 {
		return strings.TrimSuffix("no diagnostics in "+where+"\n"+note, "\n")
	}
	var b strings.Builder
	for i, d := range inside {
		if i == maxLocations {
			fmt.Fprintf(&b, "… and %d more\n", len(inside)-i)
			break
		}
		b.WriteString(formatDiagnostic(d, r.rel) + "\n")
	}
	b.WriteString(note)
	return strings.TrimSuffix(b.String(), "\n")
}
