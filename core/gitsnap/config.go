package gitsnap

import (
	"os"
	"path/filepath"
	"strings"
)

// configInfo is what a session keeps of the git configuration: the files
// it was read from, so that the driver guard is recomputed only when one
// of them changes, and the settings that decide whether objects may be
// written in-process.
type configInfo struct {
	// files are every configuration file that contributed a setting and
	// every one git would read or include if it appeared.
	files []string
	// uncacheable: a setting came from somewhere no file stamp covers
	// (a blob, standard input) or could not be placed: read the
	// configuration again for every operation.
	uncacheable bool
	// includeIf: an includeIf condition may depend on HEAD (onbranch).
	includeIf bool
	// shared is core.sharedRepository: objects need group permissions,
	// which only git itself writes right.
	shared bool
}

// note records one setting of `git config --show-origin --list`, run in
// dir.
func (c *configInfo) note(dir, origin, key, value string) {
	var file string
	switch {
	case strings.HasPrefix(origin, "file:"):
		file = strings.TrimPrefix(origin, "file:")
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		c.files = append(c.files, file)
	case origin == "command line:":
	default:
		c.uncacheable = true
	}
	lk := strings.ToLower(key)
	switch {
	case lk == "core.sharedrepository":
		v := strings.ToLower(value)
		c.shared = !(v == "" || v == "false" || v == "umask" || v == "0" || v == "off" || v == "no")
	case lk == "include.path" || strings.HasPrefix(lk, "includeif.") && strings.HasSuffix(lk, ".path"):
		if strings.HasPrefix(lk, "includeif.") {
			c.includeIf = true
		}
		switch {
		case strings.HasPrefix(value, "~/"):
			home, err := os.UserHomeDir()
			if err != nil {
				c.uncacheable = true
				return
			}
			value = filepath.Join(home, value[2:])
		case filepath.IsAbs(value):
		case file != "":
			value = filepath.Join(filepath.Dir(file), value)
		default:
			c.uncacheable = true
			return
		}
		c.files = append(c.files, value)
	}
}

// fileSig tells whether a file changed: absent, or its size, times and
// inode.
type fileSig struct {
	exists       bool
	size         int64
	mtime, ctime int64
	ino          uint64
}

func statSig(p string) fileSig {
	fi, err := os.Stat(p)
	if err != nil {
		return fileSig{}
	}
	s := fileSig{exists: true, size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	s.ino, s.ctime = inodeCtime(fi)
	return s
}

// configStamp is the state of every file the configuration (and so the
// driver guard) depends on.
type configStamp struct {
	files []string
	sigs  []fileSig
	// rootGit is the root's .git, and whether it existed.
	rootGit       string
	rootGitExists bool
}

// stampFor lists the files r's configuration depends on — those it was
// read from, the standard ones git reads when they exist, includes, and
// the root's own .git — and their state now. ok is false when the
// configuration cannot be kept.
func stampFor(r *repo) (configStamp, bool) {
	if r.cfg.uncacheable {
		return configStamp{}, false
	}
	files := append([]string(nil), r.cfg.files...)
	files = append(files,
		filepath.Join(r.facts.commonDir, "config"),
		filepath.Join(r.facts.gitDir, "config.worktree"),
		"/etc/gitconfig",
	)
	if r.cfg.includeIf {
		files = append(files, filepath.Join(r.facts.gitDir, "HEAD"))
	}
	for _, k := range []string{"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"} {
		if v := os.Getenv(k); v != "" {
			files = append(files, v)
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		files = append(files, filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git", "config"))
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		files = append(files, filepath.Join(x, "git", "config"))
	}
	st := configStamp{files: files, sigs: make([]fileSig, len(files))}
	for i, f := range files {
		st.sigs[i] = statSig(f)
	}
	// A repository that appears at the root (git init there) is another
	// repository; its directory's times change with every git call.
	st.rootGit = filepath.Join(r.root, ".git")
	_, err := os.Lstat(st.rootGit)
	st.rootGitExists = err == nil
	return st, true
}

// fresh reports whether no file of the stamp changed since.
func (st configStamp) fresh() bool {
	if len(st.files) == 0 {
		return false
	}
	if _, err := os.Lstat(st.rootGit); (err == nil) != st.rootGitExists {
		return false
	}
	for i, f := range st.files {
		if statSig(f) != st.sigs[i] {
			return false
		}
	}
	return true
}
