package tools

import (
	"sync"

	"github.com/coder-nvim/coder-nvim/core/sandbox"
)

// serverSet holds the sandbox's fork servers of a Shells, one per
// confinement, started on first use and closed with the Shells. A server
// that cannot start, or stops answering, is not asked again: its calls
// then start through the launcher, one by one, confined the same.
type serverSet struct {
	mu      sync.Mutex
	servers map[string]*sandbox.Server
	failed  map[string]bool
	closed  bool
}

// server is the fork server for c, nil for an unconfined call or where
// there is none.
func (c confinement) server() *sandbox.Server {
	if c.key == "" || c.servers == nil {
		return nil
	}
	return c.servers.get(c.key, c.box, *c.policy)
}

func (ss *serverSet) get(key string, box *sandbox.Box, p sandbox.Policy) *sandbox.Server {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed || ss.failed[key] {
		return nil
	}
	if srv := ss.servers[key]; srv != nil {
		return srv
	}
	srv, err := box.Serve(p)
	if err != nil {
		if ss.failed == nil {
			ss.failed = map[string]bool{}
		}
		ss.failed[key] = true
		return nil
	}
	if ss.servers == nil {
		ss.servers = map[string]*sandbox.Server{}
	}
	ss.servers[key] = srv
	return srv
}

// add takes srv as key's server; false when the set is closed or has one.
func (ss *serverSet) add(key string, srv *sandbox.Server) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed || key == "" || ss.servers[key] != nil {
		return false
	}
	if ss.servers == nil {
		ss.servers = map[string]*sandbox.Server{}
	}
	ss.servers[key] = srv
	return true
}

// close ends every server.
func (ss *serverSet) close() {
	ss.mu.Lock()
	servers := ss.servers
	ss.servers, ss.closed = nil, true
	ss.mu.Unlock()
	for _, srv := range servers {
		srv.Close()
	}
}

// drop forgets srv, which failed, and asks no server for key again.
func (ss *serverSet) drop(key string, srv *sandbox.Server) {
	ss.mu.Lock()
	if ss.servers[key] == srv {
		delete(ss.servers, key)
	}
	if ss.failed == nil {
		ss.failed = map[string]bool{}
	}
	ss.failed[key] = true
	ss.mu.Unlock()
	go srv.Close()
}
