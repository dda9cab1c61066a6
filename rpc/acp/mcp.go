package acp

import (
	"fmt"

	"github.com/coder-nvim/coder-nvim/core/mcp"
	sdk "github.com/coder/acp-go-sdk"
)

// mcpServers turns session/new's mcpServers (stdio and http) into the
// engine's server list; a name the config files also use is replaced.
// SSE servers are refused: MCP deprecated that transport and the
// initialize answer does not advertise it.
func mcpServers(list []sdk.McpServer) (map[string]mcp.ServerConfig, error) {
	out := map[string]mcp.ServerConfig{}
	for i, s := range list {
		var name string
		var sc mcp.ServerConfig
		switch {
		case s.Stdio != nil:
			name = s.Stdio.Name
			sc = mcp.ServerConfig{Command: s.Stdio.Command, Args: s.Stdio.Args}
			for _, e := range s.Stdio.Env {
				if sc.Env == nil {
					sc.Env = map[string]string{}
				}
				sc.Env[e.Name] = e.Value
			}
		case s.Http != nil:
			name = s.Http.Name
			sc = mcp.ServerConfig{URL: s.Http.Url}
			for _, h := range s.Http.Headers {
				if sc.Headers == nil {
					sc.Headers = map[string]string{}
				}
				sc.Headers[h.Name] = h.Value
			}
		default:
			return nil, fmt.Errorf("mcpServers[%d]: only stdio and http servers are supported", i)
		}
		if !mcp.ValidName(name) {
			return nil, fmt.Errorf("mcpServers[%d]: name %q: server names may use only letters, digits, _ and -", i, name)
		}
		if err := sc.Validate(); err != nil {
			return nil, fmt.Errorf("mcpServers[%d] (%s): %v", i, name, err)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("mcpServers[%d]: the name %q is used twice", i, name)
		}
		out[name] = sc
	}
	return out, nil
}
