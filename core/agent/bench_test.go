package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/tools"
)

// instantProvider answers at once with one tool call, so a benchmark
// measures only the harness.
type instantProvider struct{ resp llm.Response }

func (p instantProvider) Stream(_ context.Context, _ llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	onDelta(llm.Delta{Content: p.resp.Message.Content})
	return p.resp, nil
}

// noopTool does nothing, so tool time is excluded.
type noopTool struct{}

func (noopTool) Spec() llm.Tool {
	return llm.Tool{Type: "function", Function: llm.FunctionDef{Name: "noop", Parameters: json.RawMessage(`{"type":"object"}`)}}
}
func (noopTool) Kind() tools.Kind { return tools.KindRead }
func (noopTool) Prepare(context.Context, *tools.Workspace, json.RawMessage) (*tools.Invocation, error) {
	return tools.NewInvocation("noop", tools.KindRead, "noop", func(context.Context) tools.Result {
		return tools.Result{Output: "ok", Summary: "ok"}
	}), nil
}

// BenchmarkStepOverhead is the harness cost of one model step with a
// 200-message history: building the request, streaming events, the tool
// pipeline, appending to history and queueing the snapshot. The model and
// the tool take no time.
func BenchmarkStepOverhead(b *testing.B) {
	cfg := config.Defaults()
	resp := llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "working",
		ToolCalls: []llm.ToolCall{{ID: "c", Type: "function", Function: llm.FunctionCall{Name: "noop", Arguments: `{}`}}}}}
	s, err := Open(Options{Config: cfg, Root: b.TempDir(), Provider: instantProvider{resp}, Tools: []tools.Tool{noopTool{}}})
	if err != nil {
		b.Fatal(err)
	}
	t := &task{s: s, id: "00000000-bench", conv: s.rootConv}
	var hist []llm.Message
	for i := 0; len(hist) < 200; i++ {
		id := fmt.Sprint("call", i)
		hist = append(hist,
			llm.Message{Role: llm.RoleAssistant, Content: strings.Repeat("answer text ", 30), ToolCalls: []llm.ToolCall{{ID: id, Type: "function", Function: llm.FunctionCall{Name: "noop", Arguments: `{"path":"x"}`}}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: id, Name: "noop", Content: strings.Repeat("output line\n", 40)})
	}
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		s.rootConv.history = hist[:200:200]
		if _, err := s.step(ctx, t); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	s.saver.flush()
}
