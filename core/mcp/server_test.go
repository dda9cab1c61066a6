package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary doubles as a stdio MCP server (and as the child that
// server starts), chosen by CODER_MCP_TEST_SERVER.
func TestMain(m *testing.M) {
	switch os.Getenv("CODER_MCP_TEST_SERVER") {
	case "stdio":
		runStdioServer()
		os.Exit(0)
	case "sleep":
		time.Sleep(time.Hour)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// tinyPNG is a 1×1 PNG.
var tinyPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")

func runStdioServer() {
	if d, err := time.ParseDuration(os.Getenv("SLOW_START")); err == nil {
		time.Sleep(d)
	}
	fmt.Fprintln(os.Stderr, "test server starting")
	if os.Getenv("FAIL_START") != "" {
		fmt.Fprintln(os.Stderr, "cannot start: FAIL_START is set")
		os.Exit(2)
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "test-server", Version: "1"}, nil)
	addTestTools(s)
	var child *exec.Cmd
	s.AddTool(&sdk.Tool{Name: "pids", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		if child == nil {
			child = exec.Command(os.Args[0])
			child.Env = append(os.Environ(), "CODER_MCP_TEST_SERVER=sleep")
			if err := child.Start(); err != nil {
				return nil, err
			}
		}
		return text(fmt.Sprintf("%d %d", os.Getpid(), child.Process.Pid)), nil
	})
	s.AddTool(&sdk.Tool{Name: "crash", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		fmt.Fprintln(os.Stderr, "crashing on purpose")
		os.Exit(3)
		return nil, nil
	})
	s.AddTool(&sdk.Tool{Name: "grow", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		s.AddTool(&sdk.Tool{Name: "grown", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text("new"), nil
		})
		return text("added a tool"), nil
	})
	if v := os.Getenv("VARIANT"); v != "" {
		name := os.Getenv("TOOLNAME")
		s.AddTool(&sdk.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object","properties":{"` + v + `":{"type":"string"}}}`)}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text(v), nil
		})
	}
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
	}
	if os.Getenv("FAIL_CLOSE") != "" {
		os.Exit(4) // a server that fails its shutdown
	}
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

type echoArgs struct {
	Text string `json:"text"`
}

// addTestTools adds the tools both test servers share.
func addTestTools(s *sdk.Server) {
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "echo text", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, a echoArgs) (*sdk.CallToolResult, any, error) {
			return text("echo: " + a.Text), nil, nil
		})
	s.AddTool(&sdk.Tool{Name: "weather", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "sunny"}}, StructuredContent: map[string]any{"temp": 21, "sky": "clear"}}, nil
	})
	s.AddTool(&sdk.Tool{Name: "picture", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{
			&sdk.TextContent{Text: "here it is"},
			&sdk.ImageContent{Data: tinyPNG, MIMEType: "image/png"},
			&sdk.ResourceLink{URI: "file:///tmp/pic.png", Name: "pic.png", MIMEType: "image/png"},
		}}, nil
	})
	s.AddTool(&sdk.Tool{Name: "fail", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "boom"}}, IsError: true}, nil
	})
	s.AddTool(&sdk.Tool{Name: "big", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		b := make([]byte, 100<<10)
		for i := range b {
			b[i] = 'a' + byte(i%26)
		}
		return text(string(b)), nil
	})
}

// stdioServer is the config of a stdio test server; env adds variables.
func stdioServer(t *testing.T, env map[string]string) ServerConfig {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := map[string]string{"CODER_MCP_TEST_SERVER": "stdio"}
	for k, v := range env {
		e[k] = v
	}
	return ServerConfig{Command: exe, Args: []string{"-test.run=^$"}, Env: e}
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) S ...: the state follows the last ')'.
	s := string(data)
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == ')' {
			return i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
		}
	}
	return false
}
