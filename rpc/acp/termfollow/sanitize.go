package termfollow

// The output is the model's command's: untrusted bytes that now reach a
// real terminal emulator, where escape sequences can set the clipboard
// (OSC 52), retitle the window, answer queries as typed input or reset
// the screen. The follower passes text, newlines, tabs, carriage
// returns, backspaces and color (SGR: ESC [ digits;… m) and drops every
// other control and escape sequence. A sequence split between two
// records is kept whole by the state carried between calls.

type escState int

const (
	plain   escState = iota
	escape           // after ESC
	csi              // in ESC [ …
	control          // in an OSC, DCS, APC, PM or SOS string
	ctlEsc           // ESC inside such a string (ESC \ ends it)
)

// maxCSI bounds a kept CSI sequence; a longer one is dropped.
const maxCSI = 32

type sanitizer struct {
	state escState
	seq   []byte // the CSI sequence so far
}

// filter returns p without what a terminal must not be given.
func (z *sanitizer) filter(p []byte) []byte {
	out := make([]byte, 0, len(p))
	for _, b := range p {
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
