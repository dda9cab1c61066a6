package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// TestSessionFileReplaysEveryRequest: the session file holds images as
// OpenAI content parts (no "images" field), and a sub-conversation keeps
// the system message and tools of its last request, so any request can be
// rebuilt from the file alone (seed 001 §10); a resume reads them back.
func TestSessionFileReplaysEveryRequest(t *testing.T) {
	f := convFixture(t, nil)
	img := "data:image/png;base64,iVBORw0KGgo="
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c1", "conv_create", map[string]any{"user_instruction": "describe",
			"items": []any{map[string]any{"type": "image_url", "image_url": img}}})}},
		fakellm.Reply{Content: "a tiny picture"},
		fakellm.Reply{Content: "done"},
	)
	f.run(t, "delegate")
	reqs := f.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	sub := reqs[1]
	id := f.sess.ID()
	f.sess.Close()
	data, err := os.ReadFile(filepath.Join(store.Dir(f.root), string(id)+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `"images"`) {
		t.Errorf("session file keeps a non-OpenAI images field:\n%.1500s", data)
	}
	var file struct {
		Conversations []struct {
			ID        string            `json:"id"`
			System    string            `json:"system"`
			SentTools []llm.Tool        `json:"sent_tools"`
			Messages  []json.RawMessage `json:"messages"`
		} `json:"conversations"`
	}
	if err := json.Unmarshal(data, &file); err != nil || len(file.Conversations) != 1 {
		t.Fatalf("session file: %v %+v", err, file)
	}
	conv := file.Conversations[0]
	if conv.System == "" || conv.System != sub.Messages[0].Content {
		t.Errorf("sub-conversation system = %q, want the one sent %q", conv.System, sub.Messages[0].Content)
	}
	if got, want := toolNames(conv.SentTools), toolNames(sub.Tools); len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("sub-conversation sent_tools = %v, want %v", got, want)
	}
	var parts bool
	for _, m := range conv.Messages {
		if strings.Contains(string(m), `{"type":"image_url","image_url":{"url":"`+img+`"}}`) {
			parts = true
		}
	}
	if !parts {
		t.Errorf("the image is not an image_url content part: %s", conv.Messages)
	}

	opts := f.sess.opts
	again := mustResume(t, opts, id)
	var images int
	for _, m := range again.History(ConversationID(conv.ID)) {
		images += len(m.Images)
	}
	if images != 1 {
		t.Errorf("resumed sub-conversation holds %d images, want 1", images)
	}
}
