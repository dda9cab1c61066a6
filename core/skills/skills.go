// Package skills discovers SKILL.md files and renders them for the model
// (seed 001 §5).
//
// A skill is a directory holding SKILL.md:
//
//	<workspace>/.coder/skills/<name>/SKILL.md        (Source "workspace")
//	<user config dir>/coder/skills/<name>/SKILL.md   (Source "user")
//
// where the user config dir is $XDG_CONFIG_HOME or ~/.config (UserConfigDir).
// SKILL.md starts with front matter:
//
//	---
//	name: review-go
//	description: How to review Go changes in this repo
//	---
//	instructions…
//
// The front matter is a small YAML subset: "key: value" lines, values
// optionally quoted, and "key: >" / "key: |" followed by indented lines for
// long descriptions. Unknown keys are ignored. A name must match
// ^[a-z0-9][a-z0-9_-]{0,63}$ and equal its directory's name, because the
// directory is how a skill is found and named; a mismatch is reported as a
// Problem and the skill is left out rather than guessed at. A workspace skill
// overrides a user skill of the same name; a broken workspace skill does not
// hide a valid user one.
package skills

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// FileName is the file that makes a directory a skill.
const FileName = "SKILL.md"

// MaxSize bounds a SKILL.md so that a stray large file cannot flood the
// prompt or memory.
const MaxSize = 1 << 20

// Sources of a Skill.
const (
	SourceWorkspace = "workspace"
	SourceUser      = "user"
)

// Skill is a discovered skill; its instructions are read by Load.
type Skill struct {
	Name        string
	Description string
	Path        string // the SKILL.md file
	Source      string // SourceWorkspace or SourceUser
}

// Problem is a skill that could not be used and why.
type Problem struct {
	Path   string
	Reason string
}

func (p Problem) String() string { return p.Path + ": " + p.Reason }

var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`) })

// ValidName reports whether name is an acceptable skill name.
func ValidName(name string) bool { return nameRE().MatchString(name) }

// UserConfigDir is $XDG_CONFIG_HOME, or ~/.config when it is unset; the
// same base the config package uses.
func UserConfigDir() (string, error) {
	if dir := os.Getenv("XDG_CONFIG_HOME"); dir != "" {
		return dir, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("user config dir: %w", err)
	}
	return filepath.Join(home, ".config"), nil
}

// WorkspaceDir and UserDir are the directories Discover scans.
func WorkspaceDir(workspaceRoot string) string {
	return filepath.Join(workspaceRoot, ".coder", "skills")
}

func UserDir(userConfigDir string) string {
	return filepath.Join(userConfigDir, "coder", "skills")
}

// Discover returns the usable skills sorted by name and the broken ones.
// An empty workspaceRoot or userConfigDir skips that place; a missing skills
// directory is not a problem.
func Discover(workspaceRoot, userConfigDir string) ([]Skill, []Problem) {
	var problems []Problem
	byName := map[string]Skill{}
	// User first, so that workspace skills replace them.
	if userConfigDir != "" {
		for _, s := range scan(UserDir(userConfigDir), SourceUser, &problems) {
			byName[s.Name] = s
		}
	}
	if workspaceRoot != "" {
		for _, s := range scan(WorkspaceDir(workspaceRoot), SourceWorkspace, &problems) {
			byName[s.Name] = s
		}
	}
	skills := make([]Skill, 0, len(byName))
	for _, s := range byName {
		skills = append(skills, s)
	}
	slices.SortFunc(skills, func(a, b Skill) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(problems, func(a, b Problem) int { return strings.Compare(a.Path, b.Path) })
	return skills, problems
}

func scan(dir, source string, problems *[]Problem) []Skill {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		*problems = append(*problems, Problem{dir, fmt.Sprintf("cannot list skills: %v", err)})
		return nil
	}
	var out []Skill
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		// Follow symlinks: linking a shared skill in is a normal setup.
		if fi, err := os.Stat(sub); err != nil || !fi.IsDir() {
			continue // stray files next to skill directories are not skills
		}
		path := filepath.Join(sub, FileName)
		s, err := readSkill(path, e.Name(), source)
		if err != nil {
			*problems = append(*problems, Problem{path, err.Error()})
			continue
		}
		out = append(out, s)
	}
	return out
}

func readSkill(path, dirName, source string) (Skill, error) {
	data, err := readFile(path)
	if err != nil {
		return Skill{}, err
	}
	meta, _, err := parse(data)
	if err != nil {
		return Skill{}, err
	}
	name, desc := meta["name"], meta["description"]
	switch {
	case name == "":
		return Skill{}, errors.New("front matter has no name")
	case !ValidName(name):
		return Skill{}, fmt.Errorf("invalid name %q: use lower-case letters, digits, '-' and '_' (at most 64, starting with a letter or digit)", name)
	case name != dirName:
		return Skill{}, fmt.Errorf("name %q does not match its directory %q", name, dirName)
	case desc == "":
		return Skill{}, errors.New("front matter has no description")
	}
	return Skill{Name: name, Description: desc, Path: path, Source: source}, nil
}

func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no %s", FileName)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read: %w", err)
	}
	if len(data) > MaxSize {
		return nil, fmt.Errorf("larger than %d bytes", MaxSize)
	}
	if !utf8.Valid(data) {
		return nil, errors.New("not UTF-8 text")
	}
	return data, nil
}

// Load returns the instructions of s: SKILL.md after its front matter.
func Load(s Skill) (string, error) {
	data, err := readFile(s.Path)
	if err != nil {
		return "", fmt.Errorf("skill %q (%s): %w", s.Name, s.Path, err)
	}
	_, body, err := parse(data)
	if err != nil {
		return "", fmt.Errorf("skill %q (%s): %w", s.Name, s.Path, err)
	}
	body = strings.TrimSpace(body)
	if body == "" {
		return "", fmt.Errorf("skill %q (%s): no instructions after the front matter", s.Name, s.Path)
	}
	return body, nil
}

// Find returns the skill called name.
func Find(skills []Skill, name string) (Skill, bool) {
	for _, s := range skills {
		if s.Name == name {
			return s, true
		}
	}
	return Skill{}, false
}

// maxPromptDescription bounds one description in the prompt.
const maxPromptDescription = 300

// Prompt renders the list of skills the model sees: one line per skill with
// its name and description. It is empty when there are none.
func Prompt(skills []Skill) string {
	if len(skills) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Skills (when a task matches a description, load that skill's instructions first and follow them):\n")
	for _, s := range skills {
		d := strings.Join(strings.Fields(s.Description), " ")
		if utf8.RuneCountInString(d) > maxPromptDescription {
			d = string([]rune(d)[:maxPromptDescription]) + "…"
		}
		fmt.Fprintf(&b, "- %s: %s\n", s.Name, d)
	}
	return b.String()
}
