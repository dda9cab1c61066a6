// Package mcptest is test support: a small MCP server on the go-sdk
// with prompts, resources and as many tools as asked, served over
// streamable HTTP on loopback.
package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ReadmeURI is the server's static text resource; ReadmeText its text.
const (
	ReadmeURI  = "docs://static/readme.md"
	ReadmeText = "# Readme\n\nThe answer is forty-two.\n"
)

// Options say what the server offers.
type Options struct {
	Tools     int  // tool_00 … tool_NN, each with a schema of a few properties
	Prompts   bool // "review" (lang required, focus optional) and "hello"
	Resources bool // ReadmeURI and the template notes://{name}
}

// Server builds the server.
func Server(o Options) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "mcptest", Version: "1"}, nil)
	for i := range o.Tools {
		name := fmt.Sprintf("tool_%02d", i)
		schema := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"the file the operation applies to"},"depth":{"type":"integer","description":"how many levels to go down"},"pattern":{"type":"string","description":"a glob the entries must match"}}}`)
		s.AddTool(&sdk.Tool{Name: name, Description: fmt.Sprintf("Operation number %d on the project's files (%s).", i, words[i%len(words)]), InputSchema: schema, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
			func(_ context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: name + " ran with " + string(r.Params.Arguments)}}}, nil
			})
	}
	if o.Prompts {
		s.AddPrompt(&sdk.Prompt{Name: "review", Description: "review code in a language", Arguments: []*sdk.PromptArgument{{Name: "lang", Required: true}, {Name: "focus"}}},
			func(_ context.Context, r *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
				a := r.Params.Arguments
				text := "Review the " + a["lang"] + " code"
				if a["focus"] != "" {
					text += " with a focus on " + a["focus"]
				}
				return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{
					{Role: "user", Content: &sdk.TextContent{Text: text + "."}},
					{Role: "user", Content: &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: ReadmeURI, MIMEType: "text/markdown", Text: ReadmeText}}},
				}}, nil
			})
		s.AddPrompt(&sdk.Prompt{Name: "hello", Description: "say hello"}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "Hello from the prompt."}}}}, nil
		})
	}
	if o.Resources {
		s.AddResource(&sdk.Resource{URI: ReadmeURI, Name: "readme", MIMEType: "text/markdown"}, func(_ context.Context, r *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: ReadmeURI, MIMEType: "text/markdown", Text: ReadmeText}}}, nil
		})
		s.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: "notes://{name}", Name: "note"}, func(_ context.Context, r *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			name := strings.TrimPrefix(r.Params.URI, "notes://")
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: r.Params.URI, MIMEType: "text/plain", Text: "note " + name}}}, nil
		})
	}
	return s
}

var words = []string{"list", "count", "find", "stat", "hash", "diff"}

// HTTP serves s on loopback for the test's life and returns its URL.
func HTTP(t testing.TB, s *sdk.Server) string {
	t.Helper()
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}
