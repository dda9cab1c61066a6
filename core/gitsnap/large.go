package gitsnap

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// largeFile is an untracked file a snapshot left out for its size. Size
// and modification time tell whether two snapshots saw the same file.
type largeFile struct {
	path  string // relative to the root, slash-separated
	size  int64
	mtime int64 // Unix nanoseconds
}

// largeTag starts each line of a snapshot message that names a large file.
const largeTag = "coder-nvim-large: "

// largeUntracked lists the untracked, not ignored files under the root
// larger than maxSize bytes (none when maxSize is 0).
func (r *repo) largeUntracked(ctx context.Context, o runOpts, maxSize int64) ([]largeFile, error) {
	if maxSize <= 0 {
		return nil, nil
	}
	args := append([]string{"ls-files", "-z", "--others", "--exclude-standard", "--", "."}, excluded...)
	out, err := r.git(ctx, o, args...)
	if err != nil {
		return nil, err
	}
	var large []largeFile
	for _, p := range splitZ(out) {
		if strings.HasSuffix(p, "/") {
			continue // a nested repository
		}
		fi, err := os.Lstat(filepath.Join(r.root, filepath.FromSlash(p)))
		if err != nil || !fi.Mode().IsRegular() || fi.Size() <= maxSize {
			continue // gone since, or git add decides
		}
		large = append(large, largeFile{path: p, size: fi.Size(), mtime: fi.ModTime().UnixNano()})
	}
	return large, nil
}

// formatLarge renders large files for a snapshot's message.
func formatLarge(large []largeFile) string {
	if len(large) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\n")
	for _, l := range large {
		fmt.Fprintf(&b, "%s%d %d %s\n", largeTag, l.size, l.mtime, strconv.Quote(l.path))
	}
	return b.String()
}

// largeFiles reads the large files a snapshot left out, by path.
func (r *repo) largeFiles(ctx context.Context, id string) (map[string]largeFile, error) {
	out, err := r.git(ctx, runOpts{}, "cat-file", "commit", id)
	if err != nil {
		return nil, err
	}
	m := map[string]largeFile{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), largeTag)
		if !ok {
			continue
		}
		var l largeFile
		var quoted string
		if n, _ := fmt.Sscanf(rest, "%d %d", &l.size, &l.mtime); n != 2 {
			continue
		}
		if i := strings.IndexByte(rest, '"'); i >= 0 {
			quoted = rest[i:]
		}
		p, err := strconv.Unquote(quoted)
		if err != nil {
			continue
		}
		l.path = p
		m[p] = l
	}
	return m, sc.Err()
}

// largeChanged lists the large files that differ between the large lists
// of two snapshots: present in one only, or with another size or time.
func largeChanged(a, b map[string]largeFile) []string {
	var out []string
	for p, la := range a {
		if lb, ok := b[p]; !ok || lb != la {
			out = append(out, p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			out = append(out, p)
		}
	}
	return out
}

// dropTracked removes from the temporary index whatever it tracks under
// rel.
func (r *repo) dropTracked(ctx context.Context, o runOpts, rel string) error {
	lo := o
	lo.dir = r.top
	out, err := r.git(ctx, o, "ls-files", "-z", "--full-name", "--", rel)
	if err != nil || len(out) == 0 {
		return err
	}
	lo.stdin = strings.NewReader(string(out))
	_, err = r.git(ctx, lo, "update-index", "--force-remove", "-z", "--stdin")
	return err
}
