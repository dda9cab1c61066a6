package agent

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/policy"
)

const testPlan = "# Plan\n\n1. Write a.txt\n2. Check it\n"

func lastContent(req fakellm.Request) string {
	return req.Messages[len(req.Messages)-1].Content
}

func TestPlanToolOfferedInPlanModeOnly(t *testing.T) {
	for _, mode := range policy.Modes {
		t.Run(string(mode), func(t *testing.T) {
			f := newFixture(t, func(c *config.Config, _ *Options) { c.Mode = string(mode) })
			f.srv.Enqueue(fakellm.Reply{Content: "ok"})
			f.run(t, "hi")
			names := toolNames(f.srv.Requests()[0].Tools)
			plan := mode == policy.ModePlan
			if slices.Contains(names, policy.PlanTool) != plan {
				t.Errorf("%s offers %v: propose_plan offered = %v, want %v", mode, names, !plan, plan)
			}
			if plan && (slices.Contains(names, "write") || slices.Contains(names, "patch")) {
				t.Errorf("plan mode offers a write tool: %v", names)
			}
		})
	}
}

// TestPlanHandOff drives each answer to a plan through a whole turn: what
// the model is told (one tool message), the mode after it, whether the
// next write asks, and the todo list.
func TestPlanHandOff(t *testing.T) {
	edited := testPlan + "3. Also b.txt\n"
	tests := []struct {
		name     string
		answer   Answer
		prompter bool
		mode     policy.Mode
		requests int    // model calls in the turn
		told     string // in the tool message of the plan
		written  bool   // the write after the plan ran
		asks     int    // approval requests, the plan's included
		todos    int
	}{
		{name: "approve auto-edit, edited", answer: Answer{Decision: PlanAutoEdit, Plan: edited}, prompter: true, mode: policy.ModeAutoEdit, requests: 3, told: "approved the plan (as the user edited it) and switched to auto-edit mode", written: true, asks: 1, todos: 3},
		{name: "approve, edits ask", answer: Answer{Decision: PlanApprove}, prompter: true, mode: policy.ModeDefault, requests: 3, told: "switched to default mode", written: false, asks: 2, todos: 2},
		{name: "keep planning", answer: Answer{Decision: PlanRevise, Comment: "use b.txt instead"}, prompter: true, mode: policy.ModePlan, requests: 3, told: "keep planning: use b.txt instead", asks: 1},
		{name: "cancel", answer: Answer{Decision: Deny}, prompter: true, mode: policy.ModePlan, requests: 1, told: "cancelled the plan", asks: 1},
		{name: "nobody to ask", prompter: false, mode: policy.ModePlan, requests: 1, told: "Nobody can approve it here"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, func(c *config.Config, o *Options) {
				c.Mode = "plan"
				o.Prompter = tt.prompter
				o.AllowAsks = !tt.prompter // exec --yes never approves a plan
			})
			f.rec.onAsk = func(a *event.Approval) {
				ans := tt.answer
				if a.Plan == nil {
					ans = Answer{Decision: Deny}
				}
				if err := f.sess.Answer(a.ID, ans); err != nil {
					t.Error(err)
				}
			}
			f.srv.Enqueue(
				fakellm.Reply{ToolCalls: []llm.ToolCall{call("p1", policy.PlanTool, map[string]any{"plan": testPlan, "summary": "write a"})}},
				fakellm.Reply{ToolCalls: []llm.ToolCall{call("w1", "write", map[string]any{"path": "a.txt", "content": "a\n"})}},
				fakellm.Reply{Content: "done"},
			)
			f.run(t, "plan it")
			reqs := f.srv.Requests()
			if len(reqs) != tt.requests {
				t.Fatalf("%d model calls, want %d", len(reqs), tt.requests)
			}
			msgs := f.sess.History("")
			checkPairs(t, msgs)
			var told string
			for _, m := range msgs {
				if m.Role == llm.RoleTool && m.ToolCallID == "p1" {
					told += m.Content
				}
			}
			if !strings.Contains(told, tt.told) {
				t.Errorf("the model was told %q, want %q in it", told, tt.told)
			}
			if tt.answer.Plan != "" && !strings.Contains(told, "3. Also b.txt") {
				t.Errorf("the user's edit did not reach the model: %q", told)
			}
			if got := f.sess.Mode(); got != tt.mode {
				t.Errorf("mode %s, want %s", got, tt.mode)
			}
			if _, err := os.Stat(filepath.Join(f.root, "a.txt")); (err == nil) != tt.written {
				t.Errorf("a.txt written = %v, want %v", err == nil, tt.written)
			}
			asks := f.rec.find(event.ApprovalRequested)
			if len(asks) != tt.asks {
				t.Errorf("%d approval requests, want %d", len(asks), tt.asks)
			}
			if len(asks) > 0 && (asks[0].Approval.Plan == nil || asks[0].Approval.Plan.Text != strings.TrimSpace(testPlan) || asks[0].Approval.CallID != "p1") {
				t.Errorf("plan request = %+v", asks[0].Approval)
			}
			if got := len(f.sess.Todos()); got != tt.todos {
				t.Errorf("%d todos, want %d: %+v", got, tt.todos, f.sess.Todos())
			}
		})
	}
}

// TestPlanRevisedShowsPrevious: after "keep planning" the next proposal
// carries the one it revises; a first proposal carries none.
func TestPlanRevisedShowsPrevious(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) { c.Mode = "plan" })
	answers := []Answer{{Decision: PlanRevise, Comment: "shorter"}, {Decision: Deny}}
	f.rec.onAsk = func(a *event.Approval) {
		n := len(f.rec.find(event.ApprovalRequested)) - 1
		if err := f.sess.Answer(a.ID, answers[n]); err != nil {
			t.Error(err)
		}
	}
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("p1", policy.PlanTool, map[string]any{"plan": "1. one\n2. two"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("p2", policy.PlanTool, map[string]any{"plan": "1. one"})}},
	)
	f.run(t, "plan it")
	asks := f.rec.find(event.ApprovalRequested)
	if len(asks) != 2 {
		t.Fatalf("%d plan requests, want 2", len(asks))
	}
	if p := asks[0].Approval.Plan.Previous; p != "" {
		t.Errorf("first proposal has a previous plan %q", p)
	}
	if p := asks[1].Approval.Plan.Previous; p != "1. one\n2. two" {
		t.Errorf("revised proposal's previous plan = %q", p)
	}
	if got := lastContent(f.srv.Requests()[1]); !strings.HasPrefix(got, "keep planning: shorter") {
		t.Errorf("comment not sent: %q", got)
	}
}

// TestPlanEndsItsStep: a call made beside the plan, before the user's
// answer, does not run in the mode that answer chose.
func TestPlanEndsItsStep(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) { c.Mode = "plan" })
	f.rec.onAsk = func(a *event.Approval) { _ = f.sess.Answer(a.ID, Answer{Decision: PlanAutoEdit}) }
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{
			call("p1", policy.PlanTool, map[string]any{"plan": "1. write a"}),
			call("w1", "write", map[string]any{"path": "a.txt", "content": "a\n"}),
		}},
		fakellm.Reply{Content: "done"},
	)
	f.run(t, "plan it")
	if _, err := os.Stat(filepath.Join(f.root, "a.txt")); err == nil {
		t.Error("the write made beside the plan ran")
	}
	msgs := f.sess.History("")
	checkPairs(t, msgs)
	if got := msgs[len(msgs)-2].Content; !strings.Contains(got, "not run: the plan hand-off") {
		t.Errorf("skipped call told %q", got)
	}
}

// TestPlanAnswerDoesNotApproveCalls: a plan's answer sent for a tool
// call's request (a confused or hostile client) denies the call.
func TestPlanAnswerDoesNotApproveCalls(t *testing.T) {
	for _, d := range []Decision{PlanApprove, PlanAutoEdit, PlanRevise} {
		t.Run(string(d), func(t *testing.T) {
			f := newFixture(t, nil)
			f.rec.onAsk = func(a *event.Approval) { _ = f.sess.Answer(a.ID, Answer{Decision: d}) }
			f.srv.Enqueue(
				fakellm.Reply{ToolCalls: []llm.ToolCall{call("w1", "write", map[string]any{"path": "a.txt", "content": "a\n"})}},
				fakellm.Reply{Content: "done"},
			)
			f.run(t, "write")
			if _, err := os.Stat(filepath.Join(f.root, "a.txt")); err == nil {
				t.Errorf("a %s answer approved a write", d)
			}
			if f.sess.Mode() != policy.ModeDefault {
				t.Errorf("mode changed to %s", f.sess.Mode())
			}
		})
	}
}

func TestPlanArguments(t *testing.T) {
	for _, raw := range []string{`{}`, `{"plan":"  "}`, `{"plan":"x","mode":"yolo"}`, `{"plan":` + `"` + strings.Repeat("x", maxPlanBytes+1) + `"}`} {
		if _, err := parsePlanArgs([]byte(raw)); err == nil {
			t.Errorf("%.40s: accepted", raw)
		}
	}
	if a, err := parsePlanArgs([]byte(`{"plan":" 1. x\n","summary":"s"}`)); err != nil || a.Plan != "1. x" || a.Summary != "s" {
		t.Errorf("got %+v, %v", a, err)
	}
}

// TestPlanApprovalResumesNoWider: the mode an approval chose is what the
// session saves; resumed under a wider configured mode it stays there.
func TestPlanApprovalResumesNoWider(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) { c.Mode = "plan" })
	f.rec.onAsk = func(a *event.Approval) { _ = f.sess.Answer(a.ID, Answer{Decision: PlanApprove}) }
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("p1", policy.PlanTool, map[string]any{"plan": "1. x"})}},
		fakellm.Reply{Content: "done"},
	)
	f.run(t, "plan it")
	f.sess.Close()
	opts := f.sess.opts
	opts.Config.Mode = "yolo"
	again := mustResume(t, opts, f.sess.ID())
	if got := again.Mode(); got != policy.ModeDefault {
		t.Errorf("resumed in %s, want default (what the approval chose)", got)
	}
}

// TestPlanInterrupted: an interrupt while the plan waits ends the turn in
// plan mode, the call with its one tool message.
func TestPlanInterrupted(t *testing.T) {
	f := newFixture(t, func(c *config.Config, _ *Options) { c.Mode = "plan" })
	f.rec.onAsk = func(*event.Approval) { f.sess.Cancel() }
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("p1", policy.PlanTool, map[string]any{"plan": "1. x"})}},
		fakellm.Reply{Content: "not reached"},
	)
	f.run(t, "plan it")
	f.sess.Wait()
	msgs := f.sess.History("")
	checkPairs(t, msgs)
	if got := msgs[len(msgs)-1].Content; !strings.Contains(got, "not answered") || !strings.Contains(got, "aborted") {
		t.Errorf("tool message %q", got)
	}
	if f.sess.Mode() != policy.ModePlan || len(f.srv.Requests()) != 1 {
		t.Errorf("mode %s after %d model calls, want plan after 1", f.sess.Mode(), len(f.srv.Requests()))
	}
	if len(f.rec.find(event.TurnAborted)) != 1 {
		t.Errorf("events %v, want the turn aborted", f.rec.kinds())
	}
}
