package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/testrepo"
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
	t := &task{s: s, id: "00000000-bench", conv: s.rootConv, snaps: &turnSnaps{}}
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

// BenchmarkTurnLargeRepo is the wall time of a one-answer turn (a local
// model that answers at once) in a committed repository of
// CODER_BENCH_FILES files (default 20,000; the figure is for
// 100,000) with 1% untracked files: what the harness adds, snapshots
// included, to a turn whose model takes no time.
func BenchmarkTurnLargeRepo(b *testing.B) {
	root, n := largeBenchRepo(b)
	cfg := config.Defaults()
	cfg.Workflow.AutoVerifyAfterEdit = false
	resp := llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "hi"}, FinishReason: "stop"}
	ctx := context.Background()
	b.ReportMetric(float64(n), "files")
	for b.Loop() {
		// A new session each time, opened outside the timing: the figure
		// must not grow with the benchmark's own history.
		b.StopTimer()
		s, err := Open(Options{Config: cfg, Root: root, Provider: instantProvider{resp}})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := s.Run(ctx, "say hi"); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
}

// largeBenchRepo is a committed repository of CODER_BENCH_FILES files
// (default 20,000) with 1% untracked, and its size; it skips b without git.
func largeBenchRepo(b *testing.B) (string, int) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git not installed")
	}
	n := 20_000
	if v, err := strconv.Atoi(os.Getenv("CODER_BENCH_FILES")); err == nil && v > 0 {
		n = v
	}
	root := b.TempDir()
	testrepo.Large(b, root, n)
	return root, n
}
