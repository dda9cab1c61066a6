package nvimhost

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// taskScript answers each task by the TASK-X marker of its first message:
// write its file (and, for TASK-A, main.txt changed in two places), run a
// bash command that writes another, then answer. A gate holds a marker's
// first answer until closed.
type taskScript struct {
	mu    sync.Mutex
	gates map[string]chan struct{}
}

func (s *taskScript) reply(req fakellm.Request) fakellm.Reply {
	marker, tools := "", 0
	for _, m := range req.Messages {
		if i := strings.Index(m.Content, "TASK-"); m.Role == llm.RoleUser && marker == "" && i >= 0 {
			marker = strings.Fields(m.Content[i:])[0]
		}
		if m.Role == llm.RoleTool {
			tools++
		}
	}
	if marker == "" {
		return fakellm.Reply{Content: "chat answer"}
	}
	name := strings.ToLower(marker)
	if marker == "TASK-A" {
		// A reads main.txt first: a file is written only once read.
		tools--
		if tools < 0 {
			return fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("r-"+name, "read", map[string]any{"path": "main.txt"})}}
		}
	}
	switch {
	case tools == 0:
		s.mu.Lock()
		gate := s.gates[marker]
		s.mu.Unlock()
		calls := []llm.ToolCall{toolCall("w-"+name, "write", map[string]any{"path": name + ".txt", "content": marker + " was here\n"})}
		if marker == "TASK-A" {
			calls = append(calls, toolCall("m-"+name, "write", map[string]any{"path": "main.txt", "content": "ONE\ntwo\nthree\nfour\nfive\nsix\nSEVEN\n"}))
		}
		return fakellm.Reply{ToolCalls: calls, Gate: gate}
	case tools == 1 && marker != "TASK-A", tools == 2 && marker == "TASK-A":
		return fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("b-"+name, "bash", map[string]any{"command": "echo ran > " + name + "-bash.txt"})}}
	}
	return fakellm.Reply{Content: marker + " done."}
}

func gitOut(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
	return string(out)
}

type taskItem struct {
	N      int    `msgpack:"n"`
	State  string `msgpack:"state"`
	Line   string `msgpack:"line"`
	Path   string `msgpack:"path"`
	Branch string `msgpack:"branch"`
}

func (e *editor) tasks() []taskItem {
	e.t.Helper()
	var res struct {
		Items []taskItem `msgpack:"items"`
		Err   string     `msgpack:"err"`
	}
	e.lua(`local r, err = require('coder.host').request('coder_tasks')
		return r or {items = {}, err = tostring(err)}`, &res)
	if res.Err != "" {
		e.t.Logf("coder_tasks: %s", res.Err)
	}
	return res.Items
}

func (e *editor) taskState(n int) string {
	for _, it := range e.tasks() {
		if it.N == n {
			return it.State
		}
	}
	return ""
}

func (e *editor) waitTask(n int, state string) {
	e.t.Helper()
	e.waitFor("task "+state, 30*time.Second, func() bool { return e.taskState(n) == state })
}

// answerApprovals allows what asks until cond holds.
func (e *editor) allowUntil(what string, cond func() bool) {
	e.t.Helper()
	e.waitFor(what, 30*time.Second, func() bool {
		if e.approvalOpen() {
			e.lua(`require('coder.approval').answer('once')`, nil)
		}
		return cond()
	})
}

// TestTwoTasksFromTheChat: two tasks started from the chat run at once in
// their worktrees; a task's approval arrives labelled in the one float
// while the user types, without taking the cursor; the list shows both;
// the user's tree is untouched until gm, which applies the hunks kept and
// leaves the user's own overlapping edit as a conflict; gx leaves no
// worktree or branch.
func TestTwoTasksFromTheChat(t *testing.T) {
	e := newEditor(t, editorOpts{setup: `{ notify_terminal = 'osc9' }`})
	writeFile(t, filepath.Join(e.dir, "main.txt"), "one\ntwo\nthree\nfour\nfive\nsix\nseven\n")
	writeFile(t, filepath.Join(e.dir, ".gitignore"), ".coder/\n")
	gitOut(t, e.dir, "add", "-A")
	gitOut(t, e.dir, "commit", "-qm", "start")
	script := &taskScript{gates: map[string]chan struct{}{}}
	gateB := make(chan struct{})
	script.gates["TASK-B"] = gateB
	e.llm.SetScript(script.reply)
	e.start()
	e.lua(`_G.task_events = {}
		_G.osc = {}
		local send = vim.fn.chansend
		vim.fn.chansend = function(ch, data)
			if ch == vim.v.stderr then table.insert(_G.osc, data) return #data end
			return send(ch, data)
		end
		vim.api.nvim_create_autocmd('User', {pattern = 'CoderTask', callback = function()
			table.insert(_G.task_events, require('coder').last_event.data)
		end})`, nil)

	// B from the chat's input, in a mode the user names; held at its
	// first answer.
	e.lua(`require('coder').send('/task --mode yolo TASK-B second')`, nil)
	e.waitTask(1, "running")
	// The user is typing in the input as A (the chat's mode: its writes
	// ask) is started.
	e.lua(`vim.api.nvim_set_current_win(require('coder.ui').state.iwin)`, nil)
	e.input("ihalf typed")
	e.lua(`require('coder.tasks').start('TASK-A first')`, nil)
	e.waitApproval()
	var float string
	e.lua(`local c = require('coder.approval').current()
		return table.concat(vim.api.nvim_buf_get_lines(c.buf, 0, -1, false), '\n')`, &float)
	if !strings.Contains(float, "⚑ task 2: TASK-A first") {
		t.Errorf("the approval is not labelled with its task:\n%s", float)
	}
	if !e.boolLua(`return vim.api.nvim_get_current_win() == require('coder.ui').state.iwin and vim.api.nvim_get_mode().mode == 'i'`) {
		t.Errorf("the approval took the cursor from the input")
	}
	if got := strings.Join(e.inputLines(), "\n"); got != "half typed" {
		t.Errorf("input = %q", got)
	}
	e.waitTask(2, "waiting")
	if st := e.taskState(1); st != "running" {
		t.Errorf("task 1 is %s while task 2 waits, want running", st)
	}
	var seg string
	e.lua(`return require('coder.statusline').tasks_text()`, &seg)
	if !strings.Contains(seg, "1 running") || !strings.Contains(seg, "1 waiting") {
		t.Errorf("status segment %q", seg)
	}
	e.input("<Esc>")
	close(gateB)
	e.allowUntil("both tasks done", func() bool { return e.taskState(1) == "done" && e.taskState(2) == "done" })
	if st := gitOut(t, e.dir, "status", "--porcelain"); strings.TrimSpace(st) != "" {
		t.Fatalf("the user's tree changed before gm:\n%s", st)
	}
	// Each task's end is told once, its first wait once: by
	// vim.notify, the User CoderTask autocmd and the terminal.
	var events []map[string]any
	e.waitFor("the tasks' notices", 10*time.Second, func() bool {
		e.lua(`return _G.task_events`, &events)
		return len(events) >= 3
	})
	kinds := map[any]int{}
	for _, ev := range events {
		kinds[ev["kind"]]++
	}
	if kinds["task_done"] != 2 || kinds["task_waiting"] != 1 || !strings.Contains(e.notes(), "task 2 done: TASK-A first (3 files +4 −2)") {
		t.Errorf("task notices: %v\nnotes: %s", events, e.notes())
	}
	var osc []string
	e.lua(`return _G.osc`, &osc)
	if len(osc) != 3 || !strings.HasPrefix(osc[0], "\x1b]9;coder: task 2 waits") || !strings.HasSuffix(osc[0], "\a") {
		t.Errorf("terminal notifications: %q", osc)
	}

	// <CR> on task 2 shows its transcript; on the chat line, the chat.
	e.lua(`require('coder.tasks').open()`, nil)
	e.lua(`vim.api.nvim_win_set_cursor(0, {5, 0})`, nil)
	e.input("<CR>")
	e.waitFor("task 2's transcript", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "── task 2: TASK-A first ──") })

	// The user edits main.txt where the task did too; one hunk of the
	// task's is rejected in its review, then gm.
	writeFile(t, filepath.Join(e.dir, "main.txt"), "one\ntwo\nthree\nfour\nfive\nsix\nuser's seven\n")
	var rv struct {
		Hunks []struct {
			ID   int    `msgpack:"id"`
			Path string `msgpack:"path"`
			Line int    `msgpack:"line"`
		} `msgpack:"hunks"`
	}
	e.lua(`return require('coder.host').request('coder_task_review', 2)`, &rv)
	rejected := 0
	for _, h := range rv.Hunks {
		if h.Path == "main.txt" && h.Line == 1 {
			rejected = h.ID
		}
	}
	if rejected == 0 {
		t.Fatalf("no hunk at main.txt:1 in %+v", rv.Hunks)
	}
	e.lua(`return require('coder.host').request('coder_task_verdict', 2, ..., false, 'keep it lower case')`, nil, rejected)
	// main.txt is open, unmodified: its buffer follows the merge.
	e.cmd("edit " + filepath.Join(e.dir, "main.txt"))
	e.lua(`require('coder.tasks').open()`, nil)
	e.lua(`vim.api.nvim_win_set_cursor(0, {5, 0})`, nil)
	e.input("gm")
	e.waitFor("the merge", 10*time.Second, func() bool { return strings.Contains(e.notes(), "task 2 merged") })
	if n := e.notes(); !strings.Contains(n, "1 hunk left out (main.txt:1: keep it lower case), which the task is told") {
		t.Errorf("the merge's notice does not name the hunk left out:\n%s", n)
	}
	e.waitFor("main.txt's buffer reloaded", 10*time.Second, func() bool {
		return e.boolLua(`return vim.fn.join(vim.fn.getbufline(vim.fn.bufnr(...), 1, '$'), '\n'):find('<<<<<<< yours', 1, true) ~= nil`, filepath.Join(e.dir, "main.txt"))
	})
	main, _ := os.ReadFile(filepath.Join(e.dir, "main.txt"))
	if s := string(main); !strings.HasPrefix(s, "one\n") || !strings.Contains(s, "<<<<<<< yours") || !strings.Contains(s, "user's seven") || !strings.Contains(s, "SEVEN") {
		t.Errorf("main.txt after gm:\n%s", s)
	}
	for _, f := range []string{"task-a.txt", "task-a-bash.txt"} {
		if _, err := os.Stat(filepath.Join(e.dir, f)); err != nil {
			t.Errorf("gm did not apply %s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(e.dir, "task-b.txt")); !os.IsNotExist(err) {
		t.Errorf("task 1's change reached the tree: %v", err)
	}
	takeBackMerge(t, e)
	// gx on task 1 (unmerged work): asked first, then nothing left.
	items := e.tasks()
	e.lua(`vim.ui.select = function(items, opts, cb) cb(items[1], 1) end`, nil)
	e.lua(`require('coder.tasks').open()`, nil)
	e.lua(`vim.api.nvim_win_set_cursor(0, {4, 0})`, nil)
	e.input("gx")
	e.waitFor("task 1 discarded", 10*time.Second, func() bool { return len(e.tasks()) == 1 })
	if _, err := os.Stat(items[0].Path); !os.IsNotExist(err) {
		t.Errorf("task 1's worktree is still there: %v", err)
	}
	if out := gitOut(t, e.dir, "branch", "--list", items[0].Branch); strings.TrimSpace(out) != "" {
		t.Errorf("task 1's branch is still there: %s", out)
	}
	if out := gitOut(t, e.dir, "worktree", "list", "--porcelain"); strings.Contains(out, items[0].Path) {
		t.Errorf("git still lists task 1's worktree:\n%s", out)
	}
}

// takeBackMerge: gu takes task 2's merge back; a second gm, then the
// chat's /undo, takes it back as a turn of the chat.
func takeBackMerge(t *testing.T, e *editor) {
	t.Helper()
	// gu takes the merge back.
	e.input("gu")
	e.waitFor("the merge taken back", 10*time.Second, func() bool { return strings.Contains(e.notes(), "merge taken back") })
	if main, _ := os.ReadFile(filepath.Join(e.dir, "main.txt")); string(main) != "one\ntwo\nthree\nfour\nfive\nsix\nuser's seven\n" {
		t.Errorf("main.txt after gu:\n%s", main)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "task-a.txt")); !os.IsNotExist(err) {
		t.Errorf("gu left task-a.txt: %v", err)
	}
	// gm again; the chat's /undo takes the merge back as a turn of its own.
	e.lua(`require('coder.tasks').open()`, nil)
	e.lua(`vim.api.nvim_win_set_cursor(0, {5, 0})`, nil)
	before := strings.Count(e.notes(), "task 2 merged")
	e.input("gm")
	e.waitFor("the second merge", 10*time.Second, func() bool { return strings.Count(e.notes(), "task 2 merged") > before })
	if _, err := os.Stat(filepath.Join(e.dir, "task-a.txt")); err != nil {
		t.Fatalf("the second gm did not apply task-a.txt: %v", err)
	}
	// Back to the chat (input went to the task shown), then /undo.
	e.lua(`return require('coder.host').request('coder_task_action', 0, 'open')`, nil)
	e.run("Coder /undo")
	e.waitFor("/undo of the merge", 10*time.Second, func() bool {
		_, err := os.Stat(filepath.Join(e.dir, "task-a.txt"))
		main, _ := os.ReadFile(filepath.Join(e.dir, "main.txt"))
		return os.IsNotExist(err) && string(main) == "one\ntwo\nthree\nfour\nfive\nsix\nuser's seven\n"
	})

}

// TestTaskInterruptedByHostDeath: a host killed mid-task leaves the task
// interrupted; the next host lists it so and gc continues it to its end.
func TestTaskInterruptedByHostDeath(t *testing.T) {
	e := newEditor(t, editorOpts{})
	writeFile(t, filepath.Join(e.dir, "main.txt"), "one\n")
	writeFile(t, filepath.Join(e.dir, ".gitignore"), ".coder/\n")
	gitOut(t, e.dir, "add", "-A")
	gitOut(t, e.dir, "commit", "-qm", "start")
	script := &taskScript{gates: map[string]chan struct{}{}}
	gate := make(chan struct{})
	script.gates["TASK-C"] = gate
	e.llm.SetScript(script.reply)
	e.start()
	e.lua(`require('coder').send('/task --mode yolo TASK-C survive')`, nil)
	e.waitTask(1, "running")
	e.waitFor("the task's request", 10*time.Second, func() bool {
		for _, r := range e.llm.Requests() {
			for _, m := range r.Messages {
				if strings.Contains(m.Content, "TASK-C") {
					return true
				}
			}
		}
		return false
	})
	e.killHost()
	e.waitFor("the host to exit", 10*time.Second, func() bool { return !e.boolLua(`return require('coder.host').running()`) })
	close(gate)
	e.cmd("Coder tasks")
	e.waitFor("the new host's list", 10*time.Second, func() bool { return e.taskState(1) == "interrupted" })
	e.lua(`vim.api.nvim_win_set_cursor(0, {4, 0})`, nil)
	e.input("gc")
	e.waitTask(1, "done")
	items := e.tasks()
	if data, err := os.ReadFile(filepath.Join(items[0].Path, "task-c.txt")); err != nil || string(data) != "TASK-C was here\n" {
		t.Errorf("the continued task did not finish its work: %q %v", data, err)
	}
	if st := gitOut(t, e.dir, "status", "--porcelain"); strings.TrimSpace(st) != "" {
		t.Errorf("the user's tree changed:\n%s", st)
	}
	// :checkhealth coder lists it.
	e.cmd("checkhealth coder")
	var report string
	e.lua(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')`, &report)
	e.cmd("bwipeout!")
	if !strings.Contains(report, "TASK-C survive") || !strings.Contains(report, "1 tasks: 0 running") {
		t.Errorf("health report:\n%s", report)
	}
	// /resume lists the task's session too; choosing it shows it.
	e.lua(`vim.ui.select = function(items, opts, cb)
			_G.picked = vim.tbl_map(function(i) return i.label end, items)
			for _, i in ipairs(items) do if i.id:find('^task:') then cb(i) return end end
			cb(nil)
		end`, nil)
	e.lua(`require('coder').send('/resume')`, nil)
	e.waitFor("the task's transcript", 10*time.Second, func() bool { return strings.Contains(e.transcript(), "── task 1: TASK-C survive ──") })
	var picked []string
	e.lua(`return _G.picked`, &picked)
	if len(picked) == 0 || !strings.Contains(strings.Join(picked, "\n"), "task 1  TASK-C survive  (done") {
		t.Errorf("/resume offered %q", picked)
	}
}

// TestTaskNeedsACommit: a repository without a commit has nothing to
// branch from; /task says so and gives the input back.
func TestTaskNeedsACommit(t *testing.T) {
	e := newEditor(t, editorOpts{})
	e.start()
	e.lua(`require('coder').send('/task do something')`, nil)
	e.waitFor("the refusal", 10*time.Second, func() bool { return strings.Contains(e.notes(), "no commit yet") })
	if got := strings.Join(e.inputLines(), "\n"); got != "/task do something" {
		t.Errorf("input after the refusal: %q", got)
	}
}
