package policy

import (
	"slices"
	"strings"
	"testing"
)

const root = "/home/u/proj"

var (
	readAct    = Action{Tool: "read", Kind: KindRead, Paths: []string{"src/main.go"}}
	editAct    = Action{Tool: "write", Kind: KindEdit, Paths: []string{"src/main.go"}}
	bashRO     = Action{Tool: "bash", Kind: KindExecute, Command: "ls -la"}
	bashUnk    = Action{Tool: "bash", Kind: KindExecute, Command: "go test ./..."}
	bashDanger = Action{Tool: "bash", Kind: KindExecute, Command: "rm -rf build"}
)

// Expected cells, written from the documented matrix: read, edit, bash
// read-only, bash unknown, bash dangerous. A=allow K=ask D=deny.
var cells = map[Mode]map[Preset]string{
	ModeDefault: {
		PresetStrict:   "AKAKD",
		PresetBalanced: "AKAKK",
		PresetAutoEdit: "AAAKK",
		PresetYolo:     "AAAAA",
	},
	ModePlan: {
		PresetStrict:   "ADADD",
		PresetBalanced: "ADADD",
		PresetAutoEdit: "ADADD",
		PresetYolo:     "ADADD",
	},
	ModeAutoEdit: {
		PresetStrict:   "AAAKD",
		PresetBalanced: "AAAKK",
		PresetAutoEdit: "AAAKK",
		PresetYolo:     "AAAAA",
	},
	ModeYolo: {
		PresetStrict:   "AAAAA",
		PresetBalanced: "AAAAA",
		PresetAutoEdit: "AAAAA",
		PresetYolo:     "AAAAA",
	},
}

var letter = map[byte]Decision{'A': Allow, 'K': Ask, 'D': Deny}

func TestModePresetMatrix(t *testing.T) {
	acts := []Action{readAct, editAct, bashRO, bashUnk, bashDanger}
	n := 0
	for _, mode := range Modes {
		for _, preset := range Presets {
			want := cells[mode][preset]
			for i, a := range acts {
				v := Evaluate(mode, Policy{Preset: preset}, a, root)
				if v.Decision != letter[want[i]] {
					t.Errorf("mode %s preset %s %s %q: got %s (%s), want %s", mode, preset, a.Tool, a.Command, v.Decision, v.Reason, letter[want[i]])
				}
				if v.Reason == "" {
					t.Errorf("mode %s preset %s %s: empty reason", mode, preset, a.Tool)
				}
				n++
			}
			// The rendered matrix must agree with the decisions.
			m := Policy{Preset: preset}.Matrix(mode)
			for i, name := range []string{"read / search", "edit (write, edit, patch)", "bash read-only", "bash unknown", "bash dangerous"} {
				line := lineWith(m, name)
				if !strings.Contains(line, " "+string(letter[want[i]])) {
					t.Errorf("Matrix(%s) preset %s: line %q, want %s", mode, preset, line, letter[want[i]])
				}
			}
		}
	}
	if n != 80 {
		t.Fatalf("checked %d cells", n)
	}
}

func lineWith(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), prefix) {
			return l
		}
	}
	return ""
}

func TestDangerousAskIsFlagged(t *testing.T) {
	v := Evaluate(ModeDefault, Policy{Preset: PresetBalanced}, bashDanger, root)
	if !v.Dangerous || !strings.Contains(v.Reason, "DANGEROUS") || v.Analysis == nil || len(v.Keys) != 0 {
		t.Errorf("dangerous ask: %+v", v)
	}
	if !strings.Contains(v.Scope, "never remembered") {
		t.Errorf("scope %q", v.Scope)
	}
}

func TestPlanModeRefusesWrites(t *testing.T) {
	p := Policy{Preset: PresetYolo}
	for tool := range editTools {
		v := Evaluate(ModePlan, p, Action{Tool: tool, Paths: []string{"a.go"}}, root)
		if v.Decision != Deny || !strings.Contains(v.Reason, "plan mode") {
			t.Errorf("plan %s: %s %q", tool, v.Decision, v.Reason)
		}
	}
	for _, cmd := range []string{"echo x > f", "tee f", "sed -i s/a/b/ f", "rm f", "rm -rf x", "mv a b", "cp a b",
		"touch f", "mkdir d", "git commit -m x", "go test ./...", "ls; touch x", "ls (", "npm install", "git push"} {
		v := Evaluate(ModePlan, p, Action{Tool: "bash", Command: cmd}, root)
		if v.Decision != Deny || !strings.Contains(v.Reason, "plan mode") {
			t.Errorf("plan bash %q: %s %q", cmd, v.Decision, v.Reason)
		}
	}
	for _, cmd := range []string{"ls", "git status", "cat a | grep b", "rg foo"} {
		if v := Evaluate(ModePlan, Policy{}, Action{Tool: "bash", Command: cmd}, root); v.Decision != Allow {
			t.Errorf("plan read-only %q: %s %q", cmd, v.Decision, v.Reason)
		}
	}
}

func TestOfferedTools(t *testing.T) {
	all := []string{"read", "write", "edit", "patch", "bash", "grep", "todo", PlanTool}
	if got := OfferedTools(ModePlan, all); !slices.Equal(got, []string{"read", "bash", "grep", "todo", PlanTool}) {
		t.Errorf("plan offers %v", got)
	}
	for _, m := range []Mode{ModeDefault, ModeAutoEdit, ModeYolo} {
		if got := OfferedTools(m, all); !slices.Equal(got, all[:len(all)-1]) {
			t.Errorf("%s offers %v", m, got)
		}
	}
}

func TestOutsideWorkspaceDeniedInEveryMode(t *testing.T) {
	for _, mode := range Modes {
		for _, path := range []string{"../x", "/etc/passwd", "~/.bashrc", "a/../../b"} {
			for _, tool := range []string{"read", "write"} {
				v := Evaluate(mode, Policy{Preset: PresetYolo}, Action{Tool: tool, Paths: []string{path}}, root)
				if v.Decision != Deny || !strings.Contains(v.Reason, "outside the workspace") && !(mode == ModePlan && tool == "write") {
					t.Errorf("%s %s %s: %s %q", mode, tool, path, v.Decision, v.Reason)
				}
			}
		}
	}
	if v := Evaluate(ModeAutoEdit, Policy{}, Action{Tool: "write", Paths: []string{root + "/src/a.go"}}, root); v.Decision != Allow {
		t.Errorf("absolute path inside workspace: %s %q", v.Decision, v.Reason)
	}
}

func TestGitDirEditsAsk(t *testing.T) {
	v := Evaluate(ModeAutoEdit, Policy{Preset: PresetAutoEdit}, Action{Tool: "write", Paths: []string{".git/hooks/pre-commit"}}, root)
	if v.Decision != Ask {
		t.Errorf(".git edit in auto-edit: %s", v.Decision)
	}
}

func TestRulesPrecedence(t *testing.T) {
	p := Policy{Preset: PresetBalanced, Rules: []Rule{
		{Tool: "bash", Pattern: "go *", Decision: Allow},
		{Tool: "bash", Pattern: "go test*", Decision: Ask},
		{Tool: "bash", Pattern: "go test -race*", Decision: Deny},
		{Tool: "bash", Pattern: "rm *", Decision: Allow},
		{Tool: "bash", Pattern: "cat *", Decision: Deny},
		{Tool: "write", Pattern: "docs/**", Decision: Allow},
		{Tool: "*", Pattern: "secrets/**", Decision: Deny},
	}}
	tests := []struct {
		mode Mode
		a    Action
		want Decision
	}{
		{ModeDefault, Action{Tool: "bash", Command: "go build ./..."}, Allow},
		{ModeDefault, Action{Tool: "bash", Command: "go test ./..."}, Ask},
		{ModeDefault, Action{Tool: "bash", Command: "go test -race ./..."}, Deny},
		{ModeDefault, Action{Tool: "bash", Command: "go build && go test -race"}, Deny},
		{ModeDefault, Action{Tool: "bash", Command: "go build && npm i"}, Ask},
		{ModeDefault, Action{Tool: "bash", Command: "rm f"}, Allow},
		{ModeDefault, Action{Tool: "bash", Command: "rm -rf f"}, Ask}, // rules never lower dangerous
		{ModeDefault, Action{Tool: "bash", Command: "cat README"}, Deny},
		{ModeDefault, Action{Tool: "bash", Command: "ls | cat"}, Deny},
		{ModeYolo, Action{Tool: "bash", Command: "cat README"}, Allow}, // yolo skips bash policy
		{ModeDefault, Action{Tool: "write", Paths: []string{"docs/a.md"}}, Allow},
		{ModeDefault, Action{Tool: "write", Paths: []string{"src/a.go"}}, Ask},
		{ModeDefault, Action{Tool: "write", Paths: []string{"docs/a.md", "src/a.go"}}, Ask},
		{ModeAutoEdit, Action{Tool: "write", Paths: []string{"secrets/k"}}, Deny},
		{ModeYolo, Action{Tool: "read", Paths: []string{"secrets/k"}}, Deny},
	}
	for _, tc := range tests {
		v := Evaluate(tc.mode, p, tc.a, root)
		if v.Decision != tc.want {
			t.Errorf("%s %s %q %v: %s (%s), want %s", tc.mode, tc.a.Tool, tc.a.Command, tc.a.Paths, v.Decision, v.Reason, tc.want)
		}
	}
	strict := p
	strict.Preset = PresetStrict
	if v := Evaluate(ModeDefault, strict, Action{Tool: "bash", Command: "rm -rf f"}, root); v.Decision != Deny {
		t.Errorf("strict dangerous with allow rule: %s", v.Decision)
	}
	if v := Evaluate(ModeDefault, p, Action{Tool: "bash", Command: "go test -race"}, root); !strings.Contains(v.Reason, "Do not retry") {
		t.Errorf("deny reason for the model: %q", v.Reason)
	}
}

func TestNarrowNeverWidens(t *testing.T) {
	session := Policy{Preset: PresetBalanced, Rules: []Rule{{Tool: "bash", Pattern: "go test*", Decision: Allow}, {Tool: "bash", Pattern: "npm *", Decision: Deny}}}
	convs := []Policy{
		{Preset: PresetYolo},
		{Preset: PresetStrict},
		{Preset: PresetAutoEdit, Rules: []Rule{{Tool: "bash", Pattern: "npm *", Decision: Allow}, {Tool: "*", Pattern: "", Decision: Allow}}},
		{Preset: PresetBalanced, Rules: []Rule{{Tool: "write", Pattern: "src/**", Decision: Deny}}},
	}
	acts := []Action{readAct, editAct, bashRO, bashUnk, bashDanger,
		{Tool: "bash", Command: "npm install"}, {Tool: "bash", Command: "go test ./..."},
		{Tool: "web_fetch"}, {Tool: "write", Paths: []string{"README.md"}}}
	for ci, conv := range convs {
		n := Narrow(session, conv)
		for _, mode := range Modes {
			for _, a := range acts {
				got := Evaluate(mode, n, a, root).Decision
				s := Evaluate(mode, session, a, root).Decision
				c := Evaluate(mode, conv, a, root).Decision
				if got != Stricter(s, c) {
					t.Errorf("conv %d mode %s %s %q: narrowed %s, session %s, conversation %s", ci, mode, a.Tool, a.Command, got, s, c)
				}
			}
		}
	}
	// Concretely: a yolo conversation inside a balanced session still asks.
	if v := Evaluate(ModeDefault, Narrow(session, Policy{Preset: PresetYolo}), bashDanger, root); v.Decision != Ask {
		t.Errorf("yolo conversation widened a balanced session: %s", v.Decision)
	}
	// The matrix shows the narrowed cells.
	if line := lineWith(Narrow(Policy{Preset: PresetStrict}, Policy{Preset: PresetYolo}).Matrix(ModeDefault), "bash dangerous"); !strings.Contains(line, "deny") {
		t.Errorf("narrowed matrix: %q", line)
	}
}

func TestValidate(t *testing.T) {
	good := Policy{Preset: "strict", Rules: []Rule{{Tool: "bash", Pattern: "git push*", Decision: Deny}, {Tool: "write", Pattern: "src/**", Decision: Allow}}}
	if err := good.Validate(); err != nil {
		t.Errorf("valid policy: %v", err)
	}
	if err := (Policy{}).Validate(); err != nil {
		t.Errorf("zero policy: %v", err)
	}
	bad := Policy{Preset: "loose", Rules: []Rule{{Tool: "", Decision: Allow}, {Tool: "bash", Decision: "maybe"}, {Tool: "write", Pattern: "src/[", Decision: Ask}}}
	err := bad.Validate()
	if err == nil {
		t.Fatal("invalid policy accepted")
	}
	for _, want := range []string{"loose", "rules[0]: tool is empty", `rules[1]: decision "maybe"`, `rules[2]: pattern "src/["`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestParse(t *testing.T) {
	if m, err := ParseMode(" Auto-Edit "); err != nil || m != ModeAutoEdit {
		t.Errorf("ParseMode: %v %v", m, err)
	}
	if _, err := ParseMode("turbo"); err == nil {
		t.Error("ParseMode accepted turbo")
	}
	if p, err := ParsePreset("STRICT"); err != nil || p != PresetStrict {
		t.Errorf("ParsePreset: %v %v", p, err)
	}
	if _, err := ParsePreset("open"); err == nil {
		t.Error("ParsePreset accepted open")
	}
	if v := Evaluate("turbo", Policy{}, readAct, root); v.Decision != Deny {
		t.Errorf("unknown mode: %s", v.Decision)
	}
	for in, want := range map[string]Answer{"y": AnswerOnce, "YES": AnswerOnce, "n": AnswerDeny, "no": AnswerDeny, "a": AnswerAlways, "always": AnswerAlways} {
		if got, err := ParseAnswer(in); err != nil || got != want {
			t.Errorf("ParseAnswer(%q) = %v %v", in, got, err)
		}
	}
	if _, err := ParseAnswer("maybe"); err == nil {
		t.Error("ParseAnswer accepted maybe")
	}
}

func TestWildcard(t *testing.T) {
	tests := []struct {
		p, s string
		want bool
	}{
		{"git push*", "git push --force", true},
		{"git push*", "git pull", false},
		{"npm run *", "npm run test", true},
		{"npm run *", "npm runx", false},
		{"*test*", "go test ./...", true},
		{"go ? x", "go a x", true},
		{"npm run *", "npm run", true},
		{"cat *", "cat", true},
		{"cat *", "catx", false},
		{"日本*", "日本語", true},
	}
	for _, tc := range tests {
		if got := ruleMatches(tc.p, tc.s, true); got != tc.want {
			t.Errorf("wildcard(%q, %q) = %v", tc.p, tc.s, got)
		}
	}
}

func TestSettle(t *testing.T) {
	v := Evaluate(ModeDefault, Policy{}, bashUnk, root)
	if Settle(v, bashUnk, nil, true) != Ask {
		t.Error("interactive ask should prompt")
	}
	if Settle(v, bashUnk, nil, false) != Allow {
		t.Error("non-interactive ask should be allowed")
	}
	d := Evaluate(ModeDefault, Policy{Preset: PresetStrict}, bashDanger, root)
	if Settle(d, bashDanger, nil, false) != Deny {
		t.Error("non-interactive must not turn deny into allow")
	}
	if !strings.Contains(DeniedByUser(bashUnk), "go test") {
		t.Error("DeniedByUser should name the command")
	}
}

func BenchmarkEvaluateBash(b *testing.B) {
	p := Policy{Preset: PresetBalanced, Rules: []Rule{{Tool: "bash", Pattern: "go test*", Decision: Allow}}}
	a := Action{Tool: "bash", Command: "cd sub && go test ./... 2>&1 | tail -n 50; git status"}
	for b.Loop() {
		Evaluate(ModeDefault, p, a, root)
	}
}

// Rules see through wrappers: a deny rule on the command still applies
// under sudo, and an allow rule on the bare command does not extend to
// sudo or to PATH=... settings.
func TestRulesWithContext(t *testing.T) {
	p := Policy{Rules: []Rule{
		{Tool: "bash", Pattern: "rm *", Decision: Deny},
		{Tool: "bash", Pattern: "npm *", Decision: Allow},
		{Tool: "bash", Pattern: "sudo *", Decision: Deny},
	}}
	tests := []struct {
		cmd  string
		want Decision
	}{
		{"rm x", Deny},
		{"sudo rm x", Deny},
		{"npm install", Allow},
		{"PATH=/tmp/evil npm install", Ask},
		{"sudo npm install", Deny},
		{"sudo -u root ls", Deny},
	}
	for _, tc := range tests {
		v := Evaluate(ModeDefault, p, Action{Tool: "bash", Command: tc.cmd}, root)
		if v.Decision != tc.want {
			t.Errorf("%q: %s (%s), want %s", tc.cmd, v.Decision, v.Reason, tc.want)
		}
	}
}

// Global options before a subcommand do not dodge a deny or ask rule, and
// do not widen an allow rule.
func TestRulesSeeThroughGlobalOptions(t *testing.T) {
	p := Policy{Rules: []Rule{
		{Tool: "bash", Pattern: "git push*", Decision: Deny},
		{Tool: "bash", Pattern: "git commit *", Decision: Ask},
		{Tool: "bash", Pattern: "go build*", Decision: Allow},
	}}
	tests := []struct {
		cmd  string
		want Decision
	}{
		{"git push origin main", Deny},
		{"git -C . push origin main", Deny},
		{"git --no-pager -C sub push", Deny},
		{"git -C . commit -m x", Ask},
		{"go build ./...", Allow},
		{"go -C sub build ./...", Ask}, // an allow rule matches the command as written only
	}
	for _, tc := range tests {
		v := Evaluate(ModeDefault, p, Action{Tool: "bash", Command: tc.cmd}, root)
		if v.Decision != tc.want {
			t.Errorf("%q: %s (%s), want %s", tc.cmd, v.Decision, v.Reason, tc.want)
		}
	}
}

// TestAlwaysScopeText: the float says what "always" covers as the README
// and :help do: a file's directory, or a file at the root alone.
func TestAlwaysScopeText(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"main.go", "write on `main.go` only (a file at the workspace root)"},
		{"src/api/a.go", "write on files under `src/api/`"},
	} {
		v := Evaluate(ModeDefault, Policy{}, Action{Tool: "write", Kind: KindEdit, Paths: []string{tc.path}}, "/w")
		if v.Decision != Ask || !strings.HasPrefix(v.Scope, tc.want) {
			t.Errorf("%s: scope %q, want it to start with %q", tc.path, v.Scope, tc.want)
		}
	}
}
