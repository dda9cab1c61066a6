package shellcheck

import "testing"

// TestAgentDir: a command that may write and names .coder is dangerous,
// so no remembered prefix or allow rule runs it unasked; reads stay
// read-only.
func TestAgentDir(t *testing.T) {
	tests := []struct {
		cmd  string
		want Class
	}{
		{"cat .coder/config.json", ReadOnly},
		{"ls -la .coder", ReadOnly},
		{"echo x > .coder/config.json", Dangerous},
		{"echo x >> ./.CODER/config.json", Dangerous},
		{"echo x > sub/.coder/config.json", Dangerous},
		{"cp evil.json .coder/config.json", Dangerous},
		{"mv evil.json .coder./config.json", Dangerous},
		{"tee .coder/config.json", Dangerous},
		{"sed -i s/a/b/ .coder/config.json", Dangerous},
		{"cd .coder && cp ../evil.json config.json", Dangerous},
		{"cd .coder/skills && echo x > s.md", Dangerous},
		{"rm -rf .coder/sessions", Dangerous},
		{"ln -s elsewhere .coder", Dangerous},
		{"cp a.txt b.txt", Unknown},
		{"echo x > notes.coder", Unknown},
		{"echo x > coder/config.json", Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			a := Analyze(tt.cmd, "/ws")
			if a.Class != tt.want {
				t.Errorf("class = %s, want %s (%v)", a.Class, tt.want, a.Reasons)
			}
		})
	}
}
