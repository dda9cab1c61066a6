package agent

import (
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/mcp"
)

// With model_images false no image reaches the model: the user's images
// are refused before any request, conv_create image items are an error
// result, and MCP images are named in text.
func TestModelWithoutImages(t *testing.T) {
	no := false
	writes := 0
	url := mcpServer(t, &writes)
	f := convFixture(t, func(c *config.Config) {
		c.Mode = "auto-edit"
		c.ModelImages = &no
		c.MCPServers = map[string]mcp.ServerConfig{"web": {URL: url, Trusted: true}}
		c.MCP.FirstTurnWait = "30s"
	})
	if _, err := f.sess.SubmitImages("what is this?", []llm.Image{{URL: "data:image/png;base64,UE5H"}}); err == nil || !strings.Contains(err.Error(), "model_images") {
		t.Fatalf("SubmitImages: %v, want a refusal naming model_images", err)
	}
	if n := len(f.srv.Requests()); n != 0 {
		t.Fatalf("%d model requests after a refused prompt", n)
	}
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{
			call("c1", "conv_create", map[string]any{"items": []map[string]any{{"type": "image_url", "image_url": "data:image/png;base64,UE5H"}}}),
			call("c2", "web__picture", map[string]any{}),
		}},
		fakellm.Reply{Content: "done"},
	)
	f.run(t, "look")
	reqs := f.srv.Requests()
	msgs := reqs[len(reqs)-1].Messages
	if m := toolMsg(msgs, "c1"); m == nil || !strings.Contains(m.Content, "takes no images") {
		t.Errorf("conv_create with an image item: %+v", m)
	}
	for _, m := range msgs {
		if len(m.Images) > 0 {
			t.Errorf("an image reached the model: %+v", m)
		}
	}
	if last := msgs[len(msgs)-1]; last.Role != llm.RoleUser || !strings.Contains(last.Content, "not sent: this model takes no images") {
		t.Errorf("MCP image note = %+v", last)
	}
}
