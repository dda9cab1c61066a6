package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// resolverGo fetches a URL the way `go mod download` reaches its proxy:
// Go's own resolver and dialer, whose errors name neither the sandbox nor
// the refused socket(2) plainly.
const resolverGo = `package main

import (
	"fmt"
	"net/http"
	"os"
)

func main() {
	_, err := http.Get(os.Args[1])
	fmt.Fprintln(os.Stderr, "go: downloading example.com/m v1.0.0:", err)
	os.Exit(1)
}
`

// A confined command whose network access the sandbox refused — curl to a
// loopback listener, a name lookup as `go mod download` makes — gets the
// SandboxError note naming the sandbox and outside_sandbox, as a refused
// write does.
func TestExecSandboxNetworkRefusalNamed(t *testing.T) {
	requireSandbox(t)
	w := newSandboxWorld(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	// A Go program that looks a name up, built outside the sandbox.
	src := t.TempDir()
	writeTestFile(t, filepath.Join(src, "go.mod"), "module resolver\n\ngo 1.24\n")
	writeTestFile(t, filepath.Join(src, "main.go"), resolverGo)
	resolver := filepath.Join(t.TempDir(), "resolver")
	build := exec.Command("go", "build", "-o", resolver, ".")
	build.Dir, build.Env = src, append(os.Environ(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	calls := []struct{ id, command, tool string }{
		{"curl", "curl -sS http://127.0.0.1:" + portOf(ln) + "/", "curl"},
		{"dns", resolver + " https://proxy.golang.org/example.com/m/@v/v1.0.0.zip", "go"},
		{"py", "python3 -c " + shellQuote("import urllib.request; urllib.request.urlopen('http://127.0.0.1:"+portOf(ln)+"/', timeout=5)"), "python3"},
	}
	for _, c := range calls {
		if _, err := exec.LookPath(c.tool); err != nil {
			t.Logf("no %s: skipped", c.tool)
			continue
		}
		r, res := w.run(t, "auto-edit", nil, bash(c.id, c.command))
		if r.code != 0 {
			t.Fatalf("exec: exit %d\n%s", r.code, r.stderr)
		}
		if !strings.Contains(res[c.id], "SandboxError") || !strings.Contains(res[c.id], "no network") || !strings.Contains(res[c.id], "outside_sandbox: true") {
			t.Errorf("%s: the refused network access is not named as the sandbox's: %q", c.id, res[c.id])
		}
	}
}
