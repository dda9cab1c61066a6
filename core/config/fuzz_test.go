package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzLoad writes fuzzed user and workspace config files and loads them.
// Load must never panic; a failure must name the file at fault; a success
// must be a valid config, and writing it back as JSON must load the same.
func FuzzLoad(f *testing.F) {
	for _, s := range [][2]string{
		{`{"model":"user-model","max_steps":7,"mode":"plan"}`, `{"model":"ws","permissions":{"preset":"strict"}}`},
		{``, `{"provider":"openai","base_url":"http://127.0.0.1:1/v1"}`},
		{`{"permissions":{"rules":[{"tool":"bash","match":"go test*","action":"allow"}]}}`, `{}`},
		{`{"approval":{"interactive":false,"scope":"conversation","ttl":"30m"}}`, `{"workflow":{"verify_commands":["go test ./..."],"max_verify_attempts":1}}`},
		{`{"compact_threshold":0.5,"context_window":1000}`, `[]`},
		{`{"mode":"yolo"} {"x":1}`, `{"max_steps":"7"}`},
		{`{"unknown":1}`, `null`},
		{`{"approval":{"ttl":"-5s"}}`, `{"provider":"demo","model":""}`},
		{"\xef\xbb\xbf{}", `{"max_steps":1e400}`},
	} {
		f.Add(s[0], s[1])
	}
	xdg := f.TempDir()
	f.Setenv("XDG_CONFIG_HOME", xdg)
	userFile := filepath.Join(xdg, "coder", "config.json")
	if err := os.MkdirAll(filepath.Dir(userFile), 0o755); err != nil {
		f.Fatal(err)
	}
	getenv := func(string) string { return "" }
	f.Fuzz(func(t *testing.T, user, workspace string) {
		root := t.TempDir()
		wsFile := WorkspaceFile(root)
		if err := os.MkdirAll(filepath.Dir(wsFile), 0o755); err != nil {
			t.Fatal(err)
		}
		for path, body := range map[string]string{userFile: user, wsFile: workspace} {
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cfg, err := Load(root, getenv)
		if err != nil {
			if msg := err.Error(); !strings.Contains(msg, userFile) && !strings.Contains(msg, wsFile) {
				t.Fatalf("error names no file: %v", err)
			}
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("Load returned an invalid config: %v", err)
		}
		if len(cfg.Files) != 2 {
			t.Fatalf("files read = %v", cfg.Files)
		}

		// The loaded config, written back as the user's only file, loads
		// the same.
		data, err := json.Marshal(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for path, body := range map[string]string{userFile: string(data), wsFile: ""} {
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		again, err := Load(root, getenv)
		if err != nil {
			t.Fatalf("reloading %s: %v", data, err)
		}
		again.Workspace, cfg.Workspace = Workspace{}, Workspace{}
		// Where a setting came from differs: it is now the user's.
		again.set, cfg.set = keySet{}, keySet{}
		again.ProviderReason, cfg.ProviderReason = "", ""
		again.Detected, cfg.Detected = false, false
		if !reflect.DeepEqual(again, cfg) {
			t.Fatalf("reloaded config differs:\n got %+v\nwant %+v", again, cfg)
		}
	})
}
