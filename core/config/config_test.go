package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/mcp"
)

func writeConfig(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// loadProjectError is the error of Load, or why it ignored the
// workspace's file.
func loadProjectError(root string) error {
	cfg, err := Load(root, env(nil))
	if err == nil && cfg.Workspace.Invalid != "" {
		err = errors.New(cfg.Workspace.Invalid)
	}
	return err
}

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoadPrecedence(t *testing.T) {
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	root := t.TempDir()
	writeConfig(t, filepath.Join(xdg, "coder", "config.json"), `{"model":"user-model","max_steps":7,"mode":"plan"}`)
	writeConfig(t, WorkspaceFile(root), `{"model":"ws-model","permissions":{"preset":"strict"}}`)
	getenv := env(map[string]string{"OPENAI_API_KEY": "sk-test", "XDG_STATE_HOME": t.TempDir()})
	if _, err := TrustWorkspace(root, getenv); err != nil {
		t.Fatal(err)
	}

	cfg, err := Load(root, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Model != "ws-model" || cfg.MaxSteps != 7 || cfg.Mode != "plan" || cfg.Permissions.Preset != "strict" {
		t.Errorf("merge wrong: %+v", cfg)
	}
	if cfg.Provider != ProviderOpenAI || cfg.APIKey != "sk-test" || cfg.BaseURL != "https://api.openai.com/v1" {
		t.Errorf("provider from env wrong: %q %q %q", cfg.Provider, cfg.APIKey, cfg.BaseURL)
	}
	if len(cfg.Files) != 2 {
		t.Errorf("files read = %v", cfg.Files)
	}

	cfg, err = Load(root, env(map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "CODER_MODEL": "m2"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.BaseURL != "http://127.0.0.1:1/v1" || cfg.Model != "m2" || cfg.Provider != ProviderOpenAI {
		t.Errorf("env override wrong: %+v", cfg)
	}
}

func TestLoadDefaultsToDemo(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	cfg, err := Load(t.TempDir(), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Provider != ProviderDemo || cfg.Model != "demo" || cfg.MaxSteps != 50 || !cfg.Interactive() || cfg.Undo != (Undo{KeepTurns: 100, MaxFileMB: 10}) {
		t.Errorf("defaults wrong: %+v", cfg)
	}
}

var goType = regexp.MustCompile(`\bconfig\.[A-Z]|\[\]|\*bool|\bint\b|\bfloat64\b`)

func TestLoadErrorsNameFileAndKey(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
	}{
		{"unknown key", `{"modle":"x"}`, []string{`unknown key "modle"`}},
		{"wrong type", `{"max_steps":"ten"}`, []string{`"max_steps"`, "int"}},
		{"nested wrong type", `{"permissions":{"preset":3}}`, []string{`permissions.preset`}},
		{"nested unknown", `{"approval":{"interactiv":false}}`, []string{`unknown key "interactiv"`}},
		{"malformed", `{"model": `, []string{"invalid JSON"}},
		{"trailing", `{} {}`, []string{"extra data"}},
		{"bad mode", `{"mode":"turbo"}`, []string{`"mode"`, "turbo"}},
		{"bad preset", `{"permissions":{"preset":"open"}}`, []string{"permissions.preset"}},
		{"mode with a space", `{"mode":"auto-edit "}`, []string{`"mode"`, `"auto-edit "`, "plan, default, auto-edit, yolo"}},
		{"mode in capitals", `{"mode":"Default"}`, []string{`"mode"`, `"Default"`}},
		{"preset with a space", `{"permissions":{"preset":"balanced "}}`, []string{`"permissions.preset"`, `"balanced "`, "strict, balanced, auto-edit, yolo"}},
		{"bad rule", `{"permissions":{"rules":[{"tool":"bash","pattern":"x","decision":"maybe"}]}}`, []string{"permissions.rules[0]", `decision "maybe"`}},
		{"bad rule glob", `{"permissions":{"rules":[{"tool":"write","pattern":"src/[","decision":"deny"}]}}`, []string{"permissions.rules[0]", "not a valid path glob"}},
		{"empty rule tool", `{"permissions":{"rules":[{"tool":"","pattern":"x","decision":"deny"}]}}`, []string{"permissions.rules[0]", "tool is empty"}},
		{"bad ttl", `{"approval":{"ttl":"soon"}}`, []string{"approval.ttl"}},
		{"bad steps", `{"max_steps":0}`, []string{"max_steps"}},
		{"idle timeout not a duration", `{"stream_idle_timeout":"2 minutes"}`, []string{`"stream_idle_timeout"`, `"2 minutes"`, `"120s"`}},
		{"idle timeout zero", `{"stream_idle_timeout":"0s"}`, []string{`"stream_idle_timeout"`, "positive"}},
		{"idle timeout number", `{"stream_idle_timeout":120}`, []string{`"stream_idle_timeout"`, "expected a string"}},
		{"model_images not a boolean", `{"model_images":"no"}`, []string{`"model_images"`, "expected"}},
		{"widened verify", `{"workflow":{"max_verify_attempts":5}}`, []string{"max_verify_attempts"}},
		{"no undo turns", `{"undo":{"keep_turns":0}}`, []string{"undo.keep_turns"}},
		{"negative file size", `{"undo":{"max_file_mb":-1}}`, []string{"undo.max_file_mb"}},
		{"unknown storage policy", `{"storage":{"policy":"some"}}`, []string{"storage.policy", "headers_only"}},
		{"bad storage ttl", `{"storage":{"policy":"ttl","ttl":"3 days"}}`, []string{"storage.ttl", "72h"}},
		{"not object", `[1,2]`, []string{"config", "expected a JSON object"}},
		// Type errors speak JSON, not Go.
		{"object expected", `{"approval":"x"}`, []string{`"approval"`, "expected an object"}},
		{"array expected", `{"workflow":{"verify_commands":"go test"}}`, []string{`"workflow.verify_commands"`, "expected an array of strings"}},
		{"rules not array", `{"permissions":{"rules":{}}}`, []string{`"permissions.rules"`, "expected an array of objects"}},
		{"boolean expected", `{"approval":{"interactive":"yes"}}`, []string{`"approval.interactive"`, "true or false"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The user's own file stops the load; a project's file is
			// ignored, with the same message as its notice.
			xdg := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", xdg)
			root := t.TempDir()
			writeConfig(t, UserFile(), tt.body)
			_, err := Load(root, env(nil))
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), UserFile()) {
				t.Errorf("error %q does not name the user's file", err)
			}
			if err := os.Remove(UserFile()); err != nil {
				t.Fatal(err)
			}
			writeConfig(t, WorkspaceFile(root), tt.body)
			cfg, err := Load(root, env(nil))
			if err != nil {
				t.Fatalf("an invalid project file stopped the load: %v", err)
			}
			if cfg.Mode != Defaults().Mode || cfg.Workspace.File != WorkspaceFile(root) || cfg.Workspace.Trusted {
				t.Errorf("invalid project file applied: mode %q, workspace %+v", cfg.Mode, cfg.Workspace)
			}
			msg := cfg.Workspace.Invalid
			if n := cfg.Workspace.Notice(root); !strings.Contains(n, msg) || !strings.Contains(n, "ignored") {
				t.Errorf("notice %q does not carry %q", n, msg)
			}
			if !strings.Contains(msg, WorkspaceFile(root)) {
				t.Errorf("error %q does not name the file", msg)
			}
			if goType.MatchString(msg) {
				t.Errorf("error %q names a Go type", msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
	}
}

func TestStreamIdleTimeout(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := t.TempDir()
	cfg, err := Load(root, env(nil))
	if err != nil || cfg.IdleTimeout() != 120*time.Second {
		t.Fatalf("default: %v, err %v", cfg.IdleTimeout(), err)
	}
	writeConfig(t, WorkspaceFile(root), `{"stream_idle_timeout":"1m30s"}`)
	getenv := env(map[string]string{"XDG_STATE_HOME": t.TempDir()})
	if _, err := TrustWorkspace(root, getenv); err != nil {
		t.Fatal(err)
	}
	if cfg, err = Load(root, getenv); err != nil || cfg.IdleTimeout() != 90*time.Second {
		t.Fatalf("set: %v, err %v", cfg.IdleTimeout(), err)
	}
}

func TestSetWorkspaceKeyKeepsOtherKeys(t *testing.T) {
	root := t.TempDir()
	writeConfig(t, WorkspaceFile(root), `{"mode":"plan","permissions":{"preset":"strict"}}`)
	if err := SetWorkspaceKey(root, "", "model", "new-model"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(WorkspaceFile(root))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["model"] != "new-model" || doc["mode"] != "plan" || doc["permissions"] == nil {
		t.Errorf("doc = %v", doc)
	}
	// A file that is not an object is never clobbered.
	writeConfig(t, WorkspaceFile(root), `not json`)
	if err := SetWorkspaceKey(root, "", "model", "x"); err == nil {
		t.Error("rewrote a malformed file")
	}
	if data, _ := os.ReadFile(WorkspaceFile(root)); string(data) != "not json" {
		t.Errorf("malformed file changed: %q", data)
	}
}

func TestMCPServers(t *testing.T) {
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	root := t.TempDir()
	writeConfig(t, filepath.Join(xdg, "coder", "config.json"), `{"mcpServers": {
		"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]},
		"web": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}}}}`)
	writeConfig(t, WorkspaceFile(root), `{"mcpServers": {"fs": {"command": "fs-server", "env": {"A": "1"}, "cwd": "sub", "trusted": true},
		"off": {"command": "x", "disabled": true}}, "mcp": {"start_timeout": "5s", "concurrent": 2}}`)
	getenv := env(map[string]string{"XDG_STATE_HOME": t.TempDir()})
	if _, err := TrustWorkspace(root, getenv); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(root, getenv)
	if err != nil {
		t.Fatal(err)
	}
	fs := cfg.MCPServers["fs"]
	if fs.Command != "fs-server" || len(fs.Args) != 0 || fs.Env["A"] != "1" || !fs.Trusted || fs.Cwd != "sub" {
		t.Errorf("fs = %+v, want the workspace entry whole", fs)
	}
	if cfg.MCPServers["web"].Headers["Authorization"] != "Bearer x" || !cfg.MCPServers["off"].Disabled {
		t.Errorf("servers = %+v", cfg.MCPServers)
	}
	if cfg.MCPStartTimeout() != 5*time.Second || cfg.MCP.Concurrent != 2 || cfg.MCPFirstTurnWait() != 2*time.Second {
		t.Errorf("mcp settings = %+v", cfg.MCP)
	}

	for _, tc := range []struct{ body, want string }{
		{`{"mcpServers": {"my server": {"command": "x"}}}`, `key "mcpServers.my server": server names may use only letters, digits, _ and -`},
		{`{"mcpServers": {"s": {"command": "x", "argv": []}}}`, `unknown key "mcpServers.s.argv"`},
		{`{"mcpServers": {"s": {}}}`, `key "mcpServers.s": needs "command"`},
		{`{"mcpServers": {"s": {"command": 3}}}`, `key "mcpServers.s.command": expected a string`},
		{`{"mcp": {"start_timeout": "soon"}}`, `key "mcp.start_timeout"`},
		{`{"mcp": {"calls_per_minute": -1}}`, `key "mcp.calls_per_minute"`},
	} {
		writeConfig(t, WorkspaceFile(root), tc.body)
		err := loadProjectError(root)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), WorkspaceFile(root)) {
			t.Errorf("%s: error %v, want %q naming the file", tc.body, err, tc.want)
		}
	}
}

func TestDecodeMCPServers(t *testing.T) {
	got, err := DecodeMCPServers([]byte(`{"fs": {"command": "npx", "args": ["a"]}}`))
	if err != nil || got["fs"].Command != "npx" {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{`{"fs": {"cmd": "npx"}}`, `{"a/b": {"command": "x"}}`, `[1]`} {
		if _, err := DecodeMCPServers([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	cfg := Defaults()
	cfg.MCPServers = map[string]mcp.ServerConfig{"a": {Command: "1"}, "b": {Command: "2"}}
	cfg.AddMCPServers(map[string]mcp.ServerConfig{"b": {URL: "http://x"}})
	if cfg.MCPServers["a"].Command != "1" || cfg.MCPServers["b"].URL != "http://x" {
		t.Errorf("merged = %v", cfg.MCPServers)
	}
}
