package sandbox

import (
	"strconv"
	"strings"
)

// SeatbeltProfile is macOS Seatbelt's profile for p: everything allowed
// but writes outside p.Writable, writes to p.Protected (a later rule
// wins), renaming or removing p.Pinned, and, without p.Network, any
// network but Unix sockets. Paths are taken as given: Seatbelt matches
// real paths, so the caller resolves symbolic links (/tmp is /private/tmp).
func SeatbeltProfile(p Policy) string {
	var b strings.Builder
	b.WriteString("(version 1)\n(allow default)\n(deny file-write*)\n")
	b.WriteString("(allow file-write*")
	for _, w := range p.Writable {
		b.WriteString(" (subpath " + quote(w) + ")")
	}
	for _, dev := range []string{"/dev/null", "/dev/zero", "/dev/tty", "/dev/dtracehelper"} {
		b.WriteString(" (literal " + quote(dev) + ")")
	}
	b.WriteString(")\n")
	if len(p.Protected) > 0 || len(p.Pinned) > 0 {
		b.WriteString("(deny file-write*")
		for _, x := range p.Protected {
			b.WriteString(" (literal " + quote(x) + ") (subpath " + quote(x) + ")")
		}
		for _, x := range p.Pinned {
			b.WriteString(" (literal " + quote(x) + ")")
		}
		b.WriteString(")\n")
	}
	if !p.Network {
		b.WriteString("(deny network*)\n(allow network* (remote unix-socket) (local unix-socket))\n")
	}
	return b.String()
}

// quote is a Seatbelt (Scheme) string: Go's quoting escapes what it needs.
func quote(s string) string { return strconv.Quote(s) }
