// Package platform says what this build of the host does otherwise on its
// operating system than on Linux, for :checkhealth coder; the README's
// Platforms table says the same. The mechanisms themselves live where they
// are used, in build-tagged files (core/proc, core/atomicfile, core/store,
// core/cpuprio, core/tools, core/gitsnap).
package platform

import "runtime"

// Name is the build's target, as GOOS/GOARCH.
func Name() string { return runtime.GOOS + "/" + runtime.GOARCH }

// Differences lists what works otherwise here than on Linux, or not at
// all; none on Linux.
func Differences() []string { return differences() }

// untested is said of every platform the project's own runs only
// cross-compile and vet.
const untested = "built and vetted by cross-compiling on every change; the test suite runs on Linux only"

// unixWatcher: the BSDs and macOS have no parent-death signal in Go.
const unixWatcher = "a command's processes are killed with the host, however it dies, by the per-session group watcher alone (Linux's kernel also kills an unsandboxed shell itself)"
