// Package testrelease is test support for the plugin's install script
// (scripts/install-binary.sh): a fake release of the host served on
// loopback as the releases page serves it, and a copy of the plugin as a
// plugin manager checks it out.
package testrelease

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Release is a fake release for this machine, its files named as `make
// dist` names them, served as URL/vVERSION/FILE.
type Release struct {
	Dir, Version, URL string
}

// Serve serves host (and on Linux the sandbox launcher beside it, or host
// again when there is none) as version's release, with SHA256SUMS.
func Serve(t testing.TB, host, version string) *Release {
	t.Helper()
	r := &Release{Dir: t.TempDir(), Version: version}
	files := map[string]string{r.HostName(): host}
	if runtime.GOOS == "linux" {
		side := filepath.Join(filepath.Dir(host), "coder-nvim-sandbox")
		if _, err := os.Stat(side); err != nil {
			side = host // the host serves as its own launcher
		}
		files[fmt.Sprintf("coder-nvim-sandbox-%s-%s-%s", version, runtime.GOOS, runtime.GOARCH)] = side
	}
	if err := os.MkdirAll(filepath.Join(r.Dir, "v"+version), 0o755); err != nil {
		t.Fatal(err)
	}
	var sums strings.Builder
	for name, src := range files {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(r.Path(name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), name)
	}
	if err := os.WriteFile(r.Path("SHA256SUMS"), []byte(sums.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(r.Dir)))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// HostName is the release file of the host for this machine.
func (r *Release) HostName() string {
	exe := ""
	if runtime.GOOS == "windows" {
		exe = ".exe"
	}
	return fmt.Sprintf("coder-nvim-%s-%s-%s%s", r.Version, runtime.GOOS, runtime.GOARCH, exe)
}

// Path is where the release file name is on disk.
func (r *Release) Path(name string) string {
	return filepath.Join(r.Dir, "v"+r.Version, name)
}

// PluginCopy is the plugin checkout at src as a plugin manager checks it
// out: its files (those git does not ignore), VERSION set to version, no
// bin/. It skips the test outside a git checkout.
func PluginCopy(t testing.TB, src, version string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", src, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	dst := t.TempDir()
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			continue // deleted in the work tree
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dst, "VERSION"), []byte(version+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// Install runs plugin's install script with env added; it reports the
// script's output and whether it succeeded.
func Install(t testing.TB, plugin string, env ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command("sh", filepath.Join(plugin, "scripts", "install-binary.sh"))
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// Skip skips the test where the POSIX install script cannot run.
func Skip(t testing.TB) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the POSIX install script; Windows uses install-binary.ps1")
	}
	for _, tool := range []string{"sh", "curl", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
}
