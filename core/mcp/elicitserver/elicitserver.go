// Package elicitserver is test support: an MCP server on the go-sdk,
// served over streamable HTTP on loopback, whose tools ask the user
// (elicitation/create) while they run and return what came back.
package elicitserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// FormSchema is what the "signup" tool asks: one field of each kind.
const FormSchema = `{"type":"object","properties":{
 "name":{"type":"string","title":"Name","minLength":1},
 "age":{"type":"integer","minimum":0,"maximum":150},
 "subscribe":{"type":"boolean","description":"send news"},
 "color":{"type":"string","enum":["red","green","blue"]}
},"required":["name","age"]}`

// ChoiceSchema is a single choice, what an ACP client can answer.
const ChoiceSchema = `{"type":"object","properties":{"go":{"type":"boolean","title":"Go ahead?"}},"required":["go"]}`

// New starts the server: tools "signup" (FormSchema), "confirm"
// (ChoiceSchema) and "visit" (a URL to open). Each returns
// "action=<action> content=<JSON>". Close it when done.
func New() *httptest.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "elicit-test", Version: "1"}, nil)
	obj := json.RawMessage(`{"type":"object"}`)
	ask := func(p *sdk.ElicitParams) sdk.ToolHandler {
		return func(ctx context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			res, err := r.Session.Elicit(ctx, p)
			if err != nil {
				return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "elicit: " + err.Error()}}}, nil
			}
			content, _ := json.Marshal(res.Content)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "action=" + res.Action + " content=" + string(content)}}}, nil
		}
	}
	// Read-only, so that a trusted server's calls run unasked.
	ro := &sdk.ToolAnnotations{ReadOnlyHint: true}
	s.AddTool(&sdk.Tool{Name: "signup", InputSchema: obj, Annotations: ro}, ask(&sdk.ElicitParams{Message: "Who are you?", RequestedSchema: json.RawMessage(FormSchema)}))
	s.AddTool(&sdk.Tool{Name: "confirm", InputSchema: obj, Annotations: ro}, ask(&sdk.ElicitParams{Message: "Deploy now?", RequestedSchema: json.RawMessage(ChoiceSchema)}))
	s.AddTool(&sdk.Tool{Name: "visit", InputSchema: obj, Annotations: ro}, ask(&sdk.ElicitParams{Mode: "url", Message: "Sign in at the vendor", URL: "https://example.invalid/login", ElicitationID: "e1"}))
	return httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
}
