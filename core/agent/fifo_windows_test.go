package agent

import "testing"

func mkfifo(t *testing.T, _ string) {
	t.Skip("Windows has no FIFOs")
}
