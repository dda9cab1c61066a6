package termfollow

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
)

// Main is the follower: it prints the output file args[0] as it grows and
// exits with the command's exit status (1 when something is wrong, said
// on stderr).
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintf(stderr, "usage: coder-nvim %s FILE\n", Subcommand)
		return 2
	}
	f, err := openRegular(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "coder-nvim %s: %v\n", Subcommand, err)
		return 1
	}
	defer f.Close()
	code, err := follower{poll: 50 * time.Millisecond, stale: staleAfter, now: time.Now}.follow(f, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "\ncoder-nvim %s: %v\n", Subcommand, err)
	}
	return code
}

// openRegular opens p, which must be a regular file itself (not a link),
// and the one that was looked at.
func openRegular(p string) (*os.File, error) {
	st, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	if fst, err := f.Stat(); err != nil || !os.SameFile(st, fst) {
		f.Close()
		return nil, fmt.Errorf("%s changed while it was opened", p)
	}
	return f, nil
}

type follower struct {
	poll, stale time.Duration
	now         func() time.Time
}

var errNotOutput = errors.New("not a coder-nvim terminal output file")

// follow copies f's records to out until its exit record; it gives up
// when f stops changing for f.stale.
func (fl follower) follow(f *os.File, out io.Writer) (int, error) {
	var buf []byte
	chunk := make([]byte, 64<<10)
	printed, started := 0, false
	var z sanitizer
	lastSize, lastMod, lastChange := int64(-1), time.Time{}, fl.now()
	for {
		for len(buf) < MaxRecord+64 { // what is there, up to one record
			n, err := f.Read(chunk[:min(len(chunk), MaxRecord+64-len(buf))])
			buf = append(buf, chunk[:n]...)
			if n == 0 || err != nil {
				break
			}
		}
		progressed := false
		for {
			if !started {
				if len(buf) < len(header) {
					if !bytes.HasPrefix([]byte(header), buf) {
						return 1, errNotOutput
					}
					break
				}
				if string(buf[:len(header)]) != header {
					return 1, errNotOutput
				}
				buf, started, progressed = buf[len(header):], true, true
				continue
			}
			kind, n, rest, ok, err := record(buf)
			if err != nil {
				return 1, err
			}
			if !ok {
				break
			}
			if kind == 'x' {
				if n < 0 || n > 255 {
					n = 1 // a signal's -1, or a Windows status
				}
				return n, nil
			}
			if len(rest) < n {
				break // the rest of the record is yet to come
			}
			if printed += n; printed > MaxOutput {
				return 1, fmt.Errorf("more than %d bytes of output: not printed", MaxOutput)
			}
			if _, err := out.Write(z.filter(rest[:n])); err != nil {
				return 1, err
			}
			buf, progressed = rest[n:], true
		}
		if len(buf) >= MaxRecord+64 && !progressed {
			return 1, errNotOutput
		}
		// Still waiting: the host touches the file while its command
		// runs, so a file that stopped changing has no host.
		if st, err := f.Stat(); err == nil && (st.Size() != lastSize || !st.ModTime().Equal(lastMod)) {
			lastSize, lastMod, lastChange = st.Size(), st.ModTime(), fl.now()
		}
		if progressed {
			lastChange = fl.now()
		}
		if fl.now().Sub(lastChange) > fl.stale {
			return 1, errors.New("the agent stopped updating this output (it ended, or is hung)")
		}
		time.Sleep(fl.poll)
	}
}

// record parses the line of the record at the start of buf: its kind
// ('o' or 'x'), its number, and what follows the line; ok is false while
// the line is incomplete.
func record(buf []byte) (kind byte, n int, rest []byte, ok bool, err error) {
	i := bytes.IndexByte(buf, '\n')
	if i < 0 {
		if len(buf) > 32 {
			return 0, 0, nil, false, errNotOutput
		}
		return 0, 0, nil, false, nil
	}
	line := buf[:i]
	if len(line) < 3 || line[1] != ' ' || line[0] != 'o' && line[0] != 'x' {
		return 0, 0, nil, false, errNotOutput
	}
	n, err = strconv.Atoi(string(line[2:]))
	if err != nil || line[0] == 'o' && (n < 0 || n > MaxRecord) {
		return 0, 0, nil, false, errNotOutput
	}
	return line[0], n, buf[i+1:], true, nil
}
