package agent

import (
	"fmt"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/policy"
)

// baseInstructions is the default system prompt. It stays short: it and the
// tool schemas of a default session must fit in 2,500 tokens.
const baseInstructions = `You are coder-nvim, a coding agent working in the user's workspace through tools.
- Read before you change: use ls, glob, grep and read to find the relevant code.
- Make focused changes with edit (exact old_string -> new_string) or patch (several hunks or files); use write only for new files or full rewrites.
- Use bash for builds, tests and git inspection. Prefer the project's own test command after changing code.
- All paths are relative to the workspace root; never touch files outside it or in .git.
- If a tool call is denied, do not retry it unchanged: adapt, or ask the user.
- Keep answers short and concrete; show code only when it helps.`

// instructions builds the system message for a conversation in a mode.
func instructions(base, root string, mode policy.Mode, extra []string) string {
	var b strings.Builder
	if base == "" {
		base = baseInstructions
	}
	b.WriteString(base)
	fmt.Fprintf(&b, "\n\nWorkspace root: %s\nMode: %s.", root, mode)
	switch mode {
	case policy.ModePlan:
		b.WriteString(" You are planning: the workspace is read-only. Analyse, break the task down and propose a plan; do not try to change files (write tools are not available and writing commands are refused). When the plan is complete, hand it to the user with propose_plan: they review and approve it, and you then carry it out.")
	case policy.ModeAutoEdit, policy.ModeYolo:
		b.WriteString(" Deliver the change: edit, verify and fix without asking for confirmation when the request is clear.")
	}
	for _, e := range extra {
		if e != "" {
			b.WriteString("\n\n")
			b.WriteString(e)
		}
	}
	return b.String()
}
