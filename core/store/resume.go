package store

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

// ErrNothingStored is returned by Resume for a session stored under the
// none policy: it kept no messages, so there is nothing to resume.
var ErrNothingStored = errors.New("it was stored under storage policy \"none\", which keeps no messages: there is nothing to resume")

// Resume is session id as last recorded: its snapshot with the journal
// records written after it applied. The snapshot is decoded message by
// message, so resuming holds about one copy of the session in memory, not
// the file plus its decoding. A session with only a journal (killed before
// its first snapshot) resumes from the journal alone.
func Resume(dir, id string) (*Snapshot, error) {
	s, err := decodeFile(dir, id)
	noSnap := errors.Is(err, ErrNotFound)
	if err != nil && !noSnap {
		return nil, err
	}
	if noSnap {
		s = &Snapshot{ID: id}
	}
	base := s.JournalSeq
	applied := 0
	last, err := readJournal(dir, id, func(r *Record) {
		if r.Seq <= base {
			return
		}
		s.apply(r)
		applied++
	})
	if err != nil {
		return nil, err
	}
	if noSnap && applied == 0 {
		return nil, fmt.Errorf("session %s: %w in %s", id, ErrNotFound, dir)
	}
	s.JournalSeq = max(base, last)
	return s, nil
}

// Stored reports whether s holds anything to resume; a none session does
// not.
func (s *Snapshot) Stored() error {
	if s.effective() == PolicyNone {
		return fmt.Errorf("session %s: %w", s.ID, ErrNothingStored)
	}
	return nil
}

// appendTime appends t to times when times holds one entry per message
// (n messages): a history without times stays without.
func appendTime(times []int64, n int, t time.Time) []int64 {
	if len(times) != n || t.IsZero() {
		return times
	}
	return append(times, t.UnixMilli())
}

// apply replays one journal record onto s.
func (s *Snapshot) apply(r *Record) {
	if !r.Time.IsZero() && r.Time.After(s.UpdatedAt) {
		s.UpdatedAt = r.Time
	}
	switch r.Kind {
	case KindSession:
		if h := r.Header; h != nil {
			s.CreatedAt, s.Model, s.Mode, s.Preset, s.Cwd = h.CreatedAt, h.Model, h.Mode, h.Preset, h.Cwd
			s.Tools, s.Storage, s.StorageTTL, s.Degraded = h.Tools, h.Storage, h.StorageTTL, h.Degraded
			if s.CreatedAt.IsZero() {
				s.CreatedAt = r.Time
			}
		}
	case KindMessage:
		if r.Msg == nil {
			return
		}
		if c := s.conv(r.Conv); c != nil {
			c.MessageTimes = appendTime(c.MessageTimes, len(c.Messages), r.Time)
			c.Messages = append(c.Messages, *r.Msg)
		} else {
			s.MessageTimes = appendTime(s.MessageTimes, len(s.Messages), r.Time)
			s.Messages = append(s.Messages, *r.Msg)
		}
	case KindResult:
		if r.Msg == nil {
			return
		}
		msgs, times := s.Messages, s.MessageTimes
		if c := s.conv(r.Conv); c != nil {
			msgs, times = c.Messages, c.MessageTimes
		}
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].Role == llm.RoleTool && msgs[i].ToolCallID == r.Call {
				msgs[i] = *r.Msg
				if len(times) == len(msgs) && !r.Time.IsZero() {
					times[i] = r.Time.UnixMilli()
				}
				break
			}
		}
	case KindConv:
		if r.Conversation == nil {
			return
		}
		if s.Root != nil && s.Root.ID == r.Conversation.ID {
			// The root's context changed (SetConversationContext); its
			// messages and todos stay in Messages and Todos.
			root := *r.Conversation
			root.Messages, root.MessageTimes, root.Todos = nil, nil, nil
			if root.Stats == nil {
				root.Stats = s.Root.Stats
			}
			s.Root = &root
			return
		}
		if c := s.conv(r.Conversation.ID); c != nil {
			// A context change: what the record leaves out stays.
			old := *c
			*c = *r.Conversation
			if len(c.Messages) == 0 {
				c.Messages, c.MessageTimes = old.Messages, old.MessageTimes
			}
			if c.Todos == nil {
				c.Todos = old.Todos
			}
			if c.Stats == nil {
				c.Stats = old.Stats
			}
			return
		}
		s.Conversations = append(s.Conversations, *r.Conversation)
	case KindConvEnd:
		s.Conversations = slices.DeleteFunc(s.Conversations, func(c Conversation) bool { return c.ID == r.Conv })
	case KindTurn:
		if r.Turn == nil {
			return
		}
		for i := range s.Turns {
			if s.Turns[i].Task == r.Turn.Task {
				s.Turns[i] = *r.Turn
				return
			}
		}
		s.Turns = append(s.Turns, *r.Turn)
	case KindStart:
		if !slices.Contains(s.Started, r.Call) {
			s.Started = append(s.Started, r.Call)
		}
	case KindEnd:
		s.Started = slices.DeleteFunc(s.Started, func(c string) bool { return c == r.Call })
	case KindTodos:
		if c := s.conv(r.Conv); c != nil {
			c.Todos = r.Todos
		} else {
			s.Todos = r.Todos
		}
	case KindView:
		if r.View == nil {
			return
		}
		s.Views = slices.DeleteFunc(s.Views, func(v View) bool { return v.Conv == r.View.Conv })
		s.Views = append(s.Views, *r.View)
	}
}

// conv is the non-root conversation id, or nil (also for the root).
func (s *Snapshot) conv(id string) *Conversation {
	if id == "" {
		return nil
	}
	for i := range s.Conversations {
		if s.Conversations[i].ID == id {
			return &s.Conversations[i]
		}
	}
	return nil
}

// decodeFile reads session id's snapshot, decoding its message lists one
// message at a time.
func decodeFile(dir, id string) (*Snapshot, error) {
	p, err := path(dir, id)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("session %s: %w in %s", id, ErrNotFound, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("load session %s: %w", id, err)
	}
	defer f.Close()
	var s Snapshot
	if err := decodeSnapshot(json.NewDecoder(bufio.NewReaderSize(f, 64<<10)), &s); err != nil {
		return nil, fmt.Errorf("session file %s is corrupt: %w", p, err)
	}
	if s.ID != id {
		return nil, fmt.Errorf("session file %s holds session %q", p, s.ID)
	}
	return &s, nil
}

// decodeSnapshot decodes a snapshot object field by field: the large
// "messages" array element by element, so the decoder never buffers it
// whole; the other fields are small or decoded whole.
func decodeSnapshot(dec *json.Decoder, s *Snapshot) error {
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	var rest = map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if key != "messages" {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return err
			}
			rest[key] = raw
			continue
		}
		if err := decodeMessages(dec, s); err != nil {
			return err
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return err
	}
	msgs := s.Messages
	// The remaining fields go through the ordinary decoder, struct tags and
	// all; "messages" is absent from rest, so it is left alone.
	buf, err := json.Marshal(rest)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(buf, s); err != nil {
		return err
	}
	s.Messages = msgs
	return nil
}

func decodeMessages(dec *json.Decoder, s *Snapshot) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("messages: want an array, got %v", tok)
	}
	for dec.More() {
		var m = len(s.Messages)
		s.Messages = append(s.Messages, llm.Message{})
		if err := dec.Decode(&s.Messages[m]); err != nil {
			return fmt.Errorf("message %d: %w", m, err)
		}
	}
	return expectDelim(dec, ']')
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("want %q, got %v", want, tok)
	}
	return nil
}
