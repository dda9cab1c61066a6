// Package reviewcomments holds the user's comments on hunks under review
// (the approval float's, a turn's, an inline edit's) until they are sent
// to the agent together, as one user message: each with its file, line
// range and the hunk's text. Comments wait across reviews — closing one
// loses none — and /status lists them.
package reviewcomments

import (
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Comment is one comment on one hunk.
type Comment struct {
	Path   string `json:"path" msgpack:"path"`
	Start  int    `json:"start" msgpack:"start"` // lines of the new text, 1-based
	End    int    `json:"end" msgpack:"end"`     // 0: Start alone
	Hunk   string `json:"hunk" msgpack:"hunk"`   // the hunk as a diff
	Text   string `json:"text" msgpack:"text"`
	Kept   *bool  `json:"kept,omitempty" msgpack:"kept,omitempty"` // the hunk's verdict when known
	Review string `json:"review,omitempty" msgpack:"review,omitempty"`
}

// Pending are the comments not sent yet.
type Pending struct {
	mu   sync.Mutex
	list []Comment
}

// maxHunk is how much of a hunk a comment carries.
const maxHunk = 4000

// Add keeps c until the next Take; an empty comment is refused.
func (p *Pending) Add(c Comment) (int, error) {
	c.Text = strings.TrimSpace(c.Text)
	c.Path = strings.TrimSpace(c.Path)
	switch {
	case c.Text == "":
		return 0, errors.New("an empty comment")
	case c.Path == "":
		return 0, errors.New("a comment needs the file it is on")
	case c.Start < 0 || c.End < 0:
		return 0, errors.New("a comment's lines are 1 or more")
	}
	if len(c.Hunk) > maxHunk {
		c.Hunk = c.Hunk[:maxHunk] + "\n… (hunk cut)"
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.list = append(p.list, c)
	return len(p.list), nil
}

// List is the comments waiting.
func (p *Pending) List() []Comment {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Comment(nil), p.list...)
}

// Take returns the comments waiting and forgets them.
func (p *Pending) Take() []Comment {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.list
	p.list = nil
	return out
}

// Lines is "path:start-end" for c.
func (c Comment) Lines() string {
	switch {
	case c.Start == 0:
		return c.Path
	case c.End > c.Start:
		return fmt.Sprintf("%s:%d-%d", c.Path, c.Start, c.End)
	}
	return fmt.Sprintf("%s:%d", c.Path, c.Start)
}

// Message is the one user message that sends cs.
func Message(cs []Comment) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Review comments on your changes (%d), from the user's review. The kept hunks are in the files as they are now; address each comment:\n", len(cs))
	for i, c := range cs {
		state := ""
		switch {
		case c.Kept == nil:
		case *c.Kept:
			state = " (hunk kept)"
		default:
			state = " (hunk rejected: not in the file)"
		}
		fmt.Fprintf(&b, "\n%d. %s%s\n", i+1, c.Lines(), state)
		if h := strings.TrimRight(c.Hunk, "\n"); h != "" {
			fmt.Fprintf(&b, "```diff\n%s\n```\n", h)
		}
		fmt.Fprintf(&b, "Comment: %s\n", c.Text)
	}
	return strings.TrimRight(b.String(), "\n")
}

// Summary is /status's line on them.
func Summary(cs []Comment) string {
	if len(cs) == 0 {
		return ""
	}
	var where []string
	for _, c := range cs {
		where = append(where, c.Lines())
	}
	return fmt.Sprintf("review comments: %d waiting (%s); gS or :Coder review send sends them", len(cs), strings.Join(where, ", "))
}
