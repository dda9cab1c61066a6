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
func Resume(dir, id string) (*Snapshot, error) { return resume(dir, id, nil) }

// ResumeBounded is Resume without the messages a compacted view sends as
// a summary, when the snapshot's layout allows and the conversation's
// storage policy, narrowed by floor, is full: they stay on disk, and
// Snapshot.Skipped describes them (ReadMessages reads them). Memory then
// grows with what is sent, not with the session's length.
func ResumeBounded(dir, id string, floor Policy) (*Snapshot, error) {
	return resume(dir, id, &floor)
}

func resume(dir, id string, floor *Policy) (*Snapshot, error) {
	s, err := decodeFile(dir, id, floor)
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
	case KindCommand:
		if r.Command == nil {
			return
		}
		if c := s.conv(r.Conv); c != nil {
			c.Commands = append(c.Commands, *r.Command)
		} else {
			s.Commands = append(s.Commands, *r.Command)
		}
	case KindRewind:
		s.applyRewind(r.Branch)
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
// message at a time; with a floor, bounded (ResumeBounded).
func decodeFile(dir, id string, floor *Policy) (*Snapshot, error) {
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
	s := Snapshot{}
	d := &snapDecoder{dec: json.NewDecoder(bufio.NewReaderSize(f, 64<<10)), s: &s, floor: floor}
	if err := d.decode(); err != nil {
		return nil, fmt.Errorf("session file %s is corrupt: %w", p, err)
	}
	if s.ID != id {
		return nil, fmt.Errorf("session file %s holds session %q", p, s.ID)
	}
	return &s, nil
}

// snapDecoder decodes a snapshot object field by field: the message lists
// element by element, so the decoder never buffers them whole, skipping
// (with a floor) what the views summarise; the other fields are small or
// decoded whole.
type snapDecoder struct {
	dec   *json.Decoder
	s     *Snapshot
	floor *Policy // nil: keep every message
	// Read from the head, before the messages.
	layout   int
	storage  Policy
	degraded bool
	views    []View
}

// skipFor is how many of conversation conv's oldest messages may stay on
// disk under policy p (its own, or the session's for the root).
func (d *snapDecoder) skipFor(conv string, p Policy) int {
	if d.floor == nil || d.layout != LayoutBounded || d.degraded {
		return 0
	}
	if Narrower(Narrower(*d.floor, d.storage), p) != PolicyFull {
		return 0
	}
	for _, v := range d.views {
		if v.Conv == conv {
			return max(v.Upto, 0)
		}
	}
	return 0
}

func (d *snapDecoder) decode() error {
	dec, s := d.dec, d.s
	var times []int64
	head := 0
	rest, err := decodeObject(dec, func(key string) (bool, error) {
		var err error
		switch key {
		case "messages":
			s.Messages, head, err = d.messages("", d.skipFor("", PolicyFull))
		case "message_times":
			times, err = decodeTimes(dec)
		case "conversations":
			if d.floor == nil {
				return false, nil
			}
			err = d.conversations()
		default:
			return false, nil
		}
		return true, err
	}, func(key string, raw json.RawMessage) {
		// The head decides what may be skipped.
		switch key {
		case "layout":
			json.Unmarshal(raw, &d.layout)
		case "storage":
			json.Unmarshal(raw, &d.storage)
		case "degraded":
			json.Unmarshal(raw, &d.degraded)
		case "views":
			json.Unmarshal(raw, &d.views)
		}
	})
	if err != nil {
		return err
	}
	times = skipTimes(times, head, d.skipFor("", PolicyFull))
	msgs, convs, skipped := s.Messages, s.Conversations, s.Skipped
	// The remaining fields go through the ordinary decoder, struct tags and
	// all; the lists decoded above are absent from rest, so left alone.
	buf, err := json.Marshal(rest)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(buf, s); err != nil {
		return err
	}
	s.Messages, s.MessageTimes, s.Skipped = msgs, times, skipped
	if d.floor != nil {
		s.Conversations = convs
	}
	return nil
}

// conversations decodes the conversations array one conversation, and
// one message, at a time.
func (d *snapDecoder) conversations() error {
	dec := d.dec
	if ok, err := openArray(dec, "conversations"); !ok {
		return err
	}
	for dec.More() {
		var id string
		var pol Policy
		var msgs []llm.Message
		var times []int64
		head := 0
		rest, err := decodeObject(dec, func(key string) (bool, error) {
			var err error
			switch key {
			case "messages":
				msgs, head, err = d.messages(id, d.skipFor(id, pol))
			case "message_times":
				times, err = decodeTimes(dec)
			default:
				return false, nil
			}
			return true, err
		}, func(key string, raw json.RawMessage) {
			switch key {
			case "id":
				json.Unmarshal(raw, &id)
			case "storage_policy":
				var name string
				json.Unmarshal(raw, &name)
				var err error
				if pol, err = ParsePolicy(name); err != nil {
					pol = PolicyNone
				}
			}
		})
		if err != nil {
			return err
		}
		buf, _ := json.Marshal(rest)
		var c Conversation
		if err := json.Unmarshal(buf, &c); err != nil {
			return err
		}
		c.Messages, c.MessageTimes = msgs, skipTimes(times, head, d.skipFor(id, pol))
		d.s.Conversations = append(d.s.Conversations, c)
	}
	return expectDelim(dec, ']')
}

// messages decodes a message array, leaving out (and describing in
// Skipped) the skip messages after its Head, whose length it returns.
func (d *snapDecoder) messages(conv string, skip int) ([]llm.Message, int, error) {
	dec := d.dec
	if ok, err := openArray(dec, "messages"); !ok {
		return nil, 0, err
	}
	var out []llm.Message
	var k *Skipped
	from := -1 // the Head's length, once past it
	for i := 0; dec.More(); i++ {
		var m llm.Message
		if err := dec.Decode(&m); err != nil {
			return nil, 0, fmt.Errorf("message %d: %w", i, err)
		}
		if from < 0 && !isHead(i, m) {
			from = i
		}
		if from < 0 || i >= from+skip {
			out = append(out, m)
			continue
		}
		if k == nil {
			k = &Skipped{}
			if d.s.Skipped == nil {
				d.s.Skipped = map[string]*Skipped{}
			}
			d.s.Skipped[conv] = k
		}
		k.Add(m)
	}
	if from < 0 {
		from = len(out)
	}
	return out, from, expectDelim(dec, ']')
}

// decodeTimes decodes a message_times array. Its elements are small: the
// skipped ones are cut once the messages say where (skipTimes).
func decodeTimes(dec *json.Decoder) ([]int64, error) {
	if ok, err := openArray(dec, "message_times"); !ok {
		return nil, err
	}
	var out []int64
	for i := 0; dec.More(); i++ {
		var t int64
		if err := dec.Decode(&t); err != nil {
			return nil, fmt.Errorf("message time %d: %w", i, err)
		}
		out = append(out, t)
	}
	return out, expectDelim(dec, ']')
}

// skipTimes is times without its elements [head, head+skip), the times
// of the messages left on disk.
func skipTimes(times []int64, head, skip int) []int64 {
	if skip <= 0 || head >= len(times) {
		return times
	}
	end := min(head+skip, len(times))
	return append(times[:head:head], times[end:]...)
}

// decodeObject reads a JSON object key by key. stream may read a key's
// value itself (returning true), as the message lists are read one element
// at a time; every other value is decoded whole, handed to seen, and
// returned by key.
func decodeObject(dec *json.Decoder, stream func(key string) (bool, error), seen func(key string, raw json.RawMessage)) (map[string]json.RawMessage, error) {
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	rest := map[string]json.RawMessage{}
	for dec.More() {
		key, err := keyToken(dec)
		if err != nil {
			return nil, err
		}
		if done, err := stream(key); err != nil {
			return nil, err
		} else if done {
			continue
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		rest[key] = raw
		seen(key, raw)
	}
	return rest, expectDelim(dec, '}')
}

// openArray reads the '[' of the array named what; ok is false, with no
// error, for a null, which holds no elements.
func openArray(dec *json.Decoder, what string) (ok bool, err error) {
	tok, err := dec.Token()
	if err != nil || tok == nil {
		return false, err
	}
	if t, isDelim := tok.(json.Delim); !isDelim || t != '[' {
		return false, fmt.Errorf("%s: want an array, got %v", what, tok)
	}
	return true, nil
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
