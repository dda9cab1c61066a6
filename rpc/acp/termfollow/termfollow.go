// Package termfollow mirrors a running command's output into an ACP
// client's terminal without letting the client run the command: the host
// runs it (in its sandbox, under its caps) and appends the output to a
// file; the terminal runs `coder-nvim terminal-follow FILE`, which prints
// that file as it grows and exits with the command's exit status.
//
// The file is a header line, then records: "o N\n" and N bytes of
// output, and finally "x CODE\n". The follower prints nothing of a file
// without the header, reads only the file it is given, prints at most
// MaxOutput bytes of it, text and colors only (sanitize.go), and stops
// when the host stops touching it.
package termfollow

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

// Subcommand is the follower's: `coder-nvim terminal-follow FILE`.
const Subcommand = "terminal-follow"

const header = "coder-nvim-terminal 1\n"

// Bounds: a record and the whole output the follower prints. The host
// streams at most 1 MiB of a command's output (core/agent/outstream).
const (
	MaxRecord = 1 << 20
	MaxOutput = 4 << 20
)

// Heartbeat is how often the host touches a file whose command is still
// running; staleAfter without a change tells the follower the host is
// gone (or hung).
const (
	Heartbeat  = 1 * time.Second
	staleAfter = 10 * time.Second
)

// Writer is the host's side: one command's output file.
type Writer struct {
	path string

	mu     sync.Mutex
	f      *os.File
	stop   chan struct{}
	ended  bool
	output int // bytes of output written
}

// Create makes a new output file in dir and starts its heartbeat.
func Create(dir string) (*Writer, error) {
	f, err := os.CreateTemp(dir, "output-*")
	if err != nil {
		return nil, fmt.Errorf("terminal output file: %w", err)
	}
	if _, err := f.WriteString(header); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("terminal output file: %w", err)
	}
	w := &Writer{path: f.Name(), f: f, stop: make(chan struct{})}
	go w.beat()
	return w, nil
}

// Path is the file the follower is given.
func (w *Writer) Path() string { return w.path }

func (w *Writer) beat() {
	t := time.NewTicker(Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case now := <-t.C:
			os.Chtimes(w.path, now, now) //nolint:errcheck // a missed beat only shortens the follower's wait
		}
	}
}

// Output appends text. Output past MaxOutput is dropped: the follower
// would not print it.
func (w *Writer) Output(text string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended {
		return errors.New("terminal output file: already ended")
	}
	for len(text) > 0 && w.output < MaxOutput {
		n := min(len(text), MaxRecord, MaxOutput-w.output)
		if _, err := w.f.WriteString("o " + strconv.Itoa(n) + "\n" + text[:n]); err != nil {
			return fmt.Errorf("terminal output file: %w", err)
		}
		w.output += n
		text = text[n:]
	}
	return nil
}

// End writes the exit status and stops the heartbeat; the follower exits
// with code (clamped to 0-255: a negative one is 1).
func (w *Writer) End(code int) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended {
		return nil
	}
	w.ended = true
	close(w.stop)
	_, err := w.f.WriteString("x " + strconv.Itoa(code) + "\n")
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Remove ends the file (exit status 1, if End was not called) and deletes
// it. A follower that opened it reads it to its end on Unix.
func (w *Writer) Remove() {
	w.End(1) //nolint:errcheck // removed next
	os.Remove(w.path)
}
