package nvimhost

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestHostNice: the host, and the commands it runs, take the CPU below
// Neovim by setup({ host_nice }), so that on a busy machine the editor
// gets a core first. Neovim starts the host in a session of its own, so
// with Linux's autogroups it is that session's group that is lowered;
// without them, each of the host's threads.
func TestHostNice(t *testing.T) {
	nvimGroup, err := os.ReadFile("/proc/self/autogroup")
	if err != nil {
		t.Skip("needs Linux's /proc/PID/autogroup to read a priority back")
	}
	for _, c := range []struct {
		setup string
		want  int
	}{
		{"{}", 10},
		{"{host_nice = 3}", 3},
		{"{host_nice = 0}", 0},
	} {
		t.Run(c.setup, func(t *testing.T) {
			e := newEditor(t, editorOpts{setup: c.setup, nice: true})
			e.start()
			var pid int
			e.lua(`return vim.fn.jobpid(require('coder.host').state.chan)`, &pid)
			group, nice := priority(t, strconv.Itoa(pid), "")
			if nice != c.want {
				t.Errorf("host at nice %d, want %d", nice, c.want)
			}
			// A command the host runs inherits it.
			e.run("Coder !cat /proc/self/autogroup /proc/self/stat")
			cmdGroup, cmdNice := priority(t, "", e.transcript())
			if cmdGroup != group || cmdNice != nice {
				t.Errorf("a command runs in %s at nice %d, want the host's %s at nice %d", cmdGroup, cmdNice, group, nice)
			}
			e.cmd("checkhealth coder")
			var report string
			e.lua(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')`, &report)
			want := regexp.MustCompile(`CPU priority of the host and its commands: level with Neovim`)
			if c.want > 0 {
				// The session's group, or each thread without autogroups.
				want = regexp.MustCompile(fmt.Sprintf(`CPU priority of the host and its commands: below Neovim: (session %s|threads) at nice %d`, group, c.want))
			}
			if !want.MatchString(report) {
				t.Errorf("health report lacks %q:\n%s", want, report)
			}
			// Neovim's group (here the test's) is never lowered with it.
			if now, _ := os.ReadFile("/proc/self/autogroup"); string(now) != string(nvimGroup) {
				t.Errorf("the editor's autogroup changed: %q, was %q", now, nvimGroup)
			}
		})
	}
}

var (
	autogroupLine = regexp.MustCompile(`(/autogroup-\d+) nice (-?\d+)`)
	statLine      = regexp.MustCompile(`\d+ \([^)]*\) [A-Za-z] .*`)
)

// priority reads what decides a process's share of the cores from
// /proc/PID/autogroup and /proc/PID/stat, or from `cat` of both: its
// autogroup, and the nice that counts, the group's when the process's own
// is 0, else its own.
func priority(t *testing.T, pid, catOutput string) (group string, nice int) {
	t.Helper()
	text := catOutput
	if pid != "" {
		ag, err1 := os.ReadFile("/proc/" + pid + "/autogroup")
		stat, err2 := os.ReadFile("/proc/" + pid + "/stat")
		if err1 != nil || err2 != nil {
			t.Fatalf("read /proc/%s: %v %v", pid, err1, err2)
		}
		text = string(ag) + string(stat)
	}
	m, stat := autogroupLine.FindStringSubmatch(text), statLine.FindString(text)
	if m == nil || stat == "" {
		t.Fatalf("no autogroup or stat in %q", text)
	}
	f := strings.Fields(stat[strings.LastIndexByte(stat, ')')+2:])
	own, _ := strconv.Atoi(f[16]) // field 19: nice
	if own != 0 {
		return m[1], own
	}
	groupNice, _ := strconv.Atoi(m[2])
	return m[1], groupNice
}
