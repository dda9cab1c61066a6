package acp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	sdk "github.com/coder/acp-go-sdk"
)

// TestPromptMentions: "@path" typed in a prompt's text is attached with
// the workspace's path rules (.coder/ refused); an "@path" inside an
// attached file's text attaches nothing.
func TestPromptMentions(t *testing.T) {
	e := newEnv(t, envOptions{})
	if err := os.WriteFile(filepath.Join(e.root, "notes.txt"), []byte("NOTE-LINE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sid, _ := e.newSession()
	e.llm.Enqueue(fakellm.Reply{Content: "Seen."})
	_, err := e.conn.Prompt(ctxT(t), sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{
		sdk.TextBlock("read @notes.txt and @.coder/config.json"),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file://" + filepath.Join(e.root, "a.md"), Text: "see @secret.txt\n"}}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	msgs := e.llm.Requests()[0].Messages
	got := msgs[len(msgs)-1].Content
	for _, want := range []string{"[context @notes.txt · txt · 1 line]\n```txt\nNOTE-LINE\n```", "[context @.coder/config.json · not attached: .coder/config.json is the agent's own"} {
		if !strings.Contains(got, want) {
			t.Errorf("the model got %q, want it to contain %q", got, want)
		}
	}
	if strings.Contains(got, "@secret.txt ·") {
		t.Errorf("a mention inside an attached file was resolved:\n%s", got)
	}
}

// TestPromptResourceLinks: a workspace file a client links
// (codecompanion's /file, avante's attachments) reaches the model with its
// contents, read through the client so an unsaved buffer wins; a linked
// .coder/ file is refused as an @ mention is; a file outside the workspace
// stays a name. A file codecompanion shares by name alone is attached too.
func TestPromptResourceLinks(t *testing.T) {
	e := newEnv(t, envOptions{fs: true})
	file := filepath.Join(e.root, "main.go")
	if err := os.WriteFile(file, []byte("package disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(e.root, "shared.txt")
	if err := os.WriteFile(shared, []byte("SHARED-TEXT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("OUTSIDE-SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.client.mu.Lock()
	e.client.buffers[file] = "package unsaved\n"
	e.client.mu.Unlock()
	sid, _ := e.newSession()
	e.llm.Enqueue(fakellm.Reply{Content: "Seen."})
	_, err := e.conn.Prompt(ctxT(t), sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{
		sdk.ResourceLinkBlock("main.go", "file://"+file),
		sdk.ResourceLinkBlock("config.json", "file://"+filepath.Join(e.root, ".coder", "config.json")),
		sdk.ResourceLinkBlock("secret.txt", "file://"+outside),
		sdk.TextBlock("Sharing the following file as context: " + shared), // codecompanion's /file
		sdk.TextBlock("explain these, and @main.go"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	msgs := e.llm.Requests()[0].Messages
	got := msgs[len(msgs)-1].Content
	for _, want := range []string{"[context @main.go · go · 1 line]\n```go\npackage unsaved\n```", "config.json · not attached: ", "Context: `" + outside + "`", "[context @shared.txt · txt · 1 line]\n```txt\nSHARED-TEXT\n```"} {
		if !strings.Contains(got, want) {
			t.Errorf("the model got %q, want it to contain %q", got, want)
		}
	}
	if strings.Contains(got, "OUTSIDE-SECRET") || strings.Contains(got, "package disk") {
		t.Errorf("the model got a file it should not have:\n%s", got)
	}
	if n := strings.Count(got, "[context @main.go "); n != 1 {
		t.Errorf("main.go, linked and mentioned, was attached %d times:\n%s", n, got)
	}
	// The shared file's line is context, not the user's words: "explain
	// these" is no complex task.
	if strings.Contains(got, "complex, multi-step task") {
		t.Errorf("attached files made the prompt a complex task:\n%s", got)
	}
}
