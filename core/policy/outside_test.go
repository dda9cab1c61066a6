package policy

import (
	"strings"
	"testing"
)

// TestShellReadsOutsideAsk: a read-only command that reads outside the
// workspace asks in strict, balanced and auto-edit (as the file tools
// refuse such reads), is never remembered, and read-only commands inside
// the workspace stay unasked.
func TestShellReadsOutsideAsk(t *testing.T) {
	outside := []string{"cat ~/.ssh/id_rsa", "cat /etc/shadow", "head ../x", "ls /", "cat < /etc/shadow", "git status && cat ~/.netrc"}
	inside := []string{"cat README.md", "ls -la", "grep -rn TODO .", "git status", "head -n 5 src/main.go"}
	for _, preset := range []Preset{PresetStrict, PresetBalanced, PresetAutoEdit, PresetYolo} {
		for _, mode := range []Mode{ModePlan, ModeDefault, ModeAutoEdit, ModeYolo} {
			p := Policy{Preset: preset}
			for _, cmd := range outside {
				v := Evaluate(mode, p, Action{Tool: "bash", Command: cmd}, root)
				want := Ask
				if preset == PresetYolo || mode == ModeYolo {
					want = Allow
				}
				if v.Decision != want {
					t.Errorf("%s/%s %q = %s (%s), want %s", mode, preset, cmd, v.Decision, v.Reason, want)
				}
				if v.Decision == Ask && (len(v.Keys) != 0 || !strings.Contains(v.Reason, "outside the workspace")) {
					t.Errorf("%s/%s %q: keys %v, reason %q; want this call only, naming the outside read", mode, preset, cmd, v.Keys, v.Reason)
				}
			}
			for _, cmd := range inside {
				if v := Evaluate(mode, p, Action{Tool: "bash", Command: cmd}, root); v.Decision != Allow {
					t.Errorf("%s/%s %q = %s (%s), want allow", mode, preset, cmd, v.Decision, v.Reason)
				}
			}
		}
	}
	// The user's allow rule still allows a read it names.
	p := Policy{Preset: PresetBalanced, Rules: []Rule{{Tool: "bash", Pattern: "cat /etc/hosts", Decision: Allow}}}
	if v := Evaluate(ModeAutoEdit, p, Action{Tool: "bash", Command: "cat /etc/hosts"}, root); v.Decision != Allow {
		t.Errorf("allow rule for cat /etc/hosts: %s (%s)", v.Decision, v.Reason)
	}
	if v := Evaluate(ModeAutoEdit, p, Action{Tool: "bash", Command: "cat /etc/shadow"}, root); v.Decision != Ask {
		t.Errorf("cat /etc/shadow beside an unrelated rule: %s (%s)", v.Decision, v.Reason)
	}
}
