// Package cpuprio lowers the host's CPU priority below the editor's, so
// that the agent's own work (a stream decoded as fast as it arrives, a test
// run after an edit) waits for a busy machine's cores instead of the
// editor waiting for them.
package cpuprio

// MaxNice is the lowest priority a process can take.
const MaxNice = 19
