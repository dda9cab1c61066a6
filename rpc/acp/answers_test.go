package acp_test

// Clients that answer permission requests by option id (issue 48): avante
// maps a click by id, and an id other than allow/allow_once/allow_always
// is a rejection there; once "Allow Always" was clicked it answers every
// later request by itself with the allow_always option. And a client
// that answers allow_always to everything.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	sdk "github.com/coder/acp-go-sdk"
)

// wellKnown are the option ids clients know.
var wellKnown = map[sdk.PermissionOptionId]sdk.PermissionOptionKind{
	"allow_once":    sdk.PermissionOptionKindAllowOnce,
	"allow_always":  sdk.PermissionOptionKindAllowAlways,
	"reject_once":   sdk.PermissionOptionKindRejectOnce,
	"reject_always": sdk.PermissionOptionKindRejectAlways,
}

// checkIDs fails unless every option's id is the well-known id of its kind.
func checkIDs(t *testing.T, perms []sdk.RequestPermissionRequest) {
	t.Helper()
	for _, p := range perms {
		for _, o := range p.Options {
			if kind, ok := wellKnown[o.OptionId]; !ok || kind != o.Kind {
				t.Errorf("request %q: option %q (%s) has an id clients do not know for its kind", ptrText(p.ToolCall.Title), o.OptionId, o.Kind)
			}
		}
	}
}

func ptrText(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func hasKind(p sdk.RequestPermissionRequest, k sdk.PermissionOptionKind) bool {
	for _, o := range p.Options {
		if o.Kind == k {
			return true
		}
	}
	return false
}

// avante answers as avante.nvim's ACP client does (llm.lua
// on_request_permission, llm_tools/helpers.lua confirm): click names the
// option the user clicks, by name; an id other than allow, allow_once or
// allow_always is a rejection, sent as the reject_once option's id, and an
// allowed click sends the allow_once option's id; after one "always" every
// later request is answered at once with the allow_always option's id ("" when
// there is none).
type avante struct {
	mu        sync.Mutex
	alwaysYes bool
	click     func(req sdk.RequestPermissionRequest) string
}

func (a *avante) permit(_ context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	byKind := map[sdk.PermissionOptionKind]string{}
	for _, o := range req.Options {
		byKind[o.Kind] = string(o.OptionId)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.alwaysYes {
		return selectOption(byKind[sdk.PermissionOptionKindAllowAlways]), nil
	}
	name := a.click(req)
	id := ""
	for _, o := range req.Options {
		if o.Name == name {
			id = string(o.OptionId)
		}
	}
	switch id {
	case "allow", "allow_once", "allow_always":
		if id == "allow_always" {
			a.alwaysYes = true
			return selectOption(byKind[sdk.PermissionOptionKindAllowAlways]), nil
		}
		return selectOption(byKind[sdk.PermissionOptionKindAllowOnce]), nil
	}
	return selectOption(byKind[sdk.PermissionOptionKindRejectOnce]), nil
}

// TestAvantePlanApproval: avante approves a plan in auto-edit mode (the
// write that follows runs unasked) and keeps planning when the user says
// so; every option id is a well-known one.
func TestAvantePlanApproval(t *testing.T) {
	for _, tc := range []struct {
		name   string
		clicks []string // the option names clicked, in order
		mode   string   // the mode after the prompt
		wrote  bool
		perms  int
	}{
		{"auto-edit", []string{"Approve the plan", "Auto-edit: the plan's file edits run without asking"}, "auto-edit", true, 2},
		{"default", []string{"Approve the plan", "Default: ask before each edit", "Allow once"}, "default", true, 3},
		{"keep planning", []string{"Keep planning"}, "plan", false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, envOptions{})
			sid, _ := e.newSession()
			e.setMode(sid, "plan")
			n := 0
			av := &avante{click: func(req sdk.RequestPermissionRequest) string {
				if n >= len(tc.clicks) {
					t.Errorf("unexpected request %q", ptrText(req.ToolCall.Title))
					return "Reject"
				}
				n++
				return tc.clicks[n-1]
			}}
			e.client.permit = av.permit
			replies := []fakellm.Reply{{ToolCalls: []llm.ToolCall{call("call_p", "propose_plan", map[string]string{"plan": "1. Write done.txt", "summary": "write done.txt"})}}}
			if tc.wrote {
				replies = append(replies, fakellm.Reply{ToolCalls: []llm.ToolCall{call("call_w", "write", map[string]string{"path": "done.txt", "content": "x\n"})}})
			}
			e.llm.Enqueue(append(replies, fakellm.Reply{Content: "ok"})...)
			e.mustPrompt(sid, "plan it", sdk.StopReasonEndTurn)
			perms := e.client.permissions()
			checkIDs(t, perms)
			if len(perms) != tc.perms {
				t.Errorf("%d permission requests, want %d", len(perms), tc.perms)
			}
			if _, err := os.Stat(filepath.Join(e.root, "done.txt")); (err == nil) != tc.wrote {
				t.Errorf("done.txt written: %v, want %v", err == nil, tc.wrote)
			}
			mode := "plan"
			for _, u := range e.client.snapshot() {
				if m := u.Update.CurrentModeUpdate; m != nil {
					mode = string(m.CurrentModeId)
				}
			}
			if mode != tc.mode {
				t.Errorf("mode %s, want %s", mode, tc.mode)
			}
		})
	}
}

// TestAlwaysNotOfferedWhereUnsafe: a client that answers allow_always to
// every request. A plain write offers "always" and is remembered; a
// dangerous command and the plan offer no "always", and each is asked
// again with its own request: the always answer counts as once.
func TestAlwaysNotOfferedWhereUnsafe(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, f := range []string{"README.md", "main.py"} {
		if err := os.WriteFile(filepath.Join(e.root, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sid, _ := e.newSession()
	e.client.permit = func(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return selectOption("allow_always"), nil
	}
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("w1", "write", map[string]string{"path": "src/a.txt", "content": "a\n"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("w2", "write", map[string]string{"path": "src/b.txt", "content": "b\n"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("r1", "bash", map[string]string{"command": "rm -f README.md"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("r2", "bash", map[string]string{"command": "rm -f main.py"})}},
		fakellm.Reply{Content: "done"},
	)
	e.mustPrompt(sid, "go", sdk.StopReasonEndTurn)
	perms := e.client.permissions()
	checkIDs(t, perms)
	var titles []string
	for _, p := range perms {
		titles = append(titles, ptrText(p.ToolCall.Title))
	}
	if len(perms) != 3 {
		t.Fatalf("%d permission requests %q, want 3: the first write, and each rm -f on its own", len(perms), titles)
	}
	if !hasKind(perms[0], sdk.PermissionOptionKindAllowAlways) {
		t.Errorf("the plain write offers no allow_always: %+v", perms[0].Options)
	}
	for _, p := range perms[1:] {
		if hasKind(p, sdk.PermissionOptionKindAllowAlways) {
			t.Errorf("dangerous %q offers allow_always", ptrText(p.ToolCall.Title))
		}
	}

	// The plan: asked without "always"; then in auto-edit a dangerous
	// command is still asked.
	e.setMode(sid, "plan")
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("p", "propose_plan", map[string]string{"plan": "1. Remove x"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("r3", "bash", map[string]string{"command": "rm -f src/a.txt"})}},
		fakellm.Reply{Content: "done"},
	)
	e.mustPrompt(sid, "plan", sdk.StopReasonEndTurn)
	perms = e.client.permissions()[3:]
	checkIDs(t, perms)
	if len(perms) != 3 {
		t.Fatalf("%d permission requests after the plan, want 3 (the plan, its mode, the rm -f)", len(perms))
	}
	for _, p := range perms {
		if hasKind(p, sdk.PermissionOptionKindAllowAlways) {
			t.Errorf("%q offers allow_always", ptrText(p.ToolCall.Title))
		}
	}
}

// TestAvanteAlwaysContained: after the user clicks "Always allow" once,
// avante answers by itself with the allow_always option; a request without
// one gets an answer naming no option, which denies: `rm -f README.md`
// does not run unseen.
func TestAvanteAlwaysContained(t *testing.T) {
	e := newEnv(t, envOptions{})
	readme := filepath.Join(e.root, "README.md")
	if err := os.WriteFile(readme, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sid, _ := e.newSession()
	av := &avante{click: func(req sdk.RequestPermissionRequest) string {
		for _, o := range req.Options {
			if o.Kind == sdk.PermissionOptionKindAllowAlways {
				return o.Name
			}
		}
		t.Errorf("the first write offers no always: %+v", req.Options)
		return "Reject"
	}}
	e.client.permit = av.permit
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("w1", "write", map[string]string{"path": "src/a.txt", "content": "a\n"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("r1", "bash", map[string]string{"command": "rm -f README.md"})}},
		fakellm.Reply{Content: "done"},
	)
	e.mustPrompt(sid, "go", sdk.StopReasonEndTurn)
	if _, err := os.Stat(readme); err != nil {
		t.Errorf("README.md was deleted without the user's answer: %v", err)
	}
	if n := len(e.client.permissions()); n != 2 {
		t.Errorf("%d permission requests, want 2", n)
	}
	if msg, _ := toolMessage(e.llm.Requests()[2], "r1"); !strings.Contains(msg, "denied") {
		t.Errorf("rm -f result %q, want a denial", msg)
	}
}

// TestPlanVisible: the plan's text goes out as an agent message before its
// permission request (codecompanion shows neither the request's content
// nor plan updates), and the titles say what approving does.
func TestPlanVisible(t *testing.T) {
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	e.setMode(sid, "plan")
	e.client.permit = func(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return selectOption("reject_once"), nil
	}
	const plan = "1. Create planned.txt\n2. Fill it"
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("call_p", "propose_plan", map[string]string{"plan": plan, "summary": "create planned.txt"})}},
		fakellm.Reply{Content: "What should change?"},
	)
	e.mustPrompt(sid, "plan", sdk.StopReasonEndTurn)
	perms := e.client.permissions()
	if len(perms) != 1 {
		t.Fatalf("%d permission requests, want 1", len(perms))
	}
	// On the wire, the plan's text comes before its request.
	textAt, reqAt := -1, -1
	for i, line := range e.proc.output() {
		switch {
		case textAt < 0 && strings.Contains(line, `"agent_message_chunk"`) && strings.Contains(line, "Create planned.txt"):
			textAt = i
		case reqAt < 0 && strings.Contains(line, `"session/request_permission"`):
			reqAt = i
		}
	}
	if textAt < 0 || reqAt < 0 || textAt > reqAt {
		t.Errorf("the plan's text at line %d, its request at %d: want the text first", textAt, reqAt)
	}
	if text := agentText(e.client.snapshot()); !strings.Contains(text, plan) || !strings.Contains(text, "create planned.txt") {
		t.Errorf("agent text %q, want the plan", text)
	}
	if title := ptrText(perms[0].ToolCall.Title); !strings.Contains(title, "Approve the plan") || !strings.Contains(title, "create planned.txt") {
		t.Errorf("title %q does not say what approving does", title)
	}
}
