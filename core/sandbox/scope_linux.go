package sandbox

import "golang.org/x/sys/unix"

// landlockScopes is the ruleset's scoped field at Landlock ABI abi, and
// the size of the ruleset attribute that carries it: from ABI 6 a
// confined process can neither signal a process outside its Landlock
// domain nor connect to an abstract Unix socket bound outside it (Neovim
// started with --listen @name, D-Bus's abstract addresses, X11). An older
// kernel takes the filesystem field alone.
func landlockScopes(abi int) (scoped uint64, attrSize uintptr) {
	if abi < 6 {
		return 0, 8
	}
	return unix.LANDLOCK_SCOPE_SIGNAL | unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET, 24
}
