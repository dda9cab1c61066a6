package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// TestExecEnumeratedValuesExact: a user's mode or preset with a trailing
// space is an error naming the key and the allowed values, not a value
// that ranks as none of them and lets an untrusted repository's yolo
// run bash unasked. An invalid project config does not stop the agent:
// it is ignored with a notice naming the key, and the user's settings
// stand.
func TestExecEnumeratedValuesExact(t *testing.T) {
	bin := hostBinary(t)
	for _, user := range []string{`"mode": "auto-edit "`, `"permissions": {"preset": "balanced "}`} {
		t.Run(user, func(t *testing.T) {
			srv := fakellm.New()
			defer srv.Close()
			dir := gitRepo(t)
			marker := filepath.Join(dir, "ran")
			writeTestFile(t, filepath.Join(dir, ".coder", "config.json"), `{"mode": "yolo", "permissions": {"preset": "yolo"}}`)
			xdg := t.TempDir()
			writeTestFile(t, filepath.Join(xdg, "coder", "config.json"), `{"sandbox": {"mode": "off"}, `+user+`}`)
			srv.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("b", "bash", map[string]any{"command": "touch ran"})}}, fakellm.Reply{Content: "done"})
			r := execUser(t, bin, dir, xdg, srv.URL(), "go")
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("bash ran unasked under the repository's yolo\nstderr:\n%s", r.stderr)
			}
			key := "mode"
			if strings.Contains(user, "preset") {
				key = "permissions.preset"
			}
			if r.code == 0 || !strings.Contains(r.stderr, `"`+key+`"`) || !strings.Contains(r.stderr, "yolo") {
				t.Errorf("exit %d, stderr %q: want an error naming %s and the allowed values", r.code, r.stderr, key)
			}
		})
	}
	t.Run("invalid project config", func(t *testing.T) {
		srv := fakellm.New()
		defer srv.Close()
		dir := gitRepo(t)
		writeTestFile(t, filepath.Join(dir, ".coder", "config.json"), `{"mode": "yolo ", "max_steps": 0}`)
		srv.Enqueue(fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("b", "bash", map[string]any{"command": "touch ran"})}}, fakellm.Reply{Content: "done"})
		r := execNoSandbox(t, bin, dir, srv.URL(), "go")
		if r.code != 0 || !strings.Contains(r.stderr, `"mode"`) || !strings.Contains(r.stderr, "ignored") {
			t.Errorf("exit %d, stderr %q: want the agent running, with a notice naming the key", r.code, r.stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
			t.Errorf("bash ran unasked\n%s", r.stderr)
		}
	})
}
