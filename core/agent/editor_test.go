package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/editor"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// fakeEditor answers like an editor with (or without) a language server:
// every line holding "BAD" is an error.
type fakeEditor struct {
	mu      sync.Mutex
	servers int
	asked   [][]string // Diagnostics calls
	settle  time.Duration
	before  []editor.Diagnostic
}

func (f *fakeEditor) HasLSP(context.Context) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.servers > 0
}

func (f *fakeEditor) Snapshot(context.Context, []string) ([]editor.Diagnostic, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.before, nil
}

func (f *fakeEditor) Diagnostics(_ context.Context, paths []string, settle time.Duration) (editor.Report, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, paths)
	f.settle = settle
	rep := editor.Report{Servers: f.servers}
	for _, p := range paths {
		data, _ := readFileString(p)
		for i, l := range strings.Split(data, "\n") {
			if strings.Contains(l, "BAD") {
				rep.After = append(rep.After, editor.Diagnostic{Path: p, Line: i + 1, Col: strings.Index(l, "BAD") + 1, Severity: editor.SevError, Source: "fakels", Message: "BAD is not allowed", Text: l})
			}
		}
	}
	return rep, nil
}

func (f *fakeEditor) LSP(_ context.Context, q editor.Query) (editor.Answer, error) {
	return editor.Answer{Servers: 1, Locations: editor.List[editor.Location]{{Path: q.Path, Line: 7, Col: 1, Text: "func target() {}"}}}, nil
}

func readFileString(p string) (string, error) {
	b, err := os.ReadFile(p)
	return string(b), err
}

func offeredTool(req fakellm.Request, name string) bool {
	for _, tl := range req.Tools {
		if tl.Function.Name == name {
			return true
		}
	}
	return false
}

// After a write, the tool result ends with the new errors the editor's
// servers report, not with those that were there before; the lsp tool is
// offered only while a server is attached.
func TestEditorFeedbackAndLSPTool(t *testing.T) {
	ed := &fakeEditor{servers: 1}
	f := newFixture(t, func(c *config.Config, o *Options) {
		c.Permissions.Preset = "auto-edit"
		o.Editor = ed
	})
	abs := filepath.Join(f.root, "a.go")
	ed.before = []editor.Diagnostic{{Path: abs, Line: 1, Col: 1, Severity: editor.SevError, Source: "fakels", Message: "BAD is not allowed", Text: "old BAD"}}
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("w1", "write", map[string]any{"path": "a.go", "content": "old BAD\nfine\nnew BAD here\n"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("l1", "lsp", map[string]any{"operation": "definition", "path": "a.go", "line": 2})}},
		fakellm.Reply{Content: "done"},
	)
	f.run(t, "write it")
	reqs := f.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	if !offeredTool(reqs[0], "lsp") {
		t.Error("lsp not offered with a server attached")
	}
	got := toolContent(reqs[1], "w1")
	if !strings.Contains(got, "error a.go:3:5 [fakels] BAD is not allowed") || strings.Contains(got, "a.go:1:") {
		t.Errorf("write result:\n%s", got)
	}
	if ed.settle != 1500*time.Millisecond || len(ed.asked) != 1 || ed.asked[0][0] != abs {
		t.Errorf("diagnostics asked %v with settle %v", ed.asked, ed.settle)
	}
	if got := toolContent(reqs[2], "l1"); got != "a.go:7: func target() {}" {
		t.Errorf("lsp result %q", got)
	}

	// No server attached: not offered.
	ed.mu.Lock()
	ed.servers = 0
	ed.mu.Unlock()
	f.srv.Enqueue(fakellm.Reply{Content: "ok"})
	f.run(t, "again")
	if reqs := f.srv.Requests(); offeredTool(reqs[len(reqs)-1], "lsp") {
		t.Error("lsp offered without a server")
	}
}

// lsp.settle "0" turns the feedback off: the editor is not even asked.
func TestEditorFeedbackOff(t *testing.T) {
	ed := &fakeEditor{servers: 1}
	f := newFixture(t, func(c *config.Config, o *Options) {
		c.Permissions.Preset = "auto-edit"
		c.LSP.Settle = "0"
		o.Editor = ed
	})
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("w1", "write", map[string]any{"path": "a.go", "content": "BAD\n"})}},
		fakellm.Reply{Content: "done"},
	)
	f.run(t, "write it")
	if got := toolContent(f.srv.Requests()[1], "w1"); strings.Contains(got, "BAD is not allowed") || len(ed.asked) != 0 {
		t.Errorf("feedback with settle 0: %q, asked %v", got, ed.asked)
	}
}

// The lsp tool fits the first request's budget.
func TestPromptBudgetWithLSP(t *testing.T) {
	f := newFixture(t, func(_ *config.Config, o *Options) { o.Editor = &fakeEditor{servers: 1} })
	req := f.sess.request(f.sess.turnContext(&task{s: f.sess, conv: f.sess.rootConv}))
	data, err := json.Marshal(req.Tools)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"lsp"`) {
		t.Fatal("lsp not offered")
	}
	tokens := (len(req.Messages[0].Content) + len(data)) / 4
	t.Logf("first request with lsp ≈ %d tokens", tokens)
	if tokens >= 2500 {
		t.Errorf("instructions + tool schemas with lsp ≈ %d tokens, budget 2500", tokens)
	}
}

func toolContent(r fakellm.Request, id string) string {
	for _, m := range r.Messages {
		if m.Role == llm.RoleTool && m.ToolCallID == id {
			return m.Content
		}
	}
	return ""
}

// lsp is read-only: offered and run in plan mode, under the strict preset.
func TestLSPToolInPlanMode(t *testing.T) {
	f := newFixture(t, func(c *config.Config, o *Options) {
		c.Mode = "plan"
		c.Permissions.Preset = "strict"
		o.Editor = &fakeEditor{servers: 1}
	})
	if err := os.WriteFile(filepath.Join(f.root, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("l1", "lsp", map[string]any{"operation": "references", "path": "a.go", "line": 1})}},
		fakellm.Reply{Content: "done"},
	)
	f.run(t, "where is it used")
	reqs := f.srv.Requests()
	if !offeredTool(reqs[0], "lsp") {
		t.Error("lsp not offered in plan mode")
	}
	if got := toolContent(reqs[1], "l1"); got != "a.go:7: func target() {}" {
		t.Errorf("lsp in plan mode: %q", got)
	}
}
