//go:build unix

package tools

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// waitSpare waits for the spare Prestart started, until bash waits for
// its command (it sleeps reading fd 3), and returns its pid.
func waitSpare(tb testing.TB, s *Shells) int {
	tb.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; {
		s.mu.Lock()
		p := s.spare
		s.mu.Unlock()
		if p != nil && waitsForCommand(p.pid) {
			return p.pid
		}
		if time.Now().After(deadline) {
			tb.Fatal("no spare bash was started")
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// waitsForCommand reports whether bash pid has opened its command pipe
// (fd 3) again as /dev/fd/3: its start is over. It compares the pipes
// rather than counting fds, since how many fds bash inherited depends on
// what ran the tests.
func waitsForCommand(pid int) bool {
	fdDir := "/proc/" + strconv.Itoa(pid) + "/fd/"
	cmdPipe, err := os.Readlink(fdDir + "3")
	if err != nil {
		return false
	}
	fds, _ := os.ReadDir(fdDir)
	for _, fd := range fds {
		if fd.Name() == "3" {
			continue
		}
		if target, err := os.Readlink(fdDir + fd.Name()); err == nil && target == cmdPipe {
			return true
		}
	}
	return false
}

// warmShells returns Shells on a temporary directory whose spare waits
// for its command; they are closed with the test.
func warmShells(t *testing.T) *Shells {
	t.Helper()
	s := NewShells(t.TempDir(), testBash())
	t.Cleanup(s.Close)
	s.Prestart(nil, nil)
	waitSpare(t, s)
	return s
}

// gone reports whether pid is no process any more (reaped, not a zombie).
func gone(pid int) bool { return syscall.Kill(pid, 0) == syscall.ESRCH }

// shellRun runs command on s and returns its output, failing on a non-zero
// exit.
func shellRun(t *testing.T, s *Shells, command string, extra ...string) string {
	t.Helper()
	r := s.Run(context.Background(), command, time.Minute, 0, extra, nil)
	if r.ExitCode != 0 {
		t.Fatalf("%q: %+v", command, r)
	}
	return r.Stdout
}

// A spare serves a call only with the very environment and directory of
// that call: a read-only call's git settings are never missing, nor added
// to a call that should not have them, and a directory replaced on disk is
// not run in.
func TestShellsSpare(t *testing.T) {
	roEnv := []string{"CODER_NVIM_TEST_RO=1"}
	tests := []struct {
		name       string
		spareExtra []string
		callExtra  []string
		replaceDir bool
		used       bool
	}{
		{"same environment", nil, nil, false, true},
		{"same extra environment", roEnv, roEnv, false, true},
		{"call needs the extra environment", nil, roEnv, false, false},
		{"call must not have it", roEnv, nil, false, false},
		{"directory replaced", nil, nil, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "ws")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			s := NewShells(dir, testBash())
			defer s.Close()
			s.Prestart(tt.spareExtra, nil)
			pid := waitSpare(t, s)
			if tt.replaceDir {
				if err := os.Rename(dir, dir+".old"); err != nil {
					t.Fatal(err)
				}
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "new-marker"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out := shellRun(t, s, `echo "$$ ${CODER_NVIM_TEST_RO:-unset}"; ls`, tt.callExtra...)
			fields := strings.Fields(out)
			if len(fields) < 2 {
				t.Fatalf("output %q", out)
			}
			if used := fields[0] == strconv.Itoa(pid); used != tt.used {
				t.Errorf("spare %d used: %v, want %v (output %q)", pid, used, tt.used, out)
			}
			if want := map[bool]string{true: "1", false: "unset"}[tt.callExtra != nil]; fields[1] != want {
				t.Errorf("CODER_NVIM_TEST_RO = %s, want %s", fields[1], want)
			}
			if tt.replaceDir && !strings.Contains(out, "new-marker") {
				t.Errorf("ran outside the new directory: %q", out)
			}
			if !tt.used && !gone(pid) {
				t.Errorf("the unused spare %d is still running", pid)
			}
		})
	}
}

// Release and Close leave no bash behind; after Close nothing starts.
func TestShellsReleaseClose(t *testing.T) {
	s := NewShells(t.TempDir(), testBash())
	s.Prestart(nil, nil)
	pid := waitSpare(t, s)
	s.Release()
	if !gone(pid) {
		t.Errorf("spare %d still runs after Release", pid)
	}
	s.Prestart(nil, nil)
	pid = waitSpare(t, s)
	s.Close()
	if !gone(pid) {
		t.Errorf("spare %d still runs after Close", pid)
	}
	s.Prestart(nil, nil)
	s.mu.Lock()
	started := s.spare != nil || s.starting != nil
	s.mu.Unlock()
	if started {
		t.Error("Prestart after Close started a bash")
	}
}

// What no pipe holds at once reaches bash whole; a NUL byte, which would
// end the command early unseen, is refused.
func TestShellsCommandText(t *testing.T) {
	s := warmShells(t)
	long := strings.Repeat("x", 300_000)
	if out := shellRun(t, s, ": '"+long+"'\necho \"$LINENO done\""); out != "2 done\n" {
		t.Errorf("300 kB command: %q", out)
	}
	r := s.Run(context.Background(), "echo a\x00; touch nul-ran", time.Minute, 0, nil, nil)
	if r.ExitCode != -1 || !strings.Contains(r.Stderr, "NUL") {
		t.Errorf("NUL command: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(s.dir, "nul-ran")); err == nil {
		t.Error("a command with a NUL byte ran")
	}
}

// A spare runs each call's timeout from the call, and a call cancelled
// before it began does not run at all.
func TestShellsTimeoutAndCancel(t *testing.T) {
	s := warmShells(t)
	r := s.Run(context.Background(), "sleep 30", 50*time.Millisecond, 0, nil, nil)
	if !r.TimedOut || r.ExitCode != 128+9 {
		t.Errorf("timeout: %+v", r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r = s.Run(ctx, "touch cancelled-ran", time.Minute, 0, nil, nil)
	if !r.Canceled || r.ExitCode != -1 {
		t.Errorf("cancelled: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(s.dir, "cancelled-ran")); err == nil {
		t.Error("a call cancelled before it began ran")
	}
}
