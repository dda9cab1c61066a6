// Package store saves and loads session snapshots:
// .coder/sessions/<session_id>.json in the workspace (seed 001 §10). A
// snapshot holds enough to replay one request (model, tools, messages) and to
// restore the session.
package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/coder-nvim/coder-nvim/core/agentsmd"
	"github.com/coder-nvim/coder-nvim/core/atomicfile"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/google/uuid"
)

// Snapshot is the saved form of a session.
type Snapshot struct {
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	Model     string    `json:"model"`
	Mode      string    `json:"mode"`
	Preset    string    `json:"preset,omitempty"`
	Cwd       string    `json:"cwd,omitempty"`
	// Storage is the session's storage policy ("" is full) and StorageTTL
	// the age after which a ttl session is degraded to headers_only;
	// Degraded says that happened. TTLConvs: some conversation is under
	// ttl. These come before the messages so the cleanup pass reads only
	// the head of each file.
	Storage    Policy `json:"storage,omitempty"`
	StorageTTL string `json:"storage_ttl,omitempty"`
	Degraded   bool   `json:"degraded,omitempty"`
	TTLConvs   bool   `json:"ttl_conversations,omitempty"`
	// Layout is LayoutBounded when the views come before the messages
	// and the root's messages start with its system message: Resume may
	// then leave what the views summarise on disk (bounded.go).
	Layout int `json:"layout,omitempty"`
	// Views are the compacted views of conversations: what is sent to the
	// model in place of their oldest messages, which stay in Messages.
	// Before the messages, so Resume knows them when it reads those.
	Views []View `json:"views,omitempty"`
	// Skipped, per conversation ("" the root), are its oldest messages
	// this snapshot does not hold: they are in the snapshot file, Save
	// copies them from the file it replaces (bounded.go).
	Skipped map[string]*Skipped `json:"-"`
	// MessageTimes holds, for each of Messages, when it was written (unix
	// milliseconds; 0: unknown or already degraded): under ttl each
	// message is kept whole for storage.ttl from then on. Before the
	// messages, so the cleanup pass reads it with the head.
	MessageTimes []int64 `json:"message_times,omitempty"`
	// Messages is the root conversation as sent to the model, system
	// message first.
	Messages []llm.Message `json:"messages"`
	// Tools is the OpenAI tools array exactly as sent.
	Tools []llm.Tool `json:"tools"`
	// Root is the root conversation's context; its messages and todos are
	// in Messages and Todos.
	Root *Conversation `json:"root,omitempty"`
	// Conversations holds the conversations other than the root, in
	// creation order.
	Conversations []Conversation `json:"conversations,omitempty"`
	Todos         []Todo         `json:"todos,omitempty"`
	// Commands are the root conversation's `/` command results.
	Commands []Command `json:"commands,omitempty"`
	// Turns records per user turn the workspace snapshot taken before it,
	// so /undo works after a restart.
	Turns []Turn `json:"turns,omitempty"`
	// Abandoned are the branches /rewind cut off the root conversation,
	// oldest first: kept, never sent to the model.
	Abandoned []Branch `json:"abandoned,omitempty"`
	// Started lists the tool calls that had begun running, and had no
	// result yet, when this was saved: after a crash they are answered
	// "outcome unknown", not "never ran".
	Started []string `json:"started,omitempty"`
	// JournalSeq is the last journal record this snapshot holds: resume
	// applies only the records after it, so a kill between writing the
	// snapshot and truncating the journal loses and doubles nothing.
	JournalSeq int64 `json:"journal_seq,omitempty"`
	// agedAt, when set, is the time ttl ages messages against (the
	// cleanup pass); else UpdatedAt.
	agedAt time.Time
}

// View is a conversation's compacted prompt: its first Upto messages
// (after the system message) are sent as the one Summary message.
type View struct {
	Conv    string `json:"conv,omitempty"` // "" is the root conversation
	Upto    int    `json:"upto"`
	Summary string `json:"summary"`
}

// Conversation is a non-root conversation's saved state: its context
// (instructions, model, tool preferences, MCP allowlist, narrowing policy)
// and its messages, so a resumed session restores it whole.
type Conversation struct {
	ID               string         `json:"id"`
	Instructions     string         `json:"instructions,omitempty"`
	UserInstructions string         `json:"user_instructions,omitempty"`
	Model            string         `json:"model,omitempty"`
	Tools            *ToolPrefs     `json:"tools,omitempty"`
	MCPAllowlist     []string       `json:"mcp_allowlist,omitempty"`
	Policy           *policy.Policy `json:"policy,omitempty"`
	StoragePolicy    string         `json:"storage_policy,omitempty"`
	CreatedAt        time.Time      `json:"created_at,omitempty"`
	LastActiveAt     time.Time      `json:"last_active_at,omitempty"`
	MessageTimes     []int64        `json:"message_times,omitempty"` // as Snapshot.MessageTimes
	Messages         []llm.Message  `json:"messages,omitempty"`
	Todos            []Todo         `json:"todos,omitempty"`
	// System and SentTools are the system message and the tools array of
	// the conversation's last request, so the file alone replays it (the
	// root's are Snapshot.Messages[0] and Snapshot.Tools).
	System    string     `json:"system,omitempty"`
	SentTools []llm.Tool `json:"sent_tools,omitempty"`
	Commands  []Command  `json:"commands,omitempty"`
	// Stats are the conversation's metrics (stats.go).
	Stats *Stats `json:"stats,omitempty"`
	// AgentsMD lists the instruction files it was given (their text is
	// read again on resume); NoAgentsMD: its opener asked for none.
	AgentsMD   []agentsmd.File `json:"agents_md,omitempty"`
	NoAgentsMD bool            `json:"no_agents_md,omitempty"`
}

// Command is a `/` command run in a conversation and what it printed
// (seed 001 §4: written back to the session). It is never sent to the
// model; a resumed session shows it where it ran.
type Command struct {
	At     int       `json:"at"` // the number of messages the conversation held when it ran
	Input  string    `json:"input"`
	Output string    `json:"output"`
	Time   time.Time `json:"time,omitempty"`
}

// headerCommands is commands without their output: size only.
func headerCommands(cmds []Command) []Command {
	var out []Command
	for _, c := range cmds {
		c.Output = notStored(c.Output)
		out = append(out, c)
	}
	return out
}

// ToolPrefs are a conversation's built-in tool switches (seed 000
// internal_tools).
type ToolPrefs struct {
	Plan      bool `json:"include_plan_tool"`
	Patch     bool `json:"include_apply_patch_tool"`
	WebSearch bool `json:"web_search_request"`
	Shell     bool `json:"use_streamable_shell_tool"`
}

// Todo is one todo entry.
type Todo struct {
	Content string `json:"content"`
	Status  string `json:"status"`
}

// Turn is one user turn with the git snapshot taken at its start.
type Turn struct {
	Task     string    `json:"task"`
	Input    string    `json:"input"`
	Started  time.Time `json:"started"`
	Snapshot string    `json:"snapshot,omitempty"` // commit id of the workspace before the turn
	After    string    `json:"after,omitempty"`    // commit id of the workspace after the turn
	Undone   bool      `json:"undone,omitempty"`
	// Tracked turns list in Own every file their own tool calls changed,
	// and /undo takes back only those; older sessions lack it and undo
	// everything between Snapshot and After.
	Tracked bool        `json:"tracked,omitempty"`
	Own     []OwnedFile `json:"own,omitempty"`
	// Snaps are the turn's further snapshots (taken around commands)
	// whose refs it keeps.
	Snaps []string `json:"snaps,omitempty"`
	// Start is the 1-based position of the turn's first message in its
	// conversation's history (/rewind cuts just before it); 0: unknown
	// (older sessions). Conv is the conversation's key ("" the root).
	Start int    `json:"start,omitempty"`
	Conv  string `json:"conv,omitempty"`
	// Rewound: /rewind abandoned the turn (its files taken back, its
	// messages moved to an abandoned branch).
	Rewound bool `json:"rewound,omitempty"`
	// Review is what the user said of the turn's hunks (review.go).
	Review []HunkVerdict `json:"review,omitempty"`
}

// OwnedFile is a file a turn changed itself.
type OwnedFile struct {
	Path string `json:"path"` // workspace-relative, slash-separated
	Base string `json:"base"` // snapshot holding it as it was before the turn first changed it
}

// Summary describes a saved session for pickers.
type Summary struct {
	ID          string    `json:"id"`
	UpdatedAt   time.Time `json:"updated_at"`
	FirstPrompt string    `json:"first_prompt"`
	Messages    int       `json:"messages"` // CountMessages of the session
	Answered    bool      `json:"answered"` // the model answered at least once
}

// CountMessages is the size of a conversation as front ends show it: its
// user and assistant messages (not the system prompt, the AGENTS.md
// message nor tool results).
func CountMessages(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		if m.Source == "" && (m.Role == llm.RoleUser || m.Role == llm.RoleAssistant) {
			n++
		}
	}
	return n
}

// Head is how many of a saved message list's first messages were sent
// before its history: the system message (the root's first) and the
// messages marked with a Source (the AGENTS.md message). They are
// rebuilt for every request, never part of the history.
func Head(msgs []llm.Message) int {
	n := 0
	for n < len(msgs) && isHead(n, msgs[n]) {
		n++
	}
	return n
}

// isHead reports whether m, the i-th message of a list, is one of its
// head (Head) when all before it are.
func isHead(i int, m llm.Message) bool {
	return i == 0 && m.Role == llm.RoleSystem || m.Source != ""
}

// Dir is the sessions directory of a workspace.
func Dir(root string) string { return filepath.Join(root, ".coder", "sessions") }

// ErrNotFound is returned by Load for an unknown session id.
var ErrNotFound = errors.New("no such session")

func path(dir, id string) (string, error) {
	if _, err := uuid.Parse(id); err != nil {
		return "", fmt.Errorf("%q is not a session id: %w", id, ErrNotFound)
	}
	return filepath.Join(dir, id+".json"), nil
}

// Save writes the snapshot atomically (temp file, fsync, rename), so the
// file on disk is always a whole snapshot, also under kill -9 and power
// loss.
func Save(dir string, s *Snapshot) error {
	p, err := prepare(dir, s)
	if err != nil {
		return err
	}
	// As atomicfile.WriteFile, but encoding straight into the file.
	f, err := atomicfile.Create(p, 0o644)
	if err != nil {
		return fmt.Errorf("save session: %w", err)
	}
	defer f.Cleanup()
	if err := encode(f, s, p); err != nil {
		return err
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("save session: %w", err)
	}
	return nil
}

// Write is Save without the fsync: the file is whole and survives the
// death of the process (the kernel has it), at a fraction of the cost; Sync
// makes it survive the machine's too. The agent writes this way while a
// task runs, so it can wait for every write.
func Write(dir string, s *Snapshot) error {
	p, err := prepare(dir, s)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+s.ID+".*.tmp")
	if err != nil {
		return fmt.Errorf("save session: %w", err)
	}
	err = encode(f, s, p)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("save session: %w", err)
	}
	return nil
}

// Sync flushes a session file written by Write, and its directory entry,
// to stable storage.
func Sync(dir, id string) error {
	p, err := path(dir, id)
	if err != nil {
		return err
	}
	// Written to: Windows flushes only a handle that may write.
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("sync session: %w", err)
	}
	err = f.Sync()
	f.Close()
	if err == nil {
		err = atomicfile.SyncDir(dir)
	}
	if err != nil {
		return fmt.Errorf("sync session: %w", err)
	}
	return nil
}

// prepare returns snapshot s's path in dir, creating dir if needed.
func prepare(dir string, s *Snapshot) (string, error) {
	p, err := path(dir, s.ID)
	if err != nil {
		return "", err
	}
	if err := ensureDir(dir); err != nil {
		return "", err
	}
	return p, nil
}

// encode writes s, filtered by its storage policy, to w; long message
// texts go in pieces (encode.go), so no copy of them is built in memory,
// and skipped messages are copied from old, the file being replaced.
func encode(w io.Writer, s *Snapshot, old string) error {
	long := longTexts{skipped: prefixes{old: old}}
	if _, err := writeJSON(w, long.snapshot(long.skipped.snapshot(s.filtered())), &long, ""); err != nil {
		return fmt.Errorf("encode session %s: %w", s.ID, err)
	}
	return nil
}

// Exists reports whether session id has a snapshot in dir.
func Exists(dir, id string) bool {
	p, err := path(dir, id)
	if err != nil {
		return false
	}
	_, err = os.Stat(p)
	return err == nil
}

// Load reads one snapshot, without its journal (see Resume).
func Load(dir, id string) (*Snapshot, error) { return decodeFile(dir, id, nil) }

// List summarises the saved sessions, newest first. Unreadable files are
// skipped.
func List(dir string) ([]Summary, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	var out []Summary
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() {
			continue
		}
		s, err := Resume(dir, id)
		if err != nil {
			continue
		}
		sum := Summary{ID: s.ID, UpdatedAt: s.UpdatedAt, Messages: CountMessages(s.Messages)}
		for _, m := range s.Messages {
			if m.Role == llm.RoleUser && m.Source == "" && sum.FirstPrompt == "" {
				sum.FirstPrompt = m.Content
			}
			sum.Answered = sum.Answered || m.Role == llm.RoleAssistant
		}
		out = append(out, sum)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].UpdatedAt.After(out[j].UpdatedAt) })
	return out, nil
}

// ensureDir creates the sessions directory with a .gitignore that ignores
// everything in it, so session files never show in `git status`, in
// workspace snapshots or in /undo.
func ensureDir(dir string) error {
	if err := ownDir(dir); err != nil {
		return err
	}
	ignore := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(ignore); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := os.WriteFile(ignore, []byte("# coder-nvim session files\n*\n"), 0o644); err != nil {
		return fmt.Errorf("create %s: %w", ignore, err)
	}
	return nil
}
