package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/coder-nvim/coder-nvim/core/hostpath"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coder-nvim/coder-nvim/core/proc"
	"github.com/coder-nvim/coder-nvim/core/sandbox"
)

// shellEnv is the environment of a bash call: the host's, pagers off,
// then extra.
func shellEnv(extra []string) []string {
	return append(append(os.Environ(), "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0"), extra...)
}

// shellProc is a bash started with commandReader, waiting for its
// command on fd 3.
type shellProc struct {
	pid   int              // bash's, once started
	state *os.ProcessState // bash's exit, once reaped (exited closed)
	dir   string
	env   []string
	split bool
	outR  *os.File // the host's read ends; errR is outR unless split
	errR  *os.File
	cmdW  *os.File // the command is written here, then closed
	watch *groupWatch
	group *proc.Group // bash's, set once it started
	// confine is the sandbox request bash runs under, encoded; "" when
	// unconfined.
	confine string

	exited chan struct{} // closed once bash is reaped

	mu sync.Mutex
	// reaped is set once bash is reaped and its group killed: the group's
	// id may then be another process's, so nothing kills it any more.
	reaped bool
}

// startShell starts bash in dir with env, in its own process group, stdin
// from /dev/null. The whole group is killed when the call ends, when its
// context ends, and, by watch, when the host dies, even by SIGKILL.
func startShell(bash, dir string, env []string, split bool, watch *groupWatch, c confinement) (*shellProc, error) {
	if bash == "" {
		return nil, errors.New("no bash to run the command")
	}
	p := &shellProc{dir: dir, env: env, split: split, watch: watch, exited: make(chan struct{}), confine: c.key}
	var host, child []*os.File
	closeAll := func(fs []*os.File) {
		for _, f := range fs {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		if r, w, err = os.Pipe(); err == nil {
			host, child = append(host, r), append(child, w)
		}
		return r, w, err
	}
	outR, outW, err1 := pipe()
	errR, errW := outR, outW
	var err2 error
	if split {
		errR, errW, err2 = pipe()
	}
	cmdR, cmdW, err3 := os.Pipe()
	if err3 == nil {
		host, child = append(host, cmdW), append(child, cmdR)
	}
	if err := errors.Join(err1, err2, err3); err != nil {
		closeAll(host)
		closeAll(child)
		return nil, err
	}
	p.outR, p.errR, p.cmdW = outR, errR, cmdW

	cmd := exec.Command(bash, "-c", commandReader, "bash")
	cmd.Dir = dir
	cmd.Env = env
	// The same file for both: one pipe, output in the order written.
	// Our own pipes rather than os/exec's copying: Wait returns when bash
	// exits, so the group is killed at once, not after background
	// children have held the output open.
	cmd.Stdout, cmd.Stderr = outW, errW
	if srv := c.server(); srv != nil {
		// Confined by the sandbox's fork server: bash is still the
		// host's child, started without a launcher of its own. A server
		// that fails is dropped, and the launcher starts this one.
		pr, err := srv.Spawn(bash, cmd.Args, env, dir, [3]*os.File{outW, errW, cmdR})
		if err == nil {
			closeAll(child)
			if err := p.startedBy(pr); err != nil {
				closeAll(host)
				return nil, err
			}
			return p, nil
		}
		c.servers.drop(c.key, srv)
	}
	passCommand(cmd, cmdR)
	if err := c.wrap(cmd); err != nil {
		closeAll(host)
		closeAll(child)
		return nil, err
	}
	proc.OwnGroup(cmd)
	setDeathSignal(cmd.SysProcAttr)

	started := make(chan error, 1)
	go func() {
		// The death signal fires when the OS thread that started the
		// child ends, not the process: this goroutine keeps its thread
		// until the child is gone (Go ends a thread only when a locked
		// goroutine exits).
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		g, err := proc.GroupOf(cmd)
		if err != nil {
			cmd.Process.Kill()
			proc.Wait(cmd) //nolint:errcheck // killed
			started <- err
			return
		}
		p.group, p.pid = g, cmd.Process.Pid
		started <- nil
		proc.Wait(cmd) //nolint:errcheck // the exit status is read from ProcessState
		p.state = cmd.ProcessState
		close(p.exited)
	}()
	err := <-started
	// The child has its copies; ours would keep the reads from ending.
	closeAll(child)
	if err != nil {
		closeAll(host)
		return nil, err
	}
	return p, nil
}

// startedBy takes bash started by the sandbox's fork server: its group,
// and its reaping.
func (p *shellProc) startedBy(pr *os.Process) error {
	g, err := proc.GroupOfPID(pr.Pid)
	if err != nil {
		pr.Kill()
		pr.Wait() //nolint:errcheck // killed
		return err
	}
	p.group, p.pid = g, pr.Pid
	go func() {
		p.state, _ = proc.WaitProcess(pr)
		close(p.exited)
	}()
	return nil
}

// kill kills the process group, unless it is gone.
func (p *shellProc) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.reaped {
		p.group.Kill() //nolint:errcheck // already gone is fine
	}
}

// finish kills what is left of the group once bash is reaped, then has
// the watcher forget it.
func (p *shellProc) finish() {
	<-p.exited
	p.kill()
	p.mu.Lock()
	p.reaped = true
	p.mu.Unlock()
	p.group.Close()
	p.watch.remove(p.group.ID()) // nothing to forget for a spare never run
}

// discard ends a bash that never got its command.
func (p *shellProc) discard() {
	p.kill()
	p.finish()
	p.closeHost()
}

func (p *shellProc) closeHost() {
	for _, f := range []*os.File{p.outR, p.errR, p.cmdW} {
		f.Close()
	}
}

// usable reports whether p can run a call in dir (whose identity is
// dirInfo) with env: the same directory, still the same one on disk, the
// same environment, and bash still waiting.
func (p *shellProc) usable(dir string, dirInfo os.FileInfo, env []string, confine string) bool {
	select {
	case <-p.exited:
		return false
	default:
	}
	if p.dir != dir || !slices.Equal(p.env, env) || p.confine != confine {
		return false
	}
	st, err := os.Stat(dir)
	return err == nil && dirInfo != nil && os.SameFile(st, dirInfo)
}

// run hands command to bash and waits for the call to end: bash's exit,
// the timeout or ctx. tee, when set, also gets the output as it is read
// (not with split). Output beyond capBytes is cut in the middle, keeping
// its head and tail. p is spent afterwards.
func (p *shellProc) run(ctx context.Context, command string, timeout time.Duration, capBytes int, tee io.Writer) ShellResult {
	defer p.closeHost()
	if capBytes <= 0 {
		capBytes = DefaultOutputCap
	}
	res := ShellResult{Command: command}
	runCtx := ctx
	var cancel context.CancelFunc = func() {}
	if timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	if err := runCtx.Err(); err != nil {
		// Ended before it began: the command must not run at all.
		p.discard()
		res.ExitCode, res.Stderr = -1, err.Error()
		res.Canceled, res.TimedOut = ctx.Err() != nil, ctx.Err() == nil
		return res
	}
	// Registered before the command can start anything.
	if err := p.watch.add(p.group.ID()); err != nil {
		p.discard()
		res.ExitCode, res.Stderr = -1, err.Error()
		return res
	}

	out := &headTail{limit: capBytes}
	errOut := &headTail{limit: capBytes}
	var copies sync.WaitGroup
	drain := func(r *os.File, w io.Writer) {
		copies.Add(1)
		go func() {
			defer copies.Done()
			io.Copy(w, r)
		}()
	}
	var w io.Writer = out
	if tee != nil && !p.split {
		w = io.MultiWriter(out, tee)
	}
	drain(p.outR, w)
	if p.split {
		drain(p.errR, errOut)
	}

	start := time.Now()
	stop := context.AfterFunc(runCtx, p.kill)
	// A command longer than the pipe's buffer is written while bash reads
	// it; a bash that died fails the write.
	_, werr := io.WriteString(p.cmdW, command)
	p.cmdW.Close()
	<-p.exited
	stop()
	// Background children end with the call.
	p.finish()
	// A child that left the group may hold the output open: read what is
	// there, within waitDelay.
	if !waitTimeout(&copies, waitDelay) {
		p.outR.SetReadDeadline(time.Now())
		p.errR.SetReadDeadline(time.Now())
		copies.Wait()
	}
	res.Duration = time.Since(start)
	res.Stdout = out.String()
	res.Stderr = errOut.String()

	switch {
	case ctx.Err() != nil:
		res.Canceled = true
	case runCtx.Err() != nil:
		res.TimedOut = true
	}
	res.ExitCode = proc.ExitCode(p.state)
	if werr != nil && !res.Canceled && !res.TimedOut {
		res.ExitCode = -1
		res.Stderr += "bash ended before it read the command: " + werr.Error()
	}
	return res
}

// runShell runs command in a bash of its own.
func runShell(ctx context.Context, dir, command string, timeout time.Duration, capBytes int, split bool, extra []string, tee io.Writer) ShellResult {
	if err := checkCommand(command); err != nil {
		return ShellResult{Command: command, ExitCode: -1, Stderr: err.Error()}
	}
	// The host's bash, from a PATH without dir's own directories; a
	// watcher of its own, gone with the call.
	bash, err := FindBash(hostpath.Resolve(os.Getenv("PATH"), dir))
	if err != nil {
		return ShellResult{Command: command, ExitCode: -1, Stderr: err.Error()}
	}
	watch := groupWatch{bash: bash}
	defer watch.close()
	p, err := startShell(bash, dir, shellEnv(extra), split, &watch, confinement{})
	if err != nil {
		return ShellResult{Command: command, ExitCode: -1, Stderr: err.Error()}
	}
	return p.run(ctx, command, timeout, capBytes, tee)
}

// checkCommand refuses what bash cannot be given: a NUL byte would end
// the command early, unseen.
func checkCommand(command string) error {
	if strings.IndexByte(command, 0) >= 0 {
		return errors.New("the command holds a NUL byte, which bash cannot run")
	}
	return nil
}

// Shells keeps one bash started ahead of the bash tool's next call, so
// that bash's start — most of what a quick command costs — overlaps the
// model's answer rather than following it. A spare serves only a call in
// the same directory (the same one on disk) with the same environment it
// was started with; any other call starts a bash of its own, as without
// it, and the spare is killed.
type Shells struct {
	dir   string
	bash  string     // the host's bash (hostpath); "" when there is none
	watch groupWatch // the calls' process groups, killed if the host dies
	box   *sandbox.Box
	// servers are the sandbox's fork servers, one per confinement.
	servers serverSet

	mu         sync.Mutex
	spare      *shellProc
	spareDir   os.FileInfo
	extra      []string        // the last call's extra environment: the next one is likely alike
	confine    *sandbox.Policy // the last call's sandbox, likewise
	ran        bool            // a call has run: extra and confine are known
	gen        int             // bumped by Release: a start under way for an older one is dropped
	starting   chan struct{}   // closed when the start under way is done; nil when none is
	startExtra []string        // the extra environment of the start under way
	startKey   string          // and its confinement's key
	closed     bool
	starts     sync.WaitGroup
}

// NewShells returns the shells of calls in dir, run by bash (an absolute
// path, FindBash).
func NewShells(dir, bash string) *Shells {
	return &Shells{dir: dir, bash: bash, watch: groupWatch{bash: bash}}
}

// SetSandbox has the calls' bash confined by box, as each call says.
func (s *Shells) SetSandbox(box *sandbox.Box) {
	s.mu.Lock()
	s.box = box
	s.mu.Unlock()
}

// AdoptServer takes srv, a fork server box started for confine (Open),
// as that confinement's server; it is closed when not needed.
func (s *Shells) AdoptServer(box *sandbox.Box, confine *sandbox.Policy, srv *sandbox.Server) {
	s.mu.Lock()
	s.box = box
	s.mu.Unlock()
	if !s.servers.add(newConfinement(box, confine, nil).key, srv) {
		srv.Close()
	}
}

// Prestart starts a spare in the background unless one is there. Its
// extra environment and sandbox are the last call's; until a call has
// run, guess and guessConfine's (nil: unconfined), which may wait (for
// the sandbox's probe) in the background.
func (s *Shells) Prestart(guess []string, guessConfine func() *sandbox.Policy) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.spare != nil || s.starting != nil {
		return
	}
	started := make(chan struct{})
	gen, extra, confine, ran := s.gen, s.extra, s.confine, s.ran
	if !ran {
		extra = guess
	}
	// Until its sandbox is known, no call waits for this start.
	s.starting, s.startExtra, s.startKey = started, extra, pendingKey
	s.starts.Add(1)
	go func() {
		defer s.starts.Done()
		if !ran && guessConfine != nil {
			confine = guessConfine()
		}
		s.mu.Lock()
		c := newConfinement(s.box, confine, &s.servers)
		if s.starting == started {
			s.startKey = c.key
		}
		s.mu.Unlock()
		st, err := os.Stat(s.dir)
		var p *shellProc
		if err == nil {
			s.watch.ready()
			p, err = startShell(s.bash, s.dir, shellEnv(extra), false, &s.watch, c)
		}
		s.mu.Lock()
		defer close(started)
		s.starting = nil
		if err != nil || s.closed || gen != s.gen || s.spare != nil {
			s.mu.Unlock()
			if p != nil {
				p.discard()
			}
			return
		}
		s.spare, s.spareDir = p, st
		s.mu.Unlock()
	}()
}

// pendingKey is the key of a start whose sandbox is not known yet: no
// confinement has it.
const pendingKey = "\x00pending"

// Run runs command unconfined, on the spare when it fits.
func (s *Shells) Run(ctx context.Context, command string, timeout time.Duration, capBytes int, extra []string, tee io.Writer) ShellResult {
	return s.RunConfined(ctx, nil, command, timeout, capBytes, extra, tee)
}

// RunConfined runs command in the sandbox confine (nil: none), on the
// spare when it fits.
func (s *Shells) RunConfined(ctx context.Context, confine *sandbox.Policy, command string, timeout time.Duration, capBytes int, extra []string, tee io.Writer) ShellResult {
	if err := checkCommand(command); err != nil {
		return ShellResult{Command: command, ExitCode: -1, Stderr: err.Error()}
	}
	env := shellEnv(extra)
	s.mu.Lock()
	c := newConfinement(s.box, confine, &s.servers)
	key := c.key
	if started := s.starting; started != nil && slices.Equal(s.startExtra, extra) && s.startKey == key {
		// A spare on its way is sooner ready than a bash started now.
		s.mu.Unlock()
		<-started
		s.mu.Lock()
	}
	p, dirInfo := s.spare, s.spareDir
	s.spare, s.spareDir = nil, nil
	s.extra, s.confine, s.ran = extra, confine, true
	s.mu.Unlock()
	if p != nil && !p.usable(s.dir, dirInfo, env, key) {
		p.discard()
		p = nil
	}
	if p == nil {
		var err error
		if p, err = startShell(s.bash, s.dir, env, false, &s.watch, c); err != nil {
			return ShellResult{Command: command, ExitCode: -1, Stderr: err.Error()}
		}
	}
	// The next call's bash starts while this one runs and the model
	// answers it.
	s.Prestart(extra, nil)
	return p.run(ctx, command, timeout, capBytes, tee)
}

// Release kills the spare: nothing is left running between turns.
func (s *Shells) Release() {
	s.mu.Lock()
	p := s.spare
	s.spare, s.spareDir = nil, nil
	s.gen++
	s.mu.Unlock()
	if p != nil {
		p.discard()
	}
}

// Close kills the spare and starts no more; it returns once no spare is
// left. The group watcher ends once it has read that every call ended.
func (s *Shells) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.starts.Wait()
	s.Release()
	s.servers.close()
	s.watch.close()
}

// confinement is the sandbox a bash starts in: policy through box, or
// none when either is nil.
type confinement struct {
	box     *sandbox.Box
	policy  *sandbox.Policy
	servers *serverSet // the fork servers of the calls' Shells; nil: none
	// key tells confinements apart, for matching a spare or a server to
	// a call; "" when unconfined.
	key string
}

func newConfinement(box *sandbox.Box, policy *sandbox.Policy, servers *serverSet) confinement {
	c := confinement{box: box, policy: policy, servers: servers}
	if box != nil && policy != nil && box.Support().Any() {
		data, _ := json.Marshal(policy)
		c.key = string(data)
	}
	return c
}

func (c confinement) wrap(cmd *exec.Cmd) error {
	if c.key == "" {
		return nil
	}
	if err := c.box.Wrap(cmd, *c.policy); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	return nil
}
