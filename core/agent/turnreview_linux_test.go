package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/testrepo"
)

// Rejecting a hunk (turn review's `gr`) while a process swaps the file's
// directory d for a link to an outside directory the moment the revert
// opens the file: the file outside, of the same name, is not written; the
// refusal says why.
func TestReviewRevertNeverFollowsLinkSwappedAtOpen(t *testing.T) {
	f := yoloFixture(t, nil)
	writeFile(t, filepath.Join(f.root, ".gitignore"), ".coder\n*.swap\n")
	writeFile(t, filepath.Join(f.root, "d", "n.txt"), tenLines)
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "n.txt"), "outside\n")
	f.srv.SetScript(func(req fakellm.Request) fakellm.Reply {
		switch last := req.Messages[len(req.Messages)-1]; {
		case last.Role == llm.RoleUser && strings.HasPrefix(last.Content, "edit"):
			return fakellm.Reply{ToolCalls: []llm.ToolCall{call("e", "edit", map[string]any{"path": "d/n.txt", "old_string": "2\n", "new_string": "two\n"})}}
		}
		return fakellm.Reply{Content: "ok"}
	})
	f.run(t, "edit d/n.txt")
	ctx := context.Background()
	if rv, err := f.sess.ReviewTurn(ctx, 0); err != nil || len(rv.Hunks) != 1 {
		t.Fatalf("review %+v, %v", rv, err)
	}
	swapped := testrepo.SwapOnOpen(t, filepath.Join(f.root, "d", "n.txt"), filepath.Join(f.root, "d"), outside)
	_, err := f.sess.JudgeHunk(ctx, 1, 0, false, "")
	if !swapped() {
		t.Fatalf("the revert never opened d/n.txt; the test proves nothing (err %v)", err)
	}
	if got := read(t, filepath.Join(outside, "n.txt")); got != "outside\n" {
		t.Errorf("the revert wrote outside the workspace: %q", got)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Errorf("the revert left files outside: %v", ents)
	}
	// The swap follows the open asynchronously: either it came first and
	// the revert was refused, saying why, or the revert was written, in
	// the directory itself (now at d.swap), before it came.
	switch {
	case err == nil:
		if got := read(t, filepath.Join(f.root, "d.swap", "n.txt")); got != tenLines {
			t.Errorf("the revert went through but its file holds %q", got)
		}
	case !strings.Contains(err.Error(), "out of the workspace"):
		t.Errorf("the revert's refusal does not say why: %v", err)
	}
}
