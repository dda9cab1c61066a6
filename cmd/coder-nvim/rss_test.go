package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// vmRSS reads a process's resident set size in KiB from /proc.
func vmRSS(pid int) (int, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
		}
	}
	return 0, fmt.Errorf("no VmRSS for pid %d", pid)
}

// BenchmarkIdleRSS starts the host as Neovim would (msgpack-RPC on stdio),
// lets it settle, and reports its resident memory.
func BenchmarkIdleRSS(b *testing.B) {
	bin := hostBinary(b)
	for b.Loop() {
		cmd := exec.Command(bin, "nvim")
		stdin, err := cmd.StdinPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
		kb, err := vmRSS(cmd.Process.Pid)
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(kb)/1024, "MiB-RSS")
	}
}
