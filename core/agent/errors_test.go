package agent

import (
	"context"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/agent/command"
	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/mcp"
	"github.com/coder-nvim/coder-nvim/core/sandbox"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestErrorVocabularyIsUsed: every exported Err* of the package is
// returned or wrapped somewhere outside ids.go, where it is declared and
// named for the wire; a kind declared and never used promises callers an
// errors.Is that never matches.
func TestErrorVocabularyIsUsed(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	uses := map[string]int{}
	for _, pkg := range pkgs {
		for path, f := range pkg.Files {
			ids := filepath.Base(path) == "ids.go"
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.ValueSpec:
					for _, name := range n.Names {
						if strings.HasPrefix(name.Name, "Err") {
							declared[name.Name] = true
							if !ids {
								uses[name.Name]-- // its declaration is no use
							}
						}
					}
				case *ast.Ident:
					if !ids || !strings.HasPrefix(n.Name, "Err") {
						uses[n.Name]++
					}
				}
				return true
			})
		}
	}
	for name := range declared {
		if uses[name] < 1 {
			t.Errorf("%s is declared but never used", name)
		}
	}
}

// TestToolCallErrorKinds (seed 004 §3.1): a call that did not complete
// says which kind of failure ended it, on its ToolCallEnd: the user's
// denial, a policy's, an interrupt, a failing MCP server. A completed
// call and a tool's own failure carry none.
func TestToolCallErrorKinds(t *testing.T) {
	writeCall := call("w1", "write", map[string]any{"path": "src/a.txt", "content": "one\n"})
	for _, tc := range []struct {
		name  string
		call  llm.ToolCall
		setup func(*fixture)
		want  string
	}{
		{"completed", call("r1", "read", map[string]any{"path": "README.md"}), nil, ""},
		{"tool failure", call("r1", "read", map[string]any{"path": "no/such/file"}), nil, ""},
		{"user denies", writeCall, func(f *fixture) {
			f.rec.onAsk = func(a *event.Approval) { _ = f.sess.Answer(a.ID, Answer{Decision: Deny}) }
		}, "approval_denied"},
		{"nobody to ask", writeCall, nil, "approval_denied"},
		{"interrupted", writeCall, func(f *fixture) {
			f.rec.onAsk = func(*event.Approval) { f.sess.Cancel() }
		}, "cancelled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, func(_ *config.Config, o *Options) { o.Prompter = tc.name != "nobody to ask" })
			if tc.setup != nil {
				tc.setup(f)
			}
			f.srv.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{tc.call}}, fakellm.Reply{Content: "done"})
			f.run(t, "go")
			f.sess.Wait()
			ends := f.rec.find(event.ToolCallEnd)
			if len(ends) != 1 {
				t.Fatalf("%d tool call ends", len(ends))
			}
			if got := ends[0].Tool.Error; got != tc.want {
				t.Errorf("error kind %q (status %s), want %q", got, ends[0].Tool.Status, tc.want)
			}
		})
	}
}

// TestMCPCallErrorKind: an MCP server that fails the call (a protocol
// error, not the tool's own error result) ends it with mcp_error.
func TestMCPCallErrorKind(t *testing.T) {
	s := sdk.NewServer(&sdk.Implementation{Name: "broken", Version: "1"}, nil)
	obj := json.RawMessage(`{"type":"object"}`)
	s.AddTool(&sdk.Tool{Name: "boom", InputSchema: obj, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return nil, errors.New("the server broke")
	})
	s.AddTool(&sdk.Tool{Name: "own", InputSchema: obj, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "bad input"}}}, nil
	})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(srv.Close)
	f := convFixture(t, func(c *config.Config) {
		c.Mode = "yolo"
		c.MCPServers = map[string]mcp.ServerConfig{"web": {URL: srv.URL, Trusted: true}}
		c.MCP.FirstTurnWait = "30s"
	})
	f.srv.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{call("m1", "web__boom", map[string]any{}), call("m2", "web__own", map[string]any{})}}, fakellm.Reply{Content: "done"})
	f.run(t, "go")
	kinds := map[string]string{}
	for _, e := range f.rec.find(event.ToolCallEnd) {
		kinds[e.Tool.CallID] = e.Tool.Status + "/" + e.Tool.Error
	}
	if kinds["m1"] != "failed/mcp_error" || kinds["m2"] != "failed/" {
		t.Errorf("ends %v: want the server's failure mcp_error, the tool's own error no kind", kinds)
	}
}

// TestCancelledErrors: a run or an inline edit whose context ends before
// the model answers returns ErrCancelled; a storage policy the session
// cannot apply is ErrStoragePolicy.
func TestCancelledErrors(t *testing.T) {
	f := newFixture(t, nil)
	cancelOnRequest := func() (context.Context, func()) {
		ctx, cancel := context.WithCancel(context.Background())
		f.srv.Enqueue(fakellm.Reply{Hang: true})
		go func() {
			for len(f.srv.Requests()) == 0 && ctx.Err() == nil {
				time.Sleep(time.Millisecond) // polls for the request
			}
			cancel()
		}()
		return ctx, cancel
	}
	ctx, cancel := cancelOnRequest()
	defer cancel()
	if err := f.sess.Run(ctx, "hang"); !errors.Is(err, ErrCancelled) {
		t.Errorf("Run = %v, want ErrCancelled", err)
	}
	f.srv.Reset()
	ctx, cancel = cancelOnRequest()
	defer cancel()
	req := RewriteRequest{Path: "a.txt", Filetype: "text", Instruction: "x", First: 1, Selection: []string{"one"}}
	if _, err := f.sess.Rewrite(ctx, req, nil); !errors.Is(err, ErrCancelled) {
		t.Errorf("Rewrite = %v, want ErrCancelled", err)
	}
	if _, _, err := f.sess.NewConversation(t.Context(), []command.Setting{{Key: "storage", Value: "forever"}}, ""); !errors.Is(err, ErrStoragePolicy) {
		t.Errorf("NewConversation storage=forever: %v, want ErrStoragePolicy", err)
	}
	if _, _, err := f.sess.openConversation(nil, ConversationSpec{Storage: "forever"}); !errors.Is(err, ErrStoragePolicy) {
		t.Errorf("a conversation stored forever: %v, want ErrStoragePolicy", err)
	}
}

// TestSandboxErrorKind: a confined command the sandbox refuses ends with
// sandbox_error. It needs the host binary (CODER_NVIM_BIN, `make build`)
// as the launcher and a kernel with Landlock.
func TestSandboxErrorKind(t *testing.T) {
	bin := os.Getenv("CODER_NVIM_BIN")
	if bin == "" {
		t.Skip("CODER_NVIM_BIN is not set")
	}
	// Temp dirs are writable in the sandbox: the write goes beside
	// TMPDIR, not under it.
	base := t.TempDir()
	tmp := filepath.Join(base, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	outside := filepath.Join(base, "escape")
	f := newFixture(t, func(c *config.Config, o *Options) {
		c.Mode = "yolo"
		o.Launcher = sandbox.Launcher(bin)
	})
	if st := f.sess.SandboxStatus(t.Context()); !strings.HasPrefix(st, "on ") {
		t.Skipf("no sandbox here: %s", st)
	}
	f.srv.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{
		call("b1", "bash", map[string]any{"command": "echo x > " + outside}),
		call("b2", "bash", map[string]any{"command": "exit 3"}),
	}}, fakellm.Reply{Content: "done"})
	f.run(t, "go")
	kinds := map[string]string{}
	for _, e := range f.rec.find(event.ToolCallEnd) {
		kinds[e.Tool.CallID] = e.Tool.Status + "/" + e.Tool.Error
	}
	if kinds["b1"] != "failed/sandbox_error" || kinds["b2"] != "failed/" {
		t.Errorf("ends %v: want the refused write sandbox_error, the plain failure no kind", kinds)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Error("the write outside the workspace landed")
	}
}
