package acp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	sdk "github.com/coder/acp-go-sdk"
)

// TestLargePromptNeverCut: with a 16,000-token context window, a prompt
// larger than a request may hold is refused before any model call, with
// both sizes; one that fits is sent whole after the history is compacted
// (before, the model got its first 4,000 characters), and the notice
// says so.
func TestLargePromptNeverCut(t *testing.T) {
	cfgDir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cfgDir, "coder"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "coder", "config.json"), []byte(`{"context_window": 16000}`), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{env: []string{"XDG_CONFIG_HOME=" + cfgDir}})
	sid, _ := e.newSession()

	_, err := e.prompt(sid, strings.Repeat("too big ", 10000)) // ~20,000 tokens
	if requestCode(err) != -32602 || !strings.Contains(err.Error(), "tokens") || !strings.Contains(err.Error(), "16000-token context window") {
		t.Fatalf("oversized prompt: %v, want -32602 stating the sizes", err)
	}
	if n := len(e.llm.Requests()); n != 0 {
		t.Fatalf("%d model requests for a refused prompt", n)
	}

	e.llm.Enqueue(fakellm.Reply{Content: strings.Repeat("answer ", 3500)}) // ~6,000 tokens of history
	e.mustPrompt(sid, "first", sdk.StopReasonEndTurn)
	// ~5,000 tokens: the request passes the bound, and the prompt, over a
	// quarter of it, falls in the summarised part.
	big := strings.Repeat("x", 12000) + " END-OF-PROMPT " + strings.Repeat("y", 8000)
	e.llm.Enqueue(fakellm.Reply{Content: "summary"}, fakellm.Reply{Content: "ok"})
	before := len(e.client.snapshot())
	if resp, err := e.prompt(sid, big); err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("a large prompt that fits: %+v %v", resp, err)
	}
	reqs := e.llm.Requests()
	last := reqs[len(reqs)-1]
	whole := false
	for _, m := range last.Messages {
		if strings.Contains(m.Content, big) {
			whole = true
		}
	}
	if !whole {
		t.Errorf("the prompt was not sent whole (%d requests)", len(reqs))
		for _, m := range last.Messages {
			t.Logf("%s: %d bytes, %.80q", m.Role, len(m.Content), m.Content)
		}
	}
	if text := agentText(e.client.snapshot()[before:]); !strings.Contains(text, "compacted") || !strings.Contains(text, "sent whole") {
		t.Errorf("notices %q do not say the prompt went whole", text)
	}
}
