package mention

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/coder-nvim/coder-nvim/core/tools"
)

// Index keeps the workspace's file listing for `@` completion: listed once
// (rg --files when rg is on PATH), matched in memory on every keystroke,
// listed again in the background when older than TTL.
type Index struct {
	WS  *tools.Workspace
	TTL time.Duration // 0: 30 s

	mu      sync.Mutex
	paths   []string // files, then directories with a trailing "/"
	at      time.Time
	loading chan struct{} // closed when the running listing ends
	err     error
}

// Warm starts listing in the background if no listing is held.
func (x *Index) Warm() {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.paths == nil {
		x.refreshLocked()
	}
}

// refreshLocked starts a listing unless one runs; x.mu is held.
func (x *Index) refreshLocked() chan struct{} {
	if x.loading != nil {
		return x.loading
	}
	done := make(chan struct{})
	x.loading = done
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		files, _, err := x.WS.ListFiles(ctx, x.WS.Root())
		paths := withDirs(files)
		x.mu.Lock()
		defer x.mu.Unlock()
		x.loading = nil
		x.err = err
		if err == nil {
			x.paths, x.at = paths, time.Now()
		}
	}()
	return done
}

// withDirs adds each file's directories ("src/", "src/x/") after the files.
func withDirs(files []string) []string {
	dirs := map[string]bool{}
	for _, f := range files {
		for i := 0; i < len(f); i++ {
			if f[i] == '/' {
				dirs[f[:i+1]] = true
			}
		}
	}
	list := make([]string, 0, len(dirs))
	for d := range dirs {
		list = append(list, d)
	}
	sort.Strings(list)
	return append(append(make([]string, 0, len(files)+len(list)), files...), list...)
}

// Match returns at most limit paths matching query (Match). With no
// listing yet it waits for the first one until ctx ends; ready is false
// when it had none to match against.
func (x *Index) Match(ctx context.Context, query string, limit int) (paths []string, ready bool, err error) {
	x.mu.Lock()
	ttl := x.TTL
	if ttl == 0 {
		ttl = 30 * time.Second
	}
	if x.paths == nil {
		done := x.refreshLocked()
		x.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return nil, false, nil
		}
		x.mu.Lock()
	} else if time.Since(x.at) > ttl {
		x.refreshLocked()
	}
	all, err := x.paths, x.err
	x.mu.Unlock()
	if all == nil {
		return nil, false, err
	}
	return Match(all, query, limit), true, nil
}
