package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"
)

// BenchmarkStart is the cost of the sandbox on a command's start: bash
// running `true`, bare, through the launcher (Landlock, seccomp, a user
// and mount namespace with the protected paths' bind mounts), and
// through the fork server the shells use (confined once; each start a
// fork and an exec). The difference from bare is the set-up per shell
// start.
func BenchmarkStart(b *testing.B) {
	// The host binary when given (make bench), as in use; else this test
	// binary, which is its own launcher too.
	launcher := os.Getenv("CODER_NVIM_BIN")
	if launcher != "" {
		launcher = Launcher(launcher)
	} else {
		var err error
		if launcher, err = os.Executable(); err != nil {
			b.Fatal(err)
		}
	}
	box := New(context.Background(), launcher)
	ws := b.TempDir()
	for _, d := range []string{".git/hooks", ".git/info", ".coder"} {
		os.MkdirAll(ws+"/"+d, 0o755)
	}
	os.WriteFile(ws+"/.git/config", nil, 0o644)
	p := Policy{Writable: []string{ws, os.TempDir()}, Pinned: []string{ws + "/.git"},
		Protected: []string{ws + "/.git/config", ws + "/.git/hooks", ws + "/.git/info", ws + "/.coder"}}
	// As a session confines a git workspace: the whole guard (every git
	// entry, placeholders, pins up to the writable roots).
	gws := b.TempDir()
	if err := exec.Command("git", "init", "-q", gws).Run(); err != nil {
		b.Skip("no git")
	}
	guarded := Policy{Writable: []string{gws, os.TempDir()}}
	GuardWorkspace(context.Background(), GuardSpec{Root: gws, Writable: guarded.Writable, Dirs: []string{gws + "/.coder"}}).Apply(&guarded, true)
	benchStart(b, box, "", p, ws)
	benchStart(b, box, "guard-", guarded, gws)
}

// benchStart runs the served, bare and sandboxed starts for p in ws.
func benchStart(b *testing.B, box *Box, prefix string, p Policy, ws string) {
	b.Run(prefix+"served", func(b *testing.B) {
		if !box.Support().Full() {
			b.Skipf("no full sandbox here: %s", box.Support())
		}
		srv, err := box.Serve(p)
		if err != nil {
			b.Fatal(err)
		}
		defer srv.Close()
		devnull, _ := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		defer devnull.Close()
		for b.Loop() {
			pr, err := srv.Spawn("/bin/bash", []string{"bash", "-c", "true"}, os.Environ(), ws, [3]*os.File{devnull, devnull, devnull})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := pr.Wait(); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, bc := range []struct {
		name string
		wrap bool
	}{{"bare", false}, {"sandboxed", true}} {
		b.Run(prefix+bc.name, func(b *testing.B) {
			if bc.wrap && !box.Support().Full() {
				b.Skipf("no full sandbox here: %s", box.Support())
			}
			for b.Loop() {
				cmd := exec.Command("/bin/bash", "-c", "true")
				cmd.Dir = ws
				if bc.wrap {
					if err := box.Wrap(cmd, p); err != nil {
						b.Fatal(err)
					}
				}
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
