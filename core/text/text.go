// Package text shortens text for display and for the model: cut on a
// character boundary, a first line. It imports nothing of the engine.
package text

import (
	"strings"
	"unicode/utf8"
)

// Truncate cuts s to at most n bytes on a character boundary, marking the
// cut with "…".
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// FirstLine is s's first line, cut to 160 bytes.
func FirstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return Truncate(line, 160)
}
