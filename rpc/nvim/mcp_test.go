package nvimhost

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// setup({ mcp_servers }) reaches the host: the server starts and
// :checkhealth coder reports it with its tools.
func TestSetupMCPServersInHealth(t *testing.T) {
	s := sdk.NewServer(&sdk.Implementation{Name: "nvim-test", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hi"}}}, nil
	})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(srv.Close)
	e := newEditor(t, editorOpts{setup: `{mcp_servers = {web = {url = '` + srv.URL + `', headers = {}}}}`})
	var report string
	e.waitFor("the MCP server in :checkhealth", 30*time.Second, func() bool {
		e.cmd("checkhealth coder")
		e.lua(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')`, &report)
		e.cmd("bwipeout!")
		return strings.Contains(report, "web (http): ready, 1 tools")
	})
	if strings.Contains(report, "ERROR") {
		t.Errorf("health report:\n%s", report)
	}
}
