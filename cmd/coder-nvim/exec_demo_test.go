package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// execDemo runs exec with no provider configured: the offline demo.
func execDemo(t *testing.T, bin, dir string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"exec", "--cwd", dir}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OPENAI_") && !strings.HasPrefix(kv, "CODER_") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "XDG_CONFIG_HOME="+t.TempDir())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
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
	if !strings.Contains(r.stderr, `rerun with --yes, or set "approval": {"interactive": false} in .coder/config.json`) {
		t.Errorf("the refusal hint is cut:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, "session: ") {
		t.Errorf("no session named after a model turn:\n%s", r.stderr)
	}
}
