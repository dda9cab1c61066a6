package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/coder-nvim/coder-nvim/core/hostpath"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/coder-nvim/coder-nvim/core/proc"
)

// OutputCap bounds what is kept of a hook's stdout and of its stderr.
const OutputCap = 16 << 10

// waitDelay is how long a hook that exited may leave a child holding its
// output open before the pipes are closed (the group is killed then).
const waitDelay = time.Second

// Input is the event as a hook reads it on stdin: Claude Code's fields,
// plus the conversation and task ids.
type Input struct {
	SessionID      string `json:"session_id"`
	ConversationID string `json:"conversation_id,omitempty"`
	TaskID         string `json:"task_id,omitempty"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"` // "PreToolUse", as Claude Code names it
	Event          Event  `json:"event"`           // "pre_tool_use", as the config names it
	PermissionMode string `json:"permission_mode,omitempty"`
	// Source is session_start's: "startup" or "resume".
	Source string `json:"source,omitempty"`
	// Prompt is user_prompt_submit's input.
	Prompt string `json:"prompt,omitempty"`
	// The tool call, for pre_tool_use and post_tool_use.
	ToolName     string          `json:"tool_name,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse *ToolResponse   `json:"tool_response,omitempty"`
	// StopHookActive (stop) says a stop hook already sent the model back
	// to work in this turn: a script should let it end now.
	StopHookActive *bool `json:"stop_hook_active,omitempty"`
	// LastAssistantMessage is stop's: the turn's final answer.
	LastAssistantMessage string `json:"last_assistant_message,omitempty"`
	// Message and NotificationType are notification's: the notice's text
	// and what it is about (task_done, task_waiting).
	Message          string `json:"message,omitempty"`
	NotificationType string `json:"notification_type,omitempty"`
}

// ToolResponse is post_tool_use's result of the call.
type ToolResponse struct {
	Status  string `json:"status"` // completed or failed
	IsError bool   `json:"is_error"`
	Output  string `json:"output"` // what the model reads
}

// Outcome is what an event's hooks decided.
type Outcome struct {
	// Blocked: a hook exited 2 (not session_start's: nothing to block
	// there); Reason is its stderr.
	Blocked bool
	Reason  string
	// Context is the stdout of the hooks that exited 0, for the model
	// where the event lets it through.
	Context string
	// Warnings are for the user: other exit codes, crashes, timeouts.
	Warnings []string
}

// Runner runs the configured hooks in a workspace.
type Runner struct {
	hooks Config
	dir   string
	progs hostpath.Programs // sh (bash on Windows) and the cleaned PATH
}

// New is the runner of hooks in dir (the workspace root).
//
// Hooks run in dir (the workspace) with sh and PATH from progs: a PATH
// without the workspace's directories, so that a hook's `prettier` is
// never the repository's (or the model's) node_modules/.bin/prettier.
func New(hooks Config, dir string, progs hostpath.Programs) *Runner {
	return &Runner{hooks: hooks, dir: dir, progs: progs}
}

// Has reports whether any hook runs on ev for tool ("" for events
// without one).
func (r *Runner) Has(ev Event, tool string) bool {
	if r == nil {
		return false
	}
	for _, h := range r.hooks[ev] {
		if h.Matches(tool) {
			return true
		}
	}
	return false
}

// Describe lists the hooks (Config.Describe).
func (r *Runner) Describe() []string {
	if r == nil {
		return nil
	}
	return r.hooks.Describe()
}

// Run runs ev's hooks that match in.ToolName, one after the other, until
// one blocks. A hook that hangs is killed at its timeout; ctx ending kills
// the running one and ends the run with what was decided so far.
func (r *Runner) Run(ctx context.Context, ev Event, in Input) Outcome {
	var out Outcome
	if !r.Has(ev, in.ToolName) {
		return out
	}
	in.Event, in.HookEventName = ev, claudeNames[ev]
	if in.Cwd == "" {
		in.Cwd = r.dir
	}
	stdin, err := json.Marshal(in)
	if err != nil {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%s hooks: encode the event: %v", ev, err))
		return out
	}
	var added []string
	for i, h := range r.hooks[ev] {
		if !h.Matches(in.ToolName) {
			continue
		}
		name := fmt.Sprintf("hook %s[%d] (%s)", ev, i, firstLine(h.Command))
		res := r.runOne(ctx, h, stdin)
		switch {
		case ctx.Err() != nil:
			out.Context = strings.Join(added, "\n")
			return out
		case res.err != nil:
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s could not run: %v", name, res.err))
		case res.timedOut:
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s timed out after %s and was killed; going on without it", name, h.timeout()))
		case res.code == 0:
			d, isJSON := parseDecision(res.stdout)
			if !isJSON {
				if s := strings.TrimSpace(res.stdout); s != "" {
					added = append(added, s)
				}
				continue
			}
			if d.SystemMessage != "" {
				out.Warnings = append(out.Warnings, name+": "+d.SystemMessage)
			}
			if block, why := d.blocks(); block && ev != SessionStart {
				return out.block(added, why, name+" refused without a reason")
			}
			if s := strings.TrimSpace(d.Specific.AdditionalContext); s != "" {
				added = append(added, s)
			}
		case res.code == 2 && ev != SessionStart: // nothing to block there: a warning
			return out.block(added, strings.TrimSpace(res.stderr), name+" exited 2 without a reason on stderr")
		default:
			msg := fmt.Sprintf("%s exited %d; going on", name, res.code)
			if s := strings.TrimSpace(res.stderr); s != "" {
				msg += ": " + s
			}
			out.Warnings = append(out.Warnings, msg)
		}
	}
	out.Context = strings.Join(added, "\n")
	return out
}

// block ends a run refused with reason (else fallback), keeping the
// context added before.
func (out Outcome) block(added []string, reason, fallback string) Outcome {
	out.Blocked, out.Reason, out.Context = true, reason, strings.Join(added, "\n")
	if out.Reason == "" {
		out.Reason = fallback
	}
	return out
}

type result struct {
	code           int
	stdout, stderr string
	timedOut       bool
	err            error // it could not start
}

// runOne runs one hook in a process group of its own, killed whole at the
// timeout, when ctx ends, and once the hook exited (nothing it started
// outlives it).
func (r *Runner) runOne(ctx context.Context, h Hook, stdin []byte) result {
	if err := ctx.Err(); err != nil {
		return result{err: err}
	}
	cmd := shellCommand(r.progs, h.Command)
	cmd.Dir = r.dir
	cmd.Env = append(r.progs.Env(os.Environ()), "CODER_PROJECT_DIR="+r.dir)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = waitDelay
	proc.OwnGroup(cmd)
	if err := cmd.Start(); err != nil {
		return result{err: err}
	}
	g, err := proc.GroupOf(cmd)
	if err != nil {
		cmd.Process.Kill() //nolint:errcheck // it ends here
		proc.Wait(cmd)     //nolint:errcheck // killed
		return result{err: err}
	}
	defer g.Close()
	exited := make(chan error, 1)
	go func() { exited <- proc.Wait(cmd) }()
	timer := time.NewTimer(h.timeout())
	defer timer.Stop()
	var res result
	select {
	case err = <-exited:
	case <-timer.C:
		res.timedOut = true
		g.Kill() //nolint:errcheck // already gone is fine
		err = <-exited
	case <-ctx.Done():
		g.Kill() //nolint:errcheck // already gone is fine
		err = <-exited
	}
	g.Kill() //nolint:errcheck // what it left running
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) && !errors.Is(err, exec.ErrWaitDelay) {
		return result{err: err}
	}
	res.code = proc.ExitCode(cmd.ProcessState)
	res.stdout, res.stderr = stdout.String(), stderr.String()
	return res
}

// capped keeps the first OutputCap bytes written to it and notes a cut.
type capped struct {
	mu  sync.Mutex
	buf bytes.Buffer
	cut bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := OutputCap - c.buf.Len(); room < len(p) {
		c.cut = true
		c.buf.Write(p[:max(room, 0)])
	} else {
		c.buf.Write(p)
	}
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cut {
		return strings.ToValidUTF8(c.buf.String(), "") + fmt.Sprintf("\n[hook output cut at %d KiB]", OutputCap>>10)
	}
	return c.buf.String()
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return s
}
