package tools

import (
	"context"
	"github.com/coder-nvim/coder-nvim/core/hostpath"
	"os"
	"strings"
	"testing"
	"time"
)

// TestWindowsBash: with Git for Windows, a command runs in its bash.exe,
// gets its text on stdin and reads /dev/null after it, and a background
// child ends with the call (the job object); without it, the bash tool is
// not offered and the reason names Git for Windows.
func TestWindowsBash(t *testing.T) {
	if _, err := FindBash(hostpath.Resolve(os.Getenv("PATH"), "")); err != nil {
		if !strings.Contains(BashMissing(hostpath.Resolve(os.Getenv("PATH"), "")), "Git for Windows") {
			t.Errorf("BashMissing = %q", BashMissing(hostpath.Resolve(os.Getenv("PATH"), "")))
		}
		for _, tool := range Builtins(hostpath.Resolve(os.Getenv("PATH"), "")) {
			if tool.Spec().Function.Name == "bash" {
				t.Error("the bash tool is offered without a bash")
			}
		}
		t.Skip("no Git for Windows here")
	}
	r := runShell(context.Background(), t.TempDir(), "read -r x; echo \"in:$x\"; echo out", 30*time.Second, DefaultOutputCap, false, nil, nil)
	if r.ExitCode != 0 || !strings.Contains(r.Stdout, "in:\nout") {
		t.Fatalf("exit %d, output %q %q", r.ExitCode, r.Stdout, r.Stderr)
	}
	start := time.Now()
	r = runShell(context.Background(), t.TempDir(), "sleep 300 & echo started", 30*time.Second, DefaultOutputCap, false, nil, nil)
	if r.ExitCode != 0 || time.Since(start) > 20*time.Second {
		t.Fatalf("a background child held the call: exit %d after %s", r.ExitCode, time.Since(start))
	}
}
