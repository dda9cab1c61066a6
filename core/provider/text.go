package provider

import "strings"

// textBlock is the size of the blocks a streamed text is kept in.
const textBlock = 64 << 10

// text accumulates a streamed text: its first textBlock bytes on the heap,
// growing as usual (most texts are short), then in blocks of textBlock
// bytes taken outside the Go heap where the platform allows (block_unix.go),
// joined once into the response. A strings.Builder grows by copying
// itself: for a 10 MB answer that is several times the answer in dead
// buffers over the stream. Blocks outside the heap add nothing to the
// garbage collector's goal (which is twice the live heap, so a heap block
// costs twice its size) and are returned to the system one by one as the
// join copies them, so the text is never held twice whole.
type text struct {
	first []byte   // on the heap
	more  [][]byte // whole blocks from newBlock, then the one being filled
	n     int
}

func (t *text) WriteString(s string) {
	t.n += len(s)
	if k := min(len(s), textBlock-len(t.first)); k > 0 {
		t.first = append(t.first, s[:k]...)
		s = s[k:]
	}
	for len(s) > 0 {
		last := len(t.more) - 1
		if last < 0 || len(t.more[last]) == textBlock {
			t.more = append(t.more, newBlock(textBlock))
			last++
		}
		b := t.more[last]
		k := min(len(s), textBlock-len(b))
		t.more[last] = append(b, s[:k]...)
		s = s[k:]
	}
}

// String returns the whole text, built in one allocation of its exact
// size. It ends the text: the blocks are released as they are copied and
// the text is empty afterwards.
func (t *text) String() string {
	if len(t.more) == 0 {
		s := string(t.first)
		t.first, t.n = nil, 0
		return s
	}
	var sb strings.Builder
	sb.Grow(t.n)
	sb.Write(t.first)
	for i, b := range t.more {
		sb.Write(b)
		freeBlock(b)
		t.more[i] = nil
	}
	t.first, t.more, t.n = nil, nil, 0
	return sb.String()
}

// release frees the blocks of a text String was never called on.
func (t *text) release() {
	for _, b := range t.more {
		freeBlock(b)
	}
	t.first, t.more, t.n = nil, nil, 0
}
