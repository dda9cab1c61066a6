// Package editor is what the engine asks of a front end that runs
// language servers (Neovim): the diagnostics of files after the agent
// changed them, and navigation queries. Front ends without language
// servers (exec, ACP) do not implement Editor, and the engine then offers
// neither the feedback nor the lsp tool. This package knows no editor: it
// compares diagnostics, formats them for the model and implements the lsp
// tool on top of the interface.
package editor

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// Editor is a front end that can answer language-server questions.
// Paths given to it are absolute; paths it returns are absolute too.
type Editor interface {
	// HasLSP reports whether at least one language server is attached
	// to a buffer of a file inside the workspace. It must be cheap: it is
	// asked before every model request.
	HasLSP(ctx context.Context) bool
	// Snapshot returns the errors and warnings of the files the editor
	// has loaded, asked just before the agent changes them: what was
	// wrong before is not reported as new afterwards.
	Snapshot(ctx context.Context, paths []string) ([]Diagnostic, error)
	// Diagnostics is asked after files changed on disk: the editor loads
	// (or reloads) them, waits until the attached servers have published
	// for the new text, at most settle, and returns their errors and
	// warnings (Report.After). No server attached: it returns at once
	// with nothing.
	Diagnostics(ctx context.Context, paths []string, settle time.Duration) (Report, error)
	// LSP runs one language-server query (see Query).
	LSP(ctx context.Context, q Query) (Answer, error)
}

// Severities, as LSP numbers them.
const (
	SevError   = 1
	SevWarning = 2
	SevInfo    = 3
	SevHint    = 4
)

// Diagnostic is one diagnostic a server published.
type Diagnostic struct {
	Path     string `json:"path"` // absolute
	Line     int    `json:"line"` // 1-based
	Col      int    `json:"col"`  // 1-based
	Severity int    `json:"severity"`
	Source   string `json:"source"`
	Message  string `json:"message"`
	// Text is the line the diagnostic is on, as it was then: an error
	// that moved with its line is the same error.
	Text string `json:"text"`
}

// Report is what Diagnostics found.
type Report struct {
	Before List[Diagnostic] `json:"before"` // Snapshot's, set by the caller
	After  List[Diagnostic] `json:"after"`
	// Servers is how many language servers were attached to the files;
	// 0 means nothing was waited for.
	Servers int `json:"servers"`
	// TimedOut says some server had not published when settle ran out.
	TimedOut bool `json:"timed_out"`
	// WaitedUS is how long the editor waited for the servers, in
	// microseconds (measurements: the feedback's own cost is the rest).
	WaitedUS int64 `json:"waited_us"`
}

// Query operations the editor answers. Symbol resolution by name is done
// here, on top of OpWorkspaceSymbols and OpDocumentSymbols.
const (
	OpDefinition       = "definition"
	OpReferences       = "references"
	OpHover            = "hover"
	OpDocumentSymbols  = "document_symbols"
	OpWorkspaceSymbols = "workspace_symbols"
	OpDiagnostics      = "diagnostics"
)

// Query is one language-server request.
type Query struct {
	Op     string `json:"op"`
	Path   string `json:"path,omitempty"` // absolute
	Line   int    `json:"line,omitempty"` // 1-based
	Column int    `json:"column,omitempty"`
	Symbol string `json:"symbol,omitempty"` // workspace_symbols: the query
}

// Location is a place a server pointed at.
type Location struct {
	Path string `json:"path"` // absolute
	Line int    `json:"line"` // 1-based
	Col  int    `json:"col"`  // 1-based
	Text string `json:"text"` // the line's text
	Name string `json:"name"` // symbols: the symbol's name
	Kind string `json:"kind"` // symbols: function, class, …
}

// Answer is a query's result.
type Answer struct {
	Locations   List[Location]   `json:"locations"`
	Hover       string           `json:"hover"`
	Diagnostics List[Diagnostic] `json:"diagnostics"`
	// Servers is how many servers were asked; 0: none supports the
	// operation for that file.
	Servers int `json:"servers"`
	// Loaded, for the diagnostics of one file: the editor had it loaded
	// and answered from its buffer. Else Diagnostics loads it.
	Loaded bool `json:"loaded"`
}

// Limits of what goes back to the model.
const (
	maxNewDiagnostics = 20  // per tool result
	maxMessage        = 200 // bytes of one message
)

// SeverityName is the lower-case name of an LSP severity.
func SeverityName(s int) string {
	switch s {
	case SevError:
		return "error"
	case SevWarning:
		return "warning"
	case SevInfo:
		return "info"
	case SevHint:
		return "hint"
	}
	return "diagnostic"
}

// key identifies a diagnostic independently of where its line moved.
func (d Diagnostic) key() string {
	return fmt.Sprintf("%s\x00%d\x00%s\x00%s\x00%s", d.Path, d.Severity, d.Source, d.Message, strings.TrimSpace(d.Text))
}

// New returns the errors and warnings of r.After that were not in
// r.Before, deduplicated, errors first, each sorted by path, line and
// column.
func (r Report) New() []Diagnostic {
	before := map[string]int{}
	for _, d := range r.Before {
		before[d.key()]++
	}
	seen := map[string]bool{}
	var out []Diagnostic
	for _, d := range r.After {
		if d.Severity != SevError && d.Severity != SevWarning {
			continue
		}
		k := d.key()
		if before[k] > 0 {
			before[k]-- // the same error, still there
			continue
		}
		at := fmt.Sprintf("%s\x00%d\x00%d", k, d.Line, d.Col)
		if seen[at] {
			continue
		}
		seen[at] = true
		out = append(out, d)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Severity != b.Severity {
			return a.Severity < b.Severity
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return out
}

// Feedback is the text appended to a tool result after an edit: the new
// errors and warnings, capped; "" when there are none. rel maps an
// absolute path to what the model sees.
func Feedback(r Report, rel func(string) string) string {
	diags := r.New()
	if len(diags) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\nNew language-server diagnostics in the changed files:")
	for i, d := range diags {
		if i == maxNewDiagnostics {
			fmt.Fprintf(&b, "\n… and %d more", len(diags)-i)
			break
		}
		b.WriteString("\n" + formatDiagnostic(d, rel))
	}
	return b.String()
}

func formatDiagnostic(d Diagnostic, rel func(string) string) string {
	src := ""
	if d.Source != "" {
		src = " [" + oneLine(d.Source, 40) + "]"
	}
	return fmt.Sprintf("%s %s:%d:%d%s %s", SeverityName(d.Severity), rel(d.Path), d.Line, d.Col, src, oneLine(d.Message, maxMessage))
}

// oneLine joins a server's text onto one line and cuts it to n bytes on a
// character boundary.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
