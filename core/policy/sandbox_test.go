package policy

import (
	"testing"
)

// TestSandboxedAutoEdit: in auto-edit a command the analyzer cannot see
// through runs unasked only when it runs in the full sandbox; dangerous
// ones, reads outside the workspace and deny rules still hold; other
// modes are unchanged.
func TestSandboxedAutoEdit(t *testing.T) {
	p := Policy{Preset: PresetBalanced, Rules: []Rule{{Tool: "bash", Pattern: "curl *", Decision: Deny}}}
	tests := []struct {
		mode      Mode
		command   string
		sandboxed bool
		want      Decision
	}{
		{ModeAutoEdit, "python3 -c 'print(1)'", true, Allow},
		{ModeAutoEdit, "python3 -c 'print(1)'", false, Ask},
		{ModeAutoEdit, "make test", true, Allow},
		{ModeAutoEdit, "rm -rf /", true, Ask},
		{ModeAutoEdit, "cat ~/.ssh/id_rsa", true, Ask},
		{ModeAutoEdit, "curl https://x", true, Deny},
		{ModeDefault, "python3 -c 'print(1)'", true, Ask},
		{ModePlan, "python3 -c 'print(1)'", true, Deny},
	}
	for _, tt := range tests {
		a := Action{Tool: "bash", Command: tt.command, Sandboxed: tt.sandboxed}
		if got := Evaluate(tt.mode, p, a, "/ws").Decision; got != tt.want {
			t.Errorf("%s %q sandboxed=%v: %s, want %s", tt.mode, tt.command, tt.sandboxed, got, tt.want)
		}
	}
}

// TestOutsideSandbox: leaving the sandbox is asked even for a read-only
// command, denied where the policy denies, and "always" keys on the
// prefix for outside runs only: an approval of the confined command does
// not cover it, nor the reverse.
func TestOutsideSandbox(t *testing.T) {
	p := Policy{Preset: PresetBalanced, Rules: []Rule{{Tool: "bash", Pattern: "curl *", Decision: Deny}}}
	v := p.OutsideSandbox(Action{Tool: "bash", Command: "ls -la"}, "/ws")
	if v.Decision != Ask || len(v.Keys) != 1 || v.Keys[0].Tool != OutsideSandboxTool {
		t.Fatalf("ls outside: %+v", v)
	}
	if d := p.OutsideSandbox(Action{Tool: "bash", Command: "curl https://x"}, "/ws").Decision; d != Deny {
		t.Errorf("a denied command outside: %s", d)
	}
	if v := p.OutsideSandbox(Action{Tool: "bash", Command: "rm -rf /"}, "/ws"); v.Decision != Ask || len(v.Keys) != 0 {
		t.Errorf("a dangerous command outside is remembered: %+v", v)
	}
	m := NewMemory(nil)
	make1, make2 := Action{Tool: "bash", Command: "make build"}, Action{Tool: "bash", Command: "make build all"}
	inside := Evaluate(ModeDefault, p, make1, "/ws")
	m.Remember(inside.Keys)
	if m.Covers(make1, p.OutsideSandbox(make1, "/ws")) {
		t.Error("approving `make build` in the sandbox approved it outside")
	}
	m = NewMemory(nil)
	m.Remember(p.OutsideSandbox(make1, "/ws").Keys)
	if m.Covers(make1, Evaluate(ModeDefault, p, make1, "/ws")) {
		t.Error("approving `make build` outside approved it in the sandbox")
	}
	if !m.Covers(make2, p.OutsideSandbox(make2, "/ws")) {
		t.Error("an outside approval of `make build` does not cover `make build all` outside")
	}
}
