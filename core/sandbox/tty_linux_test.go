package sandbox

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestTIOCSTIRefused: seccomp refuses TIOCSTI on a terminal the command
// does control: a served shell, a session leader, that opens a free
// terminal makes it its controlling one, and /dev/tty (whose ioctls
// Landlock allows) then passes the kernel's own check.
func TestTIOCSTIRefused(t *testing.T) {
	b := testBox(t)
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	defer m.Close()
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	pts := "/dev/pts/" + strconv.Itoa(n)
	ws := t.TempDir()
	srv, err := b.Serve(Policy{Writable: []string{ws}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	outR, outW, _ := os.Pipe()
	devnull, _ := os.Open(os.DevNull)
	defer devnull.Close()
	script := `exec 3<` + pts + `; python3 -c '
import fcntl, os, termios
fd = os.open("/dev/tty", os.O_RDONLY)
print("ctty:", os.ttyname(fd))
try:
    fcntl.ioctl(fd, termios.TIOCSTI, b"x")
    print("PUSHED")
except OSError as e:
    print("refused:", e)
'`
	p, err := srv.Spawn("/bin/bash", []string{"bash", "-c", script}, os.Environ(), ws, [3]*os.File{outW, outW, devnull})
	outW.Close()
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	var out strings.Builder
	for {
		k, err := outR.Read(buf)
		out.WriteString(string(buf[:k]))
		if err != nil {
			break
		}
	}
	p.Wait()
	if !strings.Contains(out.String(), "ctty: ") {
		t.Skipf("the shell did not take the terminal as its own (the test proves nothing here): %q", out.String())
	}
	if !strings.Contains(out.String(), "refused: [Errno 1]") {
		t.Errorf("TIOCSTI on its own terminal: %q, want EPERM", out.String())
	}
}
