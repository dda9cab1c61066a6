package proc

import (
	"errors"
	"os/exec"
	"testing"
)

// Run and Wait return what exec.Cmd does: the exit status, start errors.
func TestRunStatus(t *testing.T) {
	tests := []struct {
		name string
		cmd  *exec.Cmd
		code int // -1: a start error
	}{
		{"success", exec.Command("sh", "-c", "exit 0"), 0},
		{"exit status", exec.Command("sh", "-c", "exit 3"), 3},
		{"killed", exec.Command("sh", "-c", "kill -KILL $$"), -1 - 9},
		{"no such program", exec.Command("/nonexistent/coder-nvim-test"), -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Run(tt.cmd)
			var exit *exec.ExitError
			switch {
			case tt.code == 0 && err != nil:
				t.Fatalf("Run: %v", err)
			case tt.code == -1 && (err == nil || errors.As(err, &exit)):
				t.Fatalf("Run: %v, want a start error", err)
			case tt.code > 0 && (!errors.As(err, &exit) || exit.ExitCode() != tt.code):
				t.Fatalf("Run: %v, want exit status %d", err, tt.code)
			case tt.code < -1 && (!errors.As(err, &exit) || exit.ExitCode() != -1 || tt.cmd.ProcessState.String() != "signal: killed"):
				t.Fatalf("Run: %v, want killed by a signal", err)
			}
		})
	}
}
