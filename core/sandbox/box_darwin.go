package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

const seatbeltExec = "/usr/bin/sandbox-exec"

func probeSupport(context.Context, string) (Support, bool) {
	if _, err := os.Stat(seatbeltExec); err != nil {
		return Support{Missing: []string{seatbeltExec + " is missing: commands run unconfined, and are asked as before"}}, false
	}
	return Support{Filesystem: true, Protect: true, Network: true, Mechanisms: []string{
		"Seatbelt: writes only under the writable roots, protected paths and git's configuration read-only, network refused unless allowed, no Unix socket outside but those your config names, no signal or process inspection outside",
		"a session per command: no controlling terminal",
	}, Missing: []string{"macOS has no PID namespaces: what a command starts in the background can outlive its call"}}, false
}

func (b *Box) wrap(cmd *exec.Cmd, p Policy) error {
	// A session of its own: no controlling terminal to push keys into.
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	p.UnixSockets = realPaths(p.UnixSockets)
	p.Writable, p.Protected, p.Pinned = realPaths(p.Writable), realPaths(p.Protected), realPaths(p.Pinned)
	cmd.Args = append([]string{seatbeltExec, "-p", SeatbeltProfile(p), cmd.Path}, cmd.Args[1:]...)
	cmd.Path = seatbeltExec
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = withEnv(ScrubEnv(cmd.Env, p.EnvKeep, p.EnvDrop), p.Env)
	return nil
}

// realPaths resolves symbolic links, as Seatbelt matches real paths; a
// path that does not exist yet is kept as given.
func realPaths(ps []string) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		out = append(out, p)
	}
	return out
}

// Main: Seatbelt's sandbox-exec is the launcher here.
func Main([]string) int { return exitSetup }
