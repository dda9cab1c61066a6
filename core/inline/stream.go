package inline

import (
	"strings"

	"github.com/coder-nvim/coder-nvim/core/review"
)

// settledLines is how many unchanged lines must follow a hunk of a partial
// answer before the hunk is shown: until then the lines still to come can
// extend it or align the diff otherwise.
const settledLines = 3

// Progress follows an answer while it streams and gives the hunks that are
// settled so far, for a review that grows as the answer arrives. They are
// a preview: the edit's hunks are those of the whole answer (Edit.Hunks),
// which may differ when the diff aligns otherwise at the end.
type Progress struct {
	first  int
	old    []string
	answer strings.Builder
	shown  int // hunks given so far
	// lines complete so far, and at the last look: a long answer is
	// looked at after every 1/32 more of it, not after every line.
	lines, looked int
}

// NewProgress follows the answer to a request for selection, which starts
// at buffer line first.
func NewProgress(first int, selection []string) *Progress {
	return &Progress{first: first, old: selection}
}

// Add takes the next part of the answer and returns the settled hunks when
// there are more of them than last time, else nil.
func (p *Progress) Add(delta string) []review.Hunk {
	p.answer.WriteString(delta)
	p.lines += strings.Count(delta, "\n")
	if p.lines-p.looked < 1+p.looked/32 {
		return nil
	}
	p.looked = p.lines
	hunks := Settled(p.first, p.old, p.answer.String())
	if len(hunks) <= p.shown {
		return nil
	}
	p.shown = len(hunks)
	return hunks
}

// Settled returns the hunks of a partial answer that the rest of it is not
// expected to change: its complete lines, read as Parse reads an answer,
// are compared with the selection, and the leading hunks each followed by
// settledLines unchanged lines are kept. The last hunk never is: the
// selection's lines the answer has not reached yet show there as removed.
func Settled(first int, selection []string, partial string) []review.Hunk {
	end := strings.LastIndexByte(partial, '\n')
	if end < 0 {
		return nil
	}
	lines := strings.Split(strings.TrimLeft(partial[:end], "\r\n"), "\n")
	// The opening fence or <selection> tag Parse drops (the closing one
	// would be part of the last hunk).
	if len(lines) > 0 && strings.HasPrefix(strings.TrimSpace(lines[0]), "```") &&
		!(len(selection) > 0 && strings.HasPrefix(strings.TrimSpace(selection[0]), "```")) {
		lines = lines[1:]
	}
	if len(lines) > 0 && strings.HasPrefix(strings.TrimSpace(lines[0]), "<selection") {
		lines = lines[1:]
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	hunks := Hunks(first, selection, lines)
	n := 0
	for n+1 < len(hunks) && hunks[n+1].OldStart-(hunks[n].OldStart+len(hunks[n].OldLines)) >= settledLines {
		n++
	}
	return hunks[:n]
}
