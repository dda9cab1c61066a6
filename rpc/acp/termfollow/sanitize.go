package termfollow

// The output is the model's command's: untrusted bytes that now reach a
// real terminal emulator, where escape sequences can set the clipboard
// (OSC 52), retitle the window, answer queries as typed input or reset
// the screen. The follower passes text, newlines, tabs, carriage
// returns, backspaces and color (SGR: ESC [ digits;… m) and drops every
// other control and escape sequence — C1 controls too, in both their
// encodings: a bare byte 0x80–0x9F (8-bit: 0x9D is OSC, 0x9B CSI) and
// UTF-8's U+0080–U+009F (C2 80–C2 9F), which xterm-family terminals act
// on. A sequence split between two records is kept whole by the state
// carried between calls.

type escState int

const (
	plain   escState = iota
	escape           // after ESC
	csi              // in ESC [ … (or the 8-bit CSI)
	control          // in an OSC, DCS, APC, PM or SOS string
	ctlEsc           // ESC inside such a string (ESC \ ends it)
)

// maxCSI bounds a kept CSI sequence; a longer one is dropped.
const maxCSI = 32

type sanitizer struct {
	state escState
	seq   []byte // the CSI sequence so far
	// utf is a UTF-8 character begun but not complete (its lead byte and
	// the continuation bytes so far); need is its whole length.
	utf  []byte
	need int
}

// filter returns p without what a terminal must not be given.
func (z *sanitizer) filter(p []byte) []byte {
	out := make([]byte, 0, len(p))
	for _, b := range p {
		out = z.put(out, b)
	}
	return out
}

// put feeds one byte, decoding UTF-8 first so that a C1 control is seen
// in either encoding while other characters pass whole.
func (z *sanitizer) put(out []byte, b byte) []byte {
	if z.need > 0 {
		if b >= 0x80 && b <= 0xbf {
			z.utf = append(z.utf, b)
			if len(z.utf) < z.need {
				return out
			}
			ch := z.utf
			z.utf, z.need = z.utf[:0], 0
			if ch[0] == 0xc2 && ch[1] <= 0x9f {
				return z.c1(out, ch[1]) // U+0080–U+009F
			}
			return z.text(out, ch)
		}
		// Not a continuation: the begun character is dropped.
		z.utf, z.need = z.utf[:0], 0
	}
	switch {
	case b >= 0xc2 && b <= 0xf4:
		z.utf, z.need = append(z.utf[:0], b), utf8Len(b)
		return out
	case b >= 0x80 && b <= 0x9f:
		return z.c1(out, b) // an 8-bit C1 control
	case b >= 0x80:
		return z.text(out, []byte{b}) // not UTF-8: as any text byte
	}
	return z.ascii(out, b)
}

func utf8Len(lead byte) int {
	switch {
	case lead >= 0xf0:
		return 4
	case lead >= 0xe0:
		return 3
	}
	return 2
}

// text is printable text outside ASCII: passed in plain state; in a
// sequence or string it ends a CSI (dropped) and is dropped elsewhere.
func (z *sanitizer) text(out, ch []byte) []byte {
	switch z.state {
	case plain:
		return append(out, ch...)
	case ctlEsc:
		z.state = control
	case control:
	default:
		z.state = plain // an ESC or CSI that was no sequence: dropped
	}
	return out
}

// c1 acts on the C1 control c (0x80–0x9F): CSI starts a sequence (kept
// if it is SGR, in its 7-bit form), ST ends a string, DCS, SOS, OSC, PM
// and APC start one; every other is dropped.
func (z *sanitizer) c1(out []byte, c byte) []byte {
	switch {
	case z.state == control || z.state == ctlEsc:
		if c == 0x9c { // ST
			z.state = plain
		}
	case c == 0x9b:
		z.state, z.seq = csi, append(z.seq[:0], 0x1b, '[')
	case c == 0x90 || c == 0x98 || c == 0x9d || c == 0x9e || c == 0x9f:
		z.state = control
	default:
		z.state = plain
	}
	return out
}

// ascii is the 7-bit state machine.
func (z *sanitizer) ascii(out []byte, b byte) []byte {
	switch z.state {
	case plain:
		switch {
		case b == 0x1b:
			z.state = escape
		case b < 0x20 && b != '\n' && b != '\r' && b != '\t' && b != '\b', b == 0x7f:
			// other C0 controls: dropped
		default:
			out = append(out, b)
		}
	case escape:
		switch b {
		case '[':
			z.state, z.seq = csi, append(z.seq[:0], 0x1b, '[')
		case ']', 'P', '_', '^', 'X':
			z.state = control
		default:
			z.state = plain // a two-byte sequence: dropped
		}
	case csi:
		switch {
		case b >= 0x40 && b <= 0x7e: // the final byte
			if b == 'm' && len(z.seq) < maxCSI && sgrParams(z.seq[2:]) {
				out = append(append(out, z.seq...), b)
			}
			z.state = plain
		case b < 0x20 || b > 0x7e:
			z.state = plain // not a sequence after all: dropped
		case len(z.seq) < maxCSI: // longer ones are dropped at their end
			z.seq = append(z.seq, b)
		}
	case control:
		switch b {
		case 0x07:
			z.state = plain
		case 0x1b:
			z.state = ctlEsc
		}
	case ctlEsc:
		z.state = control
		if b == '\\' {
			z.state = plain
		}
	}
	return out
}

// sgrParams reports whether p are plain SGR parameters: digits and ';'.
func sgrParams(p []byte) bool {
	for _, b := range p {
		if (b < '0' || b > '9') && b != ';' {
			return false
		}
	}
	return true
}
