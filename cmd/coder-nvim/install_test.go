package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/testrelease"
)

// repoRoot is this checkout: the plugin the install script belongs to.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// binEntries lists what bin/ holds, leftovers of the script included.
func binEntries(t *testing.T, plugin string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(plugin, "bin"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// closedURL is a loopback address nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// TestInstallBinaryDownload: the release's binaries for this machine are
// installed into bin/, checked against SHA256SUMS, and run.
func TestInstallBinaryDownload(t *testing.T) {
	testrelease.Skip(t)
	const version = "0.1.0"
	rel := testrelease.Serve(t, hostBinary(t), version)
	plugin := testrelease.PluginCopy(t, repoRoot(t), version)
	out, ok := testrelease.Install(t, plugin, "CODER_NVIM_RELEASE_URL="+rel.URL)
	if !ok {
		t.Fatalf("install failed:\n%s", out)
	}
	want := fmt.Sprintf("downloaded %s for %s/%s from %s/v%s, checksum ok", version, runtime.GOOS, runtime.GOARCH, rel.URL, version)
	if !strings.Contains(out, want) {
		t.Errorf("output %q does not say %q", out, want)
	}
	got := binEntries(t, plugin)
	wantBin := []string{"coder-nvim"}
	if runtime.GOOS == "linux" {
		wantBin = append(wantBin, "coder-nvim-sandbox")
	}
	if strings.Join(got, " ") != strings.Join(wantBin, " ") {
		t.Errorf("bin/ holds %v, want %v (no leftovers)", got, wantBin)
	}
	v, err := exec.Command(filepath.Join(plugin, "bin", "coder-nvim"), "--version").Output()
	if err != nil || !strings.HasPrefix(string(v), "coder-nvim ") {
		t.Errorf("installed host --version: %q %v", v, err)
	}
}

// TestInstallBinaryTampered: a binary whose sum is not the release's is
// refused, and bin/ is left without it or anything the script downloaded.
func TestInstallBinaryTampered(t *testing.T) {
	testrelease.Skip(t)
	const version = "0.1.0"
	rel := testrelease.Serve(t, hostBinary(t), version)
	f, err := os.OpenFile(rel.Path(rel.HostName()), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("tampered")
	f.Close()
	plugin := testrelease.PluginCopy(t, repoRoot(t), version)
	out, ok := testrelease.Install(t, plugin, "CODER_NVIM_RELEASE_URL="+rel.URL)
	if ok {
		t.Fatalf("a tampered binary was installed:\n%s", out)
	}
	if !strings.Contains(out, "checksum mismatch") || !strings.Contains(out, "nothing was installed") {
		t.Errorf("output does not name the mismatch:\n%s", out)
	}
	if got := binEntries(t, plugin); len(got) != 0 {
		t.Errorf("bin/ holds %v after a refused install", got)
	}
}

// TestInstallBinaryFallback: an unreachable release builds from source
// when Go is here, and without Go fails saying what to do.
func TestInstallBinaryFallback(t *testing.T) {
	testrelease.Skip(t)
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not on PATH")
	}
	const version = "0.1.0"
	t.Run("with go", func(t *testing.T) {
		plugin := testrelease.PluginCopy(t, repoRoot(t), version)
		out, ok := testrelease.Install(t, plugin, "CODER_NVIM_RELEASE_URL="+closedURL(t))
		if !ok {
			t.Fatalf("install failed:\n%s", out)
		}
		if !strings.Contains(out, "cannot download") || !strings.Contains(out, "built "+version+" from source with go") {
			t.Errorf("output does not say it built from source after the failed download:\n%s", out)
		}
		v, err := exec.Command(filepath.Join(plugin, "bin", "coder-nvim"), "--version").Output()
		if err != nil || strings.TrimSpace(string(v)) != "coder-nvim "+version {
			t.Errorf("built host --version: %q %v", v, err)
		}
	})
	t.Run("without go", func(t *testing.T) {
		plugin := testrelease.PluginCopy(t, repoRoot(t), version)
		// PATH without the directory go is in (the shell tools stay).
		var path []string
		for _, d := range filepath.SplitList(os.Getenv("PATH")) {
			if _, err := os.Stat(filepath.Join(d, "go")); err == nil {
				continue
			}
			path = append(path, d)
		}
		if filepath.Dir(goBin) == "/usr/bin" {
			t.Skip("go is in /usr/bin with the shell tools")
		}
		out, ok := testrelease.Install(t, plugin, "CODER_NVIM_RELEASE_URL="+closedURL(t), "PATH="+strings.Join(path, string(os.PathListSeparator)))
		if ok {
			t.Fatalf("install succeeded without a release or Go:\n%s", out)
		}
		for _, want := range []string{"no binary installed", "Install Go", "SHA256SUMS", "CODER_NVIM_RELEASE_URL"} {
			if !strings.Contains(out, want) {
				t.Errorf("output does not say %q:\n%s", want, out)
			}
		}
		if got := binEntries(t, plugin); len(got) != 0 {
			t.Errorf("bin/ holds %v after a failed install", got)
		}
	})
}
