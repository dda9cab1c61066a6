package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bmatcuk/doublestar/v4"
)

const (
	maxLsEntries    = 1000
	maxGlobResults  = 500
	maxGrepMatches  = 200
	maxGrepLine     = 300
	maxGrepFileSize = 8 << 20
)

// searchDir resolves an optional directory argument (default: the root).
func searchDir(ws *Workspace, p string) (abs, rel string, err error) {
	if p == "" {
		p = "."
	}
	abs, rel, err = ws.Resolve(p)
	if err != nil {
		return "", "", err
	}
	st, err := os.Stat(abs)
	if err != nil {
		if os.IsNotExist(err) {
			return "", "", fmt.Errorf("%s does not exist", rel)
		}
		return "", "", fmt.Errorf("%s: %w", rel, err)
	}
	if !st.IsDir() {
		return "", "", fmt.Errorf("%s is a file, not a directory; use read to see it", rel)
	}
	return abs, rel, nil
}

// joinRel joins a workspace-relative dir and a path relative to it.
func joinRel(dir, p string) string {
	if dir == "." || dir == "" {
		return p
	}
	return dir + "/" + p
}

func textResult(out, summary string) Result {
	return Result{Output: out, Display: out, Summary: summary}
}

// ls

type lsArgs struct {
	Path string `json:"path,omitempty" jsonschema:"directory (default: workspace root)"`
}

type lsTool struct{ base[lsArgs] }

func newLsTool() *lsTool {
	return &lsTool{newBase[lsArgs]("ls", KindRead, "List a directory; subdirectories end with /.")}
}

func (t *lsTool) Prepare(ctx context.Context, ws *Workspace, raw json.RawMessage) (*Invocation, error) {
	args, err := t.decode(raw)
	if err != nil {
		return nil, err
	}
	abs, rel, err := searchDir(ws, args.Path)
	if err != nil {
		return nil, err
	}
	return &Invocation{
		Tool: t.name, Kind: t.kind, Title: "ls " + rel, Paths: []string{rel},
		run: func(ctx context.Context, _ *Invocation) Result {
			entries, err := os.ReadDir(abs)
			if err != nil {
				return errorResult(fmt.Sprintf("ls %s: %v", rel, err))
			}
			var names []string
			for _, e := range entries {
				if e.Name() == ".git" {
					continue
				}
				name := e.Name()
				if e.IsDir() {
					name += "/"
				} else if e.Type()&os.ModeSymlink != 0 {
					if st, err := os.Stat(filepath.Join(abs, name)); err == nil && st.IsDir() {
						name += "/"
					}
				}
				names = append(names, name)
			}
			sort.Strings(names)
			total := len(names)
			if total == 0 {
				return textResult("(empty directory)", "ls "+rel+": empty")
			}
			names = names[:min(total, maxLsEntries)]
			out := strings.Join(names, "\n")
			if total > len(names) {
				out += fmt.Sprintf("\n[showing %d of %d entries; use glob to narrow down]", len(names), total)
			}
			return textResult(out, fmt.Sprintf("%d entries", total))
		},
	}, nil
}

// glob

type globArgs struct {
	Pattern string `json:"pattern" jsonschema:"glob, e.g. **/*.go"`
	Path    string `json:"path,omitempty" jsonschema:"directory to search (default: workspace root)"`
}

type globTool struct{ base[globArgs] }

func newGlobTool() *globTool {
	return &globTool{newBase[globArgs]("glob", KindSearch,
		"Find files by glob pattern (** matches any depth), relative to path. Skips .gitignored files.")}
}

func (t *globTool) Prepare(ctx context.Context, ws *Workspace, raw json.RawMessage) (*Invocation, error) {
	args, err := t.decode(raw)
	if err != nil {
		return nil, err
	}
	pattern := strings.TrimPrefix(args.Pattern, "./")
	// Models sometimes anchor the pattern at the workspace root.
	pattern = strings.TrimPrefix(pattern, ws.Root()+"/")
	if pattern == "" || !doublestar.ValidatePattern(pattern) {
		return nil, fmt.Errorf("pattern %q is not a valid glob", args.Pattern)
	}
	abs, rel, err := searchDir(ws, args.Path)
	if err != nil {
		return nil, err
	}
	return &Invocation{
		Tool: t.name, Kind: t.kind, Title: "glob " + pattern, Paths: []string{rel},
		run: func(ctx context.Context, _ *Invocation) Result {
			files, listCapped, err := ws.globCandidates(ctx, abs, pattern)
			if err != nil {
				return errorResult(fmt.Sprintf("glob: %v", err))
			}
			var matches []string
			for _, f := range files {
				if doublestar.MatchUnvalidated(pattern, f) {
					matches = append(matches, joinRel(rel, f))
				}
			}
			sort.Strings(matches)
			total := len(matches)
			if total == 0 {
				msg := "no files match"
				if !strings.Contains(pattern, "/") {
					msg += fmt.Sprintf(" (the pattern matches names in %s only; use **/%s to search subdirectories)", rel, pattern)
				}
				if listCapped {
					msg += "\n" + listCapNote(ws.listLimit())
				}
				return textResult(msg, "0 files")
			}
			matches = matches[:min(total, maxGlobResults)]
			out := strings.Join(matches, "\n")
			if total > len(matches) {
				out += fmt.Sprintf("\n[showing %d of %d matches; use a narrower pattern or path]", len(matches), total)
			}
			if listCapped {
				out += "\n" + listCapNote(ws.listLimit())
			}
			return textResult(out, fmt.Sprintf("%d files", total))
		},
	}, nil
}

// listCapNote says that a listing stopped at its limit.
func listCapNote(limit int) string {
	return fmt.Sprintf("[the listing stopped at %d files; search a subdirectory to see the rest]", limit)
}

// globCandidates lists the files under dir that may match pattern. With rg
// the listing is narrowed first: names must match the pattern's last part,
// and a pattern without ** descends only as deep as it has parts.
func (w *Workspace) globCandidates(ctx context.Context, dir, pattern string) ([]string, bool, error) {
	if rg := w.ripgrep(); rg != "" {
		name, depth := "", 0
		if !strings.Contains(pattern, "{") { // braces may hide a slash
			parts := strings.Split(pattern, "/")
			if last := parts[len(parts)-1]; !strings.Contains(last, "**") {
				name = last
			}
			if !strings.Contains(pattern, "**") {
				depth = len(parts)
			}
		} else if !strings.Contains(pattern, "/") {
			name, depth = pattern, 1
		}
		files, capped, err := rgFiles(ctx, rg, dir, name, depth, w.listLimit())
		if !errors.Is(err, errRgFailed) {
			return files, capped, err
		}
	}
	return w.listFiles(ctx, dir)
}

// grep

type grepArgs struct {
	Pattern string `json:"pattern" jsonschema:"Go regular expression"`
	Path    string `json:"path,omitempty" jsonschema:"file or directory (default: workspace root)"`
	Glob    string `json:"glob,omitempty" jsonschema:"only files matching this glob, e.g. *.go"`
}

type grepTool struct{ base[grepArgs] }

func newGrepTool() *grepTool {
	return &grepTool{newBase[grepArgs]("grep", KindSearch,
		"Search file contents with a Go regular expression ((?i) for case-insensitive). Skips .gitignored and binary files. Prints path:line:text.")}
}

func (t *grepTool) Prepare(ctx context.Context, ws *Workspace, raw json.RawMessage) (*Invocation, error) {
	args, err := t.decode(raw)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(args.Pattern)
	if err != nil {
		return nil, fmt.Errorf("pattern is not a valid Go regular expression: %v", err)
	}
	if args.Glob != "" && !doublestar.ValidatePattern(args.Glob) {
		return nil, fmt.Errorf("glob %q is not a valid glob", args.Glob)
	}
	p := args.Path
	if p == "" {
		p = "."
	}
	abs, rel, err := ws.Resolve(p)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("%s does not exist", rel)
	}
	return &Invocation{
		Tool: t.name, Kind: t.kind, Title: "grep " + args.Pattern, Paths: []string{rel},
		run: func(ctx context.Context, _ *Invocation) Result {
			if !st.IsDir() {
				return grepFiles(ctx, ws.Root(), re, []string{rel}, false, 0)
			}
			// rg reads \A and \z as the ends of its buffer, not of a line.
			if rg := ws.ripgrep(); rg != "" && !hasTextAnchor(args.Pattern) {
				r, err := rgGrep(ctx, rg, abs, rel, args.Pattern, args.Glob)
				if err == nil {
					return r
				}
				if !errors.Is(err, errRgFailed) {
					return errorResult(fmt.Sprintf("grep: %v", err))
				}
				// rg's regex engine refused a Go pattern: search ourselves.
			}
			list, capped, err := ws.listFiles(ctx, abs)
			if err != nil {
				return errorResult(fmt.Sprintf("grep: %v", err))
			}
			var files []string // workspace-relative
			for _, f := range list {
				if args.Glob != "" && !globMatch(args.Glob, f) {
					continue
				}
				files = append(files, joinRel(rel, f))
			}
			sort.Strings(files)
			return grepFiles(ctx, ws.Root(), re, files, capped, ws.listLimit())
		},
	}, nil
}

// globMatch matches a slash-free glob against the file name, others against
// the whole relative path, like ripgrep's --glob.
func globMatch(glob, rel string) bool {
	if !strings.Contains(glob, "/") {
		return doublestar.MatchUnvalidated(glob, path.Base(rel))
	}
	return doublestar.MatchUnvalidated(strings.TrimPrefix(glob, "./"), rel)
}

// grepFiles searches files (workspace-relative, in the order shown) on
// every core and prints their matches in that order, stopping soon after
// the match cap. listCapped says the file list itself was cut short.
func grepFiles(ctx context.Context, root string, re *regexp.Regexp, files []string, listCapped bool, listLimit int) Result {
	m := newGrepMatcher(re)
	var b strings.Builder
	matches, inFiles := 0, 0
	capped := false
	err := orderedEach(ctx, len(files), runtime.GOMAXPROCS(0), func() func(int) []string {
		var buf, lower []byte // each worker's own
		return func(i int) []string {
			var out []string
			buf, out = grepFile(root, files[i], m, buf, &lower)
			return out
		}
	}, func(found []string) bool {
		for i, line := range found {
			if matches == maxGrepMatches {
				capped = true
				return false
			}
			if i == 0 {
				inFiles++ // files with a match shown, as through rg
			}
			matches++
			b.WriteString(line)
			b.WriteByte('\n')
		}
		return true
	})
	if err != nil {
		return errorResult("grep canceled")
	}
	if matches == 0 {
		if listCapped {
			return textResult("no matches\n"+listCapNote(listLimit), "0 matches")
		}
		return textResult("no matches", "0 matches")
	}
	if capped {
		fmt.Fprintf(&b, "[stopped at %d matches; narrow the pattern, path or glob]\n", maxGrepMatches)
	}
	if listCapped {
		b.WriteString(listCapNote(listLimit) + "\n")
	}
	return textResult(strings.TrimSuffix(b.String(), "\n"), fmt.Sprintf("%d matches in %d files", matches, inFiles))
}

// orderedEach runs work(i) for i in [0, n) on the given number of
// workers (each makes its work function, to keep scratch buffers of its
// own) and hands the results to use in index order until use returns
// false. At most a window of results waits to be used, so memory stays
// bounded when one slow file holds up the rest.
func orderedEach[T any](ctx context.Context, n, workers int, newWork func() func(int) T, use func(T) bool) error {
	window := 256 * workers
	results := make([]T, n)
	ready := make([]bool, n)
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	waiting := -1
	slots := make(chan struct{}, window)
	quit := make(chan struct{})
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			work := newWork()
			for {
				select {
				case slots <- struct{}{}:
				case <-quit:
					return
				}
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				var r T
				if ctx.Err() == nil {
					r = work(i)
				}
				mu.Lock()
				results[i], ready[i] = r, true
				if i == waiting {
					cond.Signal()
				}
				mu.Unlock()
			}
		})
	}
	defer wg.Wait()
	defer close(quit)
	for i := range n {
		mu.Lock()
		for !ready[i] {
			waiting = i
			cond.Wait()
		}
		r := results[i]
		var zero T
		results[i] = zero
		mu.Unlock()
		<-slots
		if err := ctx.Err(); err != nil {
			return err
		}
		if !use(r) {
			return nil
		}
	}
	return ctx.Err()
}

// grepFile returns the formatted matching lines of one file (at most the
// match cap) and the read buffer to reuse. Files that are not regular,
// too large or binary are skipped.
func grepFile(root, f string, m *grepMatcher, buf []byte, lower *[]byte) ([]byte, []string) {
	data, buf := readForGrep(filepath.Join(root, filepath.FromSlash(f)), buf, maxGrepFileSize)
	if data == nil {
		return buf, nil
	}
	var out []string
	m.lines(data, lower, func(n int, line []byte) bool {
		out = append(out, fmt.Sprintf("%s:%d:%s", f, n, truncateUTF8(string(line), maxGrepLine)))
		return len(out) < maxGrepMatches
	})
	return buf, out
}

// grepPrefilter returns re in multi-line mode, where ^ and $ match at line
// boundaries: whatever matches a line of a file matches the whole file.
func grepPrefilter(re *regexp.Regexp) *regexp.Regexp {
	if hasTextAnchor(re.String()) {
		return nil // text anchors would mean the file's ends, not a line's
	}
	pre, err := regexp.Compile("(?m:" + re.String() + ")")
	if err != nil {
		return nil
	}
	return pre
}

// hasTextAnchor reports whether a pattern may use \A or \z, which match at
// the ends of a line when grep matches line by line.
func hasTextAnchor(pattern string) bool {
	return strings.Contains(pattern, `\A`) || strings.Contains(pattern, `\z`)
}
