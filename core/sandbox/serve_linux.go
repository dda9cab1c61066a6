package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// serverFD is the fork server's socket: fd 3, as the host passes it.
const serverFD = 3

// spawnRequest asks the fork server to start one program; the program's
// stdout, stderr and fd 3 come with it as SCM_RIGHTS, in that order.
type spawnRequest struct {
	Path string   `json:"path"`
	Args []string `json:"args"`
	Dir  string   `json:"dir"`
	Env  []string `json:"env"`
}

type spawnReply struct {
	PID   int    `json:"pid"`
	Error string `json:"error,omitempty"`
}

// serve is the launcher as a fork server, `sandbox-exec --serve REQUEST`:
// it confines itself once, then starts each program the host asks for in
// a session and PID namespace of its own, as the host's child (CLONE_PARENT), with
// what it has — so that a confined shell costs a fork and an exec, not a
// launcher's start, namespaces and mounts each time. It ends when the
// host closes the socket. With probeFirst (`--probe-serve`) it first
// probes, sends the Support found as its first message and confines
// itself by what works: one process start for the probe and the server.
func serve(reqText string, probeFirst bool) int {
	req, err := decodeRequest(reqText)
	if err == nil && probeFirst {
		req.Use = probeAll(true)
		data, _ := json.Marshal(req.Use)
		_, err = unix.Write(serverFD, data)
	}
	if err == nil {
		err = confine(req)
	}
	if err == nil {
		err = serverCaps(req.Use.PID)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "coder-nvim sandbox server: %v\n", err)
		return exitSetup
	}
	devnull, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		fmt.Fprintf(os.Stderr, "coder-nvim sandbox server: %v\n", err)
		return exitSetup
	}
	buf := make([]byte, 1<<20)
	oob := make([]byte, unix.CmsgSpace(3*4))
	for {
		n, oobn, _, _, err := unix.Recvmsg(serverFD, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			return 0
		}
		fds := rightsOf(oob[:oobn])
		pid, err := spawn(buf[:n], fds, devnull, req)
		for _, fd := range fds {
			unix.Close(fd)
		}
		reply := spawnReply{PID: pid}
		if err != nil {
			reply.Error = err.Error()
		}
		data, _ := json.Marshal(reply)
		if _, err := unix.Write(serverFD, data); err != nil {
			return 0
		}
	}
}

// spawn starts the program data asks for, on this (confined) thread. No
// parent-death signal: the child's parent is the host, which the kernel's
// check in the child would take for a parent that died; the host's group
// watcher kills it with the host.
func spawn(data []byte, fds []int, devnull int, req request) (int, error) {
	var r spawnRequest
	if err := json.Unmarshal(data, &r); err != nil {
		return 0, fmt.Errorf("spawn request: %w", err)
	}
	if len(fds) != 3 || len(r.Args) == 0 {
		return 0, errors.New("spawn request: want a program and three files")
	}
	return syscall.ForkExec(r.Path, r.Args, &syscall.ProcAttr{
		Dir:   r.Dir,
		Env:   withEnv(ScrubEnv(r.Env, req.EnvKeep, req.EnvDrop), req.Env),
		Files: []uintptr{uintptr(devnull), uintptr(fds[0]), uintptr(fds[1]), uintptr(fds[2])},
		Sys:   spawnAttr(req.Use.PID),
	})
}

// rightsOf is the file descriptors of SCM_RIGHTS messages in oob.
func rightsOf(oob []byte) []int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		if got, err := unix.ParseUnixRights(&m); err == nil {
			fds = append(fds, got...)
		}
	}
	return fds
}
