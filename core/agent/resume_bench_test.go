package agent

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/google/uuid"
)

// BenchmarkResume5000Messages opens a saved session of 5,000 messages
// (2,500 tool calls with their results, ~2 MB): reading, repairing and
// taking the session's lock, then closing it.
func BenchmarkResume5000Messages(b *testing.B) {
	root := b.TempDir()
	id := uuid.NewString()
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: "sys"}, {Role: llm.RoleUser, Content: "start"}}
	for i := 0; len(msgs) < 5000; i++ {
		call := fmt.Sprint("call", i)
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, Content: strings.Repeat("answer text ", 20),
				ToolCalls: []llm.ToolCall{{ID: call, Type: "function", Function: llm.FunctionCall{Name: "read", Arguments: `{"path":"src/file.go"}`}}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: call, Name: "read", Content: strings.Repeat("output line\n", 25)})
	}
	snap := &store.Snapshot{ID: id, CreatedAt: time.Now(), UpdatedAt: time.Now(), Model: "m", Mode: "default", Messages: msgs}
	if err := store.Save(store.Dir(root), snap); err != nil {
		b.Fatal(err)
	}
	opts := Options{Config: config.Defaults(), Root: root, Provider: instantProvider{}}
	b.ReportMetric(float64(len(msgs)), "messages")
	for b.Loop() {
		s, err := Resume(opts, SessionID(id))
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}
