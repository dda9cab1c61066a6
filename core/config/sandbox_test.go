package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSandboxNarrowsOnly: a project file, trusted or not, may make the
// sandbox stricter and nothing else; the user's own file may turn it off,
// allow the network and add writable roots.
func TestSandboxNarrowsOnly(t *testing.T) {
	tests := []struct {
		name, user, project string
		trusted             bool
		want                Sandbox
		ignored             []string
	}{
		{"project turns it off", `{}`, `{"sandbox": {"mode": "off", "network": true, "writable_roots": ["/"]}}`, false,
			Sandbox{}, []string{"sandbox.mode", "sandbox.network", "sandbox.writable_roots"}},
		{"trusted project turns it off", `{}`, `{"sandbox": {"mode": "off", "network": true, "writable_roots": ["/"]}}`, true,
			Sandbox{}, []string{"sandbox.mode", "sandbox.network", "sandbox.writable_roots"}},
		{"project turns it on again", `{"sandbox": {"mode": "off", "network": true}}`, `{"sandbox": {"mode": "on", "network": false}}`, false,
			Sandbox{Mode: SandboxOn}, nil},
		{"project list does not overwrite the user's", `{"sandbox": {"writable_roots": ["/opt/cache"]}}`, `{"sandbox": {"writable_roots": ["/"]}}`, false,
			Sandbox{WritableRoots: []string{"/opt/cache"}}, []string{"sandbox.writable_roots"}},
		{"user's own settings", `{"sandbox": {"mode": "off", "network": true, "writable_roots": ["/opt/cache"]}}`, `{}`, false,
			Sandbox{Mode: SandboxOff, Network: true, WritableRoots: []string{"/opt/cache"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			xdg := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", xdg)
			state := t.TempDir()
			getenv := env(map[string]string{"XDG_STATE_HOME": state, "OPENAI_API_KEY": "sk"})
			writeConfig(t, filepath.Join(xdg, "coder", "config.json"), tt.user)
			root := t.TempDir()
			writeConfig(t, WorkspaceFile(root), tt.project)
			if tt.trusted {
				if _, err := TrustWorkspace(root, getenv); err != nil {
					t.Fatal(err)
				}
			}
			cfg, err := Load(root, getenv)
			if err != nil {
				t.Fatal(err)
			}
			got := cfg.Sandbox
			if got.Mode != tt.want.Mode || got.Network != tt.want.Network || !slices.Equal(got.WritableRoots, tt.want.WritableRoots) {
				t.Errorf("sandbox %+v, want %+v", got, tt.want)
			}
			if got.Mode == SandboxOff && tt.want.Mode != SandboxOff {
				t.Error("the sandbox is off")
			}
			ignored := strings.Join(cfg.Workspace.Ignored, "\n")
			for _, key := range tt.ignored {
				if !strings.Contains(ignored, key+":") {
					t.Errorf("%s is not named as ignored:\n%s", key, ignored)
				}
			}
		})
	}
}

func TestSandboxValidate(t *testing.T) {
	for _, bad := range []string{`{"sandbox": {"mode": "of"}}`, `{"sandbox": {"writable_roots": ["rel/path"]}}`} {
		var c Config = Defaults()
		if err := Decode([]byte(bad), &c); err != nil {
			continue // refused while decoding: as good
		}
		if err := c.Validate(); err == nil {
			t.Errorf("%s passes validation", bad)
		}
	}
}
