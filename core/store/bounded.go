package store

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

// A long conversation's oldest messages — those its compacted view sends
// as a summary — need not stay in memory (seed 004 §4.1): they are in the
// session's snapshot file. A Snapshot whose conversation has Skipped
// messages holds only the later ones; Save copies the skipped ones from
// the snapshot file it replaces, element by element, and ReadMessages
// reads them back on demand.

// LayoutBounded marks a snapshot written with its views before its
// messages and the root's system message first, so Resume can skip what
// the views summarise while it reads.
const LayoutBounded = 1

// Skipped describes the oldest messages of a conversation that a
// Snapshot does not hold: they are in the snapshot file.
type Skipped struct {
	N int // how many (after the root's system message)
	// Messages counts the user messages and the assistant messages with
	// text among them; FirstUser is the first user message's text.
	Messages  int
	FirstUser string
	// LastUsers are the last user messages among them, at most
	// keepUsers, oldest first.
	LastUsers []llm.Message
}

// keepUsers is how many of the skipped user messages Resume keeps (a
// compacted view sends the last three beside its summary).
const keepUsers = 3

// Add counts m in as one more skipped message.
func (k *Skipped) Add(m llm.Message) {
	k.N++
	if m.Role == llm.RoleUser || m.Role == llm.RoleAssistant && m.Content != "" {
		k.Messages++
	}
	if m.Role != llm.RoleUser {
		return
	}
	if k.FirstUser == "" {
		k.FirstUser = m.Content
	}
	k.LastUsers = append(k.LastUsers, m)
	if len(k.LastUsers) > keepUsers {
		k.LastUsers = append([]llm.Message(nil), k.LastUsers[1:]...)
	}
}

// arrayAt opens snapshot file p and positions a decoder inside the array
// field ("messages" or "message_times") of conversation conv ("" is the
// root), before its first element.
func arrayAt(p, conv, field string) (*json.Decoder, io.Closer, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, nil, err
	}
	dec := json.NewDecoder(bufio.NewReaderSize(f, 64<<10))
	fail := func(err error) (*json.Decoder, io.Closer, error) {
		f.Close()
		return nil, nil, fmt.Errorf("%s of conversation %q in %s: %w", field, conv, p, err)
	}
	if err := expectDelim(dec, '{'); err != nil {
		return fail(err)
	}
	found, err := findArray(dec, conv, field)
	if err == nil && !found {
		err = errors.New("not found")
	}
	if err != nil {
		return fail(err)
	}
	return dec, f, nil
}

// findArray reads the snapshot object's keys until the wanted array and
// consumes its '['.
func findArray(dec *json.Decoder, conv, field string) (bool, error) {
	for dec.More() {
		key, err := keyToken(dec)
		if err != nil {
			return false, err
		}
		switch {
		case conv == "" && key == field:
			return true, expectDelim(dec, '[')
		case conv != "" && key == "conversations":
			if err := expectDelim(dec, '['); err != nil {
				return false, err
			}
			for dec.More() {
				if err := expectDelim(dec, '{'); err != nil {
					return false, err
				}
				id := ""
				for dec.More() {
					k, err := keyToken(dec)
					if err != nil {
						return false, err
					}
					if k == "id" {
						if err := dec.Decode(&id); err != nil {
							return false, err
						}
						continue
					}
					if id == conv && k == field {
						return true, expectDelim(dec, '[')
					}
					if err := skipValue(dec); err != nil {
						return false, err
					}
				}
				if err := expectDelim(dec, '}'); err != nil {
					return false, err
				}
			}
			return false, nil
		default:
			if err := skipValue(dec); err != nil {
				return false, err
			}
		}
	}
	return false, nil
}

func keyToken(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	key, ok := tok.(string)
	if !ok {
		return "", fmt.Errorf("want a key, got %v", tok)
	}
	return key, nil
}

// skipValue reads past the next value, holding at most one array
// element or object member of it at a time.
func skipValue(dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	for dec.More() {
		if d == '{' {
			if _, err := keyToken(dec); err != nil {
				return err
			}
			if err := skipValue(dec); err != nil {
				return err
			}
			continue
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
	}
	_, err = dec.Token()
	return err
}

// ReadMessages calls fn for each of the first n messages of conversation
// conv ("" is the root; its Head not counted) in session id's
// snapshot file, one at a time: the messages a resumed or long session
// keeps on disk only.
func ReadMessages(dir, id, conv string, n int, fn func(llm.Message)) error {
	if n <= 0 {
		return nil
	}
	p, err := path(dir, id)
	if err != nil {
		return err
	}
	dec, f, err := arrayAt(p, conv, "messages")
	if err != nil {
		return fmt.Errorf("read session %s: %w", id, err)
	}
	defer f.Close()
	head := true
	for i, got := 0, 0; got < n; i++ {
		if !dec.More() {
			return fmt.Errorf("read session %s: conversation %q has %d messages on disk, want %d", id, conv, got, n)
		}
		var m llm.Message
		if err := dec.Decode(&m); err != nil {
			return fmt.Errorf("read session %s: message %d: %w", id, i, err)
		}
		if head = head && isHead(i, m); !head {
			fn(m)
			got++
		}
	}
	return nil
}

// headOnDisk is the length of the Head of conversation conv's messages
// in snapshot file p.
func headOnDisk(p, conv string) (int, error) {
	dec, f, err := arrayAt(p, conv, "messages")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	for ; dec.More(); n++ {
		var m llm.Message
		if err := dec.Decode(&m); err != nil {
			return 0, fmt.Errorf("messages of conversation %q in %s: %w", conv, p, err)
		}
		if !isHead(n, m) {
			break
		}
	}
	return n, nil
}

// copyElements writes elements [skip, skip+n) of an array of snapshot
// file p to w, comma-separated, byte for byte as they are in p unless
// edit (when not nil) changes element i (0 is the first copied).
func copyElements(w *bufio.Writer, p, conv, field string, skip, n int, edit func(i int, raw json.RawMessage) (json.RawMessage, error)) error {
	dec, f, err := arrayAt(p, conv, field)
	if err != nil {
		return err
	}
	defer f.Close()
	for i := 0; i < skip+n; i++ {
		if !dec.More() {
			return fmt.Errorf("%s of conversation %q in %s: %d elements, want %d", field, conv, p, i, skip+n)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		if i < skip {
			continue
		}
		if edit != nil {
			if raw, err = edit(i-skip, raw); err != nil {
				return fmt.Errorf("%s of conversation %q in %s: element %d: %w", field, conv, p, i, err)
			}
		}
		if i > skip {
			w.WriteByte(',')
		}
		if _, err := w.Write(raw); err != nil {
			return err
		}
	}
	return nil
}

// prefixes stand in, in a snapshot about to be encoded, for the skipped
// messages (and their times) of its conversations; writeJSON copies them
// from the file being replaced.
type prefixes struct {
	old   string // the snapshot file being replaced
	mark  string // random: no text can hold it
	imark int64  // negative and random: no time is negative
	list  []prefix
}

type prefix struct {
	conv, field string
	skip, n     int
	// The copy obeys the policy the snapshot is written under: headers
	// makes every message headers-only (the file may have been written
	// under a wider one); before cutoff (unix ms, 0: never) ttl ages
	// messages to headers-only and their times to 0.
	headers bool
	cutoff  int64
}

func (p *prefixes) init() {
	if p.mark != "" {
		return
	}
	p.mark = "coder-skipped-" + rand.Text() + "-"
	var b [8]byte
	rand.Read(b[:])
	p.imark = -int64(binary.LittleEndian.Uint64(b[:])>>2) - 1<<61
}

// snapshot is s with a placeholder where each conversation's skipped
// messages and times go. s itself when none skips any.
func (p *prefixes) snapshot(s *Snapshot) *Snapshot {
	if len(s.Skipped) == 0 {
		return s
	}
	c := *s
	sp, cutoff := s.effective(), s.ageCutoff()
	// Under none there are no messages to copy.
	if k := s.Skipped[""]; k != nil && k.N > 0 && len(s.Messages) > 0 && sp != PolicyNone {
		x := prefix{conv: "", skip: Head(s.Messages), n: k.N, headers: sp == PolicyHeaders}
		if s.Storage == PolicyTTL {
			x.cutoff = cutoff
		}
		c.Messages, c.MessageTimes = p.insert(x, s.Messages, s.MessageTimes)
	}
	c.Conversations = append([]Conversation(nil), s.Conversations...)
	for i, cv := range c.Conversations {
		cp := convPolicy(sp, cv.StoragePolicy, s.Degraded)
		if k := s.Skipped[cv.ID]; k != nil && k.N > 0 && cp != PolicyNone {
			x := prefix{conv: cv.ID, skip: Head(cv.Messages), n: k.N, headers: cp == PolicyHeaders}
			if Narrower(s.Storage, Policy(cv.StoragePolicy)) == PolicyTTL {
				x.cutoff = cutoff
			}
			c.Conversations[i].Messages, c.Conversations[i].MessageTimes = p.insert(x, cv.Messages, cv.MessageTimes)
		}
	}
	return &c
}

// insert puts the placeholders of x's skipped messages at index x.skip.
func (p *prefixes) insert(x prefix, msgs []llm.Message, times []int64) ([]llm.Message, []int64) {
	p.init()
	k := len(p.list)
	at := x.skip
	x.field = "messages"
	p.list = append(p.list, x)
	out := append(append(append([]llm.Message(nil), msgs[:at]...), llm.Message{Role: p.mark + strconv.Itoa(k)}), msgs[at:]...)
	if len(times) != len(msgs) {
		return out, nil // unknown times: aged with the session
	}
	x.field = "message_times"
	p.list = append(p.list, x)
	outT := append(append(append([]int64(nil), times[:at]...), p.imark-int64(k+1)), times[at:]...)
	return out, outT
}

// next finds the first placeholder in data: where it starts and ends and
// which prefix it is; ok false when there is none.
func (p *prefixes) next(data []byte) (start, end, k int, ok bool) {
	if len(p.list) == 0 {
		return 0, 0, 0, false
	}
	start = -1
	if i := bytes.Index(data, []byte(`"`+p.mark)); i >= 0 {
		j := bytes.IndexByte(data[i+1:], '"') + i + 1
		n, err := strconv.Atoi(string(data[i+1+len(p.mark) : j]))
		o := bytes.LastIndexByte(data[:i], '{')
		c := bytes.IndexByte(data[j:], '}') + j
		if err == nil && o >= 0 && c > j {
			start, end, k = o, c+1, n
		}
	}
	for t := range p.list {
		if p.list[t].field != "message_times" {
			continue
		}
		needle := []byte(strconv.FormatInt(p.imark-int64(t), 10))
		if i := bytes.Index(data, needle); i >= 0 && (start < 0 || i < start) {
			start, end, k = i, i+len(needle), t
		}
	}
	return start, end, k, start >= 0
}

// write copies prefix k from the old file.
func (p *prefixes) write(w *bufio.Writer, k int) error {
	if k < 0 || k >= len(p.list) {
		return errors.New("encode: a skipped-messages placeholder is damaged")
	}
	x := p.list[k]
	// Where they start in the old file: after its head, which a file
	// written before the AGENTS.md message was saved lacks.
	from, err := headOnDisk(p.old, x.conv)
	if err != nil {
		return err
	}
	x.skip = from
	if !x.headers && x.cutoff == 0 {
		return copyElements(w, p.old, x.conv, x.field, x.skip, x.n, nil)
	}
	if x.field == "message_times" {
		return copyElements(w, p.old, x.conv, x.field, x.skip, x.n, func(_ int, raw json.RawMessage) (json.RawMessage, error) {
			var at int64
			if err := json.Unmarshal(raw, &at); err != nil || at == 0 || at >= x.cutoff {
				return raw, err
			}
			return json.RawMessage("0"), nil
		})
	}
	var times []int64 // the messages' times, for ttl
	if x.cutoff != 0 {
		_ = copyElements(bufio.NewWriter(io.Discard), p.old, x.conv, "message_times", x.skip, x.n, func(_ int, raw json.RawMessage) (json.RawMessage, error) {
			var at int64
			err := json.Unmarshal(raw, &at)
			times = append(times, at)
			return raw, err
		})
	}
	return copyElements(w, p.old, x.conv, x.field, x.skip, x.n, func(i int, raw json.RawMessage) (json.RawMessage, error) {
		aged := len(times) == x.n && times[i] != 0 && times[i] < x.cutoff
		if !x.headers && !aged {
			return raw, nil
		}
		var m llm.Message
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
		if strings.HasPrefix(m.Content, "[not stored") {
			return raw, nil // headers-only already
		}
		m, _ = FilterMessage(PolicyHeaders, m)
		return json.Marshal(m)
	})
}
