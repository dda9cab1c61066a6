// Package patch parses the apply_patch envelope and applies its chunks to
// file contents. It is pure: no file system access, so the caller can compute
// every file's new content before writing any of them.
//
// The format:
//
//	*** Begin Patch
//	*** Add File: path
//	+line
//	*** Delete File: path
//	*** Update File: path
//	*** Move to: new/path
//	@@ optional context line
//	 context
//	-removed
//	+added
//	*** End of File
//	*** End Patch
package patch

import (
	"fmt"
	"strings"
)

// Op is what a file section of a patch does.
type Op string

// File operations.
const (
	OpAdd    Op = "add"
	OpDelete Op = "delete"
	OpUpdate Op = "update"
)

// Patch is a parsed patch envelope.
type Patch struct {
	Files []File
}

// File is one "*** Add/Delete/Update File:" section.
type File struct {
	Op     Op
	Path   string
	MoveTo string  // update only; empty when the file stays in place
	Add    string  // add only: the new file's content
	Chunks []Chunk // update only
	Line   int     // 1-based line of the section header in the patch text
}

// Chunk is one "@@" block of an update: Old lines are replaced by New lines.
type Chunk struct {
	// Context is the text after "@@", used to find the region; empty if none.
	Context string
	Old     []string
	New     []string
	// Kept maps each New line to the Old line it keeps (a context line),
	// or -1 for an added line: which lines are context is known only from
	// the patch, and decides which line endings survive.
	Kept []int
	// EOF is set by "*** End of File": Old must match at the end of the file.
	EOF  bool
	Line int // 1-based line of the chunk in the patch text
}

// Label names the chunk in error messages, e.g. `chunk 2 (@@ func main)`.
func (c Chunk) Label(i int) string {
	if c.Context != "" {
		return fmt.Sprintf("chunk %d (@@ %s)", i+1, c.Context)
	}
	return fmt.Sprintf("chunk %d", i+1)
}

const (
	beginMarker  = "*** Begin Patch"
	endMarker    = "*** End Patch"
	addMarker    = "*** Add File:"
	deleteMarker = "*** Delete File:"
	updateMarker = "*** Update File:"
	moveMarker   = "*** Move to:"
	eofMarker    = "*** End of File"
)

// Parse parses a patch envelope. It is lenient where models commonly slip
// (surrounding whitespace, a heredoc wrapper, CRLF line ends) and strict about
// structure, with errors that name the offending line.
func Parse(text string) (*Patch, error) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Split(strings.TrimSpace(text), "\n")
	// Tolerate a shell heredoc wrapper: <<'EOF' ... EOF.
	if len(lines) >= 2 && strings.HasPrefix(strings.TrimSpace(lines[0]), "<<") {
		lines = lines[1 : len(lines)-1]
	}
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != beginMarker {
		return nil, fmt.Errorf("the first line of the patch must be %q", beginMarker)
	}
	last := len(lines) - 1
	for last > 0 && strings.TrimSpace(lines[last]) == "" {
		last--
	}
	if last == 0 || strings.TrimSpace(lines[last]) != endMarker {
		return nil, fmt.Errorf("the last line of the patch must be %q", endMarker)
	}
	p := &parser{lines: lines[:last], pos: 1}
	return p.parse()
}

type parser struct {
	lines []string
	pos   int // index into lines
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("patch line %d: %s", p.pos+1, fmt.Sprintf(format, args...))
}

func (p *parser) parse() (*Patch, error) {
	var out Patch
	seen := map[string]bool{}
	claim := func(path string) error {
		if seen[path] {
			return p.errorf("%s appears more than once in the patch; put all its changes in one section", path)
		}
		seen[path] = true
		return nil
	}
	for p.pos < len(p.lines) {
		line := strings.TrimSpace(p.lines[p.pos])
		header := p.pos + 1
		switch {
		case line == "":
			p.pos++
		case strings.HasPrefix(line, addMarker):
			path, err := p.path(line, addMarker)
			if err != nil {
				return nil, err
			}
			if err := claim(path); err != nil {
				return nil, err
			}
			p.pos++
			var b strings.Builder
			for p.pos < len(p.lines) && strings.HasPrefix(p.lines[p.pos], "+") {
				b.WriteString(p.lines[p.pos][1:])
				b.WriteByte('\n')
				p.pos++
			}
			out.Files = append(out.Files, File{Op: OpAdd, Path: path, Add: b.String(), Line: header})
		case strings.HasPrefix(line, deleteMarker):
			path, err := p.path(line, deleteMarker)
			if err != nil {
				return nil, err
			}
			if err := claim(path); err != nil {
				return nil, err
			}
			p.pos++
			out.Files = append(out.Files, File{Op: OpDelete, Path: path, Line: header})
		case strings.HasPrefix(line, updateMarker):
			path, err := p.path(line, updateMarker)
			if err != nil {
				return nil, err
			}
			if err := claim(path); err != nil {
				return nil, err
			}
			p.pos++
			f := File{Op: OpUpdate, Path: path, Line: header}
			if p.pos < len(p.lines) && strings.HasPrefix(strings.TrimSpace(p.lines[p.pos]), moveMarker) {
				if f.MoveTo, err = p.path(strings.TrimSpace(p.lines[p.pos]), moveMarker); err != nil {
					return nil, err
				}
				if f.MoveTo != path {
					if err := claim(f.MoveTo); err != nil {
						return nil, err
					}
				} else {
					f.MoveTo = ""
				}
				p.pos++
			}
			if f.Chunks, err = p.chunks(); err != nil {
				return nil, err
			}
			if len(f.Chunks) == 0 && f.MoveTo == "" {
				return nil, fmt.Errorf("patch line %d: Update File %s has no changes", header, path)
			}
			out.Files = append(out.Files, f)
		default:
			return nil, p.errorf("expected \"*** Add File: \", \"*** Delete File: \" or \"*** Update File: \", got %q", clip(line))
		}
	}
	if len(out.Files) == 0 {
		return nil, fmt.Errorf("the patch changes no files")
	}
	return &out, nil
}

func (p *parser) path(line, marker string) (string, error) {
	path := strings.TrimSpace(strings.TrimPrefix(line, marker))
	if path == "" {
		return "", p.errorf("%q needs a file path", marker)
	}
	return path, nil
}

// chunks reads the @@ blocks of an Update File section, stopping at the next
// "***" header line.
func (p *parser) chunks() ([]Chunk, error) {
	var chunks []Chunk
	var cur *Chunk
	for p.pos < len(p.lines) {
		raw := p.lines[p.pos]
		trimmed := strings.TrimSpace(raw)
		switch {
		case trimmed == eofMarker:
			if cur == nil || len(cur.Old)+len(cur.New) == 0 {
				return nil, p.errorf("%q must follow the lines of a chunk", eofMarker)
			}
			cur.EOF = true
			cur = nil
			p.pos++
			continue
		case strings.HasPrefix(trimmed, "***"):
			return finish(chunks)
		case trimmed == "@@" || strings.HasPrefix(trimmed, "@@ "):
			if cur != nil && len(cur.Old)+len(cur.New) == 0 {
				// Consecutive "@@ a" "@@ b" lines: keep the innermost context,
				// the one nearest the change.
				if ctx := strings.TrimSpace(trimmed[2:]); ctx != "" {
					cur.Context = ctx
				}
				p.pos++
				continue
			}
			chunks = append(chunks, Chunk{Context: strings.TrimSpace(trimmed[2:]), Line: p.pos + 1})
			cur = &chunks[len(chunks)-1]
			p.pos++
			continue
		}
		if cur == nil && trimmed == "" {
			// Blank lines between chunks (after "*** End of File", or
			// before the first chunk) separate; they are not context.
			p.pos++
			continue
		}
		if cur == nil {
			// The first chunk of a section may omit its "@@" line.
			if len(chunks) > 0 {
				return nil, p.errorf("expected \"@@\" to start a new chunk, got %q", clip(raw))
			}
			chunks = append(chunks, Chunk{Line: p.pos + 1})
			cur = &chunks[len(chunks)-1]
		}
		switch {
		case raw == "":
			// Editors and models often drop the space of an empty context line.
			cur.Old = append(cur.Old, "")
			cur.New = append(cur.New, "")
			cur.Kept = append(cur.Kept, len(cur.Old)-1)
		case raw[0] == ' ':
			cur.Old = append(cur.Old, raw[1:])
			cur.New = append(cur.New, raw[1:])
			cur.Kept = append(cur.Kept, len(cur.Old)-1)
		case raw[0] == '-':
			cur.Old = append(cur.Old, raw[1:])
		case raw[0] == '+':
			cur.New = append(cur.New, raw[1:])
			cur.Kept = append(cur.Kept, -1)
		default:
			return nil, p.errorf("chunk lines must start with ' ', '-' or '+', got %q", clip(raw))
		}
		p.pos++
	}
	return finish(chunks)
}

func finish(chunks []Chunk) ([]Chunk, error) {
	for i, c := range chunks {
		if len(c.Old)+len(c.New) == 0 {
			return nil, fmt.Errorf("patch line %d: %s has no lines", c.Line, c.Label(i))
		}
	}
	return chunks, nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
