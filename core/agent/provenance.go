package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/policy"
)

// A session file is workspace data: one shipped inside a repository, or
// edited by the model, must not resume with the authority it claims. The
// sessions this machine created are recorded in the user's state
// directory; resuming takes the narrower of the saved mode and preset and
// what the user's settings say now, and a session not created here
// resumes in plan mode.

// originMarker is the file that records that this machine created session
// id in root (hashed: ids and paths come from files).
func originMarker(stateDir, root, id string) string {
	sum := sha256.Sum256([]byte(root + "\x00" + id))
	return filepath.Join(stateDir, "sessions", hex.EncodeToString(sum[:]))
}

// recordOrigin notes that this machine created session id.
func (s *Session) recordOrigin(id SessionID) {
	dir := s.opts.Config.StateDir
	if dir == "" {
		return
	}
	p := originMarker(dir, s.root, string(id))
	err := os.MkdirAll(filepath.Dir(p), 0o700)
	if err == nil {
		err = os.WriteFile(p, nil, 0o600)
	}
	if err != nil {
		s.emit(event.Event{Kind: event.Error, Text: fmt.Sprintf("recording the session's origin: %v (it will resume in plan mode)", err)})
	}
}

// createdHere reports whether this machine recorded creating session id;
// without a state directory nothing was recorded.
func (s *Session) createdHere(id string) bool {
	dir := s.opts.Config.StateDir
	if dir == "" {
		return false
	}
	_, err := os.Stat(originMarker(dir, s.root, id))
	return err == nil
}

// resumeAuthority returns the mode and preset a resumed session runs with:
// the narrower of the saved ones and those the user's settings give now
// (an explicit mode flag or a trust just given wins), plan for a session
// not created here. note says why, when it is not what was saved.
func (s *Session) resumeAuthority(id, savedMode, savedPreset string) (policy.Mode, policy.Preset, string) {
	mode, preset := s.mode, s.policy.Preset
	if m, err := policy.ParseMode(savedMode); err == nil && !s.opts.ModeFromFlag && !s.opts.ModeFromTrust &&
		slices.Index(policy.Modes, m) < slices.Index(policy.Modes, mode) {
		mode = m
	}
	if p, err := policy.ParsePreset(savedPreset); err == nil && savedPreset != "" && !s.opts.PresetFromTrust &&
		slices.Index(policy.Presets, p) < slices.Index(policy.Presets, preset) {
		preset = p
	}
	if !s.createdHere(id) && !s.opts.ModeFromFlag {
		if s.opts.Config.StateDir == "" {
			// Nothing was recorded, so nothing is known: say why, not
			// that the session came from elsewhere.
			return policy.ModePlan, preset, "this session's origin cannot be checked: with neither HOME nor XDG_STATE_HOME there is no state directory to record which sessions this machine created, so it resumes in plan mode; switch with /mode once you have read it"
		}
		return policy.ModePlan, preset, "this session was not created on this machine (a session file from elsewhere, e.g. a repository): it resumes in plan mode; switch with /mode once you have read it"
	}
	return mode, preset, ""
}

// tellResumeNote emits the note of the last load, once.
func (s *Session) tellResumeNote() {
	s.mu.Lock()
	note := s.resumeNote
	s.resumeNote = ""
	s.mu.Unlock()
	if note != "" {
		s.emit(event.Event{Kind: event.Notice, Text: note})
	}
}
