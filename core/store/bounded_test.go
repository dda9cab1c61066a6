package store

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/google/uuid"
)

func boundedSnapshot(n int) *Snapshot {
	at := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	s := &Snapshot{ID: uuid.NewString(), CreatedAt: at, UpdatedAt: at, Model: "m", Mode: "default", Layout: LayoutBounded,
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: "sys"}}, MessageTimes: []int64{at.UnixMilli()}}
	cv := Conversation{ID: "conv-b"}
	for i := range n {
		role := llm.RoleUser
		if i%2 == 1 {
			role = llm.RoleAssistant
		}
		m := llm.Message{Role: role, Content: fmt.Sprintf("message %d \"quoted\" \u00e9", i)}
		s.Messages = append(s.Messages, m)
		s.MessageTimes = append(s.MessageTimes, at.UnixMilli()+int64(i))
		cv.Messages = append(cv.Messages, m)
		cv.MessageTimes = append(cv.MessageTimes, at.UnixMilli()+int64(i))
	}
	s.Conversations = []Conversation{cv}
	s.Views = []View{{Conv: "", Upto: n - 4, Summary: "root summary"}, {Conv: "conv-b", Upto: n - 2, Summary: "b summary"}}
	return s
}

// TestResumeBoundedLeavesSummarisedMessagesOnDisk: a bounded resume holds
// only what the views do not summarise, saving it again copies the rest
// from the file (byte for byte), and ReadMessages reads it back.
func TestResumeBoundedLeavesSummarisedMessagesOnDisk(t *testing.T) {
	for _, tc := range []struct {
		name              string
		floor             Policy
		layout            int
		wantRoot, wantCnv int // messages held (root with its system message)
	}{
		{"full", PolicyFull, LayoutBounded, 1 + 4, 2},
		{"old layout", PolicyFull, 0, 1 + 100, 100},
		{"ttl floor", PolicyTTL, LayoutBounded, 1 + 100, 100},
		{"headers floor", PolicyHeaders, LayoutBounded, 1 + 100, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := boundedSnapshot(100)
			s.Layout = tc.layout
			if err := Save(dir, s); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, s.ID+".json")
			before, _ := os.ReadFile(p)
			got, err := ResumeBounded(dir, s.ID, tc.floor)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Messages) != tc.wantRoot || len(got.Conversations[0].Messages) != tc.wantCnv {
				t.Fatalf("held %d root and %d conversation messages, want %d and %d", len(got.Messages), len(got.Conversations[0].Messages), tc.wantRoot, tc.wantCnv)
			}
			if len(got.MessageTimes) != len(got.Messages) || len(got.Conversations[0].MessageTimes) != len(got.Conversations[0].Messages) {
				t.Fatalf("times not aligned with messages")
			}
			if tc.wantRoot == 5 {
				k := got.Skipped[""]
				if k == nil || k.N != 96 || k.Messages != 96 || k.FirstUser != s.Messages[1].Content || len(k.LastUsers) != 3 || k.LastUsers[2].Content != s.Messages[95].Content {
					t.Errorf("root skipped = %+v", k)
				}
				if got.Messages[1].Content != s.Messages[97].Content {
					t.Errorf("first held message %q", got.Messages[1].Content)
				}
			}
			if err := Save(dir, got); err != nil {
				t.Fatal(err)
			}
			after, _ := os.ReadFile(p)
			if !bytes.Equal(before, after) {
				t.Errorf("saved again the file differs:\n%s\n%s", before, after)
			}
			var read []llm.Message
			if err := ReadMessages(dir, s.ID, "conv-b", 98, func(m llm.Message) { read = append(read, m) }); err != nil {
				t.Fatal(err)
			}
			if len(read) != 98 || read[97].Content != s.Conversations[0].Messages[97].Content {
				t.Errorf("ReadMessages: %d messages", len(read))
			}
			if err := ReadMessages(dir, s.ID, "", 101, func(llm.Message) {}); err == nil {
				t.Error("ReadMessages past the end: no error")
			}
		})
	}
}

// TestSaveRefusesMissingSkipped: a snapshot whose skipped messages the
// file on disk does not hold is not written (no half-written session).
func TestSaveRefusesMissingSkipped(t *testing.T) {
	dir := t.TempDir()
	s := boundedSnapshot(10)
	if err := Save(dir, s); err != nil {
		t.Fatal(err)
	}
	s.Skipped = map[string]*Skipped{"": {N: 50}}
	if err := Save(dir, s); err == nil {
		t.Fatal("saved a snapshot whose skipped messages are not on disk")
	}
	if got, err := Resume(dir, s.ID); err != nil || len(got.Messages) != 11 {
		t.Fatalf("the file on disk was damaged: %v", err)
	}
}

// TestSkippedCopyObeysPolicy: the skipped messages copied from the file
// being replaced are written as the snapshot's policy stores them: made
// headers-only under a narrower policy than the file's, aged under ttl,
// and under none there are none to copy (no error either).
func TestSkippedCopyObeysPolicy(t *testing.T) {
	for _, tc := range []struct {
		name    string
		session Policy
		conv    Policy
		text    bool // the copied part keeps its text
	}{
		{"full", PolicyFull, "", true},
		{"headers_only", PolicyHeaders, "", false},
		{"headers_only conversation", PolicyFull, PolicyHeaders, false},
		{"none conversation", PolicyFull, PolicyNone, false},
		{"ttl within", PolicyTTL, "", true},
		{"ttl past", PolicyTTL, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := boundedSnapshot(10)
			if err := Save(dir, s); err != nil {
				t.Fatal(err)
			}
			s.Storage, s.StorageTTL = tc.session, "1h"
			s.Conversations[0].StoragePolicy = string(tc.conv)
			if tc.name == "ttl past" {
				s.UpdatedAt = s.UpdatedAt.Add(2 * time.Hour)
			}
			// The first 6 of each conversation are skipped: on disk only.
			s.Skipped = map[string]*Skipped{"": {N: 6}, "conv-b": {N: 6}}
			s.Messages, s.MessageTimes = append(s.Messages[:1:1], s.Messages[7:]...), append(s.MessageTimes[:1:1], s.MessageTimes[7:]...)
			cv := &s.Conversations[0]
			cv.Messages, cv.MessageTimes = cv.Messages[6:], cv.MessageTimes[6:]
			if err := Save(dir, s); err != nil {
				t.Fatal(err)
			}
			got, err := Resume(dir, s.ID)
			if err != nil {
				t.Fatal(err)
			}
			msgs := got.Conversations[0].Messages
			if tc.conv == "" {
				msgs = got.Messages[1:]
			}
			if tc.conv == PolicyNone {
				if len(msgs) != 0 {
					t.Fatalf("none stored %d messages", len(msgs))
				}
				return
			}
			if len(msgs) != 10 {
				t.Fatalf("%d messages, want 10", len(msgs))
			}
			for i, m := range msgs[:6] {
				if kept := m.Content == fmt.Sprintf("message %d \"quoted\" \u00e9", i); kept != tc.text {
					t.Errorf("copied message %d: %q", i, m.Content)
				}
			}
		})
	}
}

// TestBoundedHeadWithAgentsMD: the AGENTS.md message a file keeps after
// the system message (and first in a conversation) is head, never
// history: a bounded resume skips the messages after it, saving copies
// them back in place, ReadMessages does not return it, and a file written
// before that message was saved is copied from right (its head is 1).
func TestBoundedHeadWithAgentsMD(t *testing.T) {
	agents := llm.Message{Role: llm.RoleUser, Content: "<project_instructions>x</project_instructions>", Source: llm.SourceAgentsMD}
	withHead := func(s *Snapshot) {
		s.Messages = append([]llm.Message{s.Messages[0], agents}, s.Messages[1:]...)
		s.MessageTimes = append([]int64{s.MessageTimes[0], 0}, s.MessageTimes[1:]...)
		cv := &s.Conversations[0]
		cv.Messages = append([]llm.Message{agents}, cv.Messages...)
		cv.MessageTimes = append([]int64{0}, cv.MessageTimes...)
	}
	for _, old := range []bool{false, true} {
		t.Run(fmt.Sprintf("file without it %v", old), func(t *testing.T) {
			dir := t.TempDir()
			s := boundedSnapshot(100)
			want := append([]llm.Message(nil), s.Messages[1:]...)
			if !old {
				withHead(s)
			}
			if err := Save(dir, s); err != nil {
				t.Fatal(err)
			}
			got, err := ResumeBounded(dir, s.ID, PolicyFull)
			if err != nil {
				t.Fatal(err)
			}
			if k := got.Skipped[""]; k == nil || k.N != 96 || k.FirstUser != want[0].Content {
				t.Fatalf("root skipped = %+v", k)
			}
			if k := got.Skipped["conv-b"]; k == nil || k.N != 98 {
				t.Fatalf("conversation skipped = %+v", k)
			}
			if old {
				withHead(got) // what a session saves now
			}
			if h := Head(got.Messages); h != 2 || len(got.MessageTimes) != len(got.Messages) {
				t.Fatalf("head %d of %d messages, %d times", h, len(got.Messages), len(got.MessageTimes))
			}
			if err := Save(dir, got); err != nil {
				t.Fatal(err)
			}
			full, err := Load(dir, s.ID)
			if err != nil {
				t.Fatal(err)
			}
			if h := Head(full.Messages); h != 2 || len(full.Messages) != 2+len(want) || len(full.MessageTimes) != len(full.Messages) {
				t.Fatalf("saved again: head %d, %d messages, %d times", h, len(full.Messages), len(full.MessageTimes))
			}
			for i, m := range want {
				if full.Messages[2+i].Content != m.Content {
					t.Fatalf("message %d = %q, want %q", i, full.Messages[2+i].Content, m.Content)
				}
			}
			if cv := full.Conversations[0].Messages; Head(cv) != 1 || len(cv) != 101 || cv[1].Content != want[0].Content {
				t.Fatalf("conversation saved again: head %d, %d messages", Head(cv), len(cv))
			}
			var read []llm.Message
			if err := ReadMessages(dir, s.ID, "", 3, func(m llm.Message) { read = append(read, m) }); err != nil || len(read) != 3 || read[0].Content != want[0].Content {
				t.Errorf("ReadMessages root: %v %+v", err, read)
			}
			read = nil
			if err := ReadMessages(dir, s.ID, "conv-b", 1, func(m llm.Message) { read = append(read, m) }); err != nil || len(read) != 1 || read[0].Content != want[0].Content {
				t.Errorf("ReadMessages conversation: %v %+v", err, read)
			}
		})
	}
}
