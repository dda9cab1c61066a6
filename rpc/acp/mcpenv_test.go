package acp_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// TestMCPEnvAsObject: an MCP server's env sent as an object of strings
// (codecompanion's transform_to_acp) opens the session; a value of
// another shape is refused with -32602 naming mcpServers[i].env.
func TestMCPEnvAsObject(t *testing.T) {
	e := newEnv(t, envOptions{})
	server := func(env any) map[string]any {
		return map[string]any{"cwd": e.root, "mcpServers": []any{map[string]any{"name": "tools", "command": "true", "args": []string{}, "env": env}}}
	}
	raw, err := e.call("session/new", server(map[string]string{"TOKEN": "x", "MODE": "y"}))
	if err != nil {
		t.Fatalf("session/new with env as an object: %v", err)
	}
	var resp sdk.NewSessionResponse
	if err := json.Unmarshal(raw, &resp); err != nil || resp.SessionId == "" {
		t.Fatalf("session/new answered %s (%v)", raw, err)
	}
	for _, bad := range []any{"TOKEN=x", map[string]any{"N": 5}} {
		_, err := e.call("session/new", server(bad))
		var re *sdk.RequestError
		if !errors.As(err, &re) || re.Code != -32602 {
			t.Errorf("env %v: %v, want -32602", bad, err)
			continue
		}
		data, _ := json.Marshal(re.Data)
		if !strings.Contains(string(data), "mcpServers[0].env") {
			t.Errorf("env %v: error %s does not name mcpServers[0].env", bad, data)
		}
	}
}
