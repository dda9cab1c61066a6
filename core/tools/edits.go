package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/tools/patch"
)

// newEditInvocation wraps planned changes in an invocation that applies
// them through the workspace.
func newEditInvocation(ws *Workspace, tool, title string, changes []FileChange) *Invocation {
	inv := &Invocation{Tool: tool, Kind: KindEdit, Title: title, Changes: changes, run: applyRun(ws), planned: map[string]string{}}
	for _, c := range changes {
		inv.Paths = append(inv.Paths, c.Path)
		if c.MoveTo != "" {
			inv.Paths = append(inv.Paths, c.MoveTo)
		}
		inv.planned[c.Path] = c.New
	}
	return inv
}

func applyRun(ws *Workspace) func(ctx context.Context, inv *Invocation) Result {
	return func(ctx context.Context, inv *Invocation) Result {
		if err := ws.Apply(ctx, inv.Changes); err != nil {
			return errorResult(err.Error())
		}
		var out, display, reviewed strings.Builder
		plus, minus := 0, 0
		applied := map[string]bool{}
		for _, c := range inv.Changes {
			applied[c.Path] = true
			d := c.Diff()
			p, m := diffStat(d)
			plus, minus = plus+p, minus+m
			display.WriteString(d)
			switch {
			case c.Op == OpAdd:
				fmt.Fprintf(&out, "Created %s (%d lines)\n", c.Path, p)
			case c.Op == OpDelete && c.Link != "":
				fmt.Fprintf(&out, "Deleted the symbolic link %s (its target %s was not touched)\n", c.Path, c.Link)
			case c.Op == OpDelete:
				fmt.Fprintf(&out, "Deleted %s\n", c.Path)
			case c.MoveTo != "" && c.Link != "":
				fmt.Fprintf(&out, "Moved the symbolic link %s to %s (it still holds %s; its target was not touched)\n", c.Path, c.MoveTo, c.Link)
			case c.MoveTo != "":
				fmt.Fprintf(&out, "Moved %s to %s (+%d -%d)\n", c.Path, c.MoveTo, p, m)
			default:
				fmt.Fprintf(&out, "Updated %s (+%d -%d)\n", c.Path, p, m)
			}
			if planned, ok := inv.planned[c.Path]; ok && c.New != planned {
				reviewed.WriteString(d)
			}
		}
		for _, path := range slices.Sorted(maps.Keys(inv.planned)) {
			if !applied[path] {
				fmt.Fprintf(&reviewed, "(your change to %s was rejected and not applied)\n", path)
			}
		}
		if reviewed.Len() > 0 {
			out.WriteString("\nThe user edited your proposed change before it was applied. What was actually applied:\n")
			out.WriteString(reviewed.String())
		}
		for _, n := range ws.CheckWritten(ctx, inv.Changes) {
			out.WriteString("\n" + n + "\n")
		}
		target := fmt.Sprintf("%d files", len(inv.Changes))
		if len(inv.Changes) == 1 {
			target = inv.Changes[0].Path
		}
		return Result{
			Output:  strings.TrimSuffix(out.String(), "\n"),
			Display: display.String(),
			Summary: fmt.Sprintf("+%d -%d %s", plus, minus, target),
		}
	}
}

// currentFile reads an existing file for an edit and applies the stale-edit
// guard.
func currentFile(ctx context.Context, ws *Workspace, abs, rel string, mustHaveRead bool) (string, os.FileMode, error) {
	st, err := StatFile(abs, rel, 0)
	if err != nil {
		return "", 0, err
	}
	data, err := ws.ReadFile(ctx, abs)
	if err != nil {
		return "", 0, fmt.Errorf("read %s: %w", rel, err)
	}
	if err := ws.checkFresh(abs, rel, data, mustHaveRead); err != nil {
		return "", 0, err
	}
	return string(data), st.Mode().Perm(), nil
}

// write

type writeArgs struct {
	Path    string `json:"path" jsonschema:"file path"`
	Content string `json:"content" jsonschema:"the whole new file content"`
}

type writeTool struct{ base[writeArgs] }

func newWriteTool() *writeTool {
	return &writeTool{newBase[writeArgs]("write", KindEdit,
		"Create or overwrite a whole file. Read an existing file first; prefer edit or patch for changes.")}
}

func (t *writeTool) Prepare(ctx context.Context, ws *Workspace, raw json.RawMessage) (*Invocation, error) {
	args, err := t.decode(raw)
	if err != nil {
		return nil, err
	}
	abs, rel, ask, err := ws.resolveWrite(args.Path)
	if err != nil {
		return nil, err
	}
	c := FileChange{Path: rel, Op: OpAdd, New: args.Content, Mode: 0o644}
	if _, ok := exists(abs); ok {
		old, mode, err := currentFile(ctx, ws, abs, rel, true)
		if err != nil {
			return nil, err
		}
		c.Op, c.Old, c.Mode = OpUpdate, old, mode
	}
	return confirmIf(ask, newEditInvocation(ws, t.name, "write "+rel, []FileChange{c})), nil
}

// edit

type editArgs struct {
	Path       string `json:"path" jsonschema:"file path"`
	OldString  string `json:"old_string" jsonschema:"exact text to replace"`
	NewString  string `json:"new_string" jsonschema:"replacement text"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"replace every occurrence"`
}

type editTool struct{ base[editArgs] }

func newEditTool() *editTool {
	return &editTool{newBase[editArgs]("edit", KindEdit,
		"Replace old_string with new_string in a file. old_string must match exactly, indentation included, and be unique unless replace_all.")}
}

func (t *editTool) Prepare(ctx context.Context, ws *Workspace, raw json.RawMessage) (*Invocation, error) {
	args, err := t.decode(raw)
	if err != nil {
		return nil, err
	}
	abs, rel, ask, err := ws.resolveWrite(args.Path)
	if err != nil {
		return nil, err
	}
	if args.OldString == "" {
		return nil, fmt.Errorf("old_string is empty; give the exact text to replace (use write to create a file)")
	}
	if args.OldString == args.NewString {
		return nil, fmt.Errorf("old_string and new_string are identical; there is nothing to change")
	}
	if _, ok := exists(abs); !ok {
		return nil, fmt.Errorf("%s does not exist; use write to create it", rel)
	}
	content, mode, err := currentFile(ctx, ws, abs, rel, false)
	if err != nil {
		return nil, err
	}
	if isBinary([]byte(content)) {
		return nil, fmt.Errorf("%s is a binary file; it cannot be edited as text", rel)
	}
	old, repl := args.OldString, args.NewString
	if strings.Contains(content, "\r\n") && !strings.Contains(old, "\r\n") {
		// The model sees CRLF files without the \r (read strips it).
		old = strings.ReplaceAll(old, "\n", "\r\n")
		repl = strings.ReplaceAll(repl, "\n", "\r\n")
	}
	switch n := strings.Count(content, old); {
	case n == 0:
		return nil, fmt.Errorf("old_string was not found in %s.%s", rel, closestHint(content, args.OldString))
	case n > 1 && !args.ReplaceAll:
		return nil, fmt.Errorf("old_string was found %d times in %s (at lines %s); include more surrounding lines to make it unique, or set replace_all to change every occurrence",
			n, rel, occurrenceLines(content, old, 10))
	}
	updated := strings.ReplaceAll(content, old, repl)
	c := FileChange{Path: rel, Op: OpUpdate, Old: content, New: updated, Mode: mode}
	return confirmIf(ask, newEditInvocation(ws, t.name, "edit "+rel, []FileChange{c})), nil
}

// occurrenceLines lists the 1-based line numbers where sub starts, at most
// max of them.
func occurrenceLines(content, sub string, max int) string {
	var nums []string
	off := 0
	for len(nums) < max {
		i := strings.Index(content[off:], sub)
		if i < 0 {
			break
		}
		nums = append(nums, fmt.Sprint(strings.Count(content[:off+i], "\n")+1))
		off += i + len(sub)
	}
	if n := strings.Count(content, sub); n > len(nums) {
		nums = append(nums, fmt.Sprintf("and %d more", n-len(nums)))
	}
	return strings.Join(nums, ", ")
}

// closestHint finds the window of lines most like old and shows it with
// line numbers, so the model can correct its old_string.
func closestHint(content, old string) string {
	lines := strings.Split(strings.ReplaceAll(content, "\r\n", "\n"), "\n")
	want := strings.Split(strings.TrimSuffix(strings.ReplaceAll(old, "\r\n", "\n"), "\n"), "\n")
	k := min(len(want), len(lines))
	if k == 0 || len(lines)*k > 2_000_000 {
		return " Read the file again and copy the text exactly."
	}
	best, bestScore := 0, -1.0
	for i := 0; i+k <= len(lines); i++ {
		score := 0.0
		for j := range k {
			score += similarity(lines[i+j], want[j])
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if bestScore <= 0 {
		return " Nothing similar was found; read the file again and copy the text exactly."
	}
	var b strings.Builder
	fmt.Fprintf(&b, " The most similar text is at lines %d-%d:\n", best+1, best+k)
	for j := range min(k, 30) {
		fmt.Fprintf(&b, "%6d\t%s\n", best+j+1, truncateUTF8(lines[best+j], 300))
	}
	if k > 30 {
		fmt.Fprintf(&b, "  ... (%d more lines)\n", k-30)
	}
	b.WriteString("Copy the text exactly as in the file, including whitespace.")
	return b.String()
}

// similarity scores two lines from 0 to 1: 1 when equal ignoring
// surrounding whitespace, else the share of their common prefix and suffix.
func similarity(a, b string) float64 {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if a == b {
		return 1
	}
	longest := max(len(a), len(b))
	if longest == 0 {
		return 0
	}
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return 0.9 * float64(p+s) / float64(longest)
}

// patch

type patchArgs struct {
	Patch string `json:"patch" jsonschema:"the patch text, *** Begin Patch to *** End Patch"`
}

type patchTool struct{ base[patchArgs] }

func newPatchTool() *patchTool {
	return &patchTool{newBase[patchArgs]("patch", KindEdit,
		"Edit files with a patch, all or nothing. Format: *** Begin Patch, then sections *** Add File: p (lines prefixed +), *** Delete File: p, or *** Update File: p (optional *** Move to: q) with @@ chunks (text after @@ locates it) of ' ' context, - and + lines (~3 context lines), then *** End Patch.")}
}

func (t *patchTool) Prepare(ctx context.Context, ws *Workspace, raw json.RawMessage) (*Invocation, error) {
	args, err := t.decode(raw)
	if err != nil {
		return nil, err
	}
	p, err := patch.Parse(args.Patch)
	if err != nil {
		return nil, fmt.Errorf("invalid patch: %w", err)
	}
	changes := make([]FileChange, 0, len(p.Files))
	confirm := ""
	for _, f := range p.Files {
		c, ask, err := planPatchFile(ctx, ws, f)
		if err != nil {
			return nil, fmt.Errorf("%w; nothing was changed", err)
		}
		changes = append(changes, c)
		confirm = cmp.Or(confirm, ask)
	}
	title := fmt.Sprintf("patch %d files", len(changes))
	if len(changes) == 1 {
		title = "patch " + changes[0].Path
	}
	return confirmIf(confirm, newEditInvocation(ws, t.name, title, changes)), nil
}

// confirmIf marks an invocation asked every time, for the reason ask
// (a skill, the user's startup files), when there is one.
func confirmIf(ask string, inv *Invocation) *Invocation {
	inv.Confirm = ask
	return inv
}

// planPatchFile works out one file section of a patch; ask is why it
// is asked every time (a skill, the user's startup files), if it is. Delete and Move act on a symbolic link itself, never on
// its target; Update changes the target's content.
func planPatchFile(ctx context.Context, ws *Workspace, f patch.File) (c FileChange, ask string, err error) {
	switch f.Op {
	case patch.OpAdd:
		abs, rel, ask, err := ws.resolveWrite(f.Path)
		if err != nil {
			return FileChange{}, "", err
		}
		if _, ok := exists(abs); ok {
			return FileChange{}, "", fmt.Errorf("Add File %s: the file already exists; use Update File to change it", rel)
		}
		return FileChange{Path: rel, Op: OpAdd, New: f.Add, Mode: 0o644}, ask, nil
	case patch.OpDelete:
		abs, rel, link, ask, err := ws.resolveLink(f.Path)
		if err != nil {
			return FileChange{}, "", err
		}
		if link != "" {
			return FileChange{Path: rel, Op: OpDelete, Link: link}, ask, nil
		}
		old, mode, err := currentFile(ctx, ws, abs, rel, false)
		if err != nil {
			return FileChange{}, "", fmt.Errorf("Delete File %s: %w", rel, err)
		}
		return FileChange{Path: rel, Op: OpDelete, Old: old, Mode: mode}, ask, nil
	}
	if f.MoveTo != "" {
		if _, rel, link, ask, err := ws.resolveLink(f.Path); err != nil || link != "" {
			if err != nil {
				return FileChange{}, "", err
			}
			return planLinkMove(ws, f, rel, link, ask)
		}
	}
	abs, rel, ask, err := ws.resolveWrite(f.Path)
	if err != nil {
		return FileChange{}, "", err
	}
	old, mode, err := currentFile(ctx, ws, abs, rel, false)
	if err != nil {
		return FileChange{}, "", fmt.Errorf("Update File %s: %w", rel, err)
	}
	c = FileChange{Path: rel, Op: OpUpdate, Old: old, New: old, Mode: mode}
	if len(f.Chunks) > 0 {
		if c.New, err = patch.Apply(old, f.Chunks); err != nil {
			return FileChange{}, "", fmt.Errorf("Update File %s: %w. Read the file again and make the context and - lines match it", rel, err)
		}
	}
	if f.MoveTo != "" {
		dstRel, dstAsk, err := planMoveTarget(ws, f.MoveTo, rel)
		if err != nil {
			return FileChange{}, "", err
		}
		c.MoveTo, ask = dstRel, cmp.Or(ask, dstAsk)
	}
	return c, ask, nil
}

// planLinkMove plans renaming the symbolic link rel (holding link) to
// f.MoveTo: the link moves as it is, its target untouched.
func planLinkMove(ws *Workspace, f patch.File, rel, link string, ask string) (FileChange, string, error) {
	if len(f.Chunks) > 0 {
		return FileChange{}, "", fmt.Errorf("Update File %s: it is a symbolic link (to %s); Move to renames the link itself, so it cannot also change content. Move it without chunks, and edit the target in its own section", rel, link)
	}
	dstRel, dstAsk, err := planMoveTarget(ws, f.MoveTo, rel)
	if err != nil {
		return FileChange{}, "", err
	}
	if dstRel == "" {
		return FileChange{}, "", fmt.Errorf("Update File %s: it is a symbolic link and Move to names the link itself; there is nothing to change", rel)
	}
	return FileChange{Path: rel, Op: OpUpdate, MoveTo: dstRel, Link: link}, cmp.Or(ask, dstAsk), nil
}

// planMoveTarget resolves a Move to destination: "" when it is the source
// itself.
func planMoveTarget(ws *Workspace, moveTo, rel string) (string, string, error) {
	dst, dstRel, ask, err := ws.resolveWrite(moveTo)
	if err != nil {
		return "", "", fmt.Errorf("Move to %s: %w", moveTo, err)
	}
	if dstRel == rel {
		return "", "", nil
	}
	if _, ok := exists(dst); ok {
		return "", "", fmt.Errorf("Move to %s: the destination already exists", dstRel)
	}
	return dstRel, ask, nil
}
