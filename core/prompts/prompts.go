// Package prompts is the user's prompt files: Markdown files in the
// user's `prompts/` directory (beside config.json) and the project's
// `.coder/prompts/`, each a `/name` command whose text goes as the user's
// message. A prompt file is text the user chooses to send, so a project's
// needs no trust — but it can set nothing: front matter may give a
// description and an argument hint, and a file with any other key (mode,
// tools, model…) is refused with a notice.
package prompts

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/config"
)

// Prompt is one prompt file.
type Prompt struct {
	Name        string // the command, without "/"
	Description string
	Arguments   string // the argument hint, e.g. "FILE [FOCUS]"
	Body        string
	Path        string
	Project     bool // from .coder/prompts
}

// maxSize is the largest prompt file read.
const maxSize = 256 << 10

var validName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// allowedKeys are the front matter keys a prompt file may have.
var allowedKeys = map[string]bool{"description": true, "arguments": true, "argument-hint": true}

// Refused is a prompt file that is not offered, and why.
type Refused struct {
	Name, Path, Why string
}

// Load reads the prompt files of userDir and projectDir (either may be
// "" or missing). A name in both is the user's; a name taken by reserved
// (the built-in commands) is not offered.
func Load(userDir, projectDir string, reserved []string) (list []Prompt, refused []Refused) {
	taken := map[string]string{}
	for _, r := range reserved {
		taken[r] = "a built-in command"
	}
	for _, src := range []struct {
		dir     string
		project bool
	}{{userDir, false}, {projectDir, true}} {
		if src.dir == "" {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(src.dir, "*.md"))
		sort.Strings(files)
		for _, f := range files {
			p, err := read(f, src.project)
			if err != nil {
				refused = append(refused, Refused{Name: strings.TrimSuffix(filepath.Base(f), ".md"), Path: f, Why: err.Error()})
				continue
			}
			if by, ok := taken[p.Name]; ok {
				refused = append(refused, Refused{Name: p.Name, Path: f, Why: "/" + p.Name + " is " + by})
				continue
			}
			taken[p.Name] = "your own prompt file " + f
			list = append(list, p)
		}
	}
	return list, refused
}

// read parses one prompt file.
func read(path string, project bool) (Prompt, error) {
	name := strings.TrimSuffix(filepath.Base(path), ".md")
	if !validName.MatchString(name) {
		return Prompt{}, fmt.Errorf("its name %q is not a command name (lower-case letters, digits, - and _)", name)
	}
	fi, err := os.Stat(path) // a link is followed: the user's own dotfiles link prompts in
	if err != nil {
		return Prompt{}, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxSize {
		return Prompt{}, fmt.Errorf("not a regular file of at most %d KB", maxSize>>10)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Prompt{}, err
	}
	p := Prompt{Name: name, Path: path, Project: project}
	body := strings.ReplaceAll(string(data), "\r\n", "\n")
	if rest, ok := strings.CutPrefix(body, "---\n"); ok {
		front, after, ok := strings.Cut(rest, "\n---")
		if !ok {
			return Prompt{}, fmt.Errorf("front matter without its closing ---")
		}
		for _, line := range strings.Split(front, "\n") {
			if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue
			}
			key, value, ok := strings.Cut(line, ":")
			key = strings.ToLower(strings.TrimSpace(key))
			if !ok {
				return Prompt{}, fmt.Errorf("front matter line %q is not KEY: VALUE", line)
			}
			if !allowedKeys[key] {
				return Prompt{}, fmt.Errorf("front matter key %q: a prompt file may give only description and arguments; it cannot set a mode, tools or a model", key)
			}
			value = strings.Trim(strings.TrimSpace(value), `"'`)
			if key == "description" {
				p.Description = value
			} else {
				p.Arguments = value
			}
		}
		body = strings.TrimPrefix(strings.TrimPrefix(after, "\n"), "\n")
	}
	p.Body = strings.TrimSpace(body)
	if p.Body == "" {
		return Prompt{}, fmt.Errorf("no text")
	}
	if p.Description == "" {
		p.Description = firstLine(p.Body)
	}
	return p, nil
}

// Expand is p's text for args: $ARGUMENTS is all of them, $1…$9 each
// (split on white space); without a placeholder, args follow the text.
func (p Prompt) Expand(args string) string {
	args = strings.TrimSpace(args)
	fields := strings.Fields(args)
	body := p.Body
	used := strings.Contains(body, "$ARGUMENTS")
	body = strings.ReplaceAll(body, "$ARGUMENTS", args)
	for i := 9; i >= 1; i-- {
		ph := fmt.Sprintf("$%d", i)
		if strings.Contains(body, ph) {
			used = true
			v := ""
			if i <= len(fields) {
				v = fields[i-1]
			}
			body = strings.ReplaceAll(body, ph, v)
		}
	}
	if !used && args != "" {
		body += "\n\n" + args
	}
	return body
}

// Find is the prompt a `/name args` line names, with its arguments.
func Find(list []Prompt, line string) (Prompt, string, bool) {
	name, args, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "/"), " ")
	for _, p := range list {
		if p.Name == name {
			return p, args, true
		}
	}
	return Prompt{}, "", false
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	s = strings.TrimSpace(strings.TrimLeft(s, "# "))
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// Set is the prompt files of one workspace as read: those offered and
// those refused.
type Set struct {
	List    []Prompt
	Refused []Refused
}

// ForWorkspace reads the user's prompt files (prompts/ beside the user's
// config.json) and root's (.coder/prompts), anew each time, so one added
// mid-session is there at once; reserved are the built-in commands.
func ForWorkspace(root string, reserved []string) Set {
	user := ""
	if f := config.UserFile(); f != "" {
		user = filepath.Join(filepath.Dir(f), "prompts")
	}
	list, refused := Load(user, filepath.Join(root, ".coder", "prompts"), reserved)
	return Set{List: list, Refused: refused}
}

// Text is the text a `/name args` line sends; ok is false when no prompt
// file has that name, err says why one that does was refused.
func (s Set) Text(line string) (text string, ok bool, err error) {
	if p, args, found := Find(s.List, line); found {
		return p.Expand(args), true, nil
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "/"), " ")
	for _, r := range s.Refused {
		if r.Name == name {
			return "", false, fmt.Errorf("prompt file %s refused: %s", r.Path, r.Why)
		}
	}
	return "", false, nil
}
