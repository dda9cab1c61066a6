package fakellm

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

// DemoFile is the file the offline demo creates.
const DemoFile = "coder-demo.txt"

// Demo tool names; they match the agent's built-in tools.
const (
	toolLs    = "ls"
	toolWrite = "write"
	toolBash  = "bash"
)

// DemoScript answers as the offline demo (config provider "demo"). It is
// stateless: the step follows from the last message of the request.
//
//	user prompt          -> reasoning, text and ls {"path":"."}
//	ls result            -> write coder-demo.txt
//	write result         -> bash {"command":"cat coder-demo.txt"}, or a final
//	                        answer if the write was refused
//	bash result          -> final streamed answer
func DemoScript(req Request) Reply {
	n := len(req.Messages)
	if n == 0 {
		return demoFinal("[demo] This is the offline demo of coder-nvim. Send a message to see it run.")
	}
	last := req.Messages[n-1]
	if last.Role != llm.RoleTool {
		return demoStart(n)
	}
	mode := demoMode(req.Messages)
	switch toolName(req.Messages, last.ToolCallID) {
	case toolLs:
		if mode == "plan" {
			return demoFinal("[demo] Plan mode is read-only, so the demo stops before writing " + DemoFile +
				". Switch with /mode default to see an approval and the diff review. " + demoSetup)
		}
		return demoWrite(n, mode)
	case toolWrite:
		if refused(last.Content) {
			return demoFinal("[demo] The write of " + DemoFile + " was not approved, so the demo stops here and nothing was changed. " +
				demoSetup)
		}
		return demoCat(n)
	case toolBash:
		return demoFinal(demoDone(mode))
	}
	// A tool result the demo did not ask for: end the turn politely.
	return demoFinal("[demo] The offline demo got a tool result it did not expect, so it ends here. " + demoSetup)
}

const demoSetup = "To talk to a real model, set a provider (:help coder-providers; \"provider\" in your config) " +
	"or an API key variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, OPENROUTER_API_KEY, DEEPSEEK_API_KEY), " +
	"sign in to Copilot or run Ollama."

// asksToWrite reports whether a file write needs the user's approval in
// mode (the agent's modes; "" is the default).
func asksToWrite(mode string) bool {
	return mode != "auto-edit" && mode != "yolo"
}

func demoDone(mode string) string {
	how := "after your approval"
	if !asksToWrite(mode) {
		how = "without asking (" + mode + " mode allows file edits)"
	}
	return "[demo] That was the offline demo: no model was called, every step was scripted. " +
		"It listed the directory, wrote " + DemoFile + " " + how + " and read it back with bash. " +
		demoSetup + " " +
		"Run /undo to remove the demo file."
}

// demoMode is the mode named in the system message ("Mode: auto-edit."),
// or "".
func demoMode(msgs []llm.Message) string {
	for _, m := range msgs {
		if m.Role != llm.RoleSystem {
			continue
		}
		if _, rest, ok := strings.Cut(m.Content, "\nMode: "); ok {
			mode, _, _ := strings.Cut(rest, ".")
			return strings.TrimSpace(mode)
		}
	}
	return ""
}

// demoStart is step 1: think, say what happens, list the directory.
func demoStart(n int) Reply {
	return Reply{
		Reasoning: "[demo] The user started the offline demo. I will look around first with ls, " +
			"then write a small file so they can see the approval and the diff review.",
		Content:   "[demo] This is the offline demo of coder-nvim; no real model is involved. Let me look at the project first.",
		ToolCalls: []llm.ToolCall{demoCall(n, toolLs, map[string]string{"path": "."})},
		Chunk:     12,
		Delay:     5 * time.Millisecond,
	}
}

// demoWrite is step 2: create the demo file, which needs the user's
// approval unless the mode allows edits.
func demoWrite(n int, mode string) Reply {
	content := "This file was written by the coder-nvim offline demo.\n" +
		"No model was called: the demo is a fixed script.\n" +
		"Run /undo to remove it, or delete it by hand.\n"
	say := "[demo] Now I will create " + DemoFile + ". You can review the diff and approve or refuse it."
	if !asksToWrite(mode) {
		say = "[demo] Now I will create " + DemoFile + ". In " + mode + " mode file edits need no approval, so it is written at once; /undo takes it back."
	}
	return Reply{
		Content:   say,
		ToolCalls: []llm.ToolCall{demoCall(n, toolWrite, map[string]string{"path": DemoFile, "content": content})},
		Chunk:     12,
		Delay:     5 * time.Millisecond,
	}
}

// demoCat is step 3: read the file back through the shell.
func demoCat(n int) Reply {
	return Reply{
		Content:   "[demo] The file is written. Let me read it back with bash.",
		ToolCalls: []llm.ToolCall{demoCall(n, toolBash, map[string]string{"command": "cat " + DemoFile})},
		Chunk:     12,
		Delay:     5 * time.Millisecond,
	}
}

// demoFinal streams text in small pieces so the streaming is visible.
func demoFinal(text string) Reply {
	return Reply{Content: text, Chunk: 6, Delay: 15 * time.Millisecond}
}

// demoCall builds a tool call whose id is unique within the conversation:
// the message count grows with every step.
func demoCall(n int, name string, args map[string]string) llm.ToolCall {
	b, _ := json.Marshal(args) // map of strings: cannot fail
	return llm.ToolCall{
		ID:       fmt.Sprintf("call_demo_%s_%d", name, n),
		Type:     "function",
		Function: llm.FunctionCall{Name: name, Arguments: string(b)},
	}
}

// toolName finds the name of the tool call with the given id.
func toolName(msgs []llm.Message, id string) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, tc := range msgs[i].ToolCalls {
			if tc.ID == id {
				return tc.Function.Name
			}
		}
	}
	return ""
}

// refused reports whether a tool result says the user did not allow the call.
func refused(content string) bool {
	c := strings.ToLower(content)
	for _, w := range []string{"denied", "refus", "rejected", "declined", "not approved", "cancelled", "canceled"} {
		if strings.Contains(c, w) {
			return true
		}
	}
	return false
}
