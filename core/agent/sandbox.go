package agent

import (
	"context"
	"os"
	"path/filepath"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/sandbox"
	"github.com/coder-nvim/coder-nvim/core/tools"
)

// sandboxState is the session's kernel sandbox for the commands the
// agent runs: probed in the background as the session opens, by the
// launcher start that becomes the fork server of the session's mode;
// waited for by the first command.
type sandboxState struct {
	ready chan struct{}  // closed once box and guard are set
	box   *sandbox.Box   // nil: off (config, flag) or no launcher (tests)
	guard *sandbox.Guard // the workspace's own guards, made once
	// private is the session's temp dir and the workspace's cache.
	private *sandbox.Private
}

// startSandbox probes the sandbox unless the user's config turned it off
// or there is no launcher; what is missing is said once, as a notice.
func (s *Session) startSandbox() {
	s.sandbox.ready = make(chan struct{})
	if s.opts.Launcher == "" || !s.opts.Config.SandboxEnabled() {
		close(s.sandbox.ready)
		return
	}
	s.sandbox.private = sandbox.OpenPrivate(s.root, s.opts.Config.StateDir)
	go func() {
		s.sandbox.guard = sandbox.GuardWorkspace(s.life, s.guardSpec())
		s.ws.SetConfinedChecks(s.sandbox.guard.BeginCall)
		p := s.sandboxPolicy(s.Mode())
		box, srv := sandbox.Open(s.life, s.opts.Launcher, *p)
		s.sandbox.guard.Ready()
		s.sandbox.box = box
		if srv != nil {
			s.ws.Shells().AdoptServer(box, p, srv)
		} else {
			s.ws.Shells().SetSandbox(box)
		}
		close(s.sandbox.ready)
		if note := box.Support().Notice(); note != "" {
			s.emit(event.Event{Kind: event.Notice, Conversation: string(s.RootConversation()), Text: note})
		}
	}()
}

// guardSpec is what the workspace's guard is built from: the writable
// roots of the session's most open mode, the user's own directories and
// .coder (made when missing, so that a mount guards them).
func (s *Session) guardSpec() sandbox.GuardSpec {
	home, _ := os.UserHomeDir()
	return sandbox.GuardSpec{Root: s.root, Writable: s.sandboxPolicy(policy.ModeAutoEdit).Writable,
		Protected: s.userDirs, Dirs: append([]string{filepath.Join(s.root, ".coder")}, config.UserDirs(os.Getenv)...),
		Home: home, Getenv: os.Getenv, RunsLater: s.runsLater}
}

// sandboxBox waits for the probe; nil when the sandbox is off.
func (s *Session) sandboxBox(ctx context.Context) *sandbox.Box {
	select {
	case <-s.sandbox.ready:
		return s.sandbox.box
	case <-ctx.Done():
		return nil
	}
}

// SandboxStatus says what confines commands, for /status and :checkhealth.
func (s *Session) SandboxStatus(ctx context.Context) string {
	switch {
	case s.opts.Launcher == "":
		return "off: no launcher (the host binary) was given"
	case !s.opts.Config.SandboxEnabled():
		return `off: "sandbox": {"mode": "off"} in the user's config`
	}
	box := s.sandboxBox(ctx)
	if box == nil {
		return "not probed yet"
	}
	out := box.Support().String()
	if sup := box.Support(); sup.Any() {
		p := s.confinement(ctx, s.Mode())
		out += sup.WritesLine(*p) + s.sandbox.guard.StatusLine()
		if p.Network || !sup.Network {
			out += sup.NetworkLine(*p)
		} else {
			out += "; network off"
		}
	}
	return out
}

// confinement is the sandbox of a bash command in mode: nil when the
// sandbox is off or unsupported here.
func (s *Session) confinement(ctx context.Context, mode policy.Mode) *sandbox.Policy {
	box := s.sandboxBox(ctx)
	if box == nil || !box.Support().Any() {
		return nil
	}
	return s.sandboxPolicy(mode)
}

// sandboxPolicy is what a bash command in mode may do, confined.
func (s *Session) sandboxPolicy(mode policy.Mode) *sandbox.Policy {
	cfg := s.opts.Config.Sandbox
	p := &sandbox.Policy{Network: cfg.Network || mode == policy.ModeYolo}
	if s.sandbox.guard == nil { // the guard holds these
		p.Protected = append([]string{filepath.Join(s.root, ".coder")}, s.userDirs...)
	}
	temps := []string{os.TempDir(), "/dev/shm"}
	if mode == policy.ModePlan {
		p.Writable = temps
	} else {
		p.Writable = append(append([]string{s.root}, temps...), cfg.WritableRoots...)
	}
	s.sandbox.guard.Apply(p, mode != policy.ModePlan)
	// The user's caches are not writable (a poisoned build cache would
	// run outside the sandbox later): confined commands get the
	// workspace's own, its own temp, and no socket or secret of the host.
	s.sandbox.private.Apply(p, s.root, os.TempDir(), sandbox.Rules{UnixSockets: cfg.UnixSockets, EnvKeep: cfg.EnvKeep, EnvDrop: cfg.EnvDrop}, os.Getenv)
	return p
}

// sandboxFull reports whether confine, when set, holds by every
// mechanism: only then may auto-edit run unasked what the analyzer cannot
// see through.
func (s *Session) sandboxFull(ctx context.Context, confine *sandbox.Policy) bool {
	if confine == nil {
		return false
	}
	box := s.sandboxBox(ctx)
	return box != nil && box.Support().Full()
}

// confineCall puts a built-in bash call in the mode's sandbox, or, when
// the model asked to run it outside one that is on, reports outside: the
// call is then asked, whatever the mode (the approval says which).
func (s *Session) confineCall(ctx context.Context, c *toolCall, action *policy.Action) (outside bool) {
	inv := c.inv
	if c.name != "bash" || c.isMCP || inv.Kind != tools.KindExecute {
		return false
	}
	confine := s.confinement(ctx, c.mode)
	if confine == nil {
		inv.OutsideSandbox = false // nothing to leave
		return false
	}
	if inv.OutsideSandbox {
		return true
	}
	inv.Confine = confine
	action.Sandboxed = s.sandboxFull(ctx, confine)
	return false
}

// userDirs are the user's own directories no command or file tool may
// write: config.UserDirs, and a Copilot token file the config names.
func userDirs(cfg config.Config) []string {
	dirs := config.UserDirs(os.Getenv)
	if f := cfg.Copilot.TokenFile; f != "" && filepath.IsAbs(f) {
		dirs = append(dirs, f)
	}
	return dirs
}
