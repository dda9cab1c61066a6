package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/coder-nvim/coder-nvim/core/tools"
	"github.com/google/uuid"
)

// callsProvider asks for one noop tool call per request, calls times, then
// answers.
type callsProvider struct {
	calls int
	n     atomic.Int64
}

func (p *callsProvider) Stream(_ context.Context, _ llm.Request, _ func(llm.Delta)) (llm.Response, error) {
	n := int(p.n.Add(1))
	if n > p.calls {
		return llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "done"}}, nil
	}
	id := fmt.Sprint("turn_call", n)
	return llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: strings.Repeat("step text ", 20),
		ToolCalls: []llm.ToolCall{{ID: id, Type: "function", Function: llm.FunctionCall{Name: "noop", Arguments: `{"path":"x"}`}}}}}, nil
}

// wchar is the bytes this process has passed to write(2) so far.
func wchar(b *testing.B) int64 {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		b.Skip("needs /proc/self/io")
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "wchar: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	b.Skip("no wchar in /proc/self/io")
	return 0
}

// BenchmarkTurnBytesWritten is what one 20-tool-call turn writes on a
// resumed 5,000-message session (journal lines plus the one snapshot at
// the end of the task), against the size of the session file; the budget
// is 3×. Before the journal every message rewrote the whole file (~37×).
func BenchmarkTurnBytesWritten(b *testing.B) {
	root := b.TempDir()
	dir := store.Dir(root)
	cfg := config.Defaults()
	cfg.ContextWindow = 10_000_000 // no compaction: this measures the record
	cfg.History.MaxItems = 0
	for b.Loop() {
		b.StopTimer()
		snap := &store.Snapshot{ID: uuid.NewString(), Model: cfg.Model, Mode: "default",
			Messages: []llm.Message{{Role: llm.RoleSystem, Content: "sys"}}}
		for i := 0; len(snap.Messages) < 5000; i++ {
			id := fmt.Sprint("call", i)
			snap.Messages = append(snap.Messages,
				llm.Message{Role: llm.RoleAssistant, Content: strings.Repeat("answer text ", 15), ToolCalls: []llm.ToolCall{{ID: id, Type: "function", Function: llm.FunctionCall{Name: "noop", Arguments: `{"path":"x"}`}}}},
				llm.Message{Role: llm.RoleTool, ToolCallID: id, Name: "noop", Content: strings.Repeat("output line\n", 20)})
		}
		if err := store.Save(dir, snap); err != nil {
			b.Fatal(err)
		}
		fi, _ := os.Stat(filepath.Join(dir, snap.ID+".json"))
		s, err := Resume(Options{Config: cfg, Root: root, Provider: &callsProvider{calls: 20}, Tools: []tools.Tool{noopTool{}}}, SessionID(snap.ID))
		if err != nil {
			b.Fatal(err)
		}
		before := wchar(b)
		b.StartTimer()
		if err := s.Run(context.Background(), "go"); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		written := wchar(b) - before
		s.Close()
		if got, err := store.Resume(dir, snap.ID); err != nil || len(got.Messages) != len(snap.Messages)+42 {
			b.Fatalf("after the turn the session has %d messages (%v), want %d", len(got.Messages), err, len(snap.Messages)+42)
		}
		b.ReportMetric(float64(written)/float64(fi.Size()), "x-file")
		b.ReportMetric(float64(fi.Size())/1e6, "file-MB")
		b.StartTimer()
	}
}
