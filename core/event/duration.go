package event

import (
	"fmt"
	"strings"
	"time"
)

// FormatDuration is the one way front ends show how long something took:
// "340 ms", "1.2 s", "2 min 5 s".
func FormatDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%d min %d s", int(d.Minutes()), int(d.Seconds())%60)
}

// SplitDuration separates a trailing Go duration in parentheses from a tool
// summary ("exit 0 (1.2s)" → "exit 0", 1.2s), so front ends can show it in
// their own format.
func SplitDuration(summary string) (string, time.Duration, bool) {
	if !strings.HasSuffix(summary, ")") {
		return summary, 0, false
	}
	i := strings.LastIndex(summary, " (")
	if i < 0 {
		return summary, 0, false
	}
	d, err := time.ParseDuration(summary[i+2 : len(summary)-1])
	if err != nil {
		return summary, 0, false
	}
	return summary[:i], d, true
}
