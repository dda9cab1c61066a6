package provider

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

// streamChunk is one SSE data payload. It is decoded here rather than with
// go-openai's type because servers put reasoning under either
// "reasoning_content" (DeepSeek, vLLM) or "reasoning" (OpenRouter, Ollama),
// and go-openai only knows the first.
type streamChunk struct {
	Choices []struct {
		Delta struct {
			Content          string          `json:"content"`
			ReasoningContent string          `json:"reasoning_content"`
			Reasoning        string          `json:"reasoning"`
			ToolCalls        []toolCallDelta `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *llm.Usage `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

type toolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// accumulator assembles the streamed chunks of one attempt.
type accumulator struct {
	content      text
	reasoning    text
	calls        []*partialCall // in order of first appearance
	finishReason string
	usage        *llm.Usage
	chunk        streamChunk // add's decoding space
	maxArgs      int         // see Options.MaxToolArguments
}

type partialCall struct {
	index int
	id    string
	name  string
	args  text
}

// add decodes one data payload and passes its text pieces to emit.
func (a *accumulator) add(raw []byte, emit func(llm.Delta)) error {
	// One chunk is decoded per event, hundreds of thousands for a long
	// answer: the struct and its choices are reused rather than garbage.
	// Unmarshal leaves absent fields as they are, so it starts zeroed.
	choices := a.chunk.Choices[:cap(a.chunk.Choices)]
	clear(choices)
	a.chunk = streamChunk{Choices: choices[:0]}
	c := &a.chunk
	if err := json.Unmarshal(raw, c); err != nil {
		return &Error{Message: fmt.Sprintf("provider: the server sent an invalid stream event (%v): %s", err, snippet(raw)), Err: err}
	}
	if c.Error != nil && c.Error.Message != "" {
		return &Error{Message: "provider: the server reported an error while streaming: " + c.Error.Message}
	}
	if c.Usage != nil {
		u := *c.Usage
		a.usage = &u
	}
	// Only the first choice is used: requests never ask for n > 1.
	if len(c.Choices) == 0 {
		return nil
	}
	ch := c.Choices[0]
	reasoning := ch.Delta.ReasoningContent
	if reasoning == "" {
		reasoning = ch.Delta.Reasoning
	}
	if reasoning != "" {
		a.reasoning.WriteString(reasoning)
		emit(llm.Delta{Reasoning: reasoning})
	}
	if ch.Delta.Content != "" {
		a.content.WriteString(ch.Delta.Content)
		emit(llm.Delta{Content: ch.Delta.Content})
	}
	for _, d := range ch.Delta.ToolCalls {
		if name := a.addToolCall(d); name != "" {
			emit(llm.Delta{ToolCall: name})
		}
	}
	if err := oversizeCall(a.calls, a.maxArgs); err != nil {
		return err
	}
	if ch.FinishReason != nil && *ch.FinishReason != "" {
		a.finishReason = *ch.FinishReason
	}
	return nil
}

// MaxToolArguments caps one tool call's arguments as they stream: room
// for one 5 MiB image item in base64 (the model's own images' cap) and
// text. No model writes that much in one call (it is more than any output
// budget); a stream that does (a 30 MB image in a conv_create item) would
// cost a minute, hundreds of megabytes and a session file as large, only
// for the call to be refused.
const MaxToolArguments = 7 << 20

// oversizeCall is the error for a call whose arguments passed max (0:
// MaxToolArguments): the answer is dropped, not retried.
func oversizeCall(calls []*partialCall, max int) error {
	if max <= 0 {
		max = MaxToolArguments
	}
	for _, c := range calls {
		if c.args.n > max {
			return &Error{Message: fmt.Sprintf("provider: the model's %s call has arguments over %s (an image item may be at most 5 MiB); the answer is dropped", c.name, mib(max))}
		}
	}
	return nil
}

// mib is a byte count in MiB for messages.
func mib(n int) string { return strconv.FormatFloat(float64(n)/(1<<20), 'f', -1, 64) + " MiB" }

// addToolCall merges one tool-call delta and returns the call's name when
// this delta brought it. Calls are keyed by index; when a server omits the
// index, a new id starts a new call and a delta without id continues the
// last one.
func (a *accumulator) addToolCall(d toolCallDelta) (named string) {
	var call *partialCall
	if d.Index != nil {
		for _, c := range a.calls {
			if c.index == *d.Index {
				call = c
				break
			}
		}
		if call == nil {
			call = &partialCall{index: *d.Index}
			a.calls = append(a.calls, call)
		}
	} else {
		var last *partialCall
		if n := len(a.calls); n > 0 {
			last = a.calls[n-1]
		}
		if last != nil && (d.ID == "" || d.ID == last.id) {
			call = last
		} else {
			next := 0
			for _, c := range a.calls {
				next = max(next, c.index+1)
			}
			call = &partialCall{index: next}
			a.calls = append(a.calls, call)
		}
	}
	if call.id == "" {
		call.id = d.ID
	}
	if call.name == "" {
		call.name = d.Function.Name
		named = call.name
	}
	call.args.WriteString(d.Function.Arguments)
	return named
}

// response returns what has been assembled so far. It ends the
// accumulation: it is called once, when the attempt ends.
func (a *accumulator) response() llm.Response {
	msg := llm.Message{
		Role:      llm.RoleAssistant,
		Content:   a.content.String(),
		Reasoning: a.reasoning.String(),
	}
	calls := append([]*partialCall(nil), a.calls...)
	sort.SliceStable(calls, func(i, j int) bool { return calls[i].index < calls[j].index })
	for _, c := range calls {
		id := c.id
		if id == "" {
			// Tool results must reference an id; invent a stable one.
			id = "call_" + strconv.Itoa(c.index)
		}
		msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{
			ID:       id,
			Type:     "function",
			Function: llm.FunctionCall{Name: c.name, Arguments: c.args.String()},
		})
	}
	return llm.Response{Message: msg, FinishReason: a.finishReason, Usage: a.usage}
}

// release frees what the texts hold outside the heap (text.release):
// deferred by the attempt, in case response is never called.
func (a *accumulator) release() {
	a.content.release()
	a.reasoning.release()
	for _, c := range a.calls {
		c.args.release()
	}
}

// snippet shortens a bad payload for an error message.
func snippet(raw []byte) string {
	const limit = 120
	s := string(raw)
	if len(s) > limit {
		s = s[:limit] + "…"
	}
	return strconv.Quote(s)
}
