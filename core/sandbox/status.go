package sandbox

import "strings"

// Notice is what a session says once as it starts, "" when there is
// nothing to say: what confines commands and, for each mechanism
// missing, what is then not enforced; when the sandbox is not Full, that
// commands are asked as without it.
func (s Support) Notice() string {
	switch {
	case !s.Full():
		return "sandbox: " + s.String() + "; commands are asked as without it"
	case len(s.Missing) > 0:
		return "sandbox: " + s.String()
	}
	return ""
}

// WritesLine is the status's part on writes under p: the writable roots
// when Landlock confines writes, else that it does not.
func (s Support) WritesLine(p Policy) string {
	if !s.Filesystem {
		return "; writes: not confined (no Landlock)"
	}
	return "; writable: " + strings.Join(p.Writable, ", ")
}

// NetworkLine is the status's part on the network when it is on (p
// allows it) or not confined (no seccomp).
func (s Support) NetworkLine(p Policy) string {
	if p.Network {
		return "; network on"
	}
	return "; network: not confined (no seccomp)"
}
