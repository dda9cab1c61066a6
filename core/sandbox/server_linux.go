package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Server is a fork server confined by one policy (`sandbox-exec --serve`):
// started once, it starts each shell as the host's own child, so a
// confined shell costs about what an unconfined one does.
type Server struct {
	mu     sync.Mutex
	sock   int // the host's end of a SOCK_SEQPACKET pair
	exited chan struct{}
	stderr *bytes.Buffer
	closed bool
}

// Serve starts a fork server for p; an error means commands are wrapped
// one by one instead (Wrap).
func (b *Box) Serve(p Policy) (*Server, error) {
	if b == nil || !b.support.Any() {
		return nil, errors.New("no sandbox here")
	}
	req, err := encodeRequest(request{Policy: p, Use: b.support})
	if err != nil {
		return nil, err
	}
	return startServer(b.launcher, "--serve", req, b.userns)
}

// Open probes what confines commands here and starts the fork server for
// p in the same launcher start: a session's first sandbox costs one
// process start, not a probe's two plus the server's. Where that fails
// (the kernel refuses user namespaces, or the test switch says so) it
// probes as New does, and the server is nil: Serve starts one on first
// use.
func Open(ctx context.Context, launcher string, p Policy) (*Box, *Server) {
	if os.Getenv(NoUsernsEnv) == "" {
		if b, srv, err := openServing(ctx, launcher, p); err == nil {
			return b, srv
		}
	}
	return New(ctx, launcher), nil
}

// openServing starts `sandbox-exec --probe-serve` in namespaces of its
// own and reads the Support it found, its first message; it then serves
// confined by what works.
func openServing(ctx context.Context, launcher string, p Policy) (*Box, *Server, error) {
	req, err := encodeRequest(request{Policy: p})
	if err != nil {
		return nil, nil, err
	}
	srv, err := startServer(launcher, "--probe-serve", req, true)
	if err != nil {
		return nil, nil, err
	}
	sup, err := srv.readSupport(ctx)
	if err != nil {
		srv.Close()
		return nil, nil, err
	}
	return &Box{launcher: launcher, support: sup, userns: sup.Protect}, srv, nil
}

// readSupport reads the probe's answer, waiting at most 10 s or until
// ctx ends.
func (s *Server) readSupport(ctx context.Context) (Support, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		if ctx.Err() != nil {
			return Support{}, ctx.Err()
		}
		wait := time.Until(deadline)
		if wait <= 0 {
			return Support{}, errors.New("sandbox server: no probe answer in 10 s")
		}
		fds := []unix.PollFd{{Fd: int32(s.sock), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(min(wait, 100*time.Millisecond)/time.Millisecond)+1)
		if errors.Is(err, unix.EINTR) || (err == nil && n == 0) {
			continue
		}
		if err != nil {
			return Support{}, s.failed(err)
		}
		break
	}
	buf := make([]byte, 64<<10)
	n, err := unix.Read(s.sock, buf)
	if err != nil || n == 0 {
		return Support{}, s.failed(err)
	}
	var sup Support
	if err := json.Unmarshal(buf[:n], &sup); err != nil {
		return Support{}, fmt.Errorf("sandbox server: probe answer: %w", err)
	}
	return sup, nil
}

// startServer starts the launcher as a fork server (`sandbox-exec MODE
// REQUEST`), its socket on fd 3.
func startServer(launcher, mode, req string, userns bool) (*Server, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox server: %w", err)
	}
	child := os.NewFile(uintptr(fds[1]), "sandbox-server")
	s := &Server{sock: fds[0], exited: make(chan struct{}), stderr: &bytes.Buffer{}}
	cmd := exec.Command(launcher, Subcommand, mode, req)
	// A neutral working directory: the host's may lie in what the
	// isolation replaces (a workspace under /tmp), where the server,
	// once its mounts stand, could no longer be; each shell gets its own.
	cmd.Dir = "/"
	cmd.ExtraFiles = []*os.File{child} // fd 3
	cmd.Stderr = s.stderr
	if userns {
		setNamespaces(cmd)
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// Its own group (a command killing its group must not end it), and
	// killed with the host.
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	started := make(chan error, 1)
	go func() {
		// The death signal and the shells' parent are this thread: it
		// stays until the server is gone.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		cmd.Wait() //nolint:errcheck // it ends when the host closes the socket
		close(s.exited)
	}()
	err = <-started
	child.Close()
	if err != nil {
		unix.Close(s.sock)
		return nil, fmt.Errorf("sandbox server: %w", err)
	}
	return s, nil
}

// Spawn starts path with args, env and dir, its stdout, stderr and fd 3
// being files, stdin /dev/null, in a process group of its own; the
// process is the host's child.
func (s *Server) Spawn(path string, args, env []string, dir string, files [3]*os.File) (*os.Process, error) {
	data, err := json.Marshal(spawnRequest{Path: path, Args: args, Dir: dir, Env: env})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("the sandbox server is closed")
	}
	rights := unix.UnixRights(int(files[0].Fd()), int(files[1].Fd()), int(files[2].Fd()))
	if err := unix.Sendmsg(s.sock, data, rights, nil, 0); err != nil {
		return nil, s.failed(err)
	}
	buf := make([]byte, 4096)
	n, err := unix.Read(s.sock, buf)
	for errors.Is(err, unix.EINTR) {
		n, err = unix.Read(s.sock, buf)
	}
	if err != nil || n == 0 {
		return nil, s.failed(err)
	}
	var r spawnReply
	if err := json.Unmarshal(buf[:n], &r); err != nil {
		return nil, fmt.Errorf("sandbox server: %w", err)
	}
	if r.Error != "" {
		return nil, fmt.Errorf("sandbox server: %s", r.Error)
	}
	return os.FindProcess(r.PID)
}

// failed reports a server that stopped answering, with what it said.
func (s *Server) failed(err error) error {
	if err == nil {
		err = errors.New("it ended")
	}
	select {
	case <-s.exited: // its stderr is whole, and no longer written
		return fmt.Errorf("sandbox server: %w %s", err, bytes.TrimSpace(s.stderr.Bytes()))
	default:
		return fmt.Errorf("sandbox server: %w", err)
	}
}

// Close ends the server once it has answered what it was asked.
func (s *Server) Close() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		unix.Close(s.sock)
	}
	s.mu.Unlock()
	<-s.exited
}
