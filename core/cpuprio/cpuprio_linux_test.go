package cpuprio

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The test binary is a child that lowers itself (TestMain) when childEnv
// holds the nice values to pass to Lower in turn, below the editor pid in
// editorEnv; with wrapEnv set, a wrapper that runs that child and waits,
// as `sh -c` would in front of the host.
const (
	childEnv  = "CPUPRIO_TEST_LOWER"
	editorEnv = "CPUPRIO_TEST_EDITOR"
	wrapEnv   = "CPUPRIO_TEST_WRAP"
)

func TestMain(m *testing.M) {
	if os.Getenv(wrapEnv) != "" {
		os.Unsetenv(wrapEnv)
		cmd := exec.Command(os.Args[0], os.Args[1:]...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	if v := os.Getenv(childEnv); v != "" {
		os.Exit(child(v))
	}
	os.Exit(m.Run())
}

// child calls Lower with each of nices, then prints its pid, the nice of a
// process it starts afterwards and "ready", and stays until its stdin
// closes.
func child(nices string) int {
	editor, _ := strconv.Atoi(os.Getenv(editorEnv))
	for _, s := range strings.Split(nices, ",") {
		n, _ := strconv.Atoi(s)
		if _, err := Lower(n, editor); err != nil {
			fmt.Println("error", err)
			return 1
		}
	}
	fmt.Println("pid", os.Getpid())
	out, err := exec.Command("cat", "/proc/self/stat").Output()
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	fmt.Println("grandchild", statNice(string(out)))
	fmt.Println("ready")
	bufio.NewReader(os.Stdin).ReadString('\n')
	return 0
}

// statNice is the nice field of a /proc/PID/stat line.
func statNice(stat string) int {
	// The command name, in parentheses, may hold spaces.
	f := strings.Fields(stat[strings.LastIndexByte(stat, ')')+2:])
	n, _ := strconv.Atoi(f[16]) // field 19 of the line
	return n
}

func TestLower(t *testing.T) {
	self, err := readAutogroup("self")
	if err != nil {
		t.Skipf("no autogroups here: %v", err)
	}
	for _, c := range []struct {
		name    string
		nices   string
		session bool // the child is in a session of its own
		wrapped bool // behind a wrapper process in that session
		want    int
	}{
		{"own session", "7", true, false, 7},
		{"own session behind a wrapper", "7", true, true, 7},
		{"the editor's session", "7", false, false, 7},
		{"never raised", "12,7", false, false, 12},
		{"never raised, own session", "12,7", true, false, 12},
		{"past the lowest", "40", false, false, MaxNice},
		{"zero changes nothing", "0", false, false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			// The test process is the editor. GORACE: a -race child
			// would linger 1 s at exit.
			cmd.Env = append(os.Environ(), childEnv+"="+c.nices, editorEnv+"="+strconv.Itoa(os.Getpid()), "GORACE=atexit_sleep_ms=0")
			if c.wrapped {
				cmd.Env = append(cmd.Env, wrapEnv+"=1")
			}
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: c.session}
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() {
				stdin.Close()
				cmd.Wait()
			}()
			lines := bufio.NewScanner(stdout)
			grandchild, pid := -1, ""
			for lines.Scan() && lines.Text() != "ready" {
				if n, ok := strings.CutPrefix(lines.Text(), "grandchild "); ok {
					grandchild, _ = strconv.Atoi(n)
				} else if n, ok := strings.CutPrefix(lines.Text(), "pid "); ok {
					pid = n
				} else {
					t.Fatalf("child: %s", lines.Text())
				}
			}
			if pid == "" {
				t.Fatal("the child did not start")
			}
			g, err := readAutogroup(pid)
			if err != nil {
				t.Fatal(err)
			}
			byGroup := c.session && autogroupsOn() && c.want > 0
			if byGroup {
				if g.name == self.name || g.nice != c.want {
					t.Errorf("child's autogroup %s nice %d, want its own (not %s) at nice %d", g.name, g.nice, self.name, c.want)
				}
				// Its threads keep nice 0: the group weighs for them.
				c.want = 0
			} else if g.nice != self.nice && g.name == self.name {
				t.Errorf("the shared autogroup %s changed to nice %d", g.name, g.nice)
			}
			tasks, err := os.ReadDir("/proc/" + pid + "/task")
			if err != nil {
				t.Fatal(err)
			}
			for _, task := range tasks {
				stat, err := os.ReadFile("/proc/" + pid + "/task/" + task.Name() + "/stat")
				if err != nil {
					continue // the thread ended
				}
				if n := statNice(string(stat)); n != c.want {
					t.Errorf("thread %s at nice %d, want %d", task.Name(), n, c.want)
				}
			}
			if grandchild != c.want {
				t.Errorf("a process started after Lower runs at nice %d, want %d", grandchild, c.want)
			}
		})
	}
	if after, _ := readAutogroup("self"); after != self {
		t.Errorf("the test's own autogroup changed: %+v, was %+v", after, self)
	}
}
