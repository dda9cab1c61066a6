package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// TestExecDefaultModeRunsReadOnlyGoCommands: in default mode, with
// nobody to ask, gofmt -l and go vet run as other read-only commands do;
// gofmt -w and go vet -vettool are asked for, so refused, and change
// nothing (issue 52, newcomer 6).
func TestExecDefaultModeRunsReadOnlyGoCommands(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go on PATH")
	}
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	dir := gitRepo(t)
	writeTestFile(t, filepath.Join(dir, "go.mod"), "module example.com/x\n\ngo 1.22\n")
	const unformatted = "package x\nfunc F( ) {}\n"
	writeTestFile(t, filepath.Join(dir, "x.go"), unformatted)
	cmds := []string{"gofmt -l .", "go vet ./...", "gofmt -w x.go", "go vet -vettool=./evil ./..."}
	var calls []llm.ToolCall
	for i, c := range cmds {
		calls = append(calls, toolCall(string(rune('a'+i)), "bash", map[string]any{"command": c}))
	}
	srv.Enqueue(fakellm.Reply{ToolCalls: calls}, fakellm.Reply{Content: "ok"})
	r := execHost(t, bin, dir, srv.URL(), "check the code")
	for _, c := range cmds[:2] {
		if l := bashLine(r.stderr, c); !strings.Contains(l, "— completed") {
			t.Errorf("%s did not run unasked: %q\n%s", c, l, r.stderr)
		}
	}
	for _, c := range cmds[2:] {
		if l := bashLine(r.stderr, c); strings.Contains(l, "— completed") {
			t.Errorf("%s ran unasked: %q", c, l)
		}
	}
	if got := readTestFile(t, filepath.Join(dir, "x.go")); got != unformatted {
		t.Errorf("x.go was rewritten: %q", got)
	}
}

func readTestFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
