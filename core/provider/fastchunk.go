package provider

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// decodeText decodes the common stream event — one choice whose delta
// carries only text — into c without encoding/json's reflection, which
// was half the host's CPU time while a long answer streamed. It reports
// false for anything else (tool calls, usage, errors, several choices,
// unexpected types, keys that only match a field case-insensitively, JSON
// it does not validate itself); the caller then decodes the event with
// json.Unmarshal as before. For the events it accepts, c is what
// json.Unmarshal makes of them (FuzzDecodeText checks this). c is zero on
// entry; scratch is reused space for unescaping.
func decodeText(raw []byte, c *streamChunk, scratch *[]byte) bool {
	s := scanner{b: raw, scratch: scratch}
	if !s.consume('{') {
		return false
	}
	seen := false
	for first := true; ; first = false {
		key, done, ok := s.key(first)
		if !ok {
			return false
		}
		if done {
			break
		}
		switch string(key) {
		case "choices":
			if seen || !s.choices(c) {
				return false
			}
			seen = true
		case "usage", "error":
			if !s.null() { // a usage or an error goes the slow way
				return false
			}
		default:
			if foldsTo(key, "choices", "usage", "error") || !s.value(0) {
				return false
			}
		}
	}
	s.space()
	return s.i == len(s.b)
}

// choices decodes an array of at most one choice.
func (s *scanner) choices(c *streamChunk) bool {
	if !s.consume('[') {
		return false
	}
	if s.consume(']') {
		c.Choices = c.Choices[:0]
		return true
	}
	c.Choices = append(c.Choices[:0], choice{})
	ch := &c.Choices[0]
	if !s.consume('{') {
		return false
	}
	var seen [2]bool
	for first := true; ; first = false {
		key, done, ok := s.key(first)
		if !ok {
			return false
		}
		if done {
			break
		}
		switch string(key) {
		case "delta":
			if seen[0] || !s.delta(ch) {
				return false
			}
			seen[0] = true
		case "finish_reason":
			if seen[1] {
				return false
			}
			seen[1] = true
			if s.null() {
				continue
			}
			r, ok := s.text()
			if !ok {
				return false
			}
			ch.FinishReason = &r
		default:
			if foldsTo(key, "delta", "finish_reason") || !s.value(0) {
				return false
			}
		}
	}
	return s.consume(']') // a second choice goes the slow way
}

func (s *scanner) delta(ch *choice) bool {
	d := &ch.Delta
	if !s.consume('{') {
		return false
	}
	var seen [3]bool
	for first := true; ; first = false {
		key, done, ok := s.key(first)
		if !ok {
			return false
		}
		if done {
			return true
		}
		var field *string
		var n int
		switch string(key) {
		case "content":
			field, n = &d.Content, 0
		case "reasoning_content":
			field, n = &d.ReasoningContent, 1
		case "reasoning":
			field, n = &d.Reasoning, 2
		case "tool_calls":
			if !s.null() {
				return false
			}
			continue
		default:
			if foldsTo(key, "content", "reasoning_content", "reasoning", "tool_calls") || !s.value(0) {
				return false
			}
			continue
		}
		if seen[n] {
			return false
		}
		seen[n] = true
		if s.null() {
			continue
		}
		t, ok := s.text()
		if !ok {
			return false
		}
		*field = t
	}
}

// foldsTo reports whether key would match one of names in
// encoding/json's case-insensitive field matching. Keys that are not
// plain ASCII count as matching: Unicode folding (ſ, K) is not
// reproduced here, the slow path handles them.
func foldsTo(key []byte, names ...string) bool {
	for _, b := range key {
		if b >= utf8.RuneSelf {
			return true
		}
	}
	for _, n := range names {
		if strings.EqualFold(string(key), n) {
			return true
		}
	}
	return false
}

// scanner walks a JSON text, validating what it walks.
type scanner struct {
	b       []byte
	i       int
	scratch *[]byte
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// consume skips space and c if c is next.
func (s *scanner) consume(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// literal consumes word (true, false, null) if it is next.
func (s *scanner) literal(word string) bool {
	s.space()
	if bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		s.i += len(word)
		return true
	}
	return false
}

func (s *scanner) null() bool { return s.literal("null") }

// key reads the next key of an object whose '{' was consumed, and its
// colon; done reports the object's end instead. Keys with escapes are
// refused: they are compared undecoded.
func (s *scanner) key(first bool) (key []byte, done, ok bool) {
	if s.consume('}') {
		return nil, true, true
	}
	if !first && !s.consume(',') {
		return nil, false, false
	}
	s.space()
	raw, ok := s.rawString()
	if !ok || bytes.IndexByte(raw, '\\') >= 0 || !s.consume(':') {
		return nil, false, false
	}
	return raw, false, true
}

// rawString consumes a valid JSON string and returns it between its
// quotes, undecoded.
func (s *scanner) rawString() ([]byte, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false
	}
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			return s.b[start:j], true
		case c < 0x20:
			return nil, false
		case c == '\\':
			j++
			if j >= len(s.b) {
				return nil, false
			}
			switch s.b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(s.b) {
					return nil, false
				}
				for _, h := range s.b[j+1 : j+5] {
					if !isHex(h) {
						return nil, false
					}
				}
				j += 4
			default:
				return nil, false
			}
		}
	}
	return nil, false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// text consumes a string value and decodes it: as is when it has no
// escapes, unescaped here when its escapes are the one-letter kind, by
// encoding/json otherwise (\u escapes) and whenever the text is not valid
// UTF-8 (which encoding/json replaces).
func (s *scanner) text() (string, bool) {
	s.space()
	start := s.i
	raw, ok := s.rawString()
	if !ok {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		if utf8.Valid(raw) {
			return string(raw), true
		}
	} else if out, ok := unescape((*s.scratch)[:0], raw); ok {
		*s.scratch = out
		if utf8.Valid(out) {
			return string(out), true
		}
	}
	var t string
	err := json.Unmarshal(s.b[start:s.i], &t)
	return t, err == nil
}

// unescape appends raw, a valid string's inside, with its one-letter
// escapes decoded; false for a \u escape.
func unescape(out, raw []byte) ([]byte, bool) {
	for {
		i := bytes.IndexByte(raw, '\\')
		if i < 0 {
			return append(out, raw...), true
		}
		out = append(out, raw[:i]...)
		c := raw[i+1]
		switch c {
		case 'b':
			c = '\b'
		case 'f':
			c = '\f'
		case 'n':
			c = '\n'
		case 'r':
			c = '\r'
		case 't':
			c = '\t'
		case 'u':
			return out, false
		}
		out = append(out, c) // '"', '\\', '/' stand for themselves
		raw = raw[i+2:]
	}
}

// maxDepth bounds the nesting of skipped values; deeper events go the
// slow way.
const maxDepth = 64

// value consumes and validates any value.
func (s *scanner) value(depth int) bool {
	s.space()
	if s.i >= len(s.b) || depth > maxDepth {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		_, ok := s.rawString()
		return ok
	case c == '{':
		s.i++
		for first := true; ; first = false {
			_, done, ok := s.key(first)
			if !ok {
				return false
			}
			if done {
				return true
			}
			if !s.value(depth + 1) {
				return false
			}
		}
	case c == '[':
		s.i++
		if s.consume(']') {
			return true
		}
		for {
			if !s.value(depth + 1) {
				return false
			}
			if s.consume(']') {
				return true
			}
			if !s.consume(',') {
				return false
			}
		}
	case c == '-' || '0' <= c && c <= '9':
		return s.number()
	}
	return s.literal("true") || s.literal("false") || s.literal("null")
}

// number consumes a JSON number:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() bool {
	b, i := s.b, s.i
	digits := func() bool {
		j := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	s.i = i
	return true
}
