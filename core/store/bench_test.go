package store

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

// BenchmarkJournalAppend is one fsynced message append to the journal of
// a session that already has 20,000 messages: the cost must not depend on
// them.
func BenchmarkJournalAppend(b *testing.B) {
	for _, n := range []int{200, 20000} {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), "sessions")
			s := sample(n)
			s.JournalSeq = int64(n)
			if err := Save(dir, s); err != nil {
				b.Fatal(err)
			}
			j := openJ(b, dir, s.ID, PolicyFull)
			for _, m := range s.Messages { // a long turn's journal, not yet absorbed
				appendAll(b, j, msgRec("", m))
			}
			m := s.Messages[len(s.Messages)-1]
			b.ResetTimer()
			for b.Loop() {
				if _, err := j.Append(msgRec("", m)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// turnBytes runs a 20-tool-call turn on an n-message session the way the
// agent records it (journal appends, one snapshot at the end) and returns
// the bytes written and the session file's size.
func turnBytes(t testing.TB, n int) (written, file int64) {
	dir := filepath.Join(t.TempDir(), "sessions")
	s := sample(n)
	if err := Save(dir, s); err != nil {
		t.Fatal(err)
	}
	j := openJ(t, dir, s.ID, PolicyFull)
	add := func(m llm.Message) {
		s.Messages = append(s.Messages, m)
		appendAll(t, j, msgRec("", m))
	}
	add(llm.Message{Role: llm.RoleUser, Content: "fix the bug"})
	tail := sample(44).Messages[2:]
	for i := 0; i < 20; i++ {
		call := tail[2*i].ToolCalls[0].ID
		add(tail[2*i])
		appendAll(t, j, Record{Kind: KindStart, Call: call})
		add(tail[2*i+1])
		appendAll(t, j, Record{Kind: KindEnd, Call: call})
	}
	add(llm.Message{Role: llm.RoleAssistant, Content: "done"})
	s.JournalSeq = j.Seq()
	if err := Save(dir, s); err != nil {
		t.Fatal(err)
	}
	if err := j.Absorbed(s.JournalSeq); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, s.ID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return j.Written() + fi.Size(), fi.Size()
}

func TestTurnBytesBudget(t *testing.T) {
	written, file := turnBytes(t, 5000)
	if ratio := float64(written) / float64(file); ratio > 3 {
		t.Errorf("a 20-call turn on a 5,000-message session wrote %d bytes, %.1f× the %d-byte file; budget 3×", written, ratio, file)
	}
}

func BenchmarkTurnBytes(b *testing.B) {
	for b.Loop() {
		written, file := turnBytes(b, 5000)
		b.ReportMetric(float64(written)/float64(file), "x-file")
		b.ReportMetric(float64(file), "file-bytes")
	}
}

// TestResumePeakMemory resumes a large session in a child process and
// checks its peak resident memory grew by at most 3× the file.
// CODER_BENCH_SESSION_MB sets the size (default 12; the case is 74).
func TestResumePeakMemory(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("writes a large session; the race detector's memory would be measured")
	}
	mb := 12
	if v, err := strconv.Atoi(os.Getenv("CODER_BENCH_SESSION_MB")); err == nil && v > 0 {
		mb = v
	}
	dir := filepath.Join(t.TempDir(), "sessions")
	// About 1.5 KB per pair of messages.
	s := sample(mb * 1024 * 1024 / 760)
	s.JournalSeq = 1
	if err := Save(dir, s); err != nil {
		t.Fatal(err)
	}
	// Its last turn only in the journal.
	j := openJ(t, dir, s.ID, PolicyFull)
	appendAll(t, j, msgRec("", s.Messages[1]), msgRec("", s.Messages[2]))
	j.Close()
	want := len(s.Messages) + 1 // seq 1 is in the snapshot already
	fi, _ := os.Stat(filepath.Join(dir, s.ID+".json"))
	s = nil

	cmd := exec.Command(os.Args[0], "-test.run=^TestResumeChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "CODER_RESUME_CHILD="+dir+"|"+fi.Name()[:36])
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if runtime.GOOS != "linux" {
		t.Skip("peak memory is read from /proc")
	}
	var before, after int64
	var msgs int
	line := out[strings.Index(string(out), "RSS"):]
	if _, err := fmt.Sscanf(string(line), "RSS %d %d %d", &before, &after, &msgs); err != nil {
		t.Fatalf("child output %q: %v", out, err)
	}
	if msgs != want {
		t.Errorf("resumed %d messages, want %d", msgs, want)
	}
	grew := after - before
	t.Logf("file %d MB, peak RSS grew %d MB (%.2f× the file)", fi.Size()>>20, grew>>20, float64(grew)/float64(fi.Size()))
	if float64(grew) > 3*float64(fi.Size()) {
		t.Errorf("resume peak memory grew by %d bytes, more than 3× the %d-byte file", grew, fi.Size())
	}
}

func TestResumeChild(t *testing.T) {
	arg := os.Getenv("CODER_RESUME_CHILD")
	if arg == "" {
		t.Skip("helper of TestResumePeakMemory")
	}
	dir, id, _ := strings.Cut(arg, "|")
	before := maxRSS()
	s, err := Resume(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("RSS %d %d %d\n", before, maxRSS(), len(s.Messages))
}

// maxRSS is the process's peak resident memory (VmHWM: unlike
// ru_maxrss it starts afresh at exec, not at the parent's peak).
func maxRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}
