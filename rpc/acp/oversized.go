package acp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"sync"
)

// Bytes kept from each end of a line past maxMessage to find its id.
const (
	oversizedHead = 64 << 10
	oversizedTail = 4 << 10
)

// oversized keeps the start and the end of a line too long to read, so a
// request can still be answered under its own id: a client waits forever
// for an answer with any other id.
type oversized struct {
	head []byte
	tail []byte
}

func (o *oversized) start(prefix []byte) {
	o.head = append(o.head[:0], prefix[:min(len(prefix), oversizedHead)]...)
	o.tail = o.tail[:0]
}

func (o *oversized) addTail(chunk []byte) {
	if len(o.head) < oversizedHead {
		o.head = append(o.head, chunk[:min(len(chunk), oversizedHead-len(o.head))]...)
	}
	o.tail = append(o.tail, chunk...)
	if n := len(o.tail); n > oversizedTail {
		o.tail = append(o.tail[:0], o.tail[n-oversizedTail:]...)
	}
}

// tailID matches a top-level id written last: `,"id":7}` at the very end.
// A nested object would end in `}}`, and a quote inside a string is
// escaped, so neither matches.
var tailID = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[{,]\s*"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?[0-9]+|null)\s*\}\s*$`)
})

// id is the id of the request the line holds, or nil when it cannot be
// read or the line is a response to one of our requests (answering that
// would only confuse the client).
func (o *oversized) id() json.RawMessage {
	id, response := headID(o.head)
	if response {
		return nil
	}
	if id == nil {
		if m := tailID().FindSubmatch(bytes.TrimSpace(o.tail)); m != nil {
			id = append(json.RawMessage(nil), m[1]...)
		}
	}
	if id != nil && !json.Valid(id) {
		return nil
	}
	return id
}

// headID walks the top-level keys of a truncated JSON object until a value
// runs past the end. It reports the id if one was read, and whether a
// "result" or "error" key showed the line to be a response.
func headID(head []byte) (id json.RawMessage, response bool) {
	dec := json.NewDecoder(bytes.NewReader(head))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		key, ok := tok.(string)
		if !ok {
			break
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				// The value runs past what was kept; its key still tells.
				response = response || key == "result" || key == "error"
			}
			break
		}
		switch key {
		case "id":
			switch c := firstByte(v); {
			case c == '"', c == '-', c >= '0' && c <= '9', bytes.Equal(v, []byte("null")):
				id = v
			}
		case "result", "error":
			response = true
		}
	}
	return id, response
}
