package todo

import (
	"regexp"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/coder-nvim/coder-nvim/core/text"
)

// stepLine is a top-level numbered list item: "1. do x" or "2) do y",
// indented by at most three spaces (Markdown's own limit for a list that
// is not nested).
var stepLine = regexp.MustCompile(`^ {0,3}\d{1,3}[.)]\s+(\S.*)$`)

// FromPlan is an approved plan's numbered steps as a todo list, all
// pending; nil when the plan has none. Lines inside fenced code blocks
// are no steps.
func FromPlan(plan string) []store.Todo {
	var out []store.Todo
	fence := ""
	for _, line := range strings.Split(plan, "\n") {
		trimmed := strings.TrimSpace(line)
		if f := fenceOf(trimmed); f != "" {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(trimmed, fence):
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		if m := stepLine.FindStringSubmatch(strings.TrimRight(line, "\r")); m != nil {
			out = append(out, store.Todo{Content: text.Truncate(strings.TrimSpace(m[1]), 200), Status: Pending})
		}
	}
	return out
}

// fenceOf is the fence a line opens or closes (``` or ~~~), or "".
func fenceOf(line string) string {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(line, f) {
			return f
		}
	}
	return ""
}
