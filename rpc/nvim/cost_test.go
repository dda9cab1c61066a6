package nvimhost

import (
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// TestStatusShowsCost: with a price for the model in the user's config,
// the status line shows what the last turn cost, not only its tokens.
func TestStatusShowsCost(t *testing.T) {
	e := newEditor(t, editorOpts{userConfig: `{"model": "m1", "prices": {"m1": {"input": 1, "output": 10}}}`})
	e.start()
	e.llm.Enqueue(fakellm.Reply{Content: "done", Usage: &llm.Usage{PromptTokens: 1000, CompletionTokens: 100, TotalTokens: 1100}})
	e.run("Coder hello")
	// $1 and $10 per million tokens: 1000 in and 100 out cost $0.002.
	if st := e.statusLine(); !strings.Contains(st, "$0.0020") {
		t.Errorf("status line %q shows no cost", st)
	}
}
