package agent

import (
	"testing"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
)

// TestResumeAuthority: a resumed session takes the narrower of its saved
// mode and preset and the configured ones, except where the user has just
// trusted the workspace's config and that changed them (issue 39,
// newcomer run 3); a trust changing one leaves the other to the rule.
func TestResumeAuthority(t *testing.T) {
	tests := []struct {
		name                   string
		modeTrust, presetTrust bool
		wantMode, wantPreset   string
	}{
		{"no trust: the saved ones narrow", false, false, "default", "strict"},
		{"trust changed the mode", true, false, "auto-edit", "strict"},
		{"trust changed both", true, true, "auto-edit", "auto-edit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, func(c *config.Config, _ *Options) { c.Permissions.Preset = "strict" })
			f.srv.Enqueue(fakellm.Reply{Content: "ok"})
			f.run(t, "hi")
			f.sess.Close()

			opts := f.sess.opts
			opts.Config.Mode = "auto-edit"
			opts.Config.Permissions.Preset = "auto-edit"
			opts.ModeFromTrust, opts.PresetFromTrust = tc.modeTrust, tc.presetTrust
			st := mustResume(t, opts, f.sess.ID()).Status()
			if string(st.Mode) != tc.wantMode || string(st.Preset) != tc.wantPreset {
				t.Errorf("mode %s, preset %s; want %s, %s", st.Mode, st.Preset, tc.wantMode, tc.wantPreset)
			}
		})
	}
}
