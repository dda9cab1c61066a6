package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// execDemo runs exec with no provider configured: the offline demo.
func execDemo(t *testing.T, bin, dir string, args ...string) result {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OPENAI_") && !strings.HasPrefix(kv, "CODER_") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			env = append(env, kv)
		}
	}
	return execWithEnv(t, bin, dir, append(env, "XDG_CONFIG_HOME="+t.TempDir()), args...)
}

// A /command alone involves no model: no demo label, no session.
func TestExecCommandInDemo(t *testing.T) {
	bin, dir := hostBinary(t), gitRepo(t)
	r := execDemo(t, bin, dir, "/diff")
	if r.code != 0 || !strings.Contains(r.stdout, "no changes") {
		t.Fatalf("exec /diff: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "[demo]") || strings.Contains(r.stderr, "session:") {
		t.Errorf("exec /diff printed a demo label or a session:\n%s", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, ".coder", "sessions")); err == nil {
		entries, _ := os.ReadDir(filepath.Join(dir, ".coder", "sessions"))
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".json") {
				t.Errorf("exec /diff saved a session: %s", e.Name())
			}
		}
	}
}

// A refused action names the whole way to allow it.
func TestExecRefusalHint(t *testing.T) {
	bin, dir := hostBinary(t), gitRepo(t)
	r := execDemo(t, bin, dir, "show me")
	if !strings.Contains(r.stderr, "[demo] no provider configured") {
		t.Errorf("the demo is not labelled:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, `rerun with --yes, or set "approval": {"interactive": false} in ~/.config/coder/config.json`) {
		t.Errorf("the refusal hint is cut:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, "session: ") {
		t.Errorf("no session named after a model turn:\n%s", r.stderr)
	}
}
