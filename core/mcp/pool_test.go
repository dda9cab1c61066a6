package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func state(p *Pool, name string) ServerStatus {
	for _, st := range p.Status() {
		if st.Name == name {
			return st
		}
	}
	return ServerStatus{}
}

func newPool(t *testing.T, opts Options) *Pool {
	t.Helper()
	if opts.Root == "" {
		opts.Root = t.TempDir()
	}
	p := New(opts)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// httpServer serves the shared test tools over streamable HTTP on
// loopback; it refuses requests without the bearer token. block, when
// set, is a tool that waits for release.
func httpServer(t *testing.T, started chan<- struct{}, release <-chan struct{}) string {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "web-test", Version: "1"}, nil)
	addTestTools(s)
	if started != nil {
		s.AddTool(&sdk.Tool{Name: "block", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			started <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
			}
			return text("released"), nil
		})
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer secret" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func ready(t *testing.T, p *Pool, names ...string) *Catalog {
	t.Helper()
	for _, n := range names {
		waitFor(t, n+" ready", func() bool { return state(p, n).State == StateReady })
	}
	cat, _ := p.Advance()
	return cat
}

func TestStdioAndHTTPServers(t *testing.T) {
	log := &syncBuf{}
	url := httpServer(t, nil, nil)
	p := newPool(t, Options{Log: log, Servers: map[string]ServerConfig{
		"local": stdioServer(t, nil),
		"web":   {URL: url, Headers: map[string]string{"Authorization": "Bearer secret"}},
		"off":   {Command: "does-not-exist", Disabled: true},
	}})
	if got := p.Catalog().Names(); len(got) != 0 {
		t.Fatalf("catalog before the first boundary = %v, want empty", got)
	}
	cat := ready(t, p, "local", "web")
	names := cat.Names()
	if !sortedEqual(names) || names[0] != "local__big" || !contains(names, "web__echo") || !contains(names, "local__pids") {
		t.Fatalf("names = %v, want sorted local__… then web__…", names)
	}
	if st := state(p, "off"); st.State != StateDisabled {
		t.Errorf("disabled server state = %q", st.State)
	}
	echo, _ := cat.Lookup("web__echo")
	if !echo.ReadOnly || echo.Server != "web" || echo.Name != "echo" {
		t.Errorf("web__echo = %+v, want read-only tool echo of web", echo)
	}
	v, err := p.View(nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tests := []struct {
		fqn, args string
		want      []string
		isErr     bool
		images    int
	}{
		{"local__echo", `{"text":"hi"}`, []string{"echo: hi"}, false, 0},
		{"web__echo", `{"text":"there"}`, []string{"echo: there"}, false, 0},
		{"web__weather", `{}`, []string{"sunny", "structured content:", `"sky":"clear"`, `"temp":21`}, false, 0},
		{"local__picture", `{}`, []string{"here it is", "[image 1: image/png,", "resource: file:///tmp/pic.png (pic.png, image/png)"}, false, 1},
		{"web__fail", `{}`, []string{"error: boom"}, true, 0},
		{"local__big", `{}`, []string{"[... result cut: 32768 of 102400 bytes shown]"}, false, 0},
		{"local__echo", `{"text":3}`, []string{"error:"}, true, 0},
		{"local__nope", `{}`, []string{"not offered"}, true, 0},
	}
	for _, tc := range tests {
		res := v.Call(ctx, cat, tc.fqn, json.RawMessage(tc.args), 0)
		for _, w := range tc.want {
			if !strings.Contains(res.Text, w) {
				t.Errorf("%s: result %q lacks %q", tc.fqn, truncate(res.Text, 300), w)
			}
		}
		if res.IsError != tc.isErr || len(res.Images) != tc.images {
			t.Errorf("%s: IsError=%v images=%d, want %v %d", tc.fqn, res.IsError, len(res.Images), tc.isErr, tc.images)
		}
		if tc.images > 0 && !strings.HasPrefix(res.Images[0].URL, "data:image/png;base64,") {
			t.Errorf("%s: image URL %q", tc.fqn, truncate(res.Images[0].URL, 40))
		}
	}
	if !strings.Contains(log.String(), "mcp local: test server starting") {
		t.Errorf("stderr not in the log:\n%s", log.String())
	}
}

func TestHTTPServerWithoutTokenFails(t *testing.T) {
	url := httpServer(t, nil, nil)
	p := newPool(t, Options{MaxAttempts: 1, Servers: map[string]ServerConfig{"web": {URL: url}}})
	waitFor(t, "failed", func() bool { return state(p, "web").State == StateFailed })
	if st := state(p, "web"); !strings.Contains(st.LastError, "401") && !strings.Contains(strings.ToLower(st.LastError), "unauthorized") {
		t.Errorf("last error = %q, want the 401", st.LastError)
	}
}

func TestConflictAndDuplicate(t *testing.T) {
	for _, tc := range []struct {
		name      string
		v1, v2    string
		wantOffer bool
		wantClash bool
	}{
		{"identical", "x", "x", true, false},
		{"different", "x", "y", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPool(t, Options{Servers: map[string]ServerConfig{
				"p":    stdioServer(t, map[string]string{"VARIANT": tc.v1, "TOOLNAME": "q__same"}),
				"p__q": stdioServer(t, map[string]string{"VARIANT": tc.v2, "TOOLNAME": "same"}),
			}})
			cat := ready(t, p, "p", "p__q")
			tool, ok := cat.Lookup("p__q__same")
			if ok != tc.wantOffer || (len(cat.Conflicts) > 0) != tc.wantClash {
				t.Fatalf("offered=%v conflicts=%v", ok, cat.Conflicts)
			}
			if ok && tool.Server != "p" {
				t.Errorf("collapsed duplicate kept server %q, want p (first by name)", tool.Server)
			}
			if tc.wantClash && !strings.Contains(cat.Conflicts[0].String(), "p/q__same and p__q/same") {
				t.Errorf("conflict = %q", cat.Conflicts[0])
			}
			n := 0
			for _, name := range cat.Names() {
				if name == "p__q__same" {
					n++
				}
			}
			if n > 1 {
				t.Errorf("p__q__same offered %d times", n)
			}
		})
	}
}

func TestCrashRestart(t *testing.T) {
	release := make(chan struct{})
	p := newPool(t, Options{
		Servers: map[string]ServerConfig{"local": stdioServer(t, nil)},
		Backoff: func(int) time.Duration { <-release; return 0 },
	})
	cat := ready(t, p, "local")
	v, _ := p.View(nil)
	ctx := context.Background()
	pids := strings.Fields(v.Call(ctx, cat, "local__pids", nil, 0).Text)
	if len(pids) != 2 {
		t.Fatalf("pids = %v", pids)
	}
	res := v.Call(ctx, cat, "local__crash", nil, 0)
	if !res.IsError {
		t.Errorf("crash call = %+v, want an error", res)
	}
	waitFor(t, "restarting", func() bool { return state(p, "local").State == StateRestarting })
	res = v.Call(ctx, cat, "local__echo", json.RawMessage(`{"text":"x"}`), 0)
	if !res.IsError || !strings.Contains(res.Text, "MCP server local is not available right now") || !strings.Contains(res.Text, "crashing on purpose") {
		t.Errorf("call during the outage = %q, want a clear error naming the server and its last words", res.Text)
	}
	for _, s := range pids {
		pid, _ := strconv.Atoi(s)
		waitFor(t, "crashed server's processes gone", func() bool { return !alive(pid) })
	}
	if got, _ := p.Advance(); len(got.Tools) != len(cat.Tools) {
		t.Errorf("tools during the outage: %d, want %d (kept)", len(got.Tools), len(cat.Tools))
	}
	close(release)
	waitFor(t, "restarted", func() bool { st := state(p, "local"); return st.State == StateReady && st.Starts == 2 })
	res = v.Call(ctx, cat, "local__echo", json.RawMessage(`{"text":"again"}`), 0)
	if res.Text != "echo: again" {
		t.Errorf("after restart: %q", res.Text)
	}
}

func TestSlowAndFailingStart(t *testing.T) {
	p := newPool(t, Options{
		StartTimeout: 3 * time.Second,
		MaxAttempts:  1,
		Servers: map[string]ServerConfig{
			"fast":   stdioServer(t, nil),
			"slow":   stdioServer(t, map[string]string{"SLOW_START": "1s"}),
			"stuck":  stdioServer(t, map[string]string{"SLOW_START": "1h"}),
			"broken": stdioServer(t, map[string]string{"FAIL_START": "1"}),
		},
	})
	cat := ready(t, p, "fast")
	if st := state(p, "slow"); st.State == StateReady {
		t.Skip("the slow server was ready as soon as the fast one; machine too slow to tell")
	}
	for _, n := range cat.Names() {
		if strings.HasPrefix(n, "slow__") {
			t.Fatalf("slow server's tool %s offered before it started", n)
		}
	}
	waitFor(t, "slow ready", func() bool { return state(p, "slow").State == StateReady })
	if p.Catalog() != cat {
		t.Fatal("the catalog changed between turn boundaries")
	}
	next, changed := p.Advance()
	if !changed || !contains(next.Names(), "slow__echo") {
		t.Fatalf("after the boundary: changed=%v names=%v", changed, next.Names())
	}
	waitFor(t, "stuck failed", func() bool { return state(p, "stuck").State == StateFailed })
	if st := state(p, "stuck"); !strings.Contains(st.LastError, "did not start within 3s") {
		t.Errorf("stuck: %q", st.LastError)
	}
	waitFor(t, "broken failed", func() bool { return state(p, "broken").State == StateFailed })
	if st := state(p, "broken"); !strings.Contains(st.LastError, "cannot start: FAIL_START is set") {
		t.Errorf("broken: %q, want its stderr", st.LastError)
	}
}

func TestToolListChangedAppliesAtBoundary(t *testing.T) {
	notices := make(chan Notice, 10)
	p := newPool(t, Options{Servers: map[string]ServerConfig{"local": stdioServer(t, nil)}, OnNotice: func(n Notice) { notices <- n }})
	cat := ready(t, p, "local")
	v, _ := p.View(nil)
	if res := v.Call(context.Background(), cat, "local__grow", nil, 0); res.IsError {
		t.Fatal(res.Text)
	}
	waitFor(t, "tools changed", func() bool {
		for {
			select {
			case n := <-notices:
				if n.Kind == NoticeToolsChanged {
					return true
				}
			default:
				return false
			}
		}
	})
	if contains(p.Catalog().Names(), "local__grown") {
		t.Fatal("new tool visible before the turn boundary")
	}
	next, changed := p.Advance()
	if !changed || !contains(next.Names(), "local__grown") {
		t.Fatalf("after boundary: %v %v", changed, next.Names())
	}
	if _, again := p.Advance(); again {
		t.Error("a second boundary without news reported a change")
	}
}

func TestLimits(t *testing.T) {
	started, release := make(chan struct{}, 4), make(chan struct{})
	url := httpServer(t, started, release)
	now := time.Unix(1000, 0)
	var nowMu sync.Mutex
	clock := func() time.Time { nowMu.Lock(); defer nowMu.Unlock(); return now }
	p := newPool(t, Options{
		Now:     clock,
		Limits:  Limits{Concurrent: 1, CallsPerMinute: 2, SessionConcurrent: 1, SessionCallsPerMinute: 100},
		Servers: map[string]ServerConfig{"web": {URL: url, Headers: map[string]string{"Authorization": "Bearer secret"}}},
	})
	cat := ready(t, p, "web")
	ctx := context.Background()
	a, _ := p.View(nil)
	b, _ := p.View(nil)
	echo := json.RawMessage(`{"text":"x"}`)

	// Calls per minute, per view.
	for i := 0; i < 2; i++ {
		if res := a.Call(ctx, cat, "web__echo", echo, 0); res.IsError {
			t.Fatal(res.Text)
		}
	}
	res := a.Call(ctx, cat, "web__echo", echo, 0)
	if !res.IsError || !strings.Contains(res.Text, "MCP rate limit: this conversation made 2 calls in the last minute") {
		t.Errorf("third call = %q", res.Text)
	}
	nowMu.Lock()
	now = now.Add(61 * time.Second)
	nowMu.Unlock()

	// Concurrency: one call running blocks the view's next and, through
	// the session cap, the other view's.
	done := make(chan Result)
	go func() { done <- a.Call(ctx, cat, "web__block", nil, 0) }()
	<-started
	if res := a.Call(ctx, cat, "web__echo", echo, 0); !strings.Contains(res.Text, "this conversation already has 1 calls running") {
		t.Errorf("second concurrent call in the view = %q", res.Text)
	}
	if res := b.Call(ctx, cat, "web__echo", echo, 0); !strings.Contains(res.Text, "this session already has 1 calls running") {
		t.Errorf("call in another view over the session cap = %q", res.Text)
	}
	close(release)
	if res := <-done; res.Text != "released" {
		t.Errorf("blocked call = %q", res.Text)
	}
	if res := b.Call(ctx, cat, "web__echo", echo, 0); res.IsError {
		t.Errorf("after release: %q", res.Text)
	}
}

func TestViews(t *testing.T) {
	p := newPool(t, Options{Servers: map[string]ServerConfig{"local": stdioServer(t, nil), "later": stdioServer(t, map[string]string{"SLOW_START": "1h"})}})
	cat := ready(t, p, "local")
	names, deprecated, bad := NormalizeAllowlist([]string{"local/echo", "local__weather", "local__echo"})
	if !deprecated || len(bad) != 0 || fmt.Sprint(names) != "[local__echo local__weather]" {
		t.Fatalf("normalize = %v %v %v", names, deprecated, bad)
	}
	v, err := p.View(names)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tl := range v.Tools(cat) {
		got = append(got, tl.FQN)
	}
	if fmt.Sprint(got) != "[local__echo local__weather]" {
		t.Errorf("view tools = %v", got)
	}
	if res := v.Call(context.Background(), cat, "local__fail", nil, 0); !res.IsError || !strings.Contains(res.Text, "not offered in this conversation") {
		t.Errorf("call outside the view = %q", res.Text)
	}
	all, _ := p.View(nil)
	if len(all.Tools(cat)) != len(cat.Tools) {
		t.Error("the default view does not see everything")
	}
	if _, err := p.View([]string{"local__nope", "ghost__x", "local__echo", "later__anything"}); err == nil || !strings.Contains(err.Error(), "local__nope, ghost__x") || strings.Contains(err.Error(), "later__") {
		t.Errorf("unknown names: %v", err)
	}
}

func TestCloseLeavesNoProcess(t *testing.T) {
	p := New(Options{Root: t.TempDir(), Servers: map[string]ServerConfig{"local": stdioServer(t, nil), "slow": stdioServer(t, map[string]string{"SLOW_START": "1h"})}})
	cat := ready(t, p, "local")
	v, _ := p.View(nil)
	pids := strings.Fields(v.Call(context.Background(), cat, "local__pids", nil, 0).Text)
	if len(pids) != 2 {
		t.Fatalf("pids = %v", pids)
	}
	start := time.Now()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Close took %s", d)
	}
	for _, s := range pids {
		pid, _ := strconv.Atoi(s)
		waitFor(t, "process "+s+" gone", func() bool { return !alive(pid) })
	}
	if st := state(p, "local"); st.State != StateStopped {
		t.Errorf("state after Close = %q", st.State)
	}
	if res := v.Call(context.Background(), cat, "local__echo", nil, 0); !res.IsError {
		t.Errorf("call after Close = %q", res.Text)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortedEqual(list []string) bool {
	for i := 1; i < len(list); i++ {
		if list[i-1] >= list[i] {
			return false
		}
	}
	return true
}

// TestIdleOut: a server whose last view is released stops after the idle
// timeout (its processes gone), one that a view still holds does not, and
// a new view starts the idle one again.
func TestIdleOut(t *testing.T) {
	p := newPool(t, Options{IdleTimeout: 50 * time.Millisecond, Servers: map[string]ServerConfig{
		"local": stdioServer(t, nil), "kept": stdioServer(t, nil)}})
	cat := ready(t, p, "local", "kept")
	ctx := context.Background()
	v, err := p.View([]string{"local__pids", "local__echo"})
	if err != nil {
		t.Fatal(err)
	}
	held, _ := p.View([]string{"kept__echo"})
	pids := strings.Fields(v.Call(ctx, cat, "local__pids", nil, 0).Text)
	if len(pids) != 2 {
		t.Fatalf("pids = %v", pids)
	}
	v.Release()
	v.Release() // a second release takes nothing more
	waitFor(t, "local idle", func() bool { return state(p, "local").State == StateIdle })
	for _, s := range pids {
		pid, _ := strconv.Atoi(s)
		waitFor(t, "idle server's processes gone", func() bool { return !alive(pid) })
	}
	if st := state(p, "kept"); st.State != StateReady {
		t.Errorf("a held server idled out: %+v", st)
	}
	again, err := p.View([]string{"local__echo"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "local started again", func() bool { st := state(p, "local"); return st.State == StateReady && st.Starts == 2 })
	if res := again.Call(ctx, cat, "local__echo", json.RawMessage(`{"text":"back"}`), 0); res.Text != "echo: back" {
		t.Errorf("after waking: %q", res.Text)
	}
	if res := held.Call(ctx, cat, "kept__echo", json.RawMessage(`{"text":"x"}`), 0); res.Text != "echo: x" {
		t.Errorf("held server: %q", res.Text)
	}
}

// TestCloseFailureWarned (seed 004 §14): a session that does not close
// cleanly is reported, named, by Close, and by a notice when the pool
// closes it on idling out; a clean one is not.
func TestCloseFailureWarned(t *testing.T) {
	var mu sync.Mutex
	var notices []Notice
	p := New(Options{Root: t.TempDir(), IdleTimeout: 50 * time.Millisecond, OnNotice: func(n Notice) {
		mu.Lock()
		notices = append(notices, n)
		mu.Unlock()
	}, Servers: map[string]ServerConfig{
		"bad": stdioServer(t, map[string]string{"FAIL_CLOSE": "1"}), "idler": stdioServer(t, map[string]string{"FAIL_CLOSE": "1"}),
		"good": stdioServer(t, nil)}})
	ready(t, p, "bad", "idler", "good")
	held, err := p.View([]string{"bad__echo", "good__echo"})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	v, err := p.View([]string{"idler__echo"})
	if err != nil {
		t.Fatal(err)
	}
	v.Release() // idler idles out: the pool closes it
	closeFailed := func() []string {
		mu.Lock()
		defer mu.Unlock()
		var out []string
		for _, n := range notices {
			if n.Kind == NoticeCloseFailed {
				out = append(out, n.Server+": "+n.Text)
			}
		}
		return out
	}
	waitFor(t, "idler's close warned about", func() bool { return len(closeFailed()) > 0 })
	if got := closeFailed(); len(got) != 1 || !strings.HasPrefix(got[0], "idler: ") || !strings.Contains(got[0], "exit status 4") {
		t.Errorf("close notices %q", got)
	}
	err = p.Close()
	if err == nil || !strings.Contains(err.Error(), "MCP server bad did not close cleanly") || !strings.Contains(err.Error(), "exit status 4") || strings.Contains(err.Error(), "good") {
		t.Errorf("Close = %v, want bad's failure only", err)
	}
}
