package verify

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name     string
		exit     int
		timedOut bool
		output   string
		want     Outcome
	}{
		{"pass", 0, false, "ok  \tx\t0.1s\n", Passed},
		{"pass with noise", 0, false, "warning: command not found in docs\n", Passed},
		{"go test failure", 1, false, "--- FAIL: TestX (0.00s)\n    x_test.go:9: got 1, want 2\nFAIL\n", Failed},
		{"build failure", 1, false, "# x\n./x.go:3:2: undefined: foo\nFAIL\tx [build failed]\n", Failed},
		{"pytest failure", 1, false, "F.\n=== 1 failed, 1 passed in 0.02s ===\n", Failed},
		{"cargo failure", 101, false, "test result: FAILED. 1 passed; 1 failed\n", Failed},
		{"exit 127", 127, false, "bash: line 1: cargo: command not found\n", EnvError},
		{"exit 127 silent", 127, false, "", EnvError},
		{"exit 126", 126, false, "bash: ./gradlew: Permission denied\n", EnvError},
		{"command not found text", 1, false, "sh: 1: jest: not found\n", EnvError},
		{"bash command not found", 2, false, "bash: mvn: command not found\n", EnvError},
		{"a test output quoting the phrase is a failure", 1, false, "--- FAIL: TestShell\n    want \"command not found\", got \"\"\n", Failed},
		{"timeout", 0, true, "", EnvError},
		{"timeout nonzero", -1, true, "partial output", EnvError},
		{"could not start", -1, false, "fork/exec /bin/bash: no such file", EnvError},
		{"killed", 137, false, "", EnvError},
		{"terminated", 143, false, "", EnvError},
		{"segfault is the code's", 139, false, "", Failed},
		{"abort is the code's", 134, false, "thread panicked", Failed},
		{"pytest missing", 1, false, "/usr/bin/python3: No module named pytest\n", EnvError},
		{"pytest no tests", 5, false, "\n============ no tests ran in 0.01s ============\n", EnvError},
		{"npm missing script", 1, false, "npm error Missing script: \"test\"\n", EnvError},
		{"no go.mod", 1, false, "go: go.mod file not found in current directory or any parent directory\n", EnvError},
		{"go toolchain", 1, false, "go: downloading go1.99 (linux/amd64)\ngo: download go1.99 for linux/amd64: toolchain not available\n", EnvError},
		{"java missing", 1, false, "ERROR: JAVA_HOME is not set and no 'java' command could be found\n", EnvError},
		{"rust toolchain", 1, false, "error: toolchain 'nightly-x86_64-unknown-linux-gnu' is not installed\n", EnvError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Classify(tc.exit, tc.timedOut, tc.output); got != tc.want {
				_, why := Diagnose(tc.exit, tc.timedOut, tc.output)
				t.Errorf("Classify = %v (%s), want %v", got, why, tc.want)
			}
		})
	}
}

func TestOutcomeString(t *testing.T) {
	for o, want := range map[Outcome]string{Passed: "passed", Failed: "failed", EnvError: "environment error", 9: "Outcome(9)"} {
		if got := o.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int(o), got, want)
		}
	}
}

func TestCap(t *testing.T) {
	lines := func(n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(strings.Repeat(string(rune('a'+i%26)), 9) + "\n")
		}
		return b.String()
	}
	for _, tc := range []struct {
		name       string
		in         string
		head, tail int
	}{
		{"short", "hello\n", 4, 4},
		{"exact fit", "0123456789", 5, 5},
		{"lines", lines(100), 55, 105},
		{"no newlines", strings.Repeat("x", 1000), 100, 200},
		{"multibyte", strings.Repeat("测试失败", 300), 101, 203},
		{"zero tail", lines(50), 30, 0},
		{"zero head", lines(50), 0, 30},
		{"negative", lines(50), -5, -5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Cap(tc.in, tc.head, tc.tail)
			h, tl := max(tc.head, 0), max(tc.tail, 0)
			if len(tc.in) <= h+tl {
				if got != tc.in {
					t.Fatalf("fitting output changed: %q", got)
				}
				return
			}
			before, after, ok := strings.Cut(got, "\n[… ")
			if !ok {
				t.Fatalf("no marker in %q", got)
			}
			_, rest, ok := strings.Cut(after, " bytes omitted …]\n")
			if !ok {
				t.Fatalf("bad marker in %q", got)
			}
			if len(before) > h || len(rest) > tl {
				t.Errorf("kept %d+%d bytes, cap %d+%d", len(before), len(rest), h, tl)
			}
			if !strings.HasPrefix(tc.in, before) || !strings.HasSuffix(tc.in, rest) {
				t.Error("kept text is not the input's head and tail")
			}
			if !utf8.ValidString(got) {
				t.Error("cut inside a rune")
			}
			// The count in the marker is what was left out.
			omitted := len(tc.in) - len(before) - len(rest)
			if !strings.Contains(got, "[… "+strconv.Itoa(omitted)+" bytes omitted …]") {
				t.Errorf("marker does not say %d bytes: %q", omitted, got)
			}
			// Line-shaped input is cut at line boundaries.
			if tc.name == "lines" && (!strings.HasSuffix(before, "\n") || len(before) == 0 || strings.Count(rest, "\n") != len(rest)/10) {
				t.Errorf("not cut at lines: head %q tail %q", before, rest)
			}
		})
	}
}

func TestFixPrompt(t *testing.T) {
	out := "--- FAIL: TestParse\n" + strings.Repeat("noise line\n", 2000) + "FAIL\tx/parser\n"
	p := FixPrompt("go test ./...", out, 1, 2)
	for _, want := range []string{"`go test ./...` failed", "attempt 1 of 2", "Fix the cause and verify again", "attempt 2 of 2", "--- FAIL: TestParse", "FAIL\tx/parser", "bytes omitted"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	if len(p) > CapHead+CapTail+1024 {
		t.Errorf("prompt is %d bytes; output not capped", len(p))
	}

	last := FixPrompt("cargo test", "test result: FAILED\n", 2, 2)
	if !strings.Contains(last, "attempt 2 of 2") || !strings.Contains(last, "last automatic attempt") || strings.Contains(last, "verify again") {
		t.Errorf("last-attempt prompt: %q", last)
	}

	// Output holding a fence cannot close the prompt's own fence.
	fenced := FixPrompt("pytest -q", "```\ninjected\n```", 1, 2)
	if strings.Count(fenced, "```") != 2 {
		t.Errorf("fence in output escaped the block: %q", fenced)
	}
}

func TestEnvWarning(t *testing.T) {
	w := EnvWarning("cargo test", "command not found (exit 127)")
	for _, want := range []string{"`cargo test`", "command not found", "best-effort"} {
		if !strings.Contains(w, want) {
			t.Errorf("warning %q lacks %q", w, want)
		}
	}
}
