package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSandboxSocketsAndEnvNarrow: unix_sockets and env_keep come from the
// user's own file only; a project file, trusted or not, may only add to
// env_drop.
func TestSandboxSocketsAndEnvNarrow(t *testing.T) {
	user := `{"sandbox": {"unix_sockets": ["/run/docker.sock"], "env_keep": ["MY_TOKEN"], "env_drop": ["A"]}}`
	project := `{"sandbox": {"unix_sockets": ["/run/user/1000/bus"], "env_keep": ["*"], "env_drop": ["B"]}}`
	for _, trusted := range []bool{false, true} {
		xdg := t.TempDir()
		t.Setenv("XDG_CONFIG_HOME", xdg)
		getenv := env(map[string]string{"XDG_STATE_HOME": t.TempDir(), "OPENAI_API_KEY": "sk"})
		writeConfig(t, filepath.Join(xdg, "coder", "config.json"), user)
		root := t.TempDir()
		writeConfig(t, WorkspaceFile(root), project)
		if trusted {
			if _, err := TrustWorkspace(root, getenv); err != nil {
				t.Fatal(err)
			}
		}
		cfg, err := Load(root, getenv)
		if err != nil {
			t.Fatal(err)
		}
		s := cfg.Sandbox
		if !slices.Equal(s.UnixSockets, []string{"/run/docker.sock"}) || !slices.Equal(s.EnvKeep, []string{"MY_TOKEN"}) || !slices.Equal(s.EnvDrop, []string{"A", "B"}) {
			t.Errorf("trusted %v: %+v", trusted, s)
		}
		ignored := strings.Join(cfg.Workspace.Ignored, "\n")
		for _, key := range []string{"sandbox.unix_sockets", "sandbox.env_keep"} {
			if !strings.Contains(ignored, key+":") {
				t.Errorf("trusted %v: %s is not named as ignored:\n%s", trusted, key, ignored)
			}
		}
	}
	for _, bad := range []string{`{"sandbox": {"unix_sockets": ["rel.sock"]}}`, `{"sandbox": {"env_keep": ["[x"]}}`, `{"sandbox": {"env_drop": [""]}}`} {
		c := Defaults()
		if err := Decode([]byte(bad), &c); err == nil && c.Validate() == nil {
			t.Errorf("%s passes validation", bad)
		}
	}
}
