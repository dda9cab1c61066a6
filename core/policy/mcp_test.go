package policy

import (
	"testing"
	"time"
)

func TestEvaluateMCP(t *testing.T) {
	rules := []Rule{{Tool: "mcp:github__*", Decision: "allow"}, {Tool: "mcp:*__delete_*", Decision: "deny"}}
	tests := []struct {
		name     string
		mode     Mode
		preset   Preset
		rules    []Rule
		tool     string
		ro, trus bool
		want     Decision
		safe     bool // destructiveHint: false
	}{
		{"balanced asks", ModeDefault, PresetBalanced, nil, "fs__write", false, false, Ask, false},
		{"strict asks", ModeDefault, PresetStrict, nil, "fs__read", true, false, Ask, false},
		{"trusted read-only allowed", ModeDefault, PresetBalanced, nil, "fs__read", true, true, Allow, false},
		{"trusted but not read-only asks", ModeDefault, PresetStrict, nil, "fs__write", false, true, Ask, false},
		{"rule allows server", ModeDefault, PresetStrict, rules, "github__create_issue", false, false, Allow, false},
		{"deny rule wins", ModeYolo, PresetBalanced, rules, "github__delete_repo", false, false, Deny, false},
		{"auto-edit asks an untrusted server's unannotated tool", ModeAutoEdit, PresetBalanced, nil, "fs__write", false, false, Ask, false},
		{"auto-edit allows a trusted server's tool", ModeAutoEdit, PresetBalanced, nil, "fs__write", false, true, Allow, false},
		{"auto-edit allows read-only", ModeAutoEdit, PresetBalanced, nil, "fs__read", true, false, Allow, false},
		{"auto-edit allows non-destructive", ModeAutoEdit, PresetBalanced, nil, "fs__mkdir", false, false, Allow, true},
		{"auto-edit rule allows", ModeAutoEdit, PresetBalanced, rules, "github__create_issue", false, false, Allow, false},
		{"yolo allows", ModeYolo, PresetStrict, nil, "fs__write", false, false, Allow, false},
		{"plan denies writes", ModePlan, PresetBalanced, rules, "github__create_issue", false, false, Deny, false},
		{"plan asks read-only", ModePlan, PresetBalanced, nil, "fs__read", true, false, Ask, false},
		{"plan trusted read-only", ModePlan, PresetBalanced, nil, "fs__read", true, true, Allow, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := Policy{Preset: tc.preset, Rules: tc.rules}
			v := Evaluate(tc.mode, p, Action{Tool: tc.tool, Kind: KindMCP, ReadOnly: tc.ro, Trusted: tc.trus, NonDestructive: tc.safe}, "/")
			if v.Decision != tc.want {
				t.Fatalf("decision %s (%s), want %s", v.Decision, v.Reason, tc.want)
			}
			if v.Decision == Ask && (len(v.Keys) != 1 || v.Keys[0].Tool != "mcp:"+tc.tool) {
				t.Errorf("keys = %+v", v.Keys)
			}
		})
	}
	// "Always" on one tool covers that tool only.
	m := NewMemory(time.Now)
	a := Action{Tool: "fs__write", Kind: KindMCP}
	v := Evaluate(ModeDefault, Policy{}, a, "/")
	m.Apply(AnswerAlways, v)
	if !m.Covers(a, v) {
		t.Error("remembered tool not covered")
	}
	b := Action{Tool: "fs__delete", Kind: KindMCP}
	if m.Covers(b, Evaluate(ModeDefault, Policy{}, b, "/")) {
		t.Error("another tool of the same server covered")
	}
	// A conversation's narrower policy cannot widen the session's.
	narrow := Narrow(Policy{Preset: PresetStrict}, Policy{Preset: PresetBalanced, Rules: rules})
	if v := Evaluate(ModeDefault, narrow, Action{Tool: "github__x", Kind: KindMCP}, "/"); v.Decision != Ask {
		t.Errorf("narrowed: %s", v.Decision)
	}
}
