package gitsnap

import (
	"bytes"
	encbin "encoding/binary"
	"strings"
)

// indexFacts is what a snapshot must know of the user's index before
// `git add -A` runs on a copy of it.
type indexFacts struct {
	// prepare: some entry has the assume-unchanged bit, or is in conflict
	// outside the root (prepareIndex fixes both).
	prepare bool
	// sessions: some entry is under the session store, which the snapshot
	// leaves out (dropTracked).
	sessions bool
}

// Index entry flags (git's read-cache.c).
const (
	ceValid     = 0x8000 // assume-unchanged
	ceExtended  = 0x4000
	ceStageMask = 0x3000
	ceNameMask  = 0x0fff
)

// scanIndex reads the facts from the bytes of an index file (versions 2
// to 4) without running git. ok is false for anything it does not fully
// understand — a split or sparse index, an unknown version, a size that
// does not add up — and the caller then asks git.
func scanIndex(data []byte, hashLen int, prefix string) (f indexFacts, ok bool) {
	if hashLen == 0 || len(data) < 12+hashLen || string(data[:4]) != "DIRC" {
		return f, false
	}
	version := encbin.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return f, false
	}
	n := encbin.BigEndian.Uint32(data[8:12])
	end := len(data) - hashLen
	sessions := prefix + sessionsDir + "/"
	pos := 12
	var prev []byte // v4: the previous entry's path
	for range n {
		fixed := 40 + hashLen + 2
		if pos+fixed > end {
			return f, false
		}
		flags := encbin.BigEndian.Uint16(data[pos+40+hashLen:])
		if flags&ceExtended != 0 {
			if version < 3 {
				return f, false
			}
			fixed += 2
			if pos+fixed > end {
				return f, false
			}
		}
		var path []byte
		if version == 4 {
			strip, w := varint(data[pos+fixed : end])
			if w == 0 || strip > uint64(len(prev)) {
				return f, false
			}
			rest := data[pos+fixed+w : end]
			nul := bytes.IndexByte(rest, 0)
			if nul < 0 {
				return f, false
			}
			path = append(prev[:len(prev)-int(strip):len(prev)-int(strip)], rest[:nul]...)
			prev = path
			pos += fixed + w + nul + 1
		} else {
			rest := data[pos+fixed : end]
			nameLen := int(flags & ceNameMask)
			if nameLen == ceNameMask {
				nameLen = bytes.IndexByte(rest, 0)
			}
			if nameLen < 0 || nameLen >= len(rest) || rest[nameLen] != 0 {
				return f, false
			}
			path = rest[:nameLen]
			pos += (fixed + nameLen + 8) &^ 7
		}
		p := string(path)
		if flags&ceValid != 0 || flags&ceStageMask != 0 && !strings.HasPrefix(p, prefix) {
			f.prepare = true
		}
		if strings.HasPrefix(p, sessions) {
			f.sessions = true
		}
	}
	// Extensions: a split index ("link") keeps entries in another file
	// and a sparse index ("sdir") whole directories in one entry.
	for pos < end {
		if pos+8 > end {
			return f, false
		}
		sig := string(data[pos : pos+4])
		size := int(encbin.BigEndian.Uint32(data[pos+4 : pos+8]))
		if sig == "link" || sig == "sdir" || size < 0 || pos+8+size > end {
			return f, false
		}
		pos += 8 + size
	}
	return f, pos == end
}

// varint decodes git's offset encoding of index v4 path prefixes; w is 0
// when b ends first.
func varint(b []byte) (v uint64, w int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v = uint64(c & 127)
	w = 1
	for c&128 != 0 {
		if w >= len(b) || w > 9 {
			return 0, 0
		}
		v++
		c = b[w]
		w++
		v = v<<7 + uint64(c&127)
	}
	return v, w
}
