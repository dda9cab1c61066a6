package cli

import (
	"bytes"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/event"
)

func TestPrinter(t *testing.T) {
	tests := []struct {
		name          string
		demo          bool
		events        []event.Event
		out, err, why string
	}{
		{
			name: "answer with reasoning and a tool",
			events: []event.Event{
				{Kind: event.AgentReasoningDelta, Text: "think"},
				{Kind: event.AgentMessageDelta, Text: "Hel"},
				{Kind: event.AgentMessageDelta, Text: "lo"},
				{Kind: event.ToolCallEnd, Tool: &event.Tool{Name: "read", Title: "read a.go", Status: "completed", Summary: "3 lines", DurationMS: 2}},
				{Kind: event.AgentMessageDelta, Text: "Done."},
				{Kind: event.TaskComplete, Reason: event.StopEndTurn},
			},
			out: "Hello\nDone.\n",
			err: "thinking: think\n● read a.go — completed: 3 lines (2 ms)\n",
		},
		{
			name: "streamed bash output: nothing on stdout, one stderr line for the call",
			events: []event.Event{
				{Kind: event.AgentMessageDelta, Text: "Running"},
				{Kind: event.ToolCallBegin, Tool: &event.Tool{CallID: "b", Name: "bash", Title: "bash: make"}},
				{Kind: event.ToolOutputDelta, Tool: &event.Tool{CallID: "b", Name: "bash"}, Text: "cc a.c\n"},
				{Kind: event.ToolOutputDelta, Tool: &event.Tool{CallID: "b", Name: "bash"}, Text: "partial", Reason: event.ReasonOutputLimit},
				{Kind: event.ToolCallEnd, Tool: &event.Tool{CallID: "b", Name: "bash", Title: "bash: make", Status: "completed", Summary: "exit 0 (1.2s)", Output: "cc a.c\npartial\n[exit code 0]"}},
				{Kind: event.TaskComplete, Reason: event.StopEndTurn},
			},
			out: "Running\n",
			err: "● bash: make — completed: exit 0 (1.2 s)\n",
		},
		{
			name: "denied tool: status not repeated",
			events: []event.Event{
				{Kind: event.ToolCallEnd, Tool: &event.Tool{Name: "write", Title: "write x", Status: "denied", Summary: "denied: needs approval"}},
			},
			err: "● write x — denied: needs approval (0 ms)\n",
		},
		{
			name:   "error then abort",
			events: []event.Event{{Kind: event.Error, Text: "provider: boom"}, {Kind: event.TurnAborted, Reason: event.ReasonError}},
			err:    "error: provider: boom\n",
			why:    "provider: boom",
		},
		{
			name:   "interrupt",
			events: []event.Event{{Kind: event.AgentMessageDelta, Text: "part"}, {Kind: event.TurnAborted, Reason: event.ReasonInterrupted}},
			out:    "part\n",
			why:    "interrupted",
		},
		{
			name: "hand-over and return: one line each, the sub-conversation's text stays off stdout",
			events: []event.Event{
				{Kind: event.AgentMessageDelta, Text: "Asking."},
				{Kind: event.TurnAborted, Reason: event.ReasonReplaced, Conversation: "root0000-1"},
				{Kind: event.HandOver, Conversation: "root0000-1", Target: "sub00000-2", Tool: &event.Tool{Name: "conv_send"}},
				{Kind: event.AgentMessageDelta, Text: "sub text", Conversation: "sub00000-2"},
				{Kind: event.ToolCallEnd, Tool: &event.Tool{Name: "ls", Title: "ls", Status: "completed", Summary: "2 entries"}},
				{Kind: event.Error, Text: "sub failed"},
				{Kind: event.TaskComplete, Conversation: "sub00000-2"},
				{Kind: event.HandBack, Conversation: "root0000-1", Target: "sub00000-2", Tool: &event.Tool{Name: "conv_send"}},
				{Kind: event.AgentMessageDelta, Text: "Done."},
				{Kind: event.TaskComplete, Reason: event.StopEndTurn},
			},
			out: "Asking.\nDone.\n",
			err: "→ conv.send: handed to conversation sub00000…\n  ● ls — completed: 2 entries (0 ms)\n  error: sub failed\n← conversation sub00000… answered; back to conversation root0000…\n",
		},
		{
			name: "a hand-back without an answer says so (issue 52, seed 5)",
			events: []event.Event{
				{Kind: event.HandOver, Conversation: "root0000-1", Target: "sub00000-2", Tool: &event.Tool{Name: "conv_create"}},
				{Kind: event.TurnAborted, Reason: event.ReasonInterrupted, Conversation: "sub00000-2", Text: "the conversation was destroyed"},
				{Kind: event.HandBack, Conversation: "root0000-1", Target: "sub00000-2", Tool: &event.Tool{Name: "conv_create", Status: event.ToolFailed, Summary: "the conversation was destroyed"}},
				{Kind: event.AgentMessageDelta, Text: "It left."},
			},
			out: "It left.",
			err: "→ conv.create: handed to conversation sub00000…\n← conversation sub00000… did not answer (the conversation was destroyed); back to conversation root0000…\n",
		},
		{
			name: "retry wait on its own stderr line",
			events: []event.Event{
				{Kind: event.AgentReasoningDelta, Text: "hm"},
				{Kind: event.Retrying, Text: "rate limited; retrying in 20 s (attempt 2 of 4)", Retry: &event.Retry{Reason: "rate_limited", WaitMS: 20000}},
				{Kind: event.AgentMessageDelta, Text: "ok"},
			},
			out: "ok",
			err: "thinking: hm\nnote: rate limited; retrying in 20 s (attempt 2 of 4)\n",
		},
		{
			name:   "a command in the demo: no demo label",
			demo:   true,
			events: []event.Event{{Kind: event.CommandOutput, Text: "mode: plan\n"}, {Kind: event.Notice, Text: "hi"}},
			out:    "mode: plan\n",
			err:    "note: hi\n",
		},
		{
			name: "the demo model answers: labelled once",
			demo: true,
			events: []event.Event{
				{Kind: event.ToolCallBegin, Tool: &event.Tool{Name: "bash", Title: "!ls"}},
				{Kind: event.AgentMessageDelta, Text: "[demo] hi\n"},
				{Kind: event.AgentMessageDelta, Text: "more\n"},
			},
			out: "[demo] hi\nmore\n",
			err: "[demo] no provider configured: this is the offline demo model (set a provider, see :help coder-providers, or one of OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, OPENROUTER_API_KEY, DEEPSEEK_API_KEY, or sign in to Copilot or run Ollama, for a real one)\n",
		},
		{
			name: "a refusal prints the whole hint",
			events: []event.Event{{Kind: event.ToolCallEnd, Tool: &event.Tool{Name: "write", Title: "write x", Status: "denied",
				Summary: "denied: write x needs approval (ask) and nobody can approve it here; rerun with --yes, or se…",
				Output:  "denied: write x needs approval (ask) and nobody can approve it here; rerun with --yes, or set \"approval\": {\"interactive\": false} in ~/.config/coder/config.json"}}},
			err: "● write x — denied: write x needs approval (ask) and nobody can approve it here; rerun with --yes, or set \"approval\": {\"interactive\": false} in ~/.config/coder/config.json (0 ms)\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			p := &Printer{Out: &out, Err: &errb, Demo: tt.demo}
			for _, ev := range tt.events {
				p.Handle(ev)
			}
			if out.String() != tt.out {
				t.Errorf("stdout = %q, want %q", out.String(), tt.out)
			}
			if errb.String() != tt.err {
				t.Errorf("stderr = %q, want %q", errb.String(), tt.err)
			}
			if p.Failure() != tt.why {
				t.Errorf("failure = %q, want %q", p.Failure(), tt.why)
			}
		})
	}
}
