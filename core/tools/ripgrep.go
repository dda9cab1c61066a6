package tools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/proc"
)

// ripgrep runs rg with the built-in search's rules: .gitignore honoured in
// and outside git repositories, hidden files searched, .git never entered,
// symlinks not followed, $ matching before \r\n as before \n,
// ~/.ripgreprc and .ignore/.rgignore files ignored so
// that what a search finds does not depend on the user's rg set-up.
//
// A difference that remains: a file that is tracked although a .gitignore
// matches it is listed by git but not by rg.
var rgBaseArgs = []string{
	"--no-config", "--no-messages", "--hidden", "--no-ignore-dot", "--no-require-git",
	"--glob", "!.git", "--crlf",
}

// maxRgOutput bounds what is read from rg before it is stopped: enough for
// every realistic search, small enough that a pathological pattern on a
// huge tree cannot exhaust memory.
const maxRgOutput = 32 << 20

// errRgFailed means rg could not run the search (bad regex for rg's
// engine, crash): the caller falls back to the built-in search.
var errRgFailed = errors.New("ripgrep failed")

// rgRun runs rg in dir and calls line for every output line (without the
// newline) until it returns false or the output cap is hit; capped reports
// the cap. Exit status 1 (nothing found) is success.
func rgRun(parent context.Context, rg, dir string, args []string, line func([]byte) bool) (capped bool, err error) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	cmd := exec.CommandContext(ctx, rg, append(append([]string{}, rgBaseArgs...), args...)...)
	cmd.Dir = dir
	cmd.Stderr = io.Discard
	out, err := cmd.StdoutPipe()
	if err != nil {
		return false, fmt.Errorf("%w: %v", errRgFailed, err)
	}
	if err := cmd.Start(); err != nil {
		return false, fmt.Errorf("%w: %v", errRgFailed, err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 0, 64<<10), maxRgOutput)
	read, stopped := 0, false
	for sc.Scan() {
		b := sc.Bytes()
		read += len(b) + 1
		if read > maxRgOutput {
			capped = true
			break
		}
		if !line(b) {
			stopped = true
			break
		}
	}
	if sc.Err() != nil {
		capped = true // a single line longer than the cap
	}
	if capped || stopped {
		cancel()
		io.Copy(io.Discard, out)
		proc.Wait(cmd) //nolint:errcheck // stopped early: its status says nothing
		return capped, parent.Err()
	}
	err = proc.Wait(cmd)
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return false, nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, fmt.Errorf("%w: %v", errRgFailed, err)
	}
	return false, nil
}

// rgNameFilter returns rg arguments that keep only files whose name
// matches the slash-free glob. rg's --glob would also bring back files the
// .gitignore excludes; a file type does not.
func rgNameFilter(glob string) []string {
	return []string{"--type-add", "codernvimsel:" + glob, "--type", "codernvimsel"}
}

// rgFiles lists the regular files under dir as slash paths relative to it.
// name, when set, is a slash-free glob that file names must match;
// maxDepth > 0 limits how deep rg descends.
func rgFiles(ctx context.Context, rg, dir, name string, maxDepth, limit int) (files []string, capped bool, err error) {
	capped, err = rgRun(ctx, rg, dir, rgFilesArgs(name, maxDepth), func(b []byte) bool {
		if len(files) >= limit {
			return false
		}
		files = append(files, filepath.ToSlash(strings.TrimPrefix(string(b), "./")))
		return true
	})
	return files, capped || len(files) >= limit, err
}

// rgFilesArgs are rgFiles' arguments after rgBaseArgs.
func rgFilesArgs(name string, maxDepth int) []string {
	args := []string{"--files"}
	if name != "" {
		args = append(args, rgNameFilter(name)...)
	}
	if maxDepth > 0 {
		args = append(args, "--max-depth", strconv.Itoa(maxDepth))
	}
	return args
}

// rgGrepArgs are rgGrep's arguments after rgBaseArgs. The size limit of
// the built-in search is not passed as --max-filesize: that costs a stat
// of every file (a quarter of rg's CPU time on 40,000 files); rgGrep
// drops the matches of files over the limit instead, with one stat per
// file that matched.
func rgGrepArgs(pattern, glob string) []string {
	args := []string{"--line-number", "--with-filename", "--no-heading", "--color", "never",
		"--null", "--regexp", pattern}
	if glob != "" && !strings.Contains(glob, "/") {
		args = append(args, rgNameFilter(glob)...)
	}
	return args
}

// rgGrep searches dir (workspace-relative rel) with rg and formats the
// result like grepFiles: path order, at most maxGrepMatches lines. glob
// selects files as globMatch does.
func rgGrep(ctx context.Context, rg, dir, rel, pattern, glob string) (Result, error) {
	args := rgGrepArgs(pattern, glob)
	type hit struct {
		file string
		line int
		text string
	}
	var hits []hit
	const keep = 20 * maxGrepMatches // more than enough to pick the first in path order
	total := 0
	tooLarge := lastFileSize(dir)
	capped, err := rgRun(ctx, rg, dir, args, func(b []byte) bool {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			return true
		}
		j := bytes.IndexByte(b[i+1:], ':')
		if j < 0 {
			return true
		}
		n, err := strconv.Atoi(string(b[i+1 : i+1+j]))
		if err != nil {
			return true
		}
		f := filepath.ToSlash(strings.TrimPrefix(string(b[:i]), "./"))
		if glob != "" && strings.Contains(glob, "/") && !globMatch(glob, f) || tooLarge(string(b[:i])) {
			return true
		}
		total++
		file := joinRel(rel, f)
		text := strings.TrimRight(string(b[i+2+j:]), "\r")
		hits = append(hits, hit{file, n, truncateUTF8(text, maxGrepLine)})
		if len(hits) >= 2*keep {
			// Keep memory bounded: only the first matches in path order
			// can be shown.
			sort.SliceStable(hits, func(a, b int) bool { return hits[a].file < hits[b].file })
			hits = hits[:keep]
		}
		return true
	})
	if err != nil {
		return Result{}, err
	}
	if total == 0 && !capped {
		return textResult("no matches", "0 matches"), nil
	}
	// rg prints each file's matches together and in line order; sorting by
	// path alone keeps that order.
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].file < hits[b].file })
	var b strings.Builder
	files := map[string]bool{}
	for _, h := range hits[:min(len(hits), maxGrepMatches)] {
		files[h.file] = true
		fmt.Fprintf(&b, "%s:%d:%s\n", h.file, h.line, h.text)
	}
	switch {
	case capped:
		fmt.Fprintf(&b, "[stopped after %d MB of matches; narrow the pattern, path or glob]\n", maxRgOutput>>20)
	case total > maxGrepMatches:
		fmt.Fprintf(&b, "[stopped at %d matches of %d; narrow the pattern, path or glob]\n", maxGrepMatches, total)
	}
	shown := min(total, maxGrepMatches)
	return textResult(strings.TrimSuffix(b.String(), "\n"), fmt.Sprintf("%d matches in %d files", shown, len(files))), nil
}

// lastFileSize returns a function that reports whether a file rg printed
// (relative to dir) is larger than the built-in search reads
// (maxGrepFileSize), or gone. rg prints each file's matches together, so
// one stat per file is enough: the answer for the last file is kept.
func lastFileSize(dir string) func(name string) bool {
	last, large := "", false
	return func(name string) bool {
		if name != last {
			st, err := os.Lstat(filepath.Join(dir, name))
			last, large = name, err != nil || st.Size() > maxGrepFileSize
		}
		return large
	}
}
