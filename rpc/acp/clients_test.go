package acp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	sdk "github.com/coder/acp-go-sdk"
)

// selectOf returns the select option id of opts, or nil.
func selectOf(opts []sdk.SessionConfigOption, id sdk.SessionConfigId) *sdk.SessionConfigOptionSelect {
	for _, o := range opts {
		if o.Select != nil && o.Select.Id == id {
			return o.Select
		}
	}
	return nil
}

func optionValues(s *sdk.SessionConfigOptionSelect) []string {
	var out []string
	if s != nil && s.Options.Ungrouped != nil {
		for _, o := range *s.Options.Ungrouped {
			out = append(out, string(o.Value))
		}
	}
	return out
}

func configUpdates(updates []sdk.SessionNotification) [][]sdk.SessionConfigOption {
	var out [][]sdk.SessionConfigOption
	for _, u := range updates {
		if c := u.Update.ConfigOptionUpdate; c != nil {
			out = append(out, c.ConfigOptions)
		}
	}
	return out
}

// TestConfigOptions: mode and model are advertised as config options on
// session/new and session/load, set with session/set_config_option
// (errors name the choices), and every change, by any route, is sent as
// config_option_update (and current_mode_update).
func TestConfigOptions(t *testing.T) {
	llmSrv := fakellm.New()
	t.Cleanup(llmSrv.Close)
	llmSrv.SetModels([]string{"model-a", "model-b"})
	e := newEnv(t, envOptions{llm: llmSrv})
	sid, resp := e.newSession()
	mode, model := selectOf(resp.ConfigOptions, sdk.SessionConfigId("mode")), selectOf(resp.ConfigOptions, sdk.SessionConfigId("model"))
	if mode == nil || mode.CurrentValue != "default" || mode.Category == nil || *mode.Category != sdk.SessionConfigOptionCategoryMode ||
		strings.Join(optionValues(mode), " ") != "plan default auto-edit yolo" {
		t.Fatalf("mode option = %+v", mode)
	}
	if model == nil || model.Category == nil || *model.Category != sdk.SessionConfigOptionCategoryModel ||
		!strings.Contains(strings.Join(optionValues(model), " "), "model-a model-b") {
		t.Fatalf("model option = %+v (values %v)", model, optionValues(model))
	}
	if resp.Modes == nil || resp.Modes.CurrentModeId != "default" {
		t.Errorf("legacy modes field lost: %+v", resp.Modes)
	}

	set := func(id, value string) (sdk.SetSessionConfigOptionResponse, error) {
		return e.conn.SetSessionConfigOption(ctxT(t), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
			SessionId: sid, ConfigId: sdk.SessionConfigId(id), Value: sdk.SessionConfigValueId(value)}})
	}
	r, err := set("mode", "plan")
	if err != nil || selectOf(r.ConfigOptions, sdk.SessionConfigId("mode")).CurrentValue != "plan" {
		t.Fatalf("set mode plan: %v %+v", err, r)
	}
	e.client.waitFor(t, "config_option_update for the mode", func() bool {
		ups := configUpdates(e.client.snapshot())
		return len(ups) > 0 && selectOf(ups[len(ups)-1], sdk.SessionConfigId("mode")).CurrentValue == "plan"
	})
	for _, bad := range [][2]string{{"mode", "turbo"}, {"colour", "red"}, {"model", "no-such-model"}} {
		_, err := set(bad[0], bad[1])
		if code := requestCode(err); code != -32602 {
			t.Errorf("set %s=%s: error %v (code %d), want invalid params", bad[0], bad[1], err, code)
		}
		if err != nil && bad[0] == "mode" && !strings.Contains(err.Error(), "plan, default, auto-edit, yolo") {
			t.Errorf("the error does not name the choices: %v", err)
		}
	}
	if _, err := set("model", "model-b"); err != nil {
		t.Fatal(err)
	}
	e.llm.Enqueue(fakellm.Reply{Content: "hi"})
	e.mustPrompt(sid, "hello", sdk.StopReasonEndTurn)
	if reqs := e.llm.Requests(); len(reqs) == 0 || reqs[len(reqs)-1].Model != "model-b" {
		t.Errorf("the chosen model was not used")
	}

	// /mode, the other route, is announced both ways.
	before := len(e.client.snapshot())
	e.mustPrompt(sid, "/mode auto-edit", sdk.StopReasonEndTurn)
	e.client.waitFor(t, "updates for /mode", func() bool {
		var cfg, cur bool
		for _, u := range e.client.snapshot()[before:] {
			if c := u.Update.ConfigOptionUpdate; c != nil && selectOf(c.ConfigOptions, sdk.SessionConfigId("mode")).CurrentValue == "auto-edit" {
				cfg = true
			}
			if m := u.Update.CurrentModeUpdate; m != nil && m.CurrentModeId == "auto-edit" {
				cur = true
			}
		}
		return cfg && cur
	})

	// session/load advertises them too.
	e2 := newEnv(t, envOptions{llm: llmSrv, root: e.root})
	e.proc.stop()
	lr, err := e2.conn.LoadSession(ctxT(t), sdk.LoadSessionRequest{SessionId: sid, Cwd: e.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if selectOf(lr.ConfigOptions, sdk.SessionConfigId("mode")) == nil || selectOf(lr.ConfigOptions, sdk.SessionConfigId("model")) == nil {
		t.Errorf("session/load: config options = %+v", lr.ConfigOptions)
	}
}

// TestPromptBlocksAndNotes: blocks stay apart, attached context does not
// make a task complex, and notes never arrive inside the answer.
func TestPromptBlocksAndNotes(t *testing.T) {
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	readme := filepath.Join(e.root, "README.md")
	long := strings.Repeat("This project does many things and this sentence repeats to make the file long. ", 60)
	if err := os.WriteFile(readme, []byte(long), 0o644); err != nil {
		t.Fatal(err)
	}
	e.llm.Enqueue(fakellm.Reply{Content: "It explains the project."})
	before := len(e.client.snapshot())
	_, err := e.conn.Prompt(ctxT(t), sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{
		sdk.TextBlock("Sharing the following file as context: " + readme),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file://" + readme, Text: long}}),
		sdk.TextBlock("Explain this file"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	reqs := e.llm.Requests()
	got := reqs[len(reqs)-1].Messages[len(reqs[len(reqs)-1].Messages)-1].Content
	if !strings.Contains(got, readme+"\n\nContext: `"+readme+"`\n\nExplain this file") {
		t.Errorf("blocks run together: %.300q", got)
	}
	if strings.Contains(got, "complex, multi-step task") {
		t.Errorf("attached context made the prompt a complex task")
	}
	answer := agentText(e.client.snapshot()[before:])
	if answer != "It explains the project." {
		t.Errorf("answer text = %q, want the model's words only", answer)
	}

	// avante sends the earlier prompts again with each one: only the
	// newest words decide whether a task is complex.
	e.llm.Enqueue(fakellm.Reply{Content: "Hi."})
	before = len(e.client.snapshot())
	e.mustPrompt(sid, "<previous_user_message>1. rename the loader 2. migrate the tests 3. update the docs 4. release</previous_user_message>\n\nthanks", sdk.StopReasonEndTurn)
	if m := lastUserMessage(e); strings.Contains(m, "complex, multi-step task") {
		t.Errorf("resent earlier prompts made the task complex: %.300q", m)
	}

	// A complex request: the model gets its note; the client sees neither
	// a notice nor a plan before the model writes one (issue 39, newcomer
	// run 6).
	e.llm.Enqueue(fakellm.Reply{Content: "Done."})
	before = len(e.client.snapshot())
	e.mustPrompt(sid, "1. rename the loader 2. migrate the tests 3. update the docs 4. release", sdk.StopReasonEndTurn)
	if m := lastUserMessage(e); !strings.Contains(m, "complex, multi-step task") {
		t.Errorf("the model did not get the complex task's note: %.300q", m)
	}
	for _, u := range e.client.snapshot()[before:] {
		if u.Update.Plan != nil || u.Update.AgentMessageChunk != nil && u.Update.AgentMessageChunk.Meta != nil {
			t.Errorf("a complex task was announced before the model wrote a plan: %+v", u.Update)
		}
	}

	// A notice during a turn (a nested AGENTS.md reached) is an agent
	// message of its own, marked, never a thought or inside the answer.
	if err := os.MkdirAll(filepath.Join(e.root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"AGENTS.md": "sub rules\n", "x.txt": "x\n"} {
		if err := os.WriteFile(filepath.Join(e.root, "sub", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e.llm.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{call("r1", "read", map[string]string{"path": "sub/x.txt"})}}, fakellm.Reply{Content: "Done."})
	before = len(e.client.snapshot())
	e.mustPrompt(sid, "read sub/x.txt", sdk.StopReasonEndTurn)
	var reply, notes, noteID string
	answerIDs := map[string]bool{}
	for _, u := range e.client.snapshot()[before:] {
		switch c := u.Update; {
		case c.AgentThoughtChunk != nil:
			t.Errorf("a note arrived as a thought: %q", c.AgentThoughtChunk.Content.Text.Text)
		case c.AgentMessageChunk != nil && c.AgentMessageChunk.Meta != nil:
			if c.AgentMessageChunk.MessageId == nil {
				t.Errorf("a notice shares the answer's message: no messageId")
			} else {
				noteID = *c.AgentMessageChunk.MessageId
			}
			notes += c.AgentMessageChunk.Content.Text.Text
		case c.AgentMessageChunk != nil:
			reply += c.AgentMessageChunk.Content.Text.Text
			if c.AgentMessageChunk.MessageId == nil {
				t.Errorf("an answer chunk has no messageId")
			} else {
				answerIDs[*c.AgentMessageChunk.MessageId] = true
			}
		}
	}
	if len(answerIDs) != 1 || answerIDs[noteID] {
		t.Errorf("the answer's message ids %v, want one, not the notice's %q", answerIDs, noteID)
	}
	if reply != "Done." {
		t.Errorf("answer text = %q: a note is inside it", reply)
	}
	if !strings.HasPrefix(notes, "Note: project instructions: sub/AGENTS.md") {
		t.Errorf("notices = %q, want the nested AGENTS.md's, marked", notes)
	}
}

// lastUserMessage is the user's message of the model's last request.
func lastUserMessage(e *env) string {
	reqs := e.llm.Requests()
	msgs := reqs[len(reqs)-1].Messages
	return msgs[len(msgs)-1].Content
}

// TestToolStatusAndTitles: a call that needs approval is pending until
// approved (its permission request agrees), then in progress, then
// completed; one that needs none starts in progress; titles read well when
// a client cuts them at the first colon.
func TestToolStatusAndTitles(t *testing.T) {
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	var statusAtAsk sdk.ToolCallStatus
	e.client.permit = func(_ context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		// The agent sends the tool call before asking, but the SDK may hand
		// the client the request before it has stored that notification:
		// wait for it (an error below if it never comes).
		announced := func() bool {
			for _, u := range e.client.snapshot() {
				if tc := u.Update.ToolCall; tc != nil && tc.ToolCallId == req.ToolCall.ToolCallId {
					return true
				}
			}
			return false
		}
		for deadline := time.Now().Add(minWait); !announced() && time.Now().Before(deadline); {
			select {
			case <-e.client.changed:
			case <-time.After(5 * time.Millisecond):
			}
		}
		for _, u := range e.client.snapshot() {
			if tc := u.Update.ToolCall; tc != nil && string(tc.ToolCallId) == string(req.ToolCall.ToolCallId) {
				statusAtAsk = tc.Status
			}
			if tu := u.Update.ToolCallUpdate; tu != nil && string(tu.ToolCallId) == string(req.ToolCall.ToolCallId) && tu.Status != nil {
				statusAtAsk = *tu.Status
			}
		}
		return selectOption("allow_once"), nil
	}
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("w", "write", map[string]any{"path": "hello.txt", "content": "hi\n"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("b", "bash", map[string]any{"command": "echo hi > out.txt"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("r", "read", map[string]any{"path": "hello.txt"})}},
		fakellm.Reply{Content: "done"},
	)
	e.mustPrompt(sid, "write hello", sdk.StopReasonEndTurn)
	if statusAtAsk != sdk.ToolCallStatusPending {
		t.Errorf("the write was %q when its permission was asked, want pending", statusAtAsk)
	}
	perms := e.client.permissions()
	if len(perms) < 2 || perms[0].ToolCall.Status == nil || *perms[0].ToolCall.Status != sdk.ToolCallStatusPending {
		t.Fatalf("permission requests = %+v", perms)
	}
	statuses := map[string][]sdk.ToolCallStatus{}
	titles := map[string]string{}
	for _, u := range e.client.snapshot() {
		if tc := u.Update.ToolCall; tc != nil {
			statuses[string(tc.ToolCallId)] = append(statuses[string(tc.ToolCallId)], tc.Status)
			titles[string(tc.ToolCallId)] = tc.Title
		}
		if tu := u.Update.ToolCallUpdate; tu != nil && tu.Status != nil {
			statuses[string(tu.ToolCallId)] = append(statuses[string(tu.ToolCallId)], *tu.Status)
		}
	}
	want := map[string]string{
		"w": "pending in_progress completed",
		"b": "pending in_progress completed",
		"r": "in_progress completed",
	}
	for id, w := range want {
		var got []string
		for _, s := range statuses[id] {
			got = append(got, string(s))
		}
		if strings.Join(got, " ") != w {
			t.Errorf("call %s statuses %v, want %s", id, got, w)
		}
	}
	if got := titles["b"]; got != "`echo hi > out.txt`" {
		t.Errorf("bash title = %q", got)
	}
	// The permission keeps the call's own title (clients keep it after
	// the call ends); the reason is in its content.
	if title := *perms[1].ToolCall.Title; title != "`echo hi > out.txt`" {
		t.Errorf("bash permission title = %q, want the call's own", title)
	}
	if text := contentText(perms[1].ToolCall.Content); !strings.Contains(text, "$ echo hi > out.txt") || !strings.Contains(text, "needs approval: ") {
		t.Errorf("bash permission content = %q, want the command and the reason", text)
	}
}

// TestRefusedCallTitle: a call refused before a tool titled it (a path
// outside the workspace, a tool plan mode does not offer) is titled from
// its arguments, with its path, not with the bare tool name.
func TestRefusedCallTitle(t *testing.T) {
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("r", "read", map[string]any{"path": "/etc/hostname"})}},
		fakellm.Reply{Content: "done"},
	)
	e.mustPrompt(sid, "read it", sdk.StopReasonEndTurn)
	calls := toolCalls(e.client.snapshot())
	if len(calls) != 1 || calls[0].Title != "read /etc/hostname" || len(calls[0].Locations) != 1 || calls[0].Locations[0].Path != "/etc/hostname" {
		t.Fatalf("refused call announced as %+v, want its title and path", calls)
	}
	if end := lastToolUpdate(e.client.snapshot(), "r"); end == nil || *end.Status != sdk.ToolCallStatusFailed {
		t.Errorf("refused call's end = %+v, want failed", end)
	}
}

// TestNoticeOnItsOwnLine: a notice after answer text that ended mid-line
// starts on a line of its own; codecompanion.nvim runs agent messages
// together whatever their messageId ("Done.Note: auto-verify …").
func TestNoticeOnItsOwnLine(t *testing.T) {
	e := newEnv(t, envOptions{})
	sid, _ := e.newSession()
	e.setMode(sid, "auto-edit")
	if err := os.WriteFile(filepath.Join(e.root, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("call_e", "edit", map[string]string{"path": "a.txt", "old_string": "one", "new_string": "ONE"})}},
		fakellm.Reply{Content: "Done."},
	)
	e.mustPrompt(sid, "edit a", sdk.StopReasonEndTurn)
	var text strings.Builder
	notices := 0
	for _, u := range e.client.snapshot() {
		c := u.Update.AgentMessageChunk
		if c == nil || c.Content.Text == nil {
			continue
		}
		if c.Meta != nil {
			notices++
		}
		text.WriteString(c.Content.Text.Text)
	}
	if notices == 0 {
		t.Fatalf("no notice after the edit (auto-verify's); text %q", text.String())
	}
	if got := text.String(); strings.Contains(got, "Done.Note:") || !strings.Contains(got, "Done.\n\nNote: ") {
		t.Errorf("the text as a client joins it = %q, want the notice on a line of its own after Done.", got)
	}
}
