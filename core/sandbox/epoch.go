package sandbox

import (
	"errors"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// placeholder is what takes a missing protected path's place, so that a
// mount guards it.
type placeholder int

const (
	noPlaceholder        placeholder = iota // none: a missing one is not guarded
	dirPlaceholder                          // an empty directory
	filePlaceholder                         // an empty file (a config git reads as no settings)
	commondirPlaceholder                    // a commondir naming its own directory, which git reads as none
)

func (k placeholder) make(p string) error {
	switch k {
	case dirPlaceholder:
		return os.MkdirAll(p, 0o755)
	case filePlaceholder, commondirPlaceholder:
		content := []byte(nil)
		if k == commondirPlaceholder {
			content = []byte(".\n")
		}
		return createWhole(p, content)
	}
	return os.ErrNotExist
}

// createWhole makes the file p holding content, failing when p exists.
// The file appears whole: git reading an empty commondir (made, not yet
// written) fails with "failed to read .git/commondir", so content is
// written beside it and linked into place, which is atomic and exclusive.
func createWhole(p string, content []byte) error {
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".coder-placeholder-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = f.Write(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err != nil {
		return err
	}
	if err = os.Link(tmp, p); err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	// A file system without hard links: made, then written.
	f, err = os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// protectMade protects p, made as kind says when missing inside a
// writable root; one that cannot be made is Unguarded.
func (g *Guard) protectMade(p string, kind placeholder) {
	if _, err := os.Lstat(p); err != nil {
		if !g.writable(p) {
			return // Landlock refuses it anyway
		}
		if kind.make(p) != nil {
			g.Unguarded = append(g.Unguarded, p)
			return
		}
	}
	g.protect(p)
	if g.made == nil {
		g.made = map[string]placeholder{}
	}
	g.made[realPath(p)] = kind
}

// epoch names the guarded paths' identities (inodes) as the host sees
// them now, making missing placeholders again first. A path replaced or
// removed on the host (git config renames a new .git/config into place)
// takes the mount of it with it in a fork server's namespace: a new
// epoch means a new policy, and so a new server with fresh mounts.
func (g *Guard) epoch() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	h := fnv.New64a()
	for _, list := range [][]string{g.Protected, g.Pinned, g.Reopened} {
		for _, p := range list {
			fi, err := os.Lstat(p)
			if err != nil && g.made[p].make(p) == nil {
				fi, err = os.Lstat(p)
			}
			var ino uint64
			if err == nil {
				ino, _ = changeStamp(fi)
			}
			h.Write([]byte(p + "\x00" + strconv.FormatUint(ino, 10) + "\x00"))
		}
	}
	return strconv.FormatUint(h.Sum64(), 16)
}
