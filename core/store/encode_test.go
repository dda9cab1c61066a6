package store

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

// longMessageText is a text longer than longText whose piece edges fall
// inside multi-byte runes and escapes: every kind json.Marshal escapes
// (quotes, backslashes, control bytes, HTML, U+2028) and invalid UTF-8
// (a stray continuation byte, a truncated sequence, a surrogate).
func longMessageText(seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 1))
	parts := []string{"a", "line\n", `"`, `\`, "\t", "\x01", "<b>&amp;", "é", "€", "😀", "\u2028", "\x80", "\xe2\x82", "\xed\xa0\x80", "x", "\r\n"}
	var sb strings.Builder
	for sb.Len() < 5*textPiece {
		sb.WriteString(parts[r.IntN(len(parts))])
	}
	// Pieces cut at textPiece: put each rune width right across edges.
	s := []byte(sb.String())
	for i, rr := range []string{"😀", "€", "é", "😀"} {
		at := (i+1)*textPiece - 1
		copy(s[at:], rr)
	}
	return string(s) + strings.Repeat("z", longText)
}

func TestPieceEnd(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want int
	}{
		{"abcdef", 10, 6},
		{"abcdef", 3, 3},
		{"ab😀cd", 3, 2},                  // inside the 4-byte rune: back to its start
		{"ab😀cd", 5, 2},                  //
		{"ab😀cd", 6, 6},                  // right after it
		{"a\x80\x80\x80\x80\x80b", 5, 5}, // stray continuation bytes: any is an edge
		{"a\xf0\x80\x80\x80\x80b", 4, 1}, // a lead then continuation bytes
		{"ab\xe2\x82", 3, 2},             // truncated sequence
	} {
		if got := pieceEnd(tc.s, tc.n); got != tc.want {
			t.Errorf("pieceEnd(%q, %d) = %d, want %d", tc.s, tc.n, got, tc.want)
		}
	}
}

// The bytes written in pieces are exactly json.Marshal's, for records and
// snapshots with long texts in every place they are taken from.
func TestWriteJSONMatchesMarshal(t *testing.T) {
	for seed := range uint64(4) {
		long := longMessageText(seed)
		msg := llm.Message{Role: llm.RoleAssistant, Content: long, Reasoning: long[7:],
			ToolCalls: []llm.ToolCall{{ID: "c1", Type: "function", Function: llm.FunctionCall{Name: "write", Arguments: long[3:]}}, {ID: "c2", Function: llm.FunctionCall{Name: "read", Arguments: "{}"}}}}
		rec := Record{Seq: 3, Kind: KindMessage, Msg: &msg, Text: "short"}
		conv := Record{Seq: 4, Kind: KindConv, Conversation: &Conversation{ID: "c", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}, msg}}}
		snap := sample(6)
		snap.Messages = append(snap.Messages, msg, llm.Message{Role: llm.RoleUser, Content: long[1:]})
		snap.Conversations = []Conversation{{ID: "a"}, {ID: "b", Messages: []llm.Message{msg}}}
		for name, v := range map[string]any{"record": rec, "conv record": conv, "snapshot": snap} {
			want, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			var l longTexts
			var enc any
			switch v := v.(type) {
			case Record:
				enc = l.record(v)
			case *Snapshot:
				enc = l.snapshot(v)
			}
			if len(l.texts) == 0 {
				t.Fatalf("%s: no long text taken out", name)
			}
			var buf bytes.Buffer
			n, err := writeJSON(&buf, enc, &l, "\n")
			if err != nil {
				t.Fatal(err)
			}
			if got := buf.Bytes(); !bytes.Equal(got, append(want, '\n')) || n != int64(len(got)) {
				i := 0
				for i < min(len(got), len(want)) && got[i] == want[i] {
					i++
				}
				t.Fatalf("seed %d %s: written %d bytes (counted %d) differ from json.Marshal's %d at byte %d", seed, name, len(got), n, len(want), i)
			}
		}
		// Taking texts out never changes the value encoded.
		if msg.Content != long || snap.Messages[len(snap.Messages)-2].Content != long {
			t.Fatal("the value encoded was changed")
		}
	}
}

// A long answer with runes and escapes across the piece edges survives
// the journal and the snapshot: resume reads back exactly what was saved.
func TestLongTextRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	s := sample(4)
	long := longMessageText(9)
	s.Messages = append(s.Messages, llm.Message{Role: llm.RoleAssistant, Content: long, Reasoning: long[5:]})
	// Invalid UTF-8 reads back as U+FFFD, as with json.Marshal: the
	// expected values are the plain encoding's round trip.
	var plain llm.Message
	raw, _ := json.Marshal(s.Messages[len(s.Messages)-1])
	if err := json.Unmarshal(raw, &plain); err != nil {
		t.Fatal(err)
	}
	if err := Save(dir, s); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := *s
	want.Messages = append(s.Messages[:len(s.Messages)-1:len(s.Messages)-1], plain)
	if !reflect.DeepEqual(got, &want) {
		t.Fatal("snapshot round trip of a long text differs")
	}

	j, err := OpenJournal(dir, s.ID, s.JournalSeq, PolicyFull)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Append(Record{Kind: KindStart, Call: "call_1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Append(Record{Kind: KindMessage, Msg: &llm.Message{Role: llm.RoleAssistant, Content: long}}); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Append(Record{Kind: KindMessage, Msg: &llm.Message{Role: llm.RoleUser, Content: "after"}}); err != nil {
		t.Fatal(err)
	}
	jp, _ := journalPath(dir, s.ID)
	if fi, err := os.Stat(jp); err != nil || fi.Size() != j.Written() {
		t.Fatalf("journal size %v (%v), written %d", fi.Size(), err, j.Written())
	}
	// Absorbing the first record rotates the journal: its tail, the long
	// message, is copied to the new file.
	if err := j.Absorbed(1); err != nil {
		t.Fatal(err)
	}
	j.Close()
	r, err := Resume(dir, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	n := len(r.Messages)
	if n != len(s.Messages)+2 || r.Messages[n-2].Content != plain.Content || r.Messages[n-1].Content != "after" {
		t.Fatalf("resume: %d messages (want %d), long text intact %v", n, len(s.Messages)+2, n >= 2 && r.Messages[n-2].Content == plain.Content)
	}
	if !strings.Contains(plain.Content, "😀") || !strings.Contains(plain.Content, "\ufffd") {
		t.Fatal("the test text lacks the runes it is about")
	}
}
