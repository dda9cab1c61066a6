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

// TestOutsideSandboxInterpreters: "always" outside for an interpreter
// remembers the interpreter and its script: `python3 a.py` outside then
// covers `python3 a.py --flag`, never `python3 -c …` nor another script;
// one-liners are never remembered.
func TestOutsideSandboxInterpreters(t *testing.T) {
	p := Policy{Preset: PresetBalanced}
	tests := []struct {
		approved string
		covers   []string
		asks     []string
	}{
		{"python3 a.py", []string{"python3 a.py", "python3 a.py --verbose x"},
			[]string{"python3 -c 'import os; os.system(\"id\")'", "python3 b.py", "python3", "python3 -m a", "python3 - < a.py"}},
		{"python3 -m pytest", []string{"python3 -m pytest -x tests"}, []string{"python3 -m pip install x", "python3 -c 1", "python3 pytest"}},
		{"node scripts/build.js", []string{"node scripts/build.js --prod"}, []string{"node -e 'process.exit()'", "node --eval=x", "node other.js"}},
		{"perl tools/gen.pl", []string{"perl tools/gen.pl a"}, []string{"perl -e 'print 1'", "perl -E 'say 1'"}},
		{"ruby x.rb", nil, []string{"ruby -e 'p 1'"}},
		{"bash build.sh", []string{"bash build.sh all"}, []string{"bash -c 'id'", "bash -xc 'id'", "bash other.sh"}},
		{"sh ./ci.sh", nil, []string{"sh -c id", "sh"}},
		{"go run ./cmd/gen", []string{"go run ./cmd/gen -v"}, []string{"go run ./cmd/other", "go run ."}},
	}
	for _, tc := range tests {
		a := Action{Tool: "bash", Command: tc.approved}
		v := p.OutsideSandbox(a, root)
		if v.Decision != Ask || len(v.Keys) == 0 {
			t.Fatalf("%q outside: %+v", tc.approved, v)
		}
		m := NewMemory(nil)
		m.Apply(AnswerAlways, v)
		for _, c := range tc.covers {
			ca := Action{Tool: "bash", Command: c}
			if !m.Covers(ca, p.OutsideSandbox(ca, root)) {
				t.Errorf("always for %q outside does not cover %q", tc.approved, c)
			}
		}
		for _, c := range tc.asks {
			ca := Action{Tool: "bash", Command: c}
			if m.Covers(ca, p.OutsideSandbox(ca, root)) {
				t.Errorf("always for %q outside covers %q", tc.approved, c)
			}
		}
	}
	for _, c := range []string{"python3 -c 1", "node -e 1", "perl -e 1", "ruby -e 1", "bash -c id", "php -r 1", "lua -e 1"} {
		if v := p.OutsideSandbox(Action{Tool: "bash", Command: c}, root); len(v.Keys) != 0 {
			t.Errorf("the one-liner %q outside can be remembered: %v", c, v.Keys)
		}
	}
}
