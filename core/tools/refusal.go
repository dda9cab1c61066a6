package tools

import (
	"strings"

	"github.com/coder-nvim/coder-nvim/core/sandbox"
)

// blocksNetwork reports whether a command confined by p has no network:
// p refuses it and this kernel's sandbox enforces that.
func (s *Shells) blocksNetwork(p *sandbox.Policy) bool {
	if p == nil || p.Network {
		return false
	}
	s.mu.Lock()
	box := s.box
	s.mu.Unlock()
	return box.Support().Network
}

// SandboxNetworkRefusal follows the output of a confined command without
// network whose failure reads as a refused connection or name lookup: the
// sandbox refuses socket(2) for every family but Unix (EPERM), which
// programs report as a failed connect or a failed lookup, never naming
// the sandbox.
const SandboxNetworkRefusal = "[SandboxError: the sandbox has no network: this command's connection or name lookup was most likely refused by it, not by the server. If the command needs the network, call bash again with outside_sandbox: true; the user will be asked.]"

// networkFailures are how programs report a socket(2) the sandbox refused,
// lower case: curl (7 and 6), Go's dialer and resolver, Python, glibc's
// resolver, wget, ssh, git, npm and pip.
var networkFailures = []string{
	"couldn't connect to server", "failed to connect to", "could not resolve host",
	"socket: operation not permitted", "dial tcp", "dial udp", "no such host",
	"temporary failure in name resolution", "name or service not known",
	"network is unreachable", "could not resolve hostname", "unable to resolve host",
	"getaddrinfo", "eai_again", "enotfound", "failed to establish a new connection",
	"unable to connect to", "connection refused",
}

// networkRefused reports whether a command that ran without network
// failed the way a refused socket does.
func networkRefused(r ShellResult) bool {
	if r.ExitCode == 0 || r.TimedOut || r.Canceled {
		return false
	}
	out := strings.ToLower(r.Output())
	for _, s := range networkFailures {
		if strings.Contains(out, s) {
			return true
		}
	}
	// EPERM where a socket was opened (Python's "[Errno 1] Operation not
	// permitted" under socket(...) or urlopen).
	return strings.Contains(out, "operation not permitted") && (strings.Contains(out, "socket") || strings.Contains(out, "connect"))
}
