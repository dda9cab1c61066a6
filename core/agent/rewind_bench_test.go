package agent

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// fiftyWrites answers a user message with 50 write calls (25 tracked
// files changed, 25 new ones), anything else with "done".
type fiftyWrites struct{}

func (fiftyWrites) Stream(_ context.Context, req llm.Request, _ func(llm.Delta)) (llm.Response, error) {
	if last := req.Messages[len(req.Messages)-1]; last.Role != llm.RoleUser {
		return llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "done"}, FinishReason: "stop"}, nil
	}
	var calls []llm.ToolCall
	for i := range 50 {
		p := fmt.Sprintf("d%04d/f%06d.go", i, i*100)
		if i%2 == 1 {
			p = fmt.Sprintf("new/n%02d.go", i)
		}
		calls = append(calls, call(fmt.Sprint("w", i), "write", map[string]any{"path": p, "content": "package x // rewritten\n"}))
	}
	return llm.Response{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: calls}, FinishReason: "tool_calls"}, nil
}

// BenchmarkRewind50Files is the wall time of `/rewind 1` after a turn
// that wrote 50 files (25 changed, 25 new) in a committed repository of
// CODER_BENCH_FILES files (default 20,000) with 1% untracked: the files
// taken back through the snapshots and the conversation cut and
// journaled. The turn itself runs outside the timing.
func BenchmarkRewind50Files(b *testing.B) {
	root, n := largeBenchRepo(b)
	cfg := config.Defaults()
	cfg.Mode = "yolo"
	cfg.Workflow.AutoVerifyAfterEdit = false
	cfg.StateDir = b.TempDir()
	ctx := context.Background()
	b.ReportMetric(float64(n), "files")
	for b.Loop() {
		b.StopTimer()
		s, err := Open(Options{Config: cfg, Root: root, Provider: fiftyWrites{}})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Run(ctx, "write fifty files"); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := s.Run(ctx, "/rewind 1"); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if _, err := os.Stat(root + "/new/n01.go"); err == nil {
			b.Fatal("the rewind left a new file")
		}
		s.Close()
		b.StartTimer()
	}
}
