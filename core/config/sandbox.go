package config

import (
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
)

// Sandbox is how the commands the agent runs are confined by the kernel
// (see core/sandbox). Only the user's own config, or a flag, can loosen
// it: a project file, trusted or not, may only make it stricter.
type Sandbox struct {
	// Mode is "on" (the default) or "off".
	Mode string `json:"mode"`
	// Network lets confined commands use the network (yolo mode does
	// anyway); default false.
	Network bool `json:"network"`
	// WritableRoots are written to besides the workspace and the temp
	// directories (absolute paths).
	WritableRoots []string `json:"writable_roots"`
	// UnixSockets are the Unix sockets outside the sandbox confined
	// commands may connect to (absolute paths, e.g. Docker's); the user's
	// own config only.
	UnixSockets []string `json:"unix_sockets"`
	// EnvKeep are variables (glob patterns) confined commands keep
	// although their names look secret; the user's own config only.
	// EnvDrop are more they lose; a project file may add to them.
	EnvKeep []string `json:"env_keep"`
	EnvDrop []string `json:"env_drop"`
}

// Sandbox modes.
const (
	SandboxOn  = "on"
	SandboxOff = "off"
)

// SandboxEnabled reports whether commands are to be confined.
func (c Config) SandboxEnabled() bool { return c.Sandbox.Mode != SandboxOff }

func (s Sandbox) validate(bad func(key, format string, args ...any)) {
	switch s.Mode {
	case "", SandboxOn, SandboxOff:
	default:
		bad("sandbox.mode", "want %q or %q, got %q", SandboxOn, SandboxOff, s.Mode)
	}
	for i, r := range s.WritableRoots {
		if !filepath.IsAbs(r) {
			bad(fmt.Sprintf("sandbox.writable_roots[%d]", i), "want an absolute path, got %q", r)
		}
	}
	for i, r := range s.UnixSockets {
		if !filepath.IsAbs(r) {
			bad(fmt.Sprintf("sandbox.unix_sockets[%d]", i), "want an absolute path, got %q", r)
		}
	}
	for key, list := range map[string][]string{"sandbox.env_keep": s.EnvKeep, "sandbox.env_drop": s.EnvDrop} {
		for i, p := range list {
			if _, err := path.Match(p, ""); err != nil || p == "" {
				bad(fmt.Sprintf("%s[%d]", key, i), "want a glob pattern of variable names, got %q", p)
			}
		}
	}
}

// narrowSandbox is what a project file's sandbox settings leave of the
// user's: stricter ones apply, looser ones are named in ignore.
func narrowSandbox(user, proj Sandbox, ignore func(string, any)) Sandbox {
	out := user
	switch {
	case proj.Mode == SandboxOn:
		out.Mode = SandboxOn
	case proj.Mode == SandboxOff && user.Mode != SandboxOff:
		ignore("sandbox.mode", proj.Mode)
	}
	if proj.Network != user.Network {
		if proj.Network {
			ignore("sandbox.network", true)
		} else {
			out.Network = false
		}
	}
	var extra []string
	for _, r := range proj.WritableRoots {
		if !slices.Contains(user.WritableRoots, r) {
			extra = append(extra, r)
		}
	}
	if len(extra) > 0 {
		ignore("sandbox.writable_roots", extra)
	}
	if extra := notIn(proj.UnixSockets, user.UnixSockets); len(extra) > 0 {
		ignore("sandbox.unix_sockets", extra)
	}
	if extra := notIn(proj.EnvKeep, user.EnvKeep); len(extra) > 0 {
		ignore("sandbox.env_keep", extra)
	}
	// Dropping more variables only narrows.
	out.EnvDrop = append(slices.Clone(user.EnvDrop), notIn(proj.EnvDrop, user.EnvDrop)...)
	return out
}

// notIn is what of list is not in have.
func notIn(list, have []string) []string {
	var out []string
	for _, v := range list {
		if !slices.Contains(have, v) {
			out = append(out, v)
		}
	}
	return out
}

// UserDirs are the user's own directories a command must never write,
// wherever the workspace is: the config dir, the host's state dir and
// Copilot's token files.
func UserDirs(getenv func(string) string) []string {
	var out []string
	if f := UserFile(); f != "" {
		out = append(out, filepath.Dir(f))
	}
	if d := StateDir(getenv); d != "" {
		out = append(out, d)
	}
	for _, f := range CopilotTokenFiles(getenv) {
		out = append(out, filepath.Dir(f))
		break // one directory holds both
	}
	return out
}

// sandboxIgnored formats a value for Workspace.Ignored.
func sandboxIgnored(key string, value any) string {
	v, _ := json.Marshal(value)
	return fmt.Sprintf("%s: %s (a project file may only make the sandbox stricter)", key, v)
}
