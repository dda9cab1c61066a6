package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/coder-nvim/coder-nvim/core/atomicfile"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// Record kinds of the journal.
const (
	KindSession  = "session"   // Header: the snapshot's fields other than its lists
	KindMessage  = "msg"       // Msg appended to conversation Conv
	KindResult   = "result"    // Msg replaces the tool message of call Call in conversation Conv
	KindConv     = "conv"      // Conversation created or its context changed
	KindConvEnd  = "conv_end"  // conversation Conv destroyed
	KindTurn     = "turn"      // Turn started, ended or undone (upsert by task id)
	KindStart    = "start"     // tool call Call started
	KindEnd      = "end"       // tool call Call ended
	KindTodos    = "todos"     // Todos replaced
	KindCommand  = "command"   // a / command's result (Command)
	KindView     = "view"      // compacted view of conversation Conv
	KindError    = "error"     // Text: an error the session hit
	KindTaskEnd  = "task_end"  // a task ended
	KindTaskInit = "task_init" // a task started
	KindRewind   = "rewind"    // Branch: conversation Conv cut back by /rewind (rewind.go)
)

// Record is one line of a session journal: something that happened since
// the snapshot. Seq increases by one per record over the session's life.
type Record struct {
	Seq          int64         `json:"seq"`
	Time         time.Time     `json:"t"`
	Kind         string        `json:"k"`
	Conv         string        `json:"conv,omitempty"`
	Msg          *llm.Message  `json:"msg,omitempty"`
	Call         string        `json:"call,omitempty"`
	Header       *Snapshot     `json:"header,omitempty"`
	Conversation *Conversation `json:"conversation,omitempty"`
	Turn         *Turn         `json:"turn,omitempty"`
	Todos        []Todo        `json:"todos,omitempty"`
	Command      *Command      `json:"command,omitempty"`
	View         *View         `json:"view,omitempty"`
	Text         string        `json:"text,omitempty"`
	Branch       *Branch       `json:"branch,omitempty"`
}

func journalPath(dir, id string) (string, error) {
	p, err := path(dir, id)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(p, ".json") + ".journal", nil
}

// Journal is a session's append-only record of what happened since its
// last snapshot, one JSON record per line, each append fsynced: the cost of
// an append does not grow with the session. Records are filtered by the
// storage policy before they are written.
type Journal struct {
	dir, id string

	mu       sync.Mutex // guards the fields below
	f        *os.File
	seq      int64
	policy   Policy
	degraded bool
	convs    map[string]Policy // conversation id -> its own policy
	ends     []recEnd          // since the last truncation: where each record ends
	size     int64
	written  int64 // bytes written, for benchmarks
	syncs    int64 // appends that waited for the disk, for tests
	unsynced bool  // records written by AppendLater, not yet fsynced
}

type recEnd struct {
	seq int64
	off int64
}

// OpenJournal opens session id's journal for appending after record seq
// (the last one Resume saw). A torn last record, left by a kill in the
// middle of an append, is cut off first so the next record starts on its
// own line.
func OpenJournal(dir, id string, seq int64, p Policy) (*Journal, error) {
	jp, err := journalPath(dir, id)
	if err != nil {
		return nil, err
	}
	if err := ensureDir(dir); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(jp, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open journal: %w", err)
	}
	good, last, err := scanJournal(f, nil)
	if err == nil {
		err = f.Truncate(good)
	}
	if err == nil {
		_, err = f.Seek(good, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open journal %s: %w", jp, err)
	}
	j := &Journal{dir: dir, id: id, f: f, seq: max(seq, last), policy: p, convs: map[string]Policy{}, size: good}
	return j, nil
}

// SetPolicy changes the session's policy for the records that follow.
func (j *Journal) SetPolicy(p Policy, degraded bool) {
	j.mu.Lock()
	j.policy, j.degraded = p, degraded
	j.mu.Unlock()
}

// SetConvPolicy records conversation conv's own policy; records of it are
// filtered by the narrower of it and the session's.
func (j *Journal) SetConvPolicy(conv string, p Policy) {
	j.mu.Lock()
	j.convs[conv] = p
	j.mu.Unlock()
}

// Seq is the last record's sequence number.
func (j *Journal) Seq() int64 {
	if j == nil {
		return 0
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.seq
}

// Written is how many bytes the journal has written.
func (j *Journal) Written() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.written
}

// Syncs is how many appends waited for the disk.
func (j *Journal) Syncs() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.syncs
}

// Append writes r durably (fsync) after the previous records, filtered by
// the policy, and returns its sequence number. A record the policy keeps
// out entirely is not written and returns 0.
func (j *Journal) Append(r Record) (int64, error) {
	return j.append(r, true)
}

// AppendLater is Append without waiting for the disk: the record is in the
// file (a crash of the host loses nothing) but only the next Append, or
// Close, makes it durable against a crash of the machine. It is for a
// record that the caller follows with a synced one before anything it
// records can have an effect, so that one fsync serves both.
func (j *Journal) AppendLater(r Record) (int64, error) {
	return j.append(r, false)
}

func (j *Journal) append(r Record, durable bool) (int64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return 0, fmt.Errorf("journal of session %s is closed", j.id)
	}
	if r.Kind == KindConv && r.Conversation != nil {
		cp, _ := ParsePolicy(r.Conversation.StoragePolicy)
		j.convs[r.Conversation.ID] = cp
		r.Conv = r.Conversation.ID
	}
	p := j.policy.writes(j.degraded)
	conv := r.Conv
	if r.Kind == KindTurn && r.Turn != nil {
		conv = r.Turn.Conv // a turn is its conversation's text
	}
	if cp, ok := j.convs[conv]; ok {
		p = Narrower(j.policy, cp).writes(j.degraded)
	}
	if !filterRecord(p, &r) {
		return 0, nil
	}
	j.seq++
	r.Seq = j.seq
	if r.Time.IsZero() {
		r.Time = time.Now().UTC()
	}
	// A long message is written in pieces (encode.go); a failure midway
	// leaves a partial line, cut off below like any failed write.
	var long longTexts
	n, err := writeJSON(j.f, long.record(r), &long, "\n")
	j.written += n
	if err == nil && durable {
		j.syncs++
		err = j.f.Sync()
	}
	if err != nil {
		// A partial line would glue the next record to it: cut it off.
		j.f.Truncate(j.size)
		j.f.Seek(j.size, io.SeekStart)
		j.seq--
		return 0, fmt.Errorf("append to journal of session %s: %w", j.id, err)
	}
	j.size += n
	j.ends = append(j.ends, recEnd{seq: j.seq, off: j.size})
	j.unsynced = !durable
	return j.seq, nil
}

// Absorbed drops the records up to seq, which a snapshot now durably
// holds. The journal on disk holds every later record at every instant:
// when none follow it is truncated in place, otherwise its tail is copied
// to a new file that atomically replaces it.
func (j *Journal) Absorbed(seq int64) error {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	cut := int64(-1)
	for _, e := range j.ends {
		if e.seq == seq {
			cut = e.off
		}
	}
	if seq >= j.seq || (cut < 0 && len(j.ends) == 0) {
		cut = j.size
	}
	if cut < 0 {
		return nil // records older than this process: kept, skipped by seq
	}
	if cut == j.size {
		if err := j.f.Truncate(0); err != nil {
			return fmt.Errorf("truncate journal: %w", err)
		}
		if _, err := j.f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("truncate journal: %w", err)
		}
		j.size, j.ends, j.unsynced = 0, nil, false
		return j.f.Sync()
	}
	return j.rotateLocked(seq, cut)
}

// rotateLocked replaces the journal with its records after seq, which
// start at byte cut. j.mu is held.
func (j *Journal) rotateLocked(seq, cut int64) error {
	jp, _ := journalPath(j.dir, j.id)
	tmp, err := os.CreateTemp(j.dir, "."+j.id+".*.journal.tmp")
	if err != nil {
		return fmt.Errorf("rotate journal: %w", err)
	}
	// Copied through a small buffer: the tail may hold a long message.
	tail := j.size - cut
	n, err := io.Copy(tmp, io.NewSectionReader(j.f, cut, tail))
	if err == nil && n != tail {
		err = io.ErrUnexpectedEOF
	}
	if err == nil {
		err = tmp.Chmod(0o644) // as OpenJournal creates it, not CreateTemp's 0600
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("rotate journal: %w", err)
	}
	// Both files closed for the rename, which Windows refuses for an open
	// file (either side); the journal is then opened again.
	j.f.Close()
	j.f = nil
	if err := os.Rename(tmp.Name(), jp); err != nil {
		os.Remove(tmp.Name())
		return errors.Join(fmt.Errorf("rotate journal: %w", err), j.reopenLocked(jp, j.size))
	}
	j.written += tail
	j.unsynced = false
	j.size = tail
	var ends []recEnd
	for _, e := range j.ends {
		if e.seq > seq {
			ends = append(ends, recEnd{seq: e.seq, off: e.off - cut})
		}
	}
	j.ends = ends
	atomicfile.SyncDir(j.dir) //nolint:errcheck // the journal is whole either way
	return j.reopenLocked(jp, tail)
}

// reopenLocked opens the journal at jp again, to append at size. A
// journal that cannot be opened stays closed: appends then fail with that.
func (j *Journal) reopenLocked(jp string, size int64) error {
	f, err := os.OpenFile(jp, os.O_RDWR, 0)
	if err == nil {
		if _, err = f.Seek(size, io.SeekStart); err != nil {
			f.Close()
		}
	}
	if err != nil {
		return fmt.Errorf("reopen journal: %w", err)
	}
	j.f = f
	return nil
}

// Close closes the journal file.
func (j *Journal) Close() error {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	var err error
	if j.unsynced {
		err = j.f.Sync()
	}
	err = errors.Join(err, j.f.Close())
	j.f = nil
	return err
}

// scanJournal reads records from r, calling fn (when not nil) for each
// whole one in order, and returns the end of the last whole record and
// its seq. A record cut short or unreadable at the end — a kill in the
// middle of an append — ends the scan; it is never an error.
func scanJournal(r io.Reader, fn func(*Record)) (good, last int64, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var off int64
	for {
		line, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return good, last, nil // a line without its newline is torn
		}
		if err != nil {
			return good, last, err
		}
		off += int64(len(line))
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			good = off
			continue
		}
		var rec Record
		if json.Unmarshal(line, &rec) != nil {
			// Only the last record can be torn; anything after a bad line
			// is dropped with it rather than applied out of order.
			return good, last, nil
		}
		good, last = off, rec.Seq
		if fn != nil {
			fn(&rec)
		}
	}
}

// readJournal applies session id's journal records after seq to fn. A
// missing journal has no records.
func readJournal(dir, id string, fn func(*Record)) (last int64, err error) {
	jp, err := journalPath(dir, id)
	if err != nil {
		return 0, err
	}
	f, err := os.Open(jp)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read journal: %w", err)
	}
	defer f.Close()
	_, last, err = scanJournal(f, fn)
	if err != nil {
		return 0, fmt.Errorf("read journal %s: %w", filepath.Base(jp), err)
	}
	return last, nil
}

// filterRecord applies policy p to r; false drops it. Under none only the
// bare start, end and error markers remain.
func filterRecord(p Policy, r *Record) bool {
	switch p {
	case PolicyFull:
		return true
	case PolicyNone:
		switch r.Kind {
		case KindStart, KindEnd, KindTaskInit, KindTaskEnd, KindError:
			r.Text = ""
			return true
		case KindTurn:
			if r.Turn != nil {
				t := *r.Turn
				t.Input = ""
				t.Review = headerVerdicts(t.Review, PolicyNone)
				r.Turn = &t
			}
			return true
		case KindSession:
			if r.Header != nil {
				r.Header = r.Header.headerOnly().filtered()
			}
			return true
		case KindConv:
			if r.Conversation != nil {
				r.Conversation = &Conversation{ID: r.Conversation.ID, StoragePolicy: r.Conversation.StoragePolicy}
			}
			return true
		case KindConvEnd:
			return true
		case KindRewind:
			r.Branch = r.Branch.filtered(PolicyNone)
			return true
		}
		return false
	}
	// headers_only
	switch r.Kind {
	case KindMessage, KindResult:
		if r.Msg != nil {
			m, _ := FilterMessage(PolicyHeaders, *r.Msg)
			r.Msg = &m
		}
	case KindConv:
		if r.Conversation != nil {
			c := *r.Conversation
			c.Instructions = notStored(c.Instructions)
			c.UserInstructions = notStored(c.UserInstructions)
			c.System = notStored(c.System)
			c.Messages = filterMessages(PolicyHeaders, c.Messages)
			c.Todos = headerTodos(c.Todos)
			r.Conversation = &c
		}
	case KindTurn:
		if r.Turn != nil {
			t := *r.Turn
			t.Input = notStored(t.Input)
			t.Review = headerVerdicts(t.Review, PolicyHeaders)
			r.Turn = &t
		}
	case KindTodos:
		r.Todos = headerTodos(r.Todos)
	case KindCommand:
		if r.Command != nil {
			r.Command = &headerCommands([]Command{*r.Command})[0]
		}
	case KindRewind:
		r.Branch = r.Branch.filtered(PolicyHeaders)
	case KindView:
		if r.View != nil {
			v := *r.View
			v.Summary = notStored(v.Summary)
			r.View = &v
		}
	case KindSession:
		if r.Header != nil {
			r.Header = r.Header.headerOnly().filtered()
		}
	}
	r.Text = notStored(r.Text)
	return true
}

// headerOnly is s without its lists: what a KindSession record carries.
func (s *Snapshot) headerOnly() *Snapshot {
	return &Snapshot{ID: s.ID, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, Model: s.Model,
		Mode: s.Mode, Preset: s.Preset, Cwd: s.Cwd, Tools: s.Tools, Storage: s.Storage,
		StorageTTL: s.StorageTTL, Degraded: s.Degraded}
}
