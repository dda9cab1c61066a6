// Package text shortens text for display and for the model: cut on a
// character boundary, a first line, a size. It imports nothing of the engine.
package text

import (
	"strconv"
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

// Size is a byte count for people: "812 B", "64 KiB", "1.5 MiB".
func Size(n int64) string {
	switch {
	case n < 1<<10:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1<<20:
		return trimZero(float64(n)/(1<<10)) + " KiB"
	default:
		return trimZero(float64(n)/(1<<20)) + " MiB"
	}
}

func trimZero(f float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(f, 'f', 1, 64), ".0")
}
