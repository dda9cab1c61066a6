package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/google/uuid"
)

func sample(n int) *Snapshot {
	s := &Snapshot{
		ID:        uuid.NewString(),
		CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		UpdatedAt: time.Date(2026, 1, 2, 3, 5, 5, 0, time.UTC),
		Model:     "m", Mode: "default",
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: "sys"}, {Role: llm.RoleUser, Content: "first prompt"}},
		Tools:    []llm.Tool{{Type: "function", Function: llm.FunctionDef{Name: "read", Parameters: []byte(`{"type":"object"}`)}}},
	}
	for i := 0; len(s.Messages) < n; i++ {
		id := fmt.Sprintf("call_%d", i)
		s.Messages = append(s.Messages,
			llm.Message{Role: llm.RoleAssistant, Content: strings.Repeat("text ", 40), Reasoning: "think",
				ToolCalls: []llm.ToolCall{{ID: id, Type: "function", Function: llm.FunctionCall{Name: "read", Arguments: `{"path":"main.go"}`}}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: id, Name: "read", Content: strings.Repeat("line of output\n", 30)})
	}
	return s
}

func TestSaveLoadRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	s := sample(10)
	if err := Save(dir, s); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Errorf("round trip differs:\n got %+v\nwant %+v", got, s)
	}
	data, _ := os.ReadFile(filepath.Join(dir, s.ID+".json"))
	for _, key := range []string{`"id"`, `"created_at"`, `"updated_at"`, `"model"`, `"mode"`, `"messages"`, `"tools"`, `"tool_calls"`, `"tool_call_id"`, `"reasoning"`, `"name":"read"`} {
		if !strings.Contains(string(data), key) {
			t.Errorf("file lacks %s", key)
		}
	}
	list, err := List(dir)
	if err != nil || len(list) != 1 || list[0].FirstPrompt != "first prompt" {
		t.Errorf("List = %+v, %v", list, err)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(dir, uuid.NewString()); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
	if _, err := Load(dir, "../../etc/passwd"); !errors.Is(err, ErrNotFound) {
		t.Errorf("path id: %v", err)
	}
	id := uuid.NewString()
	if err := os.WriteFile(filepath.Join(dir, id+".json"), []byte(`{"id":`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir, id); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Errorf("corrupt file: %v", err)
	}
	if list, err := List(dir); err != nil || len(list) != 0 {
		t.Errorf("List skips corrupt files: %v %v", list, err)
	}
}

func BenchmarkSave1000Messages(b *testing.B) {
	dir := b.TempDir()
	s := sample(1000)
	b.ResetTimer()
	for b.Loop() {
		if err := Save(dir, s); err != nil {
			b.Fatal(err)
		}
	}
}

func TestWriteThenSync(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	s := sample(10)
	for range 2 { // the second replaces the first
		if err := Write(dir, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := Sync(dir, s.ID); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir, s.ID)
	if err != nil || !reflect.DeepEqual(got, s) {
		t.Fatalf("Load after Write = %v, %v", got, err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temp file left: %s", e.Name())
		}
	}
	if err := Sync(dir, uuid.NewString()); err == nil {
		t.Error("Sync of a session never written succeeded")
	}
}
