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

// childEnv makes the test binary a child that lowers itself (TestMain):
// its value is the nice values to pass to Lower, in turn.
const childEnv = "CPUPRIO_TEST_LOWER"

func TestMain(m *testing.M) {
	if v := os.Getenv(childEnv); v != "" {
		os.Exit(child(v))
	}
	os.Exit(m.Run())
}

// child calls Lower with each of nices, then prints the nice of a process
// it starts afterwards and "ready", and stays until its stdin closes.
func child(nices string) int {
	for _, s := range strings.Split(nices, ",") {
		n, _ := strconv.Atoi(s)
		if _, err := Lower(n); err != nil {
			fmt.Println("error", err)
			return 1
		}
	}
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
		session bool // the child leads a session of its own
		want    int
	}{
		{"own session", "7", true, 7},
		{"parent's session", "7", false, 7},
		{"never raised", "12,7", false, 12},
		{"never raised, own session", "12,7", true, 12},
		{"past the lowest", "40", false, MaxNice},
		{"zero changes nothing", "0", false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			// GORACE: a -race child would linger 1 s at exit.
			cmd.Env = append(os.Environ(), childEnv+"="+c.nices, "GORACE=atexit_sleep_ms=0")
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
			grandchild := -1
			for lines.Scan() && lines.Text() != "ready" {
				if n, ok := strings.CutPrefix(lines.Text(), "grandchild "); ok {
					grandchild, _ = strconv.Atoi(n)
				} else {
					t.Fatalf("child: %s", lines.Text())
				}
			}
			pid := strconv.Itoa(cmd.Process.Pid)
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
