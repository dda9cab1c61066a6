package acp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	sdk "github.com/coder/acp-go-sdk"
)

// binary is the coder-nvim executable under test: $CODER_NVIM_BIN (set by
// the Makefile), or one built for this test run.
var binary string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	// The agent keeps trust records and session provenance in the user's
	// state directory: a private one here.
	state, err := os.MkdirTemp("", "coder-nvim-acp-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(state)
	os.Setenv("XDG_STATE_HOME", state)
	binary = os.Getenv("CODER_NVIM_BIN")
	if binary == "" {
		dir, err := os.MkdirTemp("", "coder-nvim-acp-test")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		_, file, _, _ := runtime.Caller(0)
		repo := filepath.Join(filepath.Dir(file), "..", "..")
		binary = filepath.Join(dir, "coder-nvim")
		build := exec.Command("go", "build", "-o", binary, "./cmd/coder-nvim")
		build.Dir = repo
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build coder-nvim:", err)
			return 1
		}
	}
	return m.Run()
}

// lockedBuffer collects stderr.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// proc is one `coder-nvim acp` process.
type proc struct {
	t      testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.Reader // checked: every line must be a JSON-RPC message
	stderr *lockedBuffer
	root   string

	mu       sync.Mutex
	badLines []string
	lines    []string // every line of stdout, in order
	exited   chan struct{}
	exitErr  error
}

// startProc runs the agent with root as the workspace, the model at llm;
// setup, when not nil, adjusts the command before it starts.
func startProc(t testing.TB, llm *fakellm.Server, root string, setup func(*exec.Cmd), extraEnv ...string) *proc {
	t.Helper()
	cmd := exec.Command(binary, "acp")
	cmd.Dir = root
	env := []string{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "OPENAI_") || strings.HasPrefix(k, "CODER_") || k == "XDG_CONFIG_HOME" {
			continue
		}
		env = append(env, kv)
	}
	cmd.Env = append(env, "OPENAI_BASE_URL="+llm.URL(), "OPENAI_API_KEY=test", "XDG_CONFIG_HOME="+t.TempDir())
	cmd.Env = append(cmd.Env, extraEnv...)
	if setup != nil {
		setup(cmd)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	rawOut, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{t: t, cmd: cmd, stdin: stdin, stderr: &lockedBuffer{}, root: root, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	p.stdout = pr
	go func() {
		sc := bufio.NewScanner(rawOut)
		sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
		for sc.Scan() {
			line := sc.Bytes()
			var msg struct {
				JSONRPC string `json:"jsonrpc"`
			}
			p.mu.Lock()
			if err := json.Unmarshal(line, &msg); err != nil || msg.JSONRPC != "2.0" {
				p.badLines = append(p.badLines, string(line))
			}
			p.lines = append(p.lines, string(line))
			p.mu.Unlock()
			pw.Write(append(append([]byte(nil), line...), '\n'))
		}
		pw.Close()
	}()
	go func() {
		p.exitErr = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(p.stop)
	return p
}

// output is every line the agent wrote so far, in order.
func (p *proc) output() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.lines...)
}

// stop closes stdin and expects a clean exit with protocol-only stdout.
func (p *proc) stop() {
	p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.exited
		p.t.Errorf("coder-nvim acp did not exit after stdin closed; stderr:\n%s", p.stderr.String())
	}
	if p.exitErr != nil {
		p.t.Errorf("coder-nvim acp exited with %v; stderr:\n%s", p.exitErr, p.stderr.String())
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.badLines) > 0 {
		p.t.Errorf("stdout carried non-protocol lines: %q", p.badLines)
	}
}

// client is the editor side: it records updates and answers requests.
type client struct {
	mu      sync.Mutex
	updates []sdk.SessionNotification
	changed chan struct{}
	perms   []sdk.RequestPermissionRequest
	writes  []sdk.WriteTextFileRequest
	reads   []string
	// readErr, when set, fails reads of the paths it names.
	readErr map[string]error
	buffers map[string]string // unsaved editor buffers by absolute path
	// terms runs terminals when the client offers them; termRequests
	// counts the terminal requests a client without them got.
	terms        *termHost
	termRequests int

	// permit answers permission requests; default: allow once.
	permit func(ctx context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error)
	// beforeWrite, when set, runs before a write lands; an error fails it.
	beforeWrite func(ctx context.Context, req sdk.WriteTextFileRequest) error
	// saveAs, when set, is what the editor saves for the content sent
	// (codecompanion.nvim adds a blank line at the end).
	saveAs func(content string) string
}

func newClient() *client {
	return &client{changed: make(chan struct{}, 1), buffers: map[string]string{}}
}

func selectOption(id string) sdk.RequestPermissionResponse {
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(sdk.PermissionOptionId(id))}
}

func (c *client) RequestPermission(ctx context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.perms = append(c.perms, req)
	permit := c.permit
	c.mu.Unlock()
	c.notify()
	if permit == nil {
		return selectOption("allow_once"), nil
	}
	return permit(ctx, req)
}

func (c *client) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n)
	c.mu.Unlock()
	c.notify()
	return nil
}

func (c *client) notify() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

func (c *client) ReadTextFile(_ context.Context, req sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	c.reads = append(c.reads, req.Path)
	buf, ok := c.buffers[req.Path]
	rerr := c.readErr[req.Path]
	c.mu.Unlock()
	if rerr != nil {
		return sdk.ReadTextFileResponse{}, rerr
	}
	if ok {
		return sdk.ReadTextFileResponse{Content: buf}, nil
	}
	data, err := os.ReadFile(req.Path)
	if err != nil {
		return sdk.ReadTextFileResponse{}, err
	}
	return sdk.ReadTextFileResponse{Content: string(data)}, nil
}

func (c *client) WriteTextFile(ctx context.Context, req sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	c.writes = append(c.writes, req)
	before, saveAs := c.beforeWrite, c.saveAs
	c.mu.Unlock()
	if before != nil {
		if err := before(ctx, req); err != nil {
			return sdk.WriteTextFileResponse{}, err
		}
	}
	content := req.Content
	if saveAs != nil {
		content = saveAs(content)
	}
	return sdk.WriteTextFileResponse{}, os.WriteFile(req.Path, []byte(content), 0o644)
}

var errNoTerminal = errors.New("no terminal in this test client")

// The terminal requests go to c.terms (terminal_test.go); a client without
// one answers each with an error, and counts it.
func (c *client) terminals() *termHost {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.terms == nil {
		c.termRequests++
	}
	return c.terms
}

func (c *client) CreateTerminal(_ context.Context, req sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	if h := c.terminals(); h != nil {
		return h.create(req)
	}
	return sdk.CreateTerminalResponse{}, errNoTerminal
}
func (c *client) KillTerminal(_ context.Context, req sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	if h := c.terminals(); h != nil {
		return sdk.KillTerminalResponse{}, h.kill(req.TerminalId)
	}
	return sdk.KillTerminalResponse{}, errNoTerminal
}
func (c *client) TerminalOutput(_ context.Context, req sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	if h := c.terminals(); h != nil {
		return h.output(req.TerminalId)
	}
	return sdk.TerminalOutputResponse{}, errNoTerminal
}
func (c *client) ReleaseTerminal(_ context.Context, req sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	if h := c.terminals(); h != nil {
		return sdk.ReleaseTerminalResponse{}, h.release(req.TerminalId)
	}
	return sdk.ReleaseTerminalResponse{}, errNoTerminal
}
func (c *client) WaitForTerminalExit(ctx context.Context, req sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	if h := c.terminals(); h != nil {
		return h.wait(ctx, req.TerminalId)
	}
	return sdk.WaitForTerminalExitResponse{}, errNoTerminal
}

// snapshot returns the updates received so far.
func (c *client) snapshot() []sdk.SessionNotification {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sdk.SessionNotification(nil), c.updates...)
}

func (c *client) permissions() []sdk.RequestPermissionRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sdk.RequestPermissionRequest(nil), c.perms...)
}

// minWait is how long a test waits for something that must happen before
// it gives up: only a failure waits this long, and a loaded 2-core machine
// running the race detector is slow.
const minWait = 30 * time.Second

// stopBound is how soon a cancelled turn must end: far below what an
// ignored cancel costs (the rest of a slow stream, a `sleep 20`), yet loose
// enough for a loaded machine.
const stopBound = 3 * time.Second

// waitFile waits until path exists.
func waitFile(t testing.TB, path string) {
	t.Helper()
	deadline := time.Now().Add(minWait)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitFor waits until cond holds for the client's state.
func (c *client) waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(minWait)
	for !cond() {
		select {
		case <-c.changed:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// env is a running agent process with a connected client.
type env struct {
	t      testing.TB
	llm    *fakellm.Server
	proc   *proc
	client *client
	conn   *sdk.ClientSideConnection
	root   string
}

type envOptions struct {
	root string // reuse a workspace; empty: a new one
	llm  *fakellm.Server
	fs   bool // advertise fs.readTextFile and fs.writeTextFile
	// terms, when set, runs the client's terminals (and advertises them).
	terms *termHost
	env   []string
	cmd   func(*exec.Cmd) // adjusts the agent's command (its user)
}

func newEnv(t testing.TB, o envOptions) *env {
	t.Helper()
	if o.llm == nil {
		o.llm = fakellm.New()
		t.Cleanup(o.llm.Close)
	}
	if o.root == "" {
		root, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		o.root = root
	}
	p := startProc(t, o.llm, o.root, o.cmd, o.env...)
	c := newClient()
	c.terms = o.terms
	conn := sdk.NewClientSideConnection(c, wireNames{p.stdin}, p.stdout)
	conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	e := &env{t: t, llm: o.llm, proc: p, client: c, conn: conn, root: o.root}
	resp, err := conn.Initialize(ctxT(t), sdk.InitializeRequest{
		ProtocolVersion:    sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: o.fs, WriteTextFile: o.fs}, Terminal: o.terms != nil},
		ClientInfo:         &sdk.Implementation{Name: "acp-test", Version: "1"},
	})
	if err != nil {
		t.Fatalf("initialize: %v\nstderr:\n%s", err, p.stderr.String())
	}
	if resp.ProtocolVersion != sdk.ProtocolVersionNumber {
		t.Fatalf("protocol version %d, want %d", resp.ProtocolVersion, sdk.ProtocolVersionNumber)
	}
	return e
}

// wireNames sends a request the SDK's client cannot (v0.13.0 has no
// session/delete) under its own name: env.call sends it as the extension
// method "_wire/NAME", and this strips the prefix on its way out. The SDK
// writes one message per Write.
type wireNames struct{ w io.Writer }

const wirePrefix = "_wire/"

func (n wireNames) Write(p []byte) (int, error) {
	_, err := n.w.Write(bytes.Replace(p, []byte(`"method":"`+wirePrefix), []byte(`"method":"`), 1))
	return len(p), err
}

// call sends the request method with the SDK's client and returns its
// raw result.
func (e *env) call(method string, params any) (json.RawMessage, error) {
	return e.conn.CallExtension(ctxT(e.t), wirePrefix+method, params)
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func (e *env) newSession() (sdk.SessionId, sdk.NewSessionResponse) {
	e.t.Helper()
	resp, err := e.conn.NewSession(ctxT(e.t), sdk.NewSessionRequest{Cwd: e.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		e.t.Fatalf("session/new: %v\nstderr:\n%s", err, e.proc.stderr.String())
	}
	return resp.SessionId, resp
}

// setMode switches the session's mode with session/set_mode.
func (e *env) setMode(sid sdk.SessionId, mode string) {
	e.t.Helper()
	if _, err := e.conn.SetSessionMode(ctxT(e.t), sdk.SetSessionModeRequest{SessionId: sid, ModeId: sdk.SessionModeId(mode)}); err != nil {
		e.t.Fatalf("session/set_mode %s: %v", mode, err)
	}
}

func (e *env) prompt(sid sdk.SessionId, text string) (sdk.PromptResponse, error) {
	return e.conn.Prompt(ctxT(e.t), sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
}

// mustPrompt runs a turn and checks its stop reason.
func (e *env) mustPrompt(sid sdk.SessionId, text string, want sdk.StopReason) {
	e.t.Helper()
	resp, err := e.prompt(sid, text)
	if err != nil {
		e.t.Fatalf("session/prompt %q: %v\nstderr:\n%s", text, err, e.proc.stderr.String())
	}
	if resp.StopReason != want {
		e.t.Fatalf("session/prompt %q: stop reason %q, want %q", text, resp.StopReason, want)
	}
}

// agentText joins the agent_message_chunk texts received since update n.
func agentText(updates []sdk.SessionNotification) string {
	var b strings.Builder
	for _, u := range updates {
		if c := u.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
			b.WriteString(c.Content.Text.Text)
		}
	}
	return b.String()
}

func toolCalls(updates []sdk.SessionNotification) []*sdk.SessionUpdateToolCall {
	var out []*sdk.SessionUpdateToolCall
	for _, u := range updates {
		if u.Update.ToolCall != nil {
			out = append(out, u.Update.ToolCall)
		}
	}
	return out
}

// lastToolUpdate is the last tool_call_update with a status for id.
func lastToolUpdate(updates []sdk.SessionNotification, id sdk.ToolCallId) *sdk.SessionToolCallUpdate {
	var last *sdk.SessionToolCallUpdate
	for _, u := range updates {
		if c := u.Update.ToolCallUpdate; c != nil && c.ToolCallId == id && c.Status != nil {
			last = c
		}
	}
	return last
}

func contentText(content []sdk.ToolCallContent) string {
	var b strings.Builder
	for _, c := range content {
		if c.Content != nil && c.Content.Content.Text != nil {
			b.WriteString(c.Content.Content.Text.Text)
		}
	}
	return b.String()
}

func requestCode(err error) int {
	var re *sdk.RequestError
	if errors.As(err, &re) {
		return re.Code
	}
	return 0
}
