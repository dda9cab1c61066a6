// Package inline is the inline assistant (`:'<,'>Coder edit`): one short
// model call, outside every conversation, that rewrites a selection of a
// buffer. The front end sends the selection with some lines around it and
// the instruction; the answer is the selection's new text, which the
// front end shows as the usual hunk review (core/review). The request,
// the answer's parsing and its hunks are here; the call is the session's
// (agent.Session.Rewrite), made like every other model call.
package inline

import (
	"errors"
	"fmt"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/review"
)

// Request is one inline edit.
type Request struct {
	Path        string   // workspace-relative or the buffer's name; "" for an unnamed buffer
	Filetype    string   // the editor's filetype
	Instruction string   // what the user asked
	First       int      // 1-based line of the selection's first line
	Before      []string // lines just above the selection (context only)
	Selection   []string // the lines to rewrite
	After       []string // lines just below it (context only)
}

// Limits of what one inline edit sends.
const (
	MaxSelectionLines = 2000
	MaxContextLines   = 40
	maxInstruction    = 4000
)

const system = `You edit a selected region of a file in place. Answer with the new text of the selection only: no explanation, no code fences, no line numbers. ` +
	`Keep the surrounding code's indentation and style, and change nothing the instruction does not ask for. ` +
	`The lines around the selection are context: never repeat them. If the instruction cannot be carried out, answer with the selection unchanged.`

// Check validates a request: an instruction and a selection within the
// limits.
func (r Request) Check() error {
	switch {
	case strings.TrimSpace(r.Instruction) == "":
		return errors.New("say what to change: :'<,'>Coder edit {instruction}")
	case len(r.Instruction) > maxInstruction:
		return fmt.Errorf("the instruction is longer than %d bytes", maxInstruction)
	case len(r.Selection) == 0:
		return errors.New("nothing selected")
	case len(r.Selection) > MaxSelectionLines:
		return fmt.Errorf("the selection has %d lines; the inline edit takes at most %d, use the chat for more", len(r.Selection), MaxSelectionLines)
	case r.First < 1:
		return fmt.Errorf("bad first line %d", r.First)
	}
	return nil
}

// Messages builds the model request's messages.
func (r Request) Messages() []llm.Message {
	var b strings.Builder
	name := r.Path
	if name == "" {
		name = "an unnamed buffer"
	}
	fmt.Fprintf(&b, "File: %s", name)
	if r.Filetype != "" {
		fmt.Fprintf(&b, " (%s)", r.Filetype)
	}
	fmt.Fprintf(&b, "\nInstruction: %s\n", strings.TrimSpace(r.Instruction))
	before := tail(r.Before, MaxContextLines)
	if len(before) > 0 {
		b.WriteString("\n<before>\n" + strings.Join(before, "\n") + "\n</before>\n")
	}
	last := r.First + len(r.Selection) - 1
	fmt.Fprintf(&b, "\n<selection lines=\"%d-%d\">\n%s\n</selection>\n", r.First, last, strings.Join(r.Selection, "\n"))
	after := r.After[:min(len(r.After), MaxContextLines)]
	if len(after) > 0 {
		b.WriteString("\n<after>\n" + strings.Join(after, "\n") + "\n</after>\n")
	}
	return []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: b.String()}}
}

func tail(lines []string, n int) []string {
	if len(lines) > n {
		return lines[len(lines)-n:]
	}
	return lines
}

// Parse turns the model's answer into lines: a code fence around it and
// the <selection> tags are dropped; an empty answer is refused (deleting
// a selection is done with d, not with a model).
func Parse(answer string, selection []string) ([]string, error) {
	text := strings.TrimRight(answer, " \t\r\n")
	text = strings.TrimLeft(text, "\r\n")
	lines := strings.Split(text, "\n")
	if len(lines) >= 2 && strings.HasPrefix(strings.TrimSpace(lines[0]), "```") && strings.TrimSpace(lines[len(lines)-1]) == "```" &&
		!(len(selection) > 0 && strings.HasPrefix(strings.TrimSpace(selection[0]), "```")) {
		lines = lines[1 : len(lines)-1]
	}
	if len(lines) > 0 && strings.HasPrefix(strings.TrimSpace(lines[0]), "<selection") {
		lines = lines[1:]
	}
	if len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "</selection>" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	if len(lines) == 0 || len(lines) == 1 && strings.TrimSpace(lines[0]) == "" {
		return nil, errors.New("the model answered with nothing; the selection is unchanged")
	}
	return lines, nil
}

// Edit is an answered inline edit: the selection, from buffer line First,
// and the model's new lines for it.
type Edit struct {
	First    int
	Old, New []string
}

// Hunks are the edit's changes, with line numbers of the whole buffer.
func (e Edit) Hunks() []review.Hunk { return Hunks(e.First, e.Old, e.New) }

// Apply returns the selection's lines with the accepted hunks applied.
func (e Edit) Apply(accepted []bool) ([]string, error) { return Apply(e.Old, e.New, accepted) }

// Hunks are the changes from the selection to its new lines, with line
// numbers of the whole buffer.
func Hunks(first int, old, new []string) []review.Hunk {
	hunks := review.Hunks(joinLines(old), joinLines(new))
	for i := range hunks {
		hunks[i].OldStart += first - 1
	}
	return hunks
}

// Apply returns the selection's lines with the accepted hunks applied.
func Apply(old, new []string, accepted []bool) ([]string, error) {
	text, err := review.Apply(joinLines(old), joinLines(new), accepted)
	if err != nil {
		return nil, err
	}
	if text == "" {
		return []string{}, nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n"), nil
}

func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}
