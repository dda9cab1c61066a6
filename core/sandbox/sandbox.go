// Package sandbox confines the commands the agent runs with the kernel's
// own mechanisms, so that what a command may touch does not rest on
// predicting what it will do. On Linux the host re-executes itself as the
// launcher (`coder-nvim sandbox-exec`, or the small coder-nvim-sandbox),
// which confines itself and then execs the command or, as a fork server
// (Server), starts each command as the host's own child: Landlock makes
// everything but the writable roots read-only, read-only bind mounts in a
// user and mount namespace of its own keep the protected paths read-only
// inside them, and seccomp refuses network sockets and mount changes.
// macOS uses Seatbelt (sandbox-exec). Where the kernel lacks a piece,
// Support says so and the caller falls back to asking.
package sandbox

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Policy is what a confined command may do: write under Writable (but not
// Protected, which stay read-only inside them), read everything, and use
// the network when Network is set. Unix sockets are always allowed.
type Policy struct {
	Writable  []string `json:"writable,omitempty"`
	Protected []string `json:"protected,omitempty"`
	// Pinned stay writable but cannot be renamed or removed, so that no
	// other directory takes their place (.git, whose config is protected).
	Pinned []string `json:"pinned,omitempty"`
	// Reopened are writable again inside a protected directory (a
	// linked worktree's own directory in the common dir's worktrees/).
	Reopened []string `json:"reopened,omitempty"`
	Network  bool     `json:"network,omitempty"`
	// Epoch names the guarded paths' identities on the host (Guard):
	// one replaced there (a rename over .git/config) has lost its mount
	// in a fork server made before, so a new epoch is a new server.
	Epoch string `json:"epoch,omitempty"`
	// Env is added to the command's environment: where it may keep
	// caches, since the user's own are not writable.
	Env []string `json:"env,omitempty"`
}

// Support is what this machine's kernel offers; a field is false when its
// mechanism is missing, with the reason in Missing.
type Support struct {
	Filesystem bool     `json:"filesystem"` // writes outside the writable roots refused
	Protect    bool     `json:"protect"`    // protected paths read-only inside them
	Network    bool     `json:"network"`    // network sockets refused
	Mechanisms []string `json:"mechanisms,omitempty"`
	Missing    []string `json:"missing,omitempty"`
}

// Full reports whether every piece is there.
func (s Support) Full() bool { return s.Filesystem && s.Protect && s.Network }

// Any reports whether some piece is there.
func (s Support) Any() bool { return s.Filesystem || s.Protect || s.Network }

// String says what confines commands here, for /status and :checkhealth.
func (s Support) String() string {
	if !s.Any() {
		return "off: " + strings.Join(s.Missing, "; ")
	}
	out := "on (" + strings.Join(s.Mechanisms, ", ") + ")"
	if len(s.Missing) > 0 {
		out += "; missing: " + strings.Join(s.Missing, "; ")
	}
	return out
}

// request is what the host hands the launcher: the policy and which
// mechanisms to use, as probed.
type request struct {
	Policy
	Use Support `json:"use"`
}

func encodeRequest(r request) (string, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return "", fmt.Errorf("sandbox request: %w", err)
	}
	return string(data), nil
}

func decodeRequest(s string) (request, error) {
	var r request
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return request{}, fmt.Errorf("sandbox request: %w", err)
	}
	return r, nil
}

// Subcommand is the host's argument that runs the launcher.
const Subcommand = "sandbox-exec"

// exitSetup is the launcher's exit status when it could not confine
// itself: the command never ran.
const exitSetup = 125

// withEnv is env with extra's variables set, replacing those of the same
// name (the first of two would win).
func withEnv(env, extra []string) []string {
	out := make([]string, 0, len(env)+len(extra))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(extra, func(e string) bool { return strings.HasPrefix(e, name+"=") }) {
			out = append(out, kv)
		}
	}
	return append(out, extra...)
}
