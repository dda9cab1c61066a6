package agent

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/agent/command"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// TestRewrite: the inline edit is a session operation. The model gets the
// selection with its surroundings (cut to the limits) from the session's
// endpoint, under the root conversation's own model; its tokens are
// counted in the root's stats and reported as a TokenCount of a task of
// its own; its outcome is recorded like a / command result, never shown
// in the live chat and never in the history; hunks carry buffer line numbers and apply per
// choice.
func TestRewrite(t *testing.T) {
	f := newFixture(t, nil)
	if _, _, err := f.sess.SetConversationContext(t.Context(), "", []command.Setting{{Key: "model", Value: "inline-model"}}); err != nil {
		t.Fatal(err)
	}
	f.srv.Enqueue(fakellm.Reply{Content: "```\nONE\ntwo\nTHREE\n```", Usage: &llm.Usage{PromptTokens: 70, CompletionTokens: 7, TotalTokens: 77}})
	var before []string
	for i := range 100 {
		before = append(before, fmt.Sprintf("line %d", i+1))
	}
	req := RewriteRequest{Path: "a.txt", Filetype: "text", Instruction: "upper-case the odd lines", First: 101, Before: before, Selection: []string{"one", "two", "three"}, After: []string{"after"}}
	edit, err := f.sess.Rewrite(context.Background(), req, nil)
	if err != nil || strings.Join(edit.New, "|") != "ONE|two|THREE" {
		t.Fatalf("Rewrite = %q, %v", edit.New, err)
	}
	sent := f.srv.Requests()[0]
	if sent.Model != "inline-model" {
		t.Errorf("model %q, want the root conversation's inline-model", sent.Model)
	}
	msg := sent.Messages[1].Content
	if !strings.Contains(msg, "Instruction: upper-case the odd lines") || !strings.Contains(msg, "<selection lines=\"101-103\">\none\ntwo\nthree\n</selection>") ||
		strings.Contains(msg, "line 60\n") || !strings.Contains(msg, "line 61\n") || !strings.Contains(msg, "<after>\nafter\n</after>") {
		t.Errorf("request:\n%s", msg)
	}
	hunks := edit.Hunks()
	if len(hunks) != 2 || hunks[0].OldStart != 101 || hunks[1].OldStart != 103 {
		t.Fatalf("hunks %+v", hunks)
	}
	if out, err := edit.Apply([]bool{true, false}); err != nil || strings.Join(out, "|") != "ONE|two|three" {
		t.Errorf("Apply = %q, %v", out, err)
	}

	toks := f.rec.find(event.TokenCount)
	if len(toks) != 1 || toks[0].Task == "" || toks[0].Session != string(f.sess.ID()) || toks[0].Conversation == "" ||
		toks[0].Tokens.Prompt != 70 || toks[0].Tokens.Turn == nil || toks[0].Tokens.Turn.Calls != 1 || toks[0].Tokens.Turn.Out != 7 {
		t.Errorf("token events %+v", toks)
	}
	if st, _ := f.sess.ConversationStats(""); st.ModelCalls != 1 {
		t.Errorf("root stats: %d model calls, want 1", st.ModelCalls)
	}
	if outs := f.rec.find(event.CommandOutput); len(outs) != 0 {
		t.Errorf("the inline edit went into the chat: %+v", outs)
	}
	if cmds := f.sess.Commands(""); len(cmds) != 1 || !strings.HasPrefix(cmds[0].Input, "edit a.txt:101-103") || !strings.Contains(cmds[0].Output, "2 hunks") {
		t.Errorf("recorded commands %+v", cmds)
	}
	if h := f.sess.History(""); len(h) != 0 {
		t.Errorf("the inline edit entered the history: %+v", h)
	}

	// A refused request reaches no model.
	if _, err := f.sess.Rewrite(context.Background(), RewriteRequest{Instruction: "x", First: 1}, nil); err == nil || len(f.srv.Requests()) != 1 {
		t.Errorf("empty selection: %v, %d requests", err, len(f.srv.Requests()))
	}
}
