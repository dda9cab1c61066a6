package worktree

import (
	"fmt"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/policy"
)

// ParseStart reads the arguments of `/task [--mode MODE] [--from REF]
// PROMPT`: options first, the rest is the prompt.
func ParseStart(line string) (StartArgs, error) {
	var a StartArgs
	rest := strings.TrimSpace(line)
	for strings.HasPrefix(rest, "--") {
		name, after, _ := strings.Cut(rest, " ")
		value, tail, _ := strings.Cut(strings.TrimSpace(after), " ")
		if name == "--" {
			rest = strings.TrimSpace(after)
			break
		}
		if value == "" {
			return a, fmt.Errorf("/task %s: needs a value", name)
		}
		switch name {
		case "--mode":
			if _, err := policy.ParseMode(value); err != nil {
				return a, fmt.Errorf("/task --mode: %w", err)
			}
			a.Mode, a.ModeFromUser = value, true
		case "--from":
			a.From = value
		default:
			return a, fmt.Errorf("/task: unknown option %s (want --mode MODE, --from REF)", name)
		}
		rest = strings.TrimSpace(tail)
	}
	a.Prompt = rest
	if a.Prompt == "" {
		return a, fmt.Errorf("usage: /task [--mode MODE] [--from REF] PROMPT")
	}
	return a, nil
}
