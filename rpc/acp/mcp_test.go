package acp

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

func TestMCPServersFromSessionNew(t *testing.T) {
	got, err := mcpServers([]sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "fs", Command: "npx", Args: []string{"-y", "pkg"}, Env: []sdk.EnvVariable{{Name: "A", Value: "1"}}}},
		{Http: &sdk.McpServerHttpInline{Name: "web", Type: "http", Url: "https://example.com/mcp", Headers: []sdk.HttpHeader{{Name: "Authorization", Value: "Bearer x"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if fs := got["fs"]; fs.Command != "npx" || len(fs.Args) != 2 || fs.Env["A"] != "1" {
		t.Errorf("fs = %+v", fs)
	}
	if web := got["web"]; web.URL != "https://example.com/mcp" || web.Headers["Authorization"] != "Bearer x" {
		t.Errorf("web = %+v", web)
	}
	for _, tc := range []struct {
		list []sdk.McpServer
		want string
	}{
		{[]sdk.McpServer{{Stdio: &sdk.McpServerStdio{Name: "bad name", Command: "x"}}}, "server names may use only"},
		{[]sdk.McpServer{{Sse: &sdk.McpServerSseInline{Name: "s", Url: "http://x"}}}, "only stdio and http"},
		{[]sdk.McpServer{{Stdio: &sdk.McpServerStdio{Name: "a", Command: "x"}}, {Stdio: &sdk.McpServerStdio{Name: "a", Command: "y"}}}, "used twice"},
		{[]sdk.McpServer{{Http: &sdk.McpServerHttpInline{Name: "h", Url: "ftp://x"}}}, "want http"},
	} {
		if _, err := mcpServers(tc.list); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.list, err, tc.want)
		}
	}
}
