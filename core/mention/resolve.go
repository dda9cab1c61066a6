package mention

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path"
	"strings"
	"time"

	"github.com/coder-nvim/coder-nvim/core/gitsnap"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/tools"
)

// Limits bound what is attached. Every cut is said in the item's notes.
type Limits struct {
	Item    int // bytes of text per item
	Message int // bytes of text per message, all items together
	File    int // a file larger than this is refused unless a range is given
	Image   int // bytes of one image
	Listing int // entries of a directory listing
}

// DefaultLimits are the caps the front ends use.
var DefaultLimits = Limits{Item: 64 << 10, Message: 256 << 10, File: 4 << 20, Image: 8 << 20, Listing: 500}

// Resolver resolves workspace mentions with the file tools' path rules: a
// path outside the workspace, in .git/ or in the agent's own .coder/ is
// refused.
type Resolver struct {
	WS *tools.Workspace
	// Images says the model takes image parts (model_images).
	Images bool
	Limits Limits
	// Resources resolves `@server:uri` (an MCP resource) before a path
	// is tried; nil: none.
	Resources ResourceReader
}

// ResourceReader reads the MCP resource a mention token names; ok is
// false when the token names none (it is then a path).
type ResourceReader interface {
	Resource(ctx context.Context, tok string) (it Item, ok bool)
}

// Confine applies the file tools' path rules to what the editor attached
// about a file (#buffer, #buffers, #selection, #diagnostics): a file
// outside the workspace, in .git/ or in .coder/ is not attached, with the
// reason; a buffer with no file (no name, a terminal, a scratch view)
// passes. Paths become workspace-relative.
func (r Resolver) Confine(items []Item) []Item {
	out := make([]Item, 0, len(items))
	for _, it := range items {
		switch it.Source {
		case "#buffer", "#buffers", "#selection", "#diagnostics":
			if it.Err != "" || it.Path == "" || it.Path == "[No Name]" || it.Path == "all buffers" || strings.Contains(it.Path, "://") {
				break
			}
			_, rel, err := r.WS.ResolveRead(it.Path)
			if err != nil && it.Source == "#diagnostics" {
				// #diagnostics:all names every buffer: one outside
				// gives away neither its text nor its path.
				it = Item{Source: it.Source, Err: "the diagnostics of a buffer outside the workspace (or in .git/ or .coder/) are withheld"}
				break
			}
			if err != nil {
				it = Item{Source: it.Source, Path: it.Path, Range: it.Range, Err: err.Error()}
				break
			}
			if rel != "" {
				it.Path = rel
			}
		}
		out = append(out, it)
	}
	return out
}

// diffTimeout bounds the git calls behind #diff.
const diffTimeout = 20 * time.Second

// Resolve returns the items for the workspace mentions in text, in order;
// a mention that cannot be attached is an item with Err set. The same
// mention twice is attached once.
func (r Resolver) Resolve(ctx context.Context, text string) []Item {
	var items []Item
	seen := map[string]bool{}
	for _, ref := range Parse(text) {
		key := text[ref.Start:ref.End]
		if seen[key] {
			continue
		}
		seen[key] = true
		switch ref.Source {
		case "#diff":
			items = append(items, r.diff(ctx))
		case "@":
			if r.Resources != nil {
				if it, ok := r.Resources.Resource(ctx, key[1:]); ok {
					items = append(items, it)
					continue
				}
			}
			items = append(items, r.path(ctx, ref))
		}
	}
	return items
}

// Files resolves files a client attached by path (ACP's resource links)
// as `@path` mentions are: the same path rules, caps and reads. A path
// outside the workspace is left out, not refused: it stays a name in the
// prompt. The same file twice is attached once.
func (r Resolver) Files(ctx context.Context, paths []string) []Item {
	var items []Item
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] || !r.WS.Contains(p) {
			continue
		}
		seen[p] = true
		items = append(items, r.path(ctx, Ref{Source: "@", Path: p}))
	}
	return items
}

func (r Resolver) limits() Limits {
	if r.Limits.Item == 0 {
		return DefaultLimits
	}
	return r.Limits
}

func (r Resolver) diff(ctx context.Context) Item {
	it := Item{Source: "#diff", Filetype: "diff"}
	ctx, cancel := context.WithTimeout(ctx, diffTimeout)
	defer cancel()
	ch, err := gitsnap.Diff(ctx, r.WS.Root())
	if err != nil {
		it.Err = "no git diff: " + err.Error()
		return it
	}
	if len(ch.Files) == 0 {
		it.Notes = append(it.Notes, "no uncommitted changes")
		return it
	}
	it.Text = ch.Patch
	it.Notes = append(it.Notes, fmt.Sprintf("%d file(s) changed since HEAD", len(ch.Files)))
	return it
}

func (r Resolver) path(ctx context.Context, ref Ref) Item {
	it := Item{Source: "@", Path: ref.Path}
	if ref.From > 0 {
		it.Range = fmt.Sprintf("%d-%d", ref.From, ref.To)
	}
	abs, rel, err := r.WS.ResolveRead(ref.Path)
	if err != nil {
		it.Err = err.Error()
		return it
	}
	if rel != "" {
		it.Path = rel
	}
	st, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		it.Err = "no such file or directory in the workspace"
		return it
	case err != nil:
		it.Err = err.Error()
		return it
	case st.IsDir():
		return r.listing(ctx, it, abs)
	case !st.Mode().IsRegular():
		it.Err = "not a regular file"
		return it
	}
	lim := r.limits()
	if mime := llm.ImageFileType(it.Path); mime != "" {
		return r.image(ctx, it, abs, mime, st.Size())
	}
	if ref.From == 0 && st.Size() > int64(lim.File) {
		it.Err = fmt.Sprintf("too large (%s, limit %s); mention a range, e.g. @%s:1-200", sizeText(int(st.Size())), sizeText(lim.File), it.Path)
		return it
	}
	if st.Size() > 32<<20 {
		it.Err = fmt.Sprintf("too large (%s) to read", sizeText(int(st.Size())))
		return it
	}
	data, err := r.WS.ReadFile(ctx, abs)
	if err != nil {
		it.Err = err.Error()
		return it
	}
	if !tools.IsText(data) {
		it.Err = "a binary file; only text files and images (png, jpg, gif, webp) are attached"
		return it
	}
	it.Filetype = strings.TrimPrefix(path.Ext(it.Path), ".")
	text := string(data)
	if ref.From > 0 {
		lines := strings.SplitAfter(text, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		if ref.From > len(lines) {
			it.Err = fmt.Sprintf("line %d is past the end (the file has %d lines)", ref.From, len(lines))
			return it
		}
		to := min(ref.To, len(lines))
		if to < ref.To {
			it.Notes = append(it.Notes, fmt.Sprintf("the file ends at line %d", len(lines)))
			it.Range = fmt.Sprintf("%d-%d", ref.From, to)
		}
		text = strings.Join(lines[ref.From-1:to], "")
	}
	it.Text = text
	return it
}

// listing attaches a directory as the list of its files.
func (r Resolver) listing(ctx context.Context, it Item, abs string) Item {
	files, capped, err := r.WS.ListFiles(ctx, abs)
	if err != nil {
		it.Err = "cannot list the directory: " + err.Error()
		return it
	}
	lim := r.limits()
	n := len(files)
	if len(files) > lim.Listing {
		files = files[:lim.Listing]
	}
	it.Text = strings.Join(files, "\n") + "\n"
	if n == 0 {
		it.Text = ""
	}
	it.Notes = append(it.Notes, fmt.Sprintf("directory listing, %d file(s)", n))
	if len(files) < n || capped {
		it.Notes = append(it.Notes, fmt.Sprintf("only the first %d listed", len(files)))
	}
	it.Lines = len(files)
	return it
}

func (r Resolver) image(ctx context.Context, it Item, abs, mime string, size int64) Item {
	lim := r.limits()
	if !r.Images {
		it.Err = "an image, and this model takes no images (model_images is false in the config)"
		return it
	}
	if size > int64(lim.Image) {
		it.Err = fmt.Sprintf("image too large (%s, limit %s)", sizeText(int(size)), sizeText(lim.Image))
		return it
	}
	data, err := r.WS.ReadFile(ctx, abs)
	if err != nil {
		it.Err = err.Error()
		return it
	}
	if got := http.DetectContentType(data); got != mime && !(mime == "image/webp" && got == "application/octet-stream") {
		it.Err = fmt.Sprintf("named %s but holds %s", path.Ext(it.Path), got)
		return it
	}
	img := llm.DataImage(mime, data)
	it.image = &img
	it.Notes = append(it.Notes, "image, "+sizeText(len(data)))
	return it
}
