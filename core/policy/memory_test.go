package policy

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newClock() *clock { return &clock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)} }

func bash(cmd, conv string) Action {
	return Action{Tool: "bash", Kind: KindExecute, Command: cmd, Conversation: conv}
}

// approveAlways evaluates a, answers "always" and checks the keys.
func approveAlways(t *testing.T, m *Memory, p Policy, a Action) Verdict {
	t.Helper()
	v := Evaluate(ModeDefault, p, a, root)
	if v.Decision != Ask {
		t.Fatalf("%q: %s, want ask", a.Command, v.Decision)
	}
	if m.Apply(AnswerAlways, v) != Allow {
		t.Fatal("always should allow")
	}
	return v
}

func covered(m *Memory, p Policy, a Action) bool {
	return m.Covers(a, Evaluate(ModeDefault, p, a, root))
}

func TestMemoryBashPrefix(t *testing.T) {
	m := NewMemory(newClock().now)
	p := Policy{}
	v := approveAlways(t, m, p, bash("git push origin main", "c1"))
	if len(v.Keys) != 1 || !slices.Equal(v.Keys[0].Path, []string{"git", "push"}) {
		t.Fatalf("keys %+v", v.Keys)
	}
	if v.Scope != "bash commands starting with `git push` in this session" {
		t.Errorf("scope %q", v.Scope)
	}
	tests := []struct {
		cmd  string
		want bool
	}{
		{"git push", true},
		{"git push origin feature", true},
		{"FOO=1 git -C sub push", true},
		{"git pull", false},
		{"git push --force", false}, // dangerous is never covered
		{"git push && git push origin x", true},
		{"git push && npm install", false}, // every part must be covered
		{"ls && git push", true},           // read-only parts need no key
		{"git push; rm -rf /", false},
	}
	for _, tc := range tests {
		if got := covered(m, p, bash(tc.cmd, "c2")); got != tc.want {
			t.Errorf("covers %q = %v, want %v", tc.cmd, got, tc.want)
		}
	}
	approveAlways(t, m, p, bash("npm install", ""))
	if !covered(m, p, bash("git push && npm install", "")) {
		t.Error("compound with both parts remembered should be covered")
	}
	if got := Settle(Evaluate(ModeDefault, p, bash("git push && npm install", ""), root), bash("git push && npm install", ""), m, true); got != Allow {
		t.Errorf("Settle with memory = %s", got)
	}
}

func TestMemoryNeverCoversDangerous(t *testing.T) {
	m := NewMemory(newClock().now)
	p := Policy{}
	v := Evaluate(ModeDefault, p, bash("rm -rf build", ""), root)
	m.Apply(AnswerAlways, v)
	if len(m.Keys()) != 0 {
		t.Errorf("dangerous always stored keys %+v", m.Keys())
	}
	// Even a hand-made key for rm does not cover rm -rf.
	m.Remember([]Key{{Tool: "bash", Path: []string{"rm"}}})
	if covered(m, p, bash("rm -rf build", "")) {
		t.Error("dangerous command covered")
	}
	if !covered(m, p, bash("rm build/x", "")) {
		t.Error("plain rm should be covered by the rm key")
	}
	if covered(m, p, bash("ls (", "")) {
		t.Error("unparseable command covered")
	}
}

func TestMemoryConversationScope(t *testing.T) {
	m := NewMemory(newClock().now)
	p := Policy{Remember: Remember{Conversation: true}}
	v := approveAlways(t, m, p, bash("go test ./...", "c1"))
	if v.Keys[0].Conversation != "c1" || v.Scope != "bash commands starting with `go test` in this conversation" {
		t.Errorf("keys %+v scope %q", v.Keys, v.Scope)
	}
	if !covered(m, p, bash("go test -run X", "c1")) {
		t.Error("same conversation not covered")
	}
	if covered(m, p, bash("go test -run X", "c2")) {
		t.Error("other conversation covered")
	}
	// Session scope covers every conversation.
	s := NewMemory(nil)
	approveAlways(t, s, Policy{}, bash("go test ./...", "c1"))
	if !covered(s, Policy{}, bash("go test", "c2")) {
		t.Error("session key should cover other conversations")
	}
}

func TestMemoryTTL(t *testing.T) {
	c := newClock()
	m := NewMemory(c.now)
	p := Policy{Remember: Remember{TTL: time.Hour}}
	v := approveAlways(t, m, p, bash("make build", ""))
	if v.Scope != "bash commands starting with `make build` in this session for 1h0m0s" {
		t.Errorf("scope %q", v.Scope)
	}
	if keys := m.Keys(); len(keys) != 1 || !keys[0].ExpiresAt.Equal(c.now().Add(time.Hour)) {
		t.Fatalf("keys %+v", keys)
	}
	c.add(59 * time.Minute)
	if !covered(m, p, bash("make build", "")) {
		t.Error("key expired early")
	}
	c.add(time.Minute)
	if covered(m, p, bash("make build", "")) {
		t.Error("expired key still covers")
	}
	if len(m.Keys()) != 0 {
		t.Error("expired key not dropped on lookup")
	}
	// Prune drops expired keys without a lookup.
	m.Remember([]Key{{Tool: "bash", Path: []string{"a"}, TTL: time.Second}, {Tool: "bash", Path: []string{"b"}}})
	c.add(2 * time.Second)
	m.Prune()
	m.mu.Lock()
	n := len(m.keys)
	m.mu.Unlock()
	if n != 1 {
		t.Errorf("after Prune %d keys, want 1", n)
	}
}

func TestMemoryFiles(t *testing.T) {
	m := NewMemory(nil)
	p := Policy{}
	a := Action{Tool: "write", Paths: []string{"src/api/h.go"}}
	v := Evaluate(ModeDefault, p, a, root)
	if v.Decision != Ask || len(v.Keys) != 1 || v.Keys[0].Path[0] != "src/api/**" {
		t.Fatalf("verdict %+v", v)
	}
	m.Apply(AnswerAlways, v)
	tests := []struct {
		tool  string
		paths []string
		want  bool
	}{
		{"write", []string{"src/api/other.go"}, true},
		{"write", []string{"src/api/deep/x.go"}, true},
		{"write", []string{"src/x.go"}, false},
		{"edit", []string{"src/api/h.go"}, false}, // keys are per tool
		{"write", []string{"src/api/a.go", "lib/b.go"}, false},
	}
	for _, tc := range tests {
		if got := covered(m, p, Action{Tool: tc.tool, Paths: tc.paths}); got != tc.want {
			t.Errorf("covers %s %v = %v, want %v", tc.tool, tc.paths, got, tc.want)
		}
	}
	// A root-level file is remembered exactly, not the whole workspace.
	root1 := Action{Tool: "write", Paths: []string{"main.go"}}
	m.Apply(AnswerAlways, Evaluate(ModeDefault, p, root1, root))
	if !covered(m, p, root1) || covered(m, p, Action{Tool: "write", Paths: []string{"other.go"}}) {
		t.Error("root-level file key should cover exactly that file")
	}
	if m.Apply(AnswerDeny, v) != Deny || m.Apply(AnswerOnce, v) != Allow {
		t.Error("Apply y/n")
	}
}

func TestMemoryConcurrent(t *testing.T) {
	m := NewMemory(nil)
	p := Policy{}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				cmd := fmt.Sprintf("tool%d run", (i+j)%5)
				m.Apply(AnswerAlways, Evaluate(ModeDefault, p, bash(cmd, ""), root))
				covered(m, p, bash(cmd, ""))
				m.Prune()
			}
		})
	}
	wg.Wait()
	if n := len(m.Keys()); n != 5 {
		t.Errorf("%d keys, want 5 (deduplicated)", n)
	}
}

// A remembered command must not cover the same command run under sudo or
// with variables that change what runs, nor abbreviated dangerous options.
func TestMemoryKeepsContext(t *testing.T) {
	m := NewMemory(newClock().now)
	p := Policy{}
	approveAlways(t, m, p, bash("npm run test", ""))
	approveAlways(t, m, p, bash("git push origin main", ""))
	tests := []struct {
		cmd  string
		want bool
	}{
		{"npm run test -- -v", true},
		{"sudo npm run test", false},
		{"PATH=/tmp/evil npm run test", false},
		{"env LD_PRELOAD=/tmp/x.so npm run test", false},
		{"GIT_SSH_COMMAND='sh -c x' git push", false},
		{"git push --forc", false},
		{"git push --force-w origin main", false},
		{"strace rm -rf x", false},
	}
	for _, tc := range tests {
		if got := covered(m, p, bash(tc.cmd, "")); got != tc.want {
			t.Errorf("covers %q = %v, want %v", tc.cmd, got, tc.want)
		}
	}
	v := approveAlways(t, m, p, bash("sudo apt-get install x", ""))
	if len(v.Keys) != 1 || !slices.Equal(v.Keys[0].Path, []string{"sudo", "apt-get", "install"}) {
		t.Fatalf("keys %+v, want sudo apt-get install", v.Keys)
	}
	if !covered(m, p, bash("sudo apt-get install y", "")) {
		t.Error("sudo apt-get install y should be covered by its own key")
	}
	if covered(m, p, bash("sudo rm x", "")) {
		t.Error("sudo rm x covered by sudo apt-get install")
	}
}

// TestMemoryNeverCoversExpandedProtectedTargets: "always" for `cp` covers
// an ordinary copy, never one whose target only names .git/, .coder/ or
// the user's own directories once the shell expands it, nor a user allow
// rule for `cp *`.
func TestMemoryNeverCoversExpandedProtectedTargets(t *testing.T) {
	m := NewMemory(newClock().now)
	p := Policy{}
	approveAlways(t, m, p, bash("cp a b", ""))
	if !covered(m, p, bash("cp a c", "")) {
		t.Fatal("the cp key does not cover an ordinary copy")
	}
	userDir := "/home/u/.config/coder"
	allow := Policy{Rules: []Rule{{Tool: "bash", Pattern: "cp *", Decision: Allow}}}
	for _, cmd := range []string{"cp a .g?t/config", "cp a {.git,x}/config", "cp a .c?der/skills/x/SKILL.md", "X=.git; cp a $X/config", "cp a " + userDir + "/config.json", "cp a /home/u/.config/c?der/config.json"} {
		a := bash(cmd, "")
		a.Protected = []string{userDir}
		v := Evaluate(ModeDefault, p, a, root)
		if !v.Dangerous || m.Covers(a, v) {
			t.Errorf("%q: dangerous %v, covered by the cp key %v", cmd, v.Dangerous, m.Covers(a, v))
		}
		if v := Evaluate(ModeDefault, allow, a, root); v.Decision != Ask {
			t.Errorf("%q under an allow rule for cp *: %s, want ask", cmd, v.Decision)
		}
	}
}
