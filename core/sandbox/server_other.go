//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"os"
)

// Server: a fork server exists on Linux only; elsewhere commands are
// wrapped one by one.
type Server struct{}

// Serve: none here.
func (b *Box) Serve(Policy) (*Server, error) { return nil, errors.New("no sandbox server here") }

// Open probes what confines commands here; there is no fork server.
func Open(ctx context.Context, launcher string, _ Policy) (*Box, *Server) {
	return New(ctx, launcher), nil
}

// Spawn: never called without a server.
func (s *Server) Spawn(string, []string, []string, string, [3]*os.File) (*os.Process, error) {
	return nil, errors.New("no sandbox server here")
}

// Close: nothing to close.
func (s *Server) Close() {}
