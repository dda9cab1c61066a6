package toolcalls

import (
	"encoding/json"
	"strings"
)

// Title is a call's title and paths from its name and raw arguments, in the
// form the tools give them when they prepare a call ("bash: CMD", "read
// PATH", "grep PATTERN"): for a call refused before a tool named it, and
// for a saved call replayed, so either reads as the live call did.
func Title(name, arguments string) (title string, paths []string) {
	var args struct {
		Path    string `json:"path"`
		Pattern string `json:"pattern"`
		Command string `json:"command"`
	}
	json.Unmarshal([]byte(arguments), &args) //nolint:errcheck // best effort: the title only
	switch {
	case args.Command != "":
		cmd, rest, multi := strings.Cut(strings.TrimSpace(args.Command), "\n")
		if multi && strings.TrimSpace(rest) != "" {
			cmd += " ..."
		}
		if name == "bash" {
			return "bash: " + cmd, nil
		}
		return name + " " + cmd, nil
	case args.Path != "":
		return name + " " + args.Path, []string{args.Path}
	case args.Pattern != "":
		return name + " " + args.Pattern, nil
	}
	return name, nil
}
