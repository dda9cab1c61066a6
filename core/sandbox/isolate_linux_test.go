package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestIsolation: through the launcher (Wrap, no fork server), a
// command's temp dir is the session's own, a daemon's socket in the
// runtime dir (hidden) and one in /tmp (a read view: its files listed)
// are out of reach, one the policy allows is reachable, and the
// workspace under a read view is itself.
func TestIsolation(t *testing.T) {
	b := testBox(t)
	ws, runtime, state := t.TempDir(), t.TempDir(), t.TempDir()
	// The temp dir elsewhere than /tmp, which then is a read view.
	hostTemp := filepath.Join(t.TempDir(), "tmp")
	if err := os.Mkdir(hostTemp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", hostTemp)
	if err := os.WriteFile(filepath.Join(state, "seen"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	listen := func(p string) {
		ln, err := net.Listen("unix", p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
	}
	hidden, viewed, allowed := filepath.Join(runtime, "d.sock"), filepath.Join(state, "v.sock"), filepath.Join(runtime, "ok.sock")
	for _, p := range []string{hidden, viewed, allowed} {
		listen(p)
	}
	pv := OpenPrivate(ws, state)
	t.Cleanup(func() { pv.Close() })
	p := Policy{Writable: []string{ws, hostTemp}}
	env := map[string]string{"XDG_RUNTIME_DIR": runtime}
	pv.Apply(&p, ws, hostTemp, Rules{UnixSockets: []string{allowed}}, func(k string) string { return env[k] })
	script := `python3 - <<'EOF'
import socket, sys, tempfile, os
for p in sys.argv[1:] or ["` + hidden + `", "` + viewed + `", "` + allowed + `"]:
    c = socket.socket(socket.AF_UNIX)
    try:
        c.connect(p); print("connected", p)
    except OSError as e:
        print("refused", p, e.strerror)
open(os.path.join(tempfile.gettempdir(), "mine"), "w").write("x")
open("in-ws", "w").write("x")
print("listed", sorted(os.listdir("` + state + `")), "/tmp" if os.listdir("/tmp") else "/tmp empty")
EOF`
	code, out := run(t, b, p, ws, script)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	for _, s := range []string{"refused " + hidden + " No such file", "refused " + viewed + " Connection refused", "connected " + allowed,
		"listed ['cache', 'seen', 'v.sock'] /tmp\n"} {
		if !strings.Contains(out, s) {
			t.Errorf("want %q in:\n%s", s, out)
		}
	}
	if _, err := os.Stat(filepath.Join(pv.Temp, "mine")); err != nil {
		t.Errorf("the temp file is not in the session's temp dir: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "in-ws")); err != nil {
		t.Errorf("the workspace write did not land: %v", err)
	}
}

func TestScrubEnv(t *testing.T) {
	env := []string{"PATH=/bin", "OPENAI_API_KEY=a", "GITHUB_TOKEN=b", "db_password=c", "NVIM=/s", "AWS_REGION=r",
		"GIT_AUTHOR_NAME=t", "KEEP_TOKEN=k", "TMUX=/t", "PLAIN=p"}
	for _, tt := range []struct {
		keep, drop []string
		want       string
	}{
		{nil, nil, "PATH=/bin GIT_AUTHOR_NAME=t PLAIN=p"},
		{[]string{"KEEP_*", "AWS_REGION"}, []string{"PLAIN"}, "PATH=/bin AWS_REGION=r GIT_AUTHOR_NAME=t KEEP_TOKEN=k"},
		{[]string{"*"}, []string{"KEEP_TOKEN"}, "PATH=/bin OPENAI_API_KEY=a GITHUB_TOKEN=b db_password=c NVIM=/s AWS_REGION=r GIT_AUTHOR_NAME=t TMUX=/t PLAIN=p"},
	} {
		if got := strings.Join(ScrubEnv(env, tt.keep, tt.drop), " "); got != tt.want {
			t.Errorf("keep %v drop %v:\n got %s\nwant %s", tt.keep, tt.drop, got, tt.want)
		}
	}
}

// TestDefaultEnvForms: the defaults are only of the forms defaultDropped
// tests.
func TestDefaultEnvForms(t *testing.T) {
	for _, p := range DroppedEnv() {
		inner := strings.Trim(p, "*")
		if strings.ContainsAny(inner, "*?[\\") || p != strings.ToUpper(p) || strings.HasPrefix(p, "*") != strings.HasSuffix(p, "*") && !strings.HasSuffix(p, "*") {
			t.Errorf("pattern %q is not *X*, X* or a name", p)
		}
	}
}

// TestSweepTemps: a session's temp dir whose host is gone is removed as
// the next session opens; a live host's is kept.
func TestSweepTemps(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(os.TempDir(), fmt.Sprintf("%s%d-1", tempPrefix, dead.Process.Pid))
	live := filepath.Join(os.TempDir(), fmt.Sprintf("%s%d-1", tempPrefix, os.Getppid()))
	for _, d := range []string{gone, live} {
		if err := os.MkdirAll(filepath.Join(d, "x"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	pv := OpenPrivate(t.TempDir(), "")
	defer pv.Close()
	if _, err := os.Stat(gone); err == nil {
		t.Error("a dead host's temp dir was kept")
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live host's temp dir was removed: %v", err)
	}
	if !strings.HasPrefix(filepath.Base(pv.Temp), fmt.Sprintf("%s%d-", tempPrefix, os.Getpid())) {
		t.Errorf("temp dir %s is not named by its host", pv.Temp)
	}
}

func TestCacheKey(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	if CacheKey(a) == CacheKey(b) || CacheKey(a) != CacheKey(link) {
		t.Errorf("keys: %s %s %s", CacheKey(a), CacheKey(b), CacheKey(link))
	}
}
