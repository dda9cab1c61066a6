// Package tools implements the agent's built-in workspace tools (read, write,
// edit, patch, bash, ls, glob, grep). A tool call is prepared first: its
// arguments are validated and its effect worked out without changing
// anything, so the approval pipeline can inspect (and for edits, amend) it;
// then it runs.
package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/coder-nvim/coder-nvim/core/hostpath"
	"io"
	"io/fs"
	"strings"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/sandbox"
	"github.com/google/jsonschema-go/jsonschema"
)

// Kind classifies a tool for policy and for front ends (ACP tool kinds).
type Kind string

// Tool kinds.
const (
	KindRead    Kind = "read"
	KindEdit    Kind = "edit"
	KindExecute Kind = "execute"
	KindSearch  Kind = "search"
	KindFetch   Kind = "fetch" // reads from the web (core/web): Invocation.Host
	KindOther   Kind = "other"
)

// Tool is one callable tool.
type Tool interface {
	// Spec is the tool's entry in the request's tools array.
	Spec() llm.Tool
	Kind() Kind
	// Prepare validates the JSON arguments, resolves paths and works out
	// what the call would do, without changing anything. Its errors are
	// written for the model.
	Prepare(ctx context.Context, ws *Workspace, args json.RawMessage) (*Invocation, error)
}

// Invocation is a prepared call: what the approval pipeline looks at, then
// runs.
type Invocation struct {
	Tool    string
	Kind    Kind
	Title   string   // short human title, e.g. "read main.go:1-200"
	Paths   []string // workspace-relative paths it reads or touches
	Command string   // bash: the command string
	// Env is added to a bash command's environment; the pipeline sets it
	// to shellcheck.ReadOnlyEnv for commands allowed as read-only.
	Env []string
	// Output, when set, also receives a bash command's output (stdout and
	// stderr, as written) while it runs, for streaming it to front ends;
	// the Result is the same either way. Its Write must not fail or block
	// for long: the command's pipe is read through it.
	Output io.Writer
	// Changes are the planned changes of write, edit and patch. The
	// pipeline may replace Changes[i].New (inline review) before Run.
	Changes []FileChange
	// Confirm, when set, is why this call must be asked every time, in
	// every mode (yolo too), and never remembered: it writes a skill.
	Confirm string
	// Confine, when set, is the sandbox a bash command runs in (the
	// pipeline sets it); OutsideSandbox is the model's request to run it
	// unconfined, which the pipeline always asks the user about.
	Confine        *sandbox.Policy
	OutsideSandbox bool
	// Host is the host a web tool's call reaches: the policy asks per
	// host.
	Host string

	run     func(ctx context.Context, inv *Invocation) Result
	planned map[string]string // path → New as prepared, to notice review edits
}

// Run executes the prepared call.
func (inv *Invocation) Run(ctx context.Context) Result {
	if inv == nil || inv.run == nil {
		return errorResult("this tool call was not prepared")
	}
	if err := ctx.Err(); err != nil {
		return errorResult("canceled before it ran")
	}
	return inv.run(ctx, inv)
}

// Result is the outcome of a run.
type Result struct {
	Output   string // text for the model (tool message content)
	Display  string // full output for the user: a diff for edits, command output for bash
	Summary  string // one line, e.g. "read 120 lines", "+3 -1 main.go", "exit 0 (1.2s)"
	IsError  bool
	ExitCode *int // bash only
	// Err, on some failures, says why for callers that sort failures
	// by kind (errors.Is): ErrSandboxRefused.
	Err error
}

// ErrSandboxRefused: a confined command failed the way a sandbox refusal
// does (SandboxRefusal).
var ErrSandboxRefused = errors.New("the sandbox may have refused it")

func errorResult(msg string) Result {
	return Result{Output: msg, Display: msg, Summary: firstLine(msg), IsError: true}
}

// Op is the kind of a file change.
type Op string

// File change operations.
const (
	OpAdd    Op = "add"
	OpUpdate Op = "update"
	OpDelete Op = "delete"
)

// FileChange is one planned change to one file.
type FileChange struct {
	Path   string      // workspace-relative, slash separated
	MoveTo string      // update with move: the new workspace-relative path
	Op     Op          // add, update or delete
	Old    string      // content before ("" for add)
	New    string      // content after ("" for delete)
	Mode   fs.FileMode // kept from the old file; 0644 for new files
	// Link is set when Path is a symbolic link and the change acts on the
	// link itself (delete, or move without content changes): what the link
	// holds. Old and New are then empty; the target is never touched.
	Link string
}

// Diff returns the change as a unified diff with a/ and b/ headers.
func (c FileChange) Diff() string {
	from, to := "a/"+c.Path, "b/"+c.Path
	if c.MoveTo != "" {
		to = "b/" + c.MoveTo
	}
	switch c.Op {
	case OpAdd:
		from = "/dev/null"
	case OpDelete:
		to = "/dev/null"
	}
	d := udiff.Unified(from, to, c.Old, c.New)
	if d == "" && (c.MoveTo != "" || c.Link != "") {
		d = fmt.Sprintf("--- %s\n+++ %s\n", from, to)
	}
	return d
}

// diffStat counts added and removed lines of a unified diff.
func diffStat(diff string) (plus, minus int) {
	inHunk := false
	for line := range strings.Lines(diff) {
		switch {
		case strings.HasPrefix(line, "@@"):
			inHunk = true
		case !inHunk:
		case line[0] == '+':
			plus++
		case line[0] == '-':
			minus++
		}
	}
	return plus, minus
}

// Builtins returns the built-in tools in their stable order.
func Builtins(p hostpath.Programs) []Tool {
	ts := []Tool{newReadTool(), newWriteTool(), newEditTool(), newPatchTool()}
	if BashMissing(p) == "" {
		ts = append(ts, newBashTool())
	}
	return append(ts, newLsTool(), newGlobTool(), newGrepTool())
}

// BashMissing says why the bash tool is not offered (no bash to run it),
// or "" when it is.
func BashMissing(p hostpath.Programs) string {
	if _, err := FindBash(p); err != nil {
		return "the bash tool is not offered: " + err.Error()
	}
	return ""
}

// FindBash is the bash the host starts for the bash tool, found on the
// cleaned PATH (hostpath): never one in the workspace.
func FindBash(p hostpath.Programs) (string, error) {
	if p.Bash == "" {
		return "", errors.New(p.BashMissing)
	}
	return p.Bash, nil
}

// Specs returns the tools' specs in order, for the request's tools array.
func Specs(ts []Tool) []llm.Tool {
	out := make([]llm.Tool, len(ts))
	for i, t := range ts {
		out[i] = t.Spec()
	}
	return out
}

// base carries what every tool has: its spec and the resolved schema that
// validates its arguments. T is the Go struct the arguments decode into.
type base[T any] struct {
	name, desc string
	kind       Kind
	params     json.RawMessage
	schema     *jsonschema.Resolved
	err        error // schema construction failed (a bug, reported on use)
}

func newBase[T any](name string, kind Kind, desc string) base[T] {
	b := base[T]{name: name, desc: desc, kind: kind}
	s, err := jsonschema.For[T](nil)
	if err != nil {
		b.err = err
		return b
	}
	if b.params, err = json.Marshal(s); err != nil {
		b.err = err
		return b
	}
	b.schema, b.err = s.Resolve(nil)
	return b
}

func (b *base[T]) Spec() llm.Tool {
	return llm.Tool{Type: "function", Function: llm.FunctionDef{Name: b.name, Description: b.desc, Parameters: b.params}}
}

func (b *base[T]) Kind() Kind { return b.kind }

// decode validates raw against the schema and decodes it into T.
func (b *base[T]) decode(raw json.RawMessage) (T, error) {
	var args T
	if b.err != nil {
		return args, fmt.Errorf("tool %s is misconfigured: %w", b.name, b.err)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	var instance any
	if err := json.Unmarshal(raw, &instance); err != nil {
		return args, fmt.Errorf("the arguments are not valid JSON (%v); send a JSON object matching the %s schema", err, b.name)
	}
	if _, ok := instance.(map[string]any); !ok {
		return args, fmt.Errorf("the arguments must be a JSON object matching the %s schema", b.name)
	}
	if err := b.schema.Validate(instance); err != nil {
		return args, fmt.Errorf("invalid arguments for %s: %s", b.name, schemaMessage(err))
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		// The schema passed, so this is a number Go cannot hold (1e40 for
		// an integer); say so without Go's type names.
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return args, fmt.Errorf("invalid arguments for %s: argument %q: JSON %s is out of range", b.name, typeErr.Field, typeErr.Value)
		}
		return args, fmt.Errorf("invalid arguments for %s: %s", b.name, strings.TrimPrefix(err.Error(), "json: "))
	}
	return args, nil
}

// schemaMessage drops jsonschema-go's "validating root: validating
// /properties/x:" prefixes but keeps the property name.
func schemaMessage(err error) string {
	msg := err.Error()
	prop := ""
	for {
		rest, ok := strings.CutPrefix(msg, "validating ")
		if !ok {
			break
		}
		at, tail, ok := strings.Cut(rest, ": ")
		if !ok {
			break
		}
		if p, ok := strings.CutPrefix(at, "/properties/"); ok {
			prop = p
		}
		msg = tail
	}
	if prop != "" {
		return fmt.Sprintf("argument %q: %s", prop, msg)
	}
	return msg
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

// binarySniff is how much of a file's start isBinary looks at.
const binarySniff = 8 << 10

// isBinary reports whether data looks binary: a NUL byte in the first 8 KiB.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0
}

// IsText reports whether data is text as attached context wants it: no
// NUL byte (isBinary) and valid UTF-8 in its first 8 KiB, a character the
// 8 KiB cut in two counting as valid.
func IsText(data []byte) bool {
	if isBinary(data) {
		return false
	}
	end := min(len(data), binarySniff)
	if end < len(data) {
		for end > 0 && !utf8.RuneStart(data[end]) {
			end--
		}
	}
	return utf8.Valid(data[:end])
}

// NewInvocation prepares a call of a tool implemented outside this package
// (the agent's own tools, such as the todo list): run does the work.
func NewInvocation(tool string, kind Kind, title string, run func(ctx context.Context) Result) *Invocation {
	return &Invocation{Tool: tool, Kind: kind, Title: title, run: func(ctx context.Context, _ *Invocation) Result { return run(ctx) }}
}
