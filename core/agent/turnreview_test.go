package agent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

const tenLines = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"

// tenLinesCommitted commits n.txt with tenLines in f's workspace.
func tenLinesCommitted(t *testing.T, f *fixture) {
	t.Helper()
	writeFile(t, filepath.Join(f.root, ".gitignore"), ".coder\n")
	writeFile(t, filepath.Join(f.root, "n.txt"), tenLines)
	if out, err := exec.Command("git", "-C", f.root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "x", "--allow-empty").CombinedOutput(); err != nil {
		t.Logf("commit: %v %s", err, out)
	}
}

// editsN answers "edit…" by reading n.txt, then writing it as content.
func editsN(content string) func(fakellm.Request) fakellm.Reply {
	return func(req fakellm.Request) fakellm.Reply {
		switch last := req.Messages[len(req.Messages)-1]; {
		case last.Role == llm.RoleUser && strings.HasPrefix(last.Content, "edit"):
			return fakellm.Reply{ToolCalls: []llm.ToolCall{call("r", "read", map[string]any{"path": "n.txt"})}}
		case last.Role == llm.RoleTool && last.ToolCallID == "r":
			return fakellm.Reply{ToolCalls: []llm.ToolCall{call("w", "write", map[string]any{"path": "n.txt", "content": content})}}
		}
		return fakellm.Reply{Content: "ok"}
	}
}

// A turn changes two separate lines of a committed file: the review shows
// two hunks; rejecting the first reverts it in the file and keeps the
// second; the next request tells the model with the reason.
func TestReviewRejectsOneHunk(t *testing.T) {
	f := yoloFixture(t, nil)
	tenLinesCommitted(t, f)
	f.srv.SetScript(editsN(strings.Replace(strings.Replace(tenLines, "2\n", "two\n", 1), "9\n", "nine\n", 1)))
	f.run(t, "edit n.txt")
	ctx := context.Background()
	rv, err := f.sess.ReviewTurn(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rv.N != 1 || len(rv.Hunks) != 2 || rv.Hunks[0].Line != 2 || rv.Hunks[1].Line != 9 {
		t.Fatalf("review %+v", rv)
	}
	if _, err := f.sess.JudgeHunk(ctx, 1, 0, false, "keep the digits"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(f.root, "n.txt")); got != strings.Replace(tenLines, "9\n", "nine\n", 1) {
		t.Errorf("after rejecting hunk 1: %q", got)
	}
	rv, err = f.sess.JudgeHunk(ctx, 1, 1, true, "")
	if err != nil {
		t.Fatal(err)
	}
	if rv.Hunks[0].Verdict != "rejected" || rv.Hunks[0].Reason != "keep the digits" || rv.Hunks[1].Verdict != "kept" {
		t.Errorf("verdicts %+v", rv.Hunks)
	}
	if _, err := f.sess.JudgeHunk(ctx, 1, 0, true, ""); err == nil {
		t.Error("a hunk was judged twice")
	}
	f.srv.ForgetRequests()
	f.run(t, "next")
	msgs := f.srv.Requests()[0].Messages
	last := msgs[len(msgs)-1].Content
	if !strings.Contains(last, "[review]") || !strings.Contains(last, "keep the digits") || !strings.Contains(last, "n.txt at line 2") {
		t.Errorf("the next message does not tell the model: %q", last)
	}
	// Told once.
	f.srv.ForgetRequests()
	f.run(t, "again")
	msgs = f.srv.Requests()[0].Messages
	if strings.Contains(msgs[len(msgs)-1].Content, "[review]") {
		t.Error("the review note was sent twice")
	}

	// The verdicts are kept in the session: a resumed one shows them.
	f.sess.Close()
	again := mustResume(t, f.sess.opts, f.sess.ID())
	if rv, err := again.ReviewTurn(ctx, 1); err != nil || rv.Hunks[0].Verdict != "rejected" || rv.Hunks[0].Reason != "keep the digits" || rv.Hunks[1].Verdict != "kept" {
		t.Errorf("resumed review %+v, %v", rv, err)
	}
	again.Close()
}

// A file edited after the turn is not overwritten by a rejection.
func TestReviewRefusesFileChangedSince(t *testing.T) {
	f := yoloFixture(t, nil)
	writeFile(t, filepath.Join(f.root, ".gitignore"), ".coder\n")
	f.srv.SetScript(writesPerTurn(map[string][]string{"turn one": {"one.txt"}}))
	f.run(t, "turn one")
	writeFile(t, filepath.Join(f.root, "one.txt"), "the user's\n")
	if _, err := f.sess.JudgeHunk(context.Background(), 1, 0, false, ""); err == nil {
		t.Error("rejecting a hunk overwrote a file changed since")
	}
	if got, _ := os.ReadFile(filepath.Join(f.root, "one.txt")); string(got) != "the user's\n" {
		t.Errorf("one.txt = %q", got)
	}
}

// /rewind and review rejections agree with the files: a rejection of a
// turn before the rewind point stays (its file stays reverted) and the
// model is told again when the message that told it was cut; one of a
// rewound turn goes with that turn's change (issue 52, newcomer 4).
func TestRewindKeepsEarlierRejections(t *testing.T) {
	f := yoloFixture(t, nil)
	tenLinesCommitted(t, f)
	f.srv.SetScript(func(req fakellm.Request) fakellm.Reply {
		switch last := req.Messages[len(req.Messages)-1]; {
		case last.Role == llm.RoleUser && strings.HasPrefix(last.Content, "edit n.txt"):
			return fakellm.Reply{ToolCalls: []llm.ToolCall{call("r1", "read", map[string]any{"path": "n.txt"})}}
		case last.Role == llm.RoleTool && last.ToolCallID == "r1":
			return fakellm.Reply{ToolCalls: []llm.ToolCall{call("w1", "write", map[string]any{"path": "n.txt", "content": strings.Replace(strings.Replace(tenLines, "2\n", "two\n", 1), "9\n", "nine\n", 1)})}}
		case last.Role == llm.RoleUser && strings.HasPrefix(last.Content, "write m.txt"):
			return fakellm.Reply{ToolCalls: []llm.ToolCall{call("w2", "write", map[string]any{"path": "m.txt", "content": "m\n"})}}
		}
		return fakellm.Reply{Content: "ok"}
	})
	ctx := context.Background()
	f.run(t, "edit n.txt")
	if _, err := f.sess.JudgeHunk(ctx, 1, 0, false, "keep the digits"); err != nil {
		t.Fatal(err)
	}
	f.run(t, "write m.txt") // carries the note on turn 1
	if _, err := f.sess.JudgeHunk(ctx, 2, 0, false, "no m file"); err != nil {
		t.Fatal(err)
	}
	f.run(t, "/rewind 2")
	f.srv.ForgetRequests()
	f.run(t, "after")
	msgs := f.srv.Requests()[0].Messages
	last := msgs[len(msgs)-1].Content
	if !strings.Contains(last, "[review]") || !strings.Contains(last, "keep the digits") {
		t.Errorf("after /rewind the model is not told again of the turn-1 rejection: %q", last)
	}
	if strings.Contains(last, "no m file") {
		t.Errorf("the rejection of the rewound turn is still told: %q", last)
	}
	if got := read(t, filepath.Join(f.root, "n.txt")); got != strings.Replace(tenLines, "9\n", "nine\n", 1) {
		t.Errorf("n.txt after /rewind = %q, want the turn-1 rejection kept", got)
	}
	if _, err := os.Stat(filepath.Join(f.root, "m.txt")); !os.IsNotExist(err) {
		t.Errorf("m.txt survived /rewind 2: %v", err)
	}
	for _, m := range msgs {
		if n := strings.Count(m.Content, "keep the digits"); n > 1 || n == 1 && m.Content != last {
			t.Errorf("the rejection is told twice: %q", m.Content)
		}
	}
}

// The turn's summary names the files its review lists: a file the turn
// created and deleted again is in neither (issue 52, newcomer 7).
func TestTurnSummaryAgreesWithReview(t *testing.T) {
	f := yoloFixture(t, nil)
	writeFile(t, filepath.Join(f.root, ".gitignore"), ".coder\n")
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{
			call("w1", "write", map[string]any{"path": "calc.go", "content": "package calc\n"}),
			call("w2", "write", map[string]any{"path": "tmpdir/tmpfile", "content": "scratch\n"}),
		}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("b", "bash", map[string]any{"command": "rm -r tmpdir"})}},
		fakellm.Reply{Content: "done"},
	)
	f.run(t, "write calc.go")
	if _, err := os.Stat(filepath.Join(f.root, "tmpdir")); !os.IsNotExist(err) {
		t.Fatalf("tmpdir is still there: %v", err)
	}
	var paths []string
	for _, ev := range f.rec.events {
		if ev.Turn != nil {
			paths = ev.Turn.Paths
		}
	}
	rv, err := f.sess.ReviewTurn(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	var reviewed []string
	for _, h := range rv.Hunks {
		reviewed = append(reviewed, h.Path)
	}
	if strings.Join(paths, ",") != "calc.go" || strings.Join(reviewed, ",") != "calc.go" {
		t.Errorf("summary names %v, review lists %v; want calc.go in both", paths, reviewed)
	}
}

// A rejection's note survives a restart before the next message: the
// resumed session tells the model once, and a later resume not again.
func TestRejectionToldAfterRestart(t *testing.T) {
	f := yoloFixture(t, nil)
	tenLinesCommitted(t, f)
	f.srv.SetScript(editsN(strings.Replace(tenLines, "2\n", "two\n", 1)))
	f.run(t, "edit n.txt")
	ctx := context.Background()
	if _, err := f.sess.JudgeHunk(ctx, 1, 0, false, "keep the digits"); err != nil {
		t.Fatal(err)
	}
	f.sess.Close() // the host goes before the next message
	lastUser := func(s *Session, input string) string {
		t.Helper()
		f.srv.ForgetRequests()
		if _, err := s.Submit(input); err != nil {
			t.Fatal(err)
		}
		s.Wait()
		reqs := f.srv.Requests()
		if len(reqs) == 0 {
			t.Fatalf("%q reached no model", input)
		}
		msgs := reqs[0].Messages
		return msgs[len(msgs)-1].Content
	}
	again := mustResume(t, f.sess.opts, f.sess.ID())
	if last := lastUser(again, "next"); !strings.Contains(last, "[review]") || !strings.Contains(last, "Reason: keep the digits") || !strings.Contains(last, "n.txt at line 2") {
		t.Errorf("after a restart the model is not told of the rejection: %q", last)
	}
	again.Close()
	third := mustResume(t, f.sess.opts, f.sess.ID())
	if last := lastUser(third, "more"); strings.Contains(last, "[review]") {
		t.Errorf("the rejection is told again after a second restart: %q", last)
	}
}
