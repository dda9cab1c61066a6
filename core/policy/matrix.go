package policy

import (
	"fmt"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/shellcheck"
)

// cell is one column of the preset matrix.
type cell int

const (
	cellRead cell = iota
	cellEdit
	cellBashReadOnly
	cellBashUnknown
	cellBashDangerous
	cellOther
)

var cellNames = []string{"read / search", "edit (write, edit, patch)", "bash read-only", "bash unknown", "bash dangerous", "other tools"}

var matrix = map[Preset][6]Decision{
	PresetStrict:   {Allow, Ask, Allow, Ask, Deny, Ask},
	PresetBalanced: {Allow, Ask, Allow, Ask, Ask, Ask},
	PresetAutoEdit: {Allow, Allow, Allow, Ask, Ask, Ask},
	PresetYolo:     {Allow, Allow, Allow, Allow, Allow, Allow},
}

func bashCell(c shellcheck.Class) cell {
	switch c {
	case shellcheck.ReadOnly:
		return cellBashReadOnly
	case shellcheck.Unknown:
		return cellBashUnknown
	}
	return cellBashDangerous
}

func (p Policy) base(c cell) Decision {
	row, ok := matrix[p.preset()]
	if !ok {
		return Deny
	}
	return row[c]
}

// cellDecision is the matrix cell for mode, without rules.
func (p Policy) cellDecision(mode Mode, c cell) Decision {
	d := p.base(c)
	switch mode {
	case ModePlan:
		switch c {
		case cellEdit, cellBashUnknown, cellBashDangerous:
			d = Deny
		case cellOther:
			d = Stricter(d, Ask)
		}
	case ModeAutoEdit:
		if c == cellEdit {
			d = Allow
		}
	case ModeYolo:
		if c == cellEdit || c >= cellBashReadOnly && c <= cellBashDangerous {
			d = Allow
		}
	}
	for _, l := range p.limits {
		d = Stricter(d, l.cellDecision(mode, c))
	}
	return d
}

// Matrix renders the effective permission matrix for mode as text (for
// /permissions).
func (p Policy) Matrix(mode Mode) string {
	var b strings.Builder
	fmt.Fprintf(&b, "mode %s, preset %s\n", mode, p.preset())
	for c, name := range cellNames {
		d := p.cellDecision(mode, cell(c))
		note := ""
		switch {
		case cell(c) == cellBashDangerous && d == Ask:
			note = " (with a danger warning)"
		case mode == ModeYolo && cell(c) >= cellBashReadOnly && cell(c) <= cellBashDangerous:
			note = " (yolo mode skips bash checks)"
		case mode == ModePlan && (cell(c) == cellEdit):
			note = " (plan mode: not offered)"
		}
		fmt.Fprintf(&b, "  %-26s %s%s\n", name, d, note)
	}
	var rules []Rule
	rules = append(rules, p.Rules...)
	for _, l := range p.limits {
		rules = append(rules, l.Rules...)
	}
	if len(rules) == 0 {
		b.WriteString("rules: none\n")
	} else {
		b.WriteString("rules (deny > ask > allow):\n")
		for _, r := range rules {
			fmt.Fprintf(&b, "  %s\n", r)
		}
	}
	if len(p.limits) > 0 {
		fmt.Fprintf(&b, "narrowed by %d outer polic%s\n", len(p.limits), map[bool]string{true: "y", false: "ies"}[len(p.limits) == 1])
	}
	fmt.Fprintf(&b, "\"always\" approvals last %s; dangerous commands are never remembered\n", strings.TrimPrefix(p.scopeText(), "in "))
	b.WriteString("file tools stay inside the workspace in every mode\n")
	return b.String()
}
