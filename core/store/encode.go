package store

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

// Long message texts (a 10 MB answer, a large tool result) are written to
// disk in pieces: json.Marshal would build the whole record or snapshot in
// one growing buffer, which for a long text is its size half again in live
// memory plus the garbage of every growth. The bytes written are exactly
// json.Marshal's, so readers need not know.
const (
	// longText is the length from which a text is written in pieces.
	longText = 64 << 10
	// textPiece is the size of the pieces (before escaping).
	textPiece = 32 << 10
)

// longTexts takes the long texts out of a value about to be encoded,
// leaving placeholders in their place; writeJSON writes them back in.
type longTexts struct {
	// mark starts every placeholder: random, so no text can contain it.
	mark  string
	texts []string
	// skipped stand in for messages copied from the file being replaced
	// (bounded.go).
	skipped prefixes
}

func isLong(s string) bool { return len(s) >= longText }

// take returns s, or a placeholder for it when it is long.
func (l *longTexts) take(s string) string {
	if !isLong(s) {
		return s
	}
	if l.mark == "" {
		l.mark = "coder-long-text-" + rand.Text() + "-"
	}
	l.texts = append(l.texts, s)
	return l.mark + strconv.Itoa(len(l.texts)-1)
}

func hasLong(m *llm.Message) bool {
	if isLong(m.Content) || isLong(m.Reasoning) {
		return true
	}
	for _, c := range m.ToolCalls {
		if isLong(c.Function.Arguments) {
			return true
		}
	}
	return false
}

// message is m with its long texts taken out.
func (l *longTexts) message(m llm.Message) llm.Message {
	if !hasLong(&m) {
		return m
	}
	m.Content = l.take(m.Content)
	m.Reasoning = l.take(m.Reasoning)
	if len(m.ToolCalls) > 0 {
		m.ToolCalls = slices.Clone(m.ToolCalls)
		for i := range m.ToolCalls {
			m.ToolCalls[i].Function.Arguments = l.take(m.ToolCalls[i].Function.Arguments)
		}
	}
	return m
}

// messages is ms with their long texts taken out; ms itself when none
// has any, so the common case copies nothing.
func (l *longTexts) messages(ms []llm.Message) []llm.Message {
	i := slices.IndexFunc(ms, func(m llm.Message) bool { return hasLong(&m) })
	if i < 0 {
		return ms
	}
	out := slices.Clone(ms)
	for ; i < len(out); i++ {
		out[i] = l.message(out[i])
	}
	return out
}

// record is r with the long texts of its message or conversation taken
// out; r itself, copying nothing, when it has none.
func (l *longTexts) record(r Record) Record {
	if r.Msg != nil && hasLong(r.Msg) {
		m := l.message(*r.Msg)
		r.Msg = &m
	}
	if r.Conversation != nil && slices.ContainsFunc(r.Conversation.Messages, func(m llm.Message) bool { return hasLong(&m) }) {
		c := *r.Conversation
		c.Messages = l.messages(c.Messages)
		r.Conversation = &c
	}
	return r
}

// snapshot is s with the long texts of its messages taken out.
func (l *longTexts) snapshot(s *Snapshot) *Snapshot {
	c := *s
	c.Messages = l.messages(s.Messages)
	if slices.ContainsFunc(s.Conversations, func(cv Conversation) bool {
		return slices.ContainsFunc(cv.Messages, func(m llm.Message) bool { return hasLong(&m) })
	}) {
		c.Conversations = slices.Clone(s.Conversations)
		for i := range c.Conversations {
			c.Conversations[i].Messages = l.messages(c.Conversations[i].Messages)
		}
	}
	return &c
}

// writeJSON writes the JSON encoding of v, whose long texts l took out,
// followed by end, to w and returns the bytes written. The output is
// json.Marshal's for the value with its texts in place.
func writeJSON(w io.Writer, v any, l *longTexts, end string) (int64, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return 0, err
	}
	if len(l.texts) == 0 && len(l.skipped.list) == 0 {
		n, err := w.Write(append(data, end...))
		return int64(n), err
	}
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 64<<10)
	mark := []byte(`"` + l.mark)
	for {
		i := -1
		if len(l.texts) > 0 {
			i = bytes.Index(data, mark)
		}
		if s, e, k, ok := l.skipped.next(data); ok && (i < 0 || s < i) {
			bw.Write(data[:s])
			data = data[e:]
			if err := l.skipped.write(bw, k); err != nil {
				return cw.n, err
			}
			continue
		}
		if i < 0 {
			break
		}
		bw.Write(data[:i])
		data = data[i+len(mark):]
		j := bytes.IndexByte(data, '"')
		k, err := strconv.Atoi(string(data[:max(j, 0)]))
		if j < 0 || err != nil || k < 0 || k >= len(l.texts) {
			return cw.n, fmt.Errorf("encode: a long text's placeholder is damaged")
		}
		data = data[j+1:]
		if err := writeString(bw, l.texts[k]); err != nil {
			return cw.n, err
		}
	}
	bw.Write(data)
	bw.WriteString(end)
	err = bw.Flush()
	return cw.n, err
}

// writeString writes s as a JSON string, quotes included, encoding it
// piece by piece with encoding/json itself so the escaping is exactly
// json.Marshal's.
func writeString(w *bufio.Writer, s string) error {
	var buf bytes.Buffer
	buf.Grow(textPiece*6/5 + 16)
	enc := json.NewEncoder(&buf)
	w.WriteByte('"')
	for len(s) > 0 {
		k := pieceEnd(s, textPiece)
		buf.Reset()
		if err := enc.Encode(s[:k]); err != nil {
			return err
		}
		// Encode wrote "…"\n: the piece is between the quotes.
		b := buf.Bytes()
		if _, err := w.Write(b[1 : len(b)-2]); err != nil {
			return err
		}
		s = s[k:]
	}
	return w.WriteByte('"')
}

// pieceEnd is where the piece of s at most n bytes long ends: never
// inside a UTF-8 sequence, so each piece escapes as it would in the
// whole. Decoding from the start, every byte that is not a continuation
// byte begins a rune (or is an invalid byte on its own); a continuation
// byte preceded by three more cannot be inside a valid rune either.
func pieceEnd(s string, n int) int {
	if len(s) <= n {
		return len(s)
	}
	for k := n; k > n-utf8.UTFMax && k > 0; k-- {
		if utf8.RuneStart(s[k]) {
			return k
		}
	}
	return n
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
