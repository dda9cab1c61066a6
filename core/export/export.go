// Package export writes a session as Markdown to read or share: the
// user's and the assistant's messages, each tool call as a collapsed
// <details> block with its arguments and result, the changes the file
// tools made as diffs, the todos and the cost. It reads a session
// snapshot only, so a live session and a saved file export alike.
package export

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aymanbagabas/go-udiff"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// Markdown is snap's root conversation as Markdown.
func Markdown(snap *store.Snapshot) string {
	var b strings.Builder
	title := "coder-nvim session " + snap.ID
	fmt.Fprintf(&b, "# %s\n\n", title)
	fmt.Fprintf(&b, "- session: `%s`\n- started: %s\n- model: %s\n- mode: %s\n", snap.ID, snap.CreatedAt.Format(time.RFC3339), snap.Model, snap.Mode)
	if snap.Cwd != "" {
		fmt.Fprintf(&b, "- workspace: `%s`\n", snap.Cwd)
	}
	if st := rootStats(snap); st != nil {
		fmt.Fprintf(&b, "- tokens: %d in, %d out, %d model calls\n", st.TokensIn, st.TokensOut, st.ModelCalls)
		if st.Cost > 0 {
			fmt.Fprintf(&b, "- cost: $%.4f\n", st.Cost)
		}
	}
	results := map[string]string{}
	for _, m := range snap.Messages {
		if m.Role == llm.RoleTool {
			results[m.ToolCallID] = m.Content
		}
	}
	for i, m := range snap.Messages {
		switch {
		case m.Role == llm.RoleSystem && i == 0:
			fmt.Fprintf(&b, "\n<details><summary>System prompt</summary>\n\n%s\n</details>\n", fence(m.Content, ""))
		case m.Role == llm.RoleUser:
			fmt.Fprintf(&b, "\n## User\n\n%s\n", strings.TrimSpace(m.Content))
			if n := len(m.Images); n > 0 {
				fmt.Fprintf(&b, "\n_(%d image%s attached)_\n", n, plural(n))
			}
		case m.Role == llm.RoleAssistant:
			if text := strings.TrimSpace(m.Content); text != "" || len(m.ToolCalls) > 0 {
				b.WriteString("\n## Assistant\n")
				if text != "" {
					fmt.Fprintf(&b, "\n%s\n", text)
				}
			}
			for _, c := range m.ToolCalls {
				writeCall(&b, c, results)
			}
		}
	}
	if len(snap.Todos) > 0 {
		b.WriteString("\n## Todos\n\n")
		for _, t := range snap.Todos {
			box := " "
			switch t.Status {
			case "completed":
				box = "x"
			case "in_progress":
				box = "~"
			}
			fmt.Fprintf(&b, "- [%s] %s\n", box, t.Content)
		}
	}
	return b.String()
}

func rootStats(snap *store.Snapshot) *store.Stats {
	if snap.Root != nil {
		return snap.Root.Stats
	}
	return nil
}

// writeCall is one tool call: its name and a short title, then, folded,
// its change as a diff (file tools) or its arguments, and its result.
func writeCall(b *strings.Builder, c llm.ToolCall, results map[string]string) {
	name, args := c.Function.Name, c.Function.Arguments
	fmt.Fprintf(b, "\n<details><summary>%s</summary>\n\n", summary(name, args))
	if diff := changeDiff(name, args); diff != "" {
		fmt.Fprintf(b, "Change:\n\n%s\n", fence(diff, "diff"))
	} else {
		fmt.Fprintf(b, "Arguments:\n\n%s\n", fence(pretty(args), "json"))
	}
	if res, ok := results[c.ID]; ok {
		fmt.Fprintf(b, "\nResult:\n\n%s\n", fence(res, ""))
	} else {
		b.WriteString("\n_(no result recorded)_\n")
	}
	b.WriteString("</details>\n")
}

// summary is a call's one-line title: the tool and what it acted on.
func summary(name, args string) string {
	var a struct {
		Path    string `json:"path"`
		Command string `json:"command"`
		URL     string `json:"url"`
		Pattern string `json:"pattern"`
	}
	json.Unmarshal([]byte(args), &a) //nolint:errcheck // a title only
	what := a.Path
	for _, s := range []string{a.Command, a.URL, a.Pattern} {
		if what == "" {
			what = s
		}
	}
	what = strings.ReplaceAll(strings.TrimSpace(what), "\n", " ")
	if len(what) > 100 {
		what = what[:97] + "..."
	}
	if what == "" {
		return "🔧 " + escapeHTML(name)
	}
	return "🔧 " + escapeHTML(name) + ": <code>" + escapeHTML(what) + "</code>"
}

// changeDiff is the change a file tool's call asked for, as a diff; ""
// for other tools.
func changeDiff(name, args string) string {
	var a struct {
		Path      string `json:"path"`
		Content   string `json:"content"`
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
		Patch     string `json:"patch"`
	}
	if json.Unmarshal([]byte(args), &a) != nil {
		return ""
	}
	switch name {
	case "patch":
		return a.Patch
	case "edit":
		return udiff.Unified("a/"+a.Path, "b/"+a.Path, a.OldString, a.NewString)
	case "write":
		return udiff.Unified("a/"+a.Path, "b/"+a.Path+" (the whole file)", "", a.Content)
	}
	return ""
}

// fence is s in a code block whose fence is longer than any run of
// backticks in s.
func fence(s, lang string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + lang + "\n" + strings.TrimRight(s, "\n") + "\n" + f
}

func pretty(args string) string {
	var v any
	if json.Unmarshal([]byte(args), &v) != nil {
		return args
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return args
	}
	return string(out)
}

func escapeHTML(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
