package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// AuthReport is /mcp: each server with its transport, state, sign-in
// state and tools.
func (p *Pool) AuthReport() string {
	var b strings.Builder
	b.WriteString("MCP servers:\n")
	for _, st := range p.Status() {
		auth := st.Auth
		if auth == "" {
			auth = "-"
		}
		fmt.Fprintf(&b, "  %-12s %-6s %-11s auth: %-11s %d tools", st.Name, st.Transport, st.State, auth, st.Tools)
		if st.LastError != "" {
			b.WriteString("; " + firstLine(st.LastError))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// WaitSignIn waits for the login of server name to end and says how it
// did (exec, which has no front end to tell later).
func (p *Pool) WaitSignIn(ctx context.Context, name string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, LoginTimeout+30*time.Second)
	defer cancel()
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		for _, st := range p.Status() {
			if st.Name != name || st.Auth == AuthLoggingIn || st.State == StateStarting {
				continue
			}
			if st.State == StateReady {
				return fmt.Sprintf("MCP server %s: signed in (%d tools)", name, st.Tools), nil
			}
			return "", fmt.Errorf("MCP server %s: sign-in failed: %s", name, st.LastError)
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("MCP server %s: no sign-in: %w", name, ctx.Err())
		case <-t.C:
		}
	}
}
