package store

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

func msgRec(conv string, m llm.Message) Record {
	return Record{Kind: KindMessage, Conv: conv, Msg: &m}
}

func openJ(t testing.TB, dir, id string, p Policy) *Journal {
	t.Helper()
	j, err := OpenJournal(dir, id, 0, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

func appendAll(t testing.TB, j *Journal, recs ...Record) {
	t.Helper()
	for _, r := range recs {
		if _, err := j.Append(r); err != nil {
			t.Fatal(err)
		}
	}
}

func TestJournalResume(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	s := sample(6)
	j := openJ(t, dir, s.ID, PolicyFull)
	// Killed before the first snapshot: the journal alone resumes.
	appendAll(t, j, Record{Kind: KindSession, Header: s.headerOnly()})
	for _, m := range s.Messages {
		appendAll(t, j, msgRec("", m))
	}
	got, err := Resume(dir, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Messages, s.Messages) || got.Model != s.Model || !reflect.DeepEqual(got.Tools, s.Tools) {
		t.Fatalf("journal-only resume:\n got %+v\nwant %+v", got, s)
	}

	// Snapshot at turn end, killed before the journal was truncated: the
	// records it holds are not applied twice.
	got.UpdatedAt = time.Now()
	if err := Save(dir, got); err != nil {
		t.Fatal(err)
	}
	again, err := Resume(dir, s.ID)
	if err != nil || len(again.Messages) != len(s.Messages) {
		t.Fatalf("after snapshot, before truncation: %d messages, %v; want %d", len(again.Messages), err, len(s.Messages))
	}

	// More records, then the journal is absorbed and a tail written: the
	// resumed session has everything once.
	extra := llm.Message{Role: llm.RoleUser, Content: "after the snapshot"}
	appendAll(t, j, msgRec("", extra), Record{Kind: KindStart, Call: "call_x"})
	if err := j.Absorbed(got.JournalSeq); err != nil {
		t.Fatal(err)
	}
	again, err = Resume(dir, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(again.Messages); n != len(s.Messages)+1 || again.Messages[n-1].Content != extra.Content || !reflect.DeepEqual(again.Started, []string{"call_x"}) {
		t.Fatalf("tail after rotation: %d messages, started %v", n, again.Started)
	}
	if err := Save(dir, again); err != nil {
		t.Fatal(err)
	}
	if err := j.Absorbed(again.JournalSeq); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, s.ID+".journal")); err != nil || fi.Size() != 0 {
		t.Fatalf("journal after full absorption: %v, %v", fi, err)
	}
	appendAll(t, j, Record{Kind: KindEnd, Call: "call_x"})
	final, err := Resume(dir, s.ID)
	if err != nil || len(final.Started) != 0 || len(final.Messages) != len(s.Messages)+1 {
		t.Fatalf("final: started %v, %d messages, %v", final.Started, len(final.Messages), err)
	}
}

func TestJournalTornRecord(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	s := sample(4)
	j := openJ(t, dir, s.ID, PolicyFull)
	appendAll(t, j, Record{Kind: KindSession, Header: s.headerOnly()}, msgRec("", s.Messages[0]), msgRec("", s.Messages[1]))
	j.Close()
	jp := filepath.Join(dir, s.ID+".journal")
	whole, _ := os.ReadFile(jp)
	for _, torn := range []string{`{"seq":4,"k":"msg","msg":{"role":"us`, "{garbage\n"} {
		t.Run(torn[:8], func(t *testing.T) {
			os.WriteFile(jp, append(append([]byte{}, whole...), torn...), 0o644)
			got, err := Resume(dir, s.ID)
			if err != nil || len(got.Messages) != 2 {
				t.Fatalf("torn tail: %v, %+v; want it dropped", err, got)
			}
			// Reopening cuts it off, so the next record is whole.
			j2, err := OpenJournal(dir, s.ID, got.JournalSeq, PolicyFull)
			if err != nil {
				t.Fatal(err)
			}
			appendAll(t, j2, msgRec("", llm.Message{Role: llm.RoleUser, Content: "next"}))
			j2.Close()
			got, err = Resume(dir, s.ID)
			if err != nil || len(got.Messages) != 3 || got.Messages[2].Content != "next" {
				t.Fatalf("after reopen: %v, %+v", err, got.Messages)
			}
		})
	}
}

func TestPolicyParseNarrower(t *testing.T) {
	for _, tc := range []struct {
		a, b, want Policy
	}{
		{PolicyFull, PolicyHeaders, PolicyHeaders},
		{PolicyHeaders, PolicyFull, PolicyHeaders},
		{PolicyNone, PolicyTTL, PolicyNone},
		{PolicyFull, PolicyTTL, PolicyTTL},
		{PolicyTTL, PolicyHeaders, PolicyHeaders},
		{"", "", PolicyFull},
	} {
		if got := Narrower(tc.a, tc.b); got != tc.want {
			t.Errorf("Narrower(%q, %q) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
	if _, err := ParsePolicy("everything"); err == nil || !strings.Contains(err.Error(), "headers_only") {
		t.Errorf("ParsePolicy(everything) = %v", err)
	}
}

const marker = "MARKER-7f3e9c"

// markedSession carries marker through every path a session writes.
func markedSession(p Policy) (*Snapshot, []Record) {
	s := sample(2)
	s.Storage = p
	s.Turns = []Turn{{Task: "t1", Input: "user " + marker, Snapshot: "abc"}}
	s.Todos = []Todo{{Content: "todo " + marker, Status: "pending"}}
	s.Views = []View{{Upto: 2, Summary: "summary " + marker}}
	s.Conversations = []Conversation{{ID: "c1", Instructions: "instr " + marker,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: marker}}}}
	s.Messages = append(s.Messages,
		llm.Message{Role: llm.RoleUser, Content: "user " + marker, Images: []llm.Image{{URL: "data:" + marker}}},
		llm.Message{Role: llm.RoleAssistant, Content: "assistant " + marker, Reasoning: "reasoning " + marker,
			ToolCalls: []llm.ToolCall{{ID: "call_m", Type: "function", Function: llm.FunctionCall{Name: "write", Arguments: `{"content":"` + marker + `"}`}}}},
		llm.Message{Role: llm.RoleTool, ToolCallID: "call_m", Name: "write", Content: "output " + marker})
	var recs []Record
	recs = append(recs, Record{Kind: KindSession, Header: s.headerOnly()})
	for _, m := range s.Messages {
		recs = append(recs, msgRec("", m))
	}
	c := s.Conversations[0]
	recs = append(recs, Record{Kind: KindConv, Conversation: &c}, msgRec("c1", c.Messages[0]),
		Record{Kind: KindTurn, Turn: &s.Turns[0]}, Record{Kind: KindTodos, Todos: s.Todos},
		Record{Kind: KindView, View: &s.Views[0]}, Record{Kind: KindError, Text: "error " + marker},
		Record{Kind: KindStart, Call: "call_m"}, Record{Kind: KindEnd, Call: "call_m"})
	return s, recs
}

// grepDir fails t if marker is in any file under dir.
func grepDir(t *testing.T, dir string) {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		data, _ := os.ReadFile(p)
		if strings.Contains(string(data), marker) {
			t.Errorf("%s holds the marker:\n%.400s", p, data)
		}
		return nil
	})
	if n == 0 {
		t.Fatalf("no files under %s", dir)
	}
}

func TestPolicyKeepsMarkerOut(t *testing.T) {
	for _, p := range []Policy{PolicyHeaders, PolicyNone, PolicyFull} {
		t.Run(string(p), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "sessions")
			s, recs := markedSession(p)
			j := openJ(t, dir, s.ID, p)
			appendAll(t, j, recs...)
			if err := Write(dir, s); err != nil {
				t.Fatal(err)
			}
			got, err := Resume(dir, s.ID)
			if err != nil {
				t.Fatal(err)
			}
			if p == PolicyFull {
				// The test can fail: under full the marker is everywhere.
				data, _ := os.ReadFile(filepath.Join(dir, s.ID+".journal"))
				if strings.Count(string(data), marker) < 10 {
					t.Fatalf("full journal lacks the marker:\n%s", data)
				}
				return
			}
			grepDir(t, dir)
			switch p {
			case PolicyHeaders:
				last := got.Messages[len(got.Messages)-2]
				if last.Role != llm.RoleAssistant || len(last.ToolCalls) != 1 || last.ToolCalls[0].Function.Name != "write" || !strings.Contains(last.Content, "bytes") {
					t.Errorf("headers_only lost the headers: %+v", last)
				}
				if got.Stored() != nil {
					t.Errorf("headers_only: Stored() = %v", got.Stored())
				}
			case PolicyNone:
				if len(got.Messages) != 0 || len(got.Turns) != 1 || got.Turns[0].Snapshot != "abc" {
					t.Errorf("none kept %d messages, turns %+v; want none and the undo snapshot", len(got.Messages), got.Turns)
				}
				if err := got.Stored(); !errors.Is(err, ErrNothingStored) || !strings.Contains(err.Error(), "nothing to resume") {
					t.Errorf("none: Stored() = %v", err)
				}
			}
		})
	}
}

func TestConversationStoresLess(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	s, _ := markedSession(PolicyFull)
	s.Conversations[0].StoragePolicy = string(PolicyHeaders)
	j := openJ(t, dir, s.ID, PolicyFull)
	c := s.Conversations[0]
	appendAll(t, j, Record{Kind: KindConv, Conversation: &c}, msgRec("c1", llm.Message{Role: llm.RoleUser, Content: marker}))
	// A turn of the conversation: its input is the conversation's text,
	// in the journal and the snapshot.
	turn := Turn{Task: "t-c1", Input: marker + " as typed", Conv: c.ID}
	appendAll(t, j, Record{Kind: KindTurn, Turn: &turn})
	if data, _ := os.ReadFile(filepath.Join(dir, s.ID+".journal")); strings.Contains(string(data), marker+" as typed") {
		t.Errorf("headers_only conversation journaled its turn's input:\n%s", data)
	}
	s.Turns = append(s.Turns, turn)
	if err := Save(dir, s); err != nil {
		t.Fatal(err)
	}
	got, err := Resume(dir, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range got.Conversations[0].Messages {
		if strings.Contains(m.Content, marker) {
			t.Errorf("headers_only conversation stored %q", m.Content)
		}
	}
	for _, turn := range got.Turns {
		if turn.Conv == c.ID && strings.Contains(turn.Input, marker) {
			t.Errorf("headers_only conversation stored its turn's input %q", turn.Input)
		}
	}
	if !strings.Contains(got.Messages[len(got.Messages)-1].Content, marker) {
		t.Errorf("the full root conversation lost its text")
	}
}

func TestExpireTTL(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	now := time.Now()
	old, recs := markedSession(PolicyTTL)
	old.StorageTTL = "1h"
	j := openJ(t, dir, old.ID, PolicyTTL)
	appendAll(t, j, recs...)
	j.Close()
	old.UpdatedAt = now.Add(-2 * time.Hour)
	old.JournalSeq = j.Seq() - 1 // the last record is a tail
	// The journal's time counts as activity: this one is old too.
	jp := filepath.Join(dir, old.ID+".journal")
	os.Chtimes(jp, old.UpdatedAt, old.UpdatedAt)
	if err := Save(dir, old); err != nil {
		t.Fatal(err)
	}
	fresh, _ := markedSession(PolicyTTL)
	fresh.StorageTTL = "1h"
	fresh.UpdatedAt = now
	if err := Save(dir, fresh); err != nil {
		t.Fatal(err)
	}
	held, _ := markedSession(PolicyTTL)
	held.StorageTTL, held.UpdatedAt = "1h", now.Add(-2*time.Hour)
	Save(dir, held)
	l, err := Acquire(dir, held.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()

	done, err := Expire(dir, now)
	if err != nil || !reflect.DeepEqual(done, []string{old.ID}) {
		t.Fatalf("Expire = %v, %v; want only the old, unheld session", done, err)
	}
	for id, want := range map[string]bool{old.ID: false, fresh.ID: true, held.ID: true} {
		data, _ := os.ReadFile(filepath.Join(dir, id+".json"))
		if strings.Contains(string(data), marker) != want {
			t.Errorf("session %s holds the marker: %v, want %v", id, !want, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, old.ID+".journal")); !os.IsNotExist(err) {
		t.Errorf("degraded session kept its journal: %v", err)
	}
	got, err := Resume(dir, old.ID)
	if err != nil || len(got.Messages) != len(old.Messages) || got.Stored() != nil {
		t.Errorf("degraded session resumes %v, %d messages", err, len(got.Messages))
	}
	// Nothing left to do the second time.
	if done, _ := Expire(dir, now); len(done) != 0 {
		t.Errorf("second Expire = %v", done)
	}
}

// A ttl conversation in a full session loses its text at expiry; the
// session's own messages keep theirs.
func TestExpireTTLConversation(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	now := time.Now()
	s, _ := markedSession(PolicyFull)
	s.StorageTTL, s.TTLConvs = "1h", true
	s.Conversations[0].StoragePolicy = string(PolicyTTL)
	s.UpdatedAt = now.Add(-2 * time.Hour)
	if err := Save(dir, s); err != nil {
		t.Fatal(err)
	}
	if done, err := Expire(dir, now); err != nil || len(done) != 1 {
		t.Fatalf("Expire = %v, %v", done, err)
	}
	got, err := Resume(dir, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if c := got.Conversations[0]; strings.Contains(c.Messages[0].Content+c.Instructions, marker) {
		t.Errorf("the ttl conversation kept its text: %+v", c)
	}
	if !strings.Contains(got.Messages[len(got.Messages)-1].Content, marker) {
		t.Errorf("the full session lost its own text")
	}
}

// A hand-over's result replaces the tool message written when the call
// handed over; the replacement is a journal record of its own, so a kill
// right after it loses nothing, and it follows the storage policy.
func TestJournalResultReplacesToolMessage(t *testing.T) {
	for _, tc := range []struct {
		policy Policy
		want   string
	}{{PolicyFull, `{"last_assistant_message":"secret answer"}`}, {PolicyHeaders, "[not stored"}} {
		dir := filepath.Join(t.TempDir(), "sessions")
		s := sample(2)
		j := openJ(t, dir, s.ID, tc.policy)
		appendAll(t, j, Record{Kind: KindSession, Header: s.headerOnly()},
			msgRec("", llm.Message{Role: llm.RoleUser, Content: "go"}),
			msgRec("", llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Type: "function", Function: llm.FunctionCall{Name: "conv_create", Arguments: "{}"}}}}),
			msgRec("", llm.Message{Role: llm.RoleTool, ToolCallID: "c1", Name: "conv_create", Content: "handed over"}),
			Record{Kind: KindResult, Call: "c1", Msg: &llm.Message{Role: llm.RoleTool, ToolCallID: "c1", Name: "conv_create", Content: `{"last_assistant_message":"secret answer"}`}})
		got, err := Resume(dir, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		last := got.Messages[len(got.Messages)-1]
		if last.ToolCallID != "c1" || !strings.HasPrefix(last.Content, tc.want) {
			t.Errorf("%s: tool message after resume = %+v, want content %q", tc.policy, last, tc.want)
		}
		if tc.policy != PolicyFull {
			data, _ := os.ReadFile(filepath.Join(dir, s.ID+".journal"))
			if strings.Contains(string(data), "secret answer") {
				t.Errorf("%s: the result's text is in the journal", tc.policy)
			}
		}
	}
}

// A journal rotated to keep its tail keeps the mode it was created with.
func TestJournalRotationKeepsMode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	s := sample(2)
	j := openJ(t, dir, s.ID, PolicyFull)
	first, err := j.Append(msgRec("", llm.Message{Role: llm.RoleUser, Content: "one"}))
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, j, msgRec("", llm.Message{Role: llm.RoleUser, Content: "two"}))
	if err := j.Absorbed(first); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, s.ID+".journal"))
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("journal after rotation: %v, %v; want mode 0644", fi.Mode(), err)
	}
}

// TestJournalAppendLater: a record appended without waiting for the disk
// is in the file at once (a killed host loses nothing), keeps its place
// and number among synced ones, and a rotation or Close keeps it.
func TestJournalAppendLater(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	s := sample(4)
	j := openJ(t, dir, s.ID, PolicyFull)
	later := func(r Record) int64 {
		t.Helper()
		seq, err := j.AppendLater(r)
		if err != nil {
			t.Fatal(err)
		}
		return seq
	}
	later(Record{Kind: KindSession, Header: s.headerOnly()})
	if seq := later(msgRec("", s.Messages[0])); seq != 2 {
		t.Fatalf("seq = %d, want 2", seq)
	}
	got, err := Resume(dir, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Messages, s.Messages[:1]) {
		t.Fatalf("unsynced record not in the file: %+v", got.Messages)
	}
	appendAll(t, j, msgRec("", s.Messages[1]))
	later(msgRec("", s.Messages[2]))
	// A snapshot absorbs the first three records; the rotated journal
	// keeps the fourth, which was never synced before.
	snap := *got
	snap.Messages = s.Messages[:2]
	snap.JournalSeq = 3
	if err := Save(dir, &snap); err != nil {
		t.Fatal(err)
	}
	if err := j.Absorbed(3); err != nil {
		t.Fatal(err)
	}
	later(msgRec("", s.Messages[3]))
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	got, err = Resume(dir, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Messages, s.Messages) {
		t.Fatalf("after rotation and close:\n got %+v\nwant %+v", got.Messages, s.Messages)
	}
}
