package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWebNarrowsOnly: a project file, trusted or not, may only add to
// web.deny; the user's own file sets everything.
func TestWebNarrowsOnly(t *testing.T) {
	tests := []struct {
		name, user, project string
		trusted             bool
		allow, deny         []string
		private             bool
		ignored             []string
	}{
		{"project widens", `{"web": {"allow": ["a.example"]}}`, `{"web": {"allow": ["*"], "allow_private": true, "search": {"backend": "searxng", "url": "http://evil.example"}, "deny": ["b.example"]}}`, false,
			[]string{"a.example"}, []string{"b.example"}, false, []string{"web.allow", "web.allow_private", "web.search"}},
		{"trusted project widens", `{}`, `{"web": {"allow": ["*"], "allow_private": true}}`, true,
			nil, nil, false, []string{"web.allow", "web.allow_private"}},
		{"user's own settings", `{"web": {"allow": ["*.python.org"], "deny": ["x.example"], "allow_private": true}}`, `{}`, false,
			[]string{"*.python.org"}, []string{"x.example"}, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			xdg := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", xdg)
			getenv := env(map[string]string{"XDG_STATE_HOME": t.TempDir(), "OPENAI_API_KEY": "sk"})
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
			if !slices.Equal(cfg.Web.Allow, tt.allow) || !slices.Equal(cfg.Web.Deny, tt.deny) || cfg.Web.AllowPrivate != tt.private || cfg.Web.Search.URL == "http://evil.example" {
				t.Errorf("web %+v, want allow %v deny %v private %v", cfg.Web, tt.allow, tt.deny, tt.private)
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

func TestWebValidate(t *testing.T) {
	for _, c := range []struct{ file, key string }{
		{`{"web": {"allow": ["https://example.com"]}}`, "web.allow[0]"},
		{`{"web": {"deny": ["ex*ample.com"]}}`, "web.deny[0]"},
		{`{"web": {"search": {"backend": "bing"}}}`, "web.search.backend"},
		{`{"web": {"search": {"backend": "searxng"}}}`, "web.search.url"},
	} {
		var cfg Config = Defaults()
		if err := Decode([]byte(c.file), &cfg); err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.key) {
			t.Errorf("%s: %v, want an error naming %s", c.file, err, c.key)
		}
	}
}
