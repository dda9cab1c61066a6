package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// benchTree writes a synthetic source tree of n files (CODER_BENCH_FILES,
// default 20,000; the figure is for 100,000) under a temp dir:
// 100 directories of Go-like files of ~2 KB, one in 500 holding the
// literals "needleLiteral" and "needle_literal".
func benchTree(b *testing.B) string {
	n := 20_000
	if v, err := strconv.Atoi(os.Getenv("CODER_BENCH_FILES")); err == nil && v > 0 {
		n = v
	}
	dir := b.TempDir()
	line := "func example(x int) int { return x * 2 } // some ordinary source text here\n"
	body := strings.Repeat(line, 26)
	for i := range n {
		sub := filepath.Join(dir, "pkg"+strconv.Itoa(i%100), "sub"+strconv.Itoa(i%7))
		if i < 700 {
			os.MkdirAll(sub, 0o755)
		}
		text := body
		if i%500 == 0 {
			text += "var needleLiteral = 1\nvar needle_literal = 2\n"
		}
		if err := os.WriteFile(filepath.Join(sub, "f"+strconv.Itoa(i)+".go"), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkSearch compares grep and glob (through rg and built in) with
// running rg itself on the same tree and query.
func BenchmarkSearch(b *testing.B) {
	dir := benchTree(b)
	rg := findRipgrep()
	queries := []struct {
		name, tool string
		args       map[string]string
		rgArgs     []string
		toolArgs   []string // what the tool runs rg with
	}{
		{"grep-literal", "grep", map[string]string{"pattern": "needleLiteral"}, []string{"-n", "needleLiteral"}, rgGrepArgs("needleLiteral", "")},
		{"grep-regex-ci", "grep", map[string]string{"pattern": `(?i)NEEDLE\w+ =`}, []string{"-n", "-i", `NEEDLE\w+ =`}, rgGrepArgs(`(?i)NEEDLE\w+ =`, "")},
		{"grep-regex-ci-class", "grep", map[string]string{"pattern": `(?i)needle_lit[a-z]+`}, []string{"-n", "-i", `needle_lit[a-z]+`}, rgGrepArgs(`(?i)needle_lit[a-z]+`, "")},
		{"glob", "glob", map[string]string{"pattern": "**/f1*.go"}, []string{"--files", "-g", "**/f1*.go"}, rgFilesArgs("f1*.go", 0)},
	}
	for _, q := range queries {
		raw, _ := json.Marshal(q.args)
		if rg != "" {
			// rg as a user runs it, then rg with the tool's own flags:
			// the difference between the two is the flags', the rest
			// between the latter and tool-rg is the tool's.
			for _, c := range []struct {
				name string
				args []string
			}{{"rg-itself", append([]string{"--no-config"}, q.rgArgs...)}, {"rg-same-flags", append(append([]string{}, rgBaseArgs...), q.toolArgs...)}} {
				b.Run(q.name+"/"+c.name, func(b *testing.B) {
					defer reportCPU(b, cpuTime())
					for b.Loop() {
						cmd := exec.Command(rg, c.args...)
						cmd.Dir = dir
						if out, err := cmd.Output(); err != nil || len(out) == 0 {
							b.Fatalf("rg %v: %v", c.args, err)
						}
					}
				})
			}
		}
		for _, builtin := range []bool{false, true} {
			name := "tool-rg"
			if builtin {
				name = "tool-builtin"
			} else if rg == "" {
				continue
			}
			b.Run(q.name+"/"+name, func(b *testing.B) {
				ws, err := NewWorkspace(dir)
				if err != nil {
					b.Fatal(err)
				}
				ws.noRipgrep = builtin
				tool := map[string]Tool{"grep": newGrepTool(), "glob": newGlobTool()}[q.tool]
				defer reportCPU(b, cpuTime())
				for b.Loop() {
					inv, err := tool.Prepare(context.Background(), ws, raw)
					if err != nil {
						b.Fatal(err)
					}
					if r := inv.Run(context.Background()); r.IsError || strings.HasPrefix(r.Output, "no ") {
						b.Fatalf("%s: %s", q.name, r.Output)
					}
				}
			})
		}
	}
}

// reportCPU adds the CPU time per operation since start (this process and
// the rg it waited for) to the benchmark's figures.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}
