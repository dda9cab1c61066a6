package nvimhost

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/neovim/go-client/nvim"
)

// hostBinary is the coder-nvim binary the tests drive: $CODER_NVIM_BIN
// (set by the Makefile), else one built by TestMain.
var hostBinary string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	if sock := os.Getenv(probeSockEnv); sock != "" {
		return probeMain(sock)
	}
	hostBinary = os.Getenv("CODER_NVIM_BIN")
	if hostBinary == "" {
		dir, err := os.MkdirTemp("", "coder-nvim-test-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "temp dir:", err)
			return 1
		}
		defer os.RemoveAll(dir)
		bin := filepath.Join(dir, "coder-nvim")
		cmd := exec.Command("go", "build", "-o", bin, "./cmd/coder-nvim")
		cmd.Dir = repoRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building the host failed (set CODER_NVIM_BIN to skip): %v\n%s", err, out)
		} else {
			hostBinary = bin
		}
	}
	code := m.Run()
	if code != 0 {
		// make test runs these tests on several Neovim versions: say which.
		fmt.Fprintf(os.Stderr, "FAIL: the failures above ran on %s (%s)\n", nvimVersion(), nvimCommand())
	}
	return code
}

// nvimCommand is the Neovim the tests start: $CODER_NVIM_NVIM (make test
// sets it to each Neovim version it prepared), else nvim on PATH.
func nvimCommand() string {
	if c := os.Getenv("CODER_NVIM_NVIM"); c != "" {
		return c
	}
	return "nvim"
}

// nvimVersion is the first line of `nvim --version` ("NVIM v0.10.4").
func nvimVersion() string {
	out, err := exec.Command(nvimCommand(), "--version").Output()
	if err != nil {
		return "an unknown Neovim"
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return line
}

func repoRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		return "../.."
	}
	return filepath.Dir(filepath.Dir(wd))
}

// editor is a headless Neovim with the plugin from this checkout, talking
// to a fake model server.
type editor struct {
	t    testing.TB
	v    *nvim.Nvim
	llm  *fakellm.Server
	dir  string // workspace: Neovim's cwd, a git repository
	sock string // --listen address when requested
}

type editorOpts struct {
	listen bool
	demo   bool   // no provider configured: the host runs the offline demo
	config string // .coder/config.json contents
	// userConfig is the user's own config.json ($XDG_CONFIG_HOME/coder).
	userConfig string
	// untrusted leaves config as a cloned repository's file would be:
	// not trusted by the user.
	untrusted bool
	setup     string // Lua table for setup(), without the cmd
	rtp       string // plugin directory to load instead of this checkout
	// pluginBin runs the plugin's own bin/coder-nvim (setup() without
	// cmd), as a user's installed plugin does.
	pluginBin bool
	// session starts Neovim in a session of its own, as a terminal
	// does. Linux's autogroups share the cores between sessions first:
	// in the test's session, Neovim would share one group's turn with
	// the fake model server, which a real user's editor never does.
	session bool
	// nice keeps setup()'s default host_nice. Other tests run the host
	// level with Neovim: on a machine loaded by other packages' tests, a
	// lowered host would be starved and its tests slowed.
	nice bool
}

func needNvim(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath(nvimCommand()); err != nil {
		t.Skip("nvim not installed (make deps installs it)")
	}
	if hostBinary == "" {
		t.Skip("no host binary: set CODER_NVIM_BIN or make `go build ./cmd/coder-nvim` work")
	}
}

func newEditor(t testing.TB, o editorOpts) *editor {
	t.Helper()
	needNvim(t)
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "work")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, _ = filepath.EvalSymlinks(dir)
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	if o.config != "" {
		writeFile(t, filepath.Join(dir, ".coder", "config.json"), o.config)
	}
	if o.config != "" && !o.untrusted {
		// The test's settings are the user's: trusted as `coder-nvim trust` does.
		state := map[string]string{"XDG_STATE_HOME": filepath.Join(tmp, "state")}
		if _, err := config.TrustWorkspace(dir, func(k string) string { return state[k] }); err != nil {
			t.Fatal(err)
		}
	}
	if o.userConfig != "" {
		writeFile(t, filepath.Join(tmp, "config", "coder", "config.json"), o.userConfig)
	}
	srv := fakellm.New()
	t.Cleanup(srv.Close)

	env := []string{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "OPENAI_") || strings.HasPrefix(k, "CODER_") || strings.HasPrefix(k, "XDG_") || k == "NVIM" || k == "NVIM_LISTEN_ADDRESS" || k == "VIMINIT" || k == "MYVIMRC" {
			continue
		}
		env = append(env, kv)
	}
	if !o.demo {
		env = append(env, "OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=test")
	}
	env = append(env,
		"XDG_CONFIG_HOME="+filepath.Join(tmp, "config"),
		"XDG_DATA_HOME="+filepath.Join(tmp, "data"),
		"XDG_STATE_HOME="+filepath.Join(tmp, "state"),
		"XDG_CACHE_HOME="+filepath.Join(tmp, "cache"),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
	)
	rtp := o.rtp
	if rtp == "" {
		rtp = repoRoot()
	}
	args := []string{"--embed", "--headless", "-u", "NONE", "-i", "NONE", "-n",
		"--cmd", "set rtp^=" + rtp, "--cmd", "runtime plugin/coder.lua"}
	e := &editor{t: t, llm: srv, dir: dir}
	if o.listen {
		e.sock = filepath.Join(tmp, "nvim.sock")
		args = append(args, "--listen", e.sock)
	}
	start := []nvim.ChildProcessOption{
		nvim.ChildProcessCommand(nvimCommand()),
		nvim.ChildProcessArgs(args...),
		nvim.ChildProcessDir(dir),
		nvim.ChildProcessEnv(env),
		nvim.ChildProcessLogf(func(string, ...any) {}),
	}
	if o.session {
		// setsid(1) execs nvim in place: the child is no group leader.
		start = append(start, nvim.ChildProcessCommand("setsid"), nvim.ChildProcessArgs(append([]string{nvimCommand()}, args...)...))
	}
	v, err := nvim.NewChildProcess(start...)
	if err != nil {
		t.Fatalf("start nvim: %v", err)
	}
	e.v = v
	t.Cleanup(func() {
		// A host built with -race reports races on its stderr.
		var stderr []string
		_ = v.ExecLua("return require('coder.host').state.stderr", &stderr)
		if log := strings.Join(stderr, "\n"); strings.Contains(log, "DATA RACE") || strings.Contains(log, "panic:") {
			t.Errorf("host stderr:\n%s", log)
		}
		// Stop the host first so it does not outlive the test.
		_ = v.ExecLua("require('coder.host').stop()", nil)
		v.Close()
	})
	cmd := hostBinary
	if o.pluginBin {
		cmd = ""
	}
	setup := o.setup
	if setup == "" {
		setup = "{}"
	}
	e.lua(`
		_G.notes = {}
		vim.notify = function(msg, level) table.insert(_G.notes, {msg = msg, level = level or 2}) end
		_G.approvals = 0
		_G.turns = {}
		vim.api.nvim_create_autocmd('User', {pattern = 'CoderApproval', callback = function() _G.approvals = _G.approvals + 1 end})
		vim.api.nvim_create_autocmd('User', {pattern = {'CoderTurnStart', 'CoderTurnDone'}, callback = function(ev)
			local le = require('coder').last_event
			table.insert(_G.turns, ev.match .. ':' .. tostring(le.data.reason or le.data.input))
		end})
		local opts = `+setup+`
		local cmd, nice = ...
		if cmd ~= '' then opts.cmd = cmd end
		if not nice and opts.host_nice == nil then opts.host_nice = 0 end
		assert(require('coder').setup(opts), 'setup failed: ' .. vim.inspect(_G.notes))
	`, nil, cmd, o.nice)
	return e
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (e *editor) lua(code string, result any, args ...any) {
	e.t.Helper()
	if err := e.v.ExecLua(code, result, args...); err != nil {
		e.t.Fatalf("lua: %v\n%s", err, code)
	}
}

func (e *editor) cmd(c string) {
	e.t.Helper()
	if err := e.v.Command(c); err != nil {
		e.t.Fatalf("%s: %v", c, err)
	}
}

// retrust records the user's trust in the workspace's config again, as
// `coder-nvim trust` would once the files the config runs are written
// (trust covers them too).
func (e *editor) retrust() {
	e.t.Helper()
	state := map[string]string{"XDG_STATE_HOME": filepath.Join(filepath.Dir(e.dir), "state")}
	if _, err := config.TrustWorkspace(e.dir, func(k string) string { return state[k] }); err != nil {
		e.t.Fatal(err)
	}
}

func (e *editor) input(keys string) {
	e.t.Helper()
	if _, err := e.v.Input(keys); err != nil {
		e.t.Fatalf("input %q: %v", keys, err)
	}
}

// minWait is the shortest deadline waitFor gives a condition. Deadlines
// only decide when a test gives up: a loaded 2-core machine running the
// race detector can be many times slower than a developer's laptop.
const minWait = 30 * time.Second

// waitFor polls cond until it holds or the deadline passes.
func (e *editor) waitFor(what string, timeout time.Duration, cond func() bool) {
	e.t.Helper()
	timeout = max(timeout, minWait)
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out after %v waiting for %s\ntranscript:\n%s\nnotes: %s", timeout, what, e.transcript(), e.notes())
		}
		time.Sleep(15 * time.Millisecond)
	}
}

func (e *editor) transcript() string {
	var s string
	_ = e.v.ExecLua("return require('coder.ui').text()", &s)
	return s
}

func (e *editor) notes() string {
	var s string
	_ = e.v.ExecLua("return vim.inspect(_G.notes)", &s)
	return s
}

func (e *editor) boolLua(code string, args ...any) bool {
	var b bool
	if err := e.v.ExecLua(code, &b, args...); err != nil {
		e.t.Fatalf("lua: %v\n%s", err, code)
	}
	return b
}

// idle reports that the host is ready and no turn runs.
func (e *editor) idle() bool {
	return e.boolLua(`local s = require('coder').state(); return s ~= nil and not s.busy`)
}

func (e *editor) waitIdle(timeout time.Duration) {
	e.t.Helper()
	e.waitFor("the turn to end", timeout, e.idle)
}

// turnsDone counts the CoderTurnDone events so far.
func (e *editor) turnsDone() int {
	var n int
	e.lua(`local n = 0
		for _, t in ipairs(_G.turns) do if t:find('^CoderTurnDone') then n = n + 1 end end
		return n`, &n)
	return n
}

// run runs an Ex command that starts one turn (":Coder /new") and waits
// until that turn is over: waiting for "not busy" alone could pass before
// the turn began.
func (e *editor) run(c string) {
	e.t.Helper()
	n := e.turnsDone()
	e.cmd(c)
	e.waitFor("the end of "+c, 10*time.Second, func() bool { return e.turnsDone() > n })
}

func (e *editor) approvalOpen() bool {
	return e.boolLua(`return require('coder.approval').current() ~= nil`)
}

func (e *editor) waitApproval() {
	e.t.Helper()
	e.waitFor("an approval float", 10*time.Second, e.approvalOpen)
}

// start opens the chat and waits until the session is ready.
func (e *editor) start() {
	e.t.Helper()
	e.cmd("Coder open")
	e.waitFor("the host to be ready", 10*time.Second, func() bool {
		return e.boolLua(`return require('coder.host').state.ready == true and require('coder').state() ~= nil`)
	})
}

func toolCall(id, name string, args any) llm.ToolCall {
	b, _ := json.Marshal(args)
	return llm.ToolCall{ID: id, Type: "function", Function: llm.FunctionCall{Name: name, Arguments: string(b)}}
}

// toolResult returns the content of the tool message answering call id in
// the requests the fake server received.
func toolResult(reqs []fakellm.Request, id string) (string, bool) {
	for _, r := range reqs {
		for _, m := range r.Messages {
			if m.Role == llm.RoleTool && m.ToolCallID == id {
				return m.Content, true
			}
		}
	}
	return "", false
}
