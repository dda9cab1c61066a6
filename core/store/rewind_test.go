package store

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/google/uuid"
)

// A /rewind in the journal (no snapshot holds it yet, as after a kill)
// cuts the root conversation on resume, keeps the cut part as a branch,
// and leaves the other conversations alone; under headers_only the branch
// keeps no text.
func TestResumeAppliesRewind(t *testing.T) {
	for _, tc := range []struct {
		policy   Policy
		wantText bool
	}{{PolicyFull, true}, {PolicyHeaders, false}} {
		t.Run(string(tc.policy)+"-", func(t *testing.T) {
			dir, id := filepath.Join(t.TempDir(), "sessions"), uuid.NewString()
			j := openJ(t, dir, id, tc.policy)
			user := func(s string) llm.Message { return llm.Message{Role: llm.RoleUser, Content: s} }
			said := func(s string) llm.Message { return llm.Message{Role: llm.RoleAssistant, Content: s} }
			appendAll(t, j,
				msgRec("", user("turn one")), msgRec("", said("done one")),
				msgRec("", user("turn two")), msgRec("", said("done two")),
				Record{Kind: KindConv, Conversation: &Conversation{ID: "c2"}},
				msgRec("c2", user("elsewhere")),
				Record{Kind: KindRewind, Branch: &Branch{Start: 3, Turns: []string{"t2"},
					Messages: []llm.Message{user("turn two"), said("done two")}}},
				msgRec("", user("turn three")),
			)
			snap, err := Resume(dir, id)
			if err != nil {
				t.Fatal(err)
			}
			var live []string
			for _, m := range snap.Messages {
				live = append(live, m.Content)
			}
			if got := strings.Join(live, "|"); len(live) != 3 || tc.wantText && got != "turn one|done one|turn three" {
				t.Errorf("live conversation %q", got)
			}
			if len(snap.Conversations) != 1 || len(snap.Conversations[0].Messages) != 1 {
				t.Errorf("other conversation touched: %+v", snap.Conversations)
			}
			if len(snap.Abandoned) != 1 || len(snap.Abandoned[0].Messages) != 2 {
				t.Fatalf("abandoned %+v", snap.Abandoned)
			}
			if got := snap.Abandoned[0].Messages[0].Content == "turn two"; got != tc.wantText {
				t.Errorf("abandoned text kept = %v, want %v (%q)", got, tc.wantText, snap.Abandoned[0].Messages[0].Content)
			}
		})
	}
}
