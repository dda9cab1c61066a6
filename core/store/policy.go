package store

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

// Policy says what of a session or conversation is stored (seed 004 §3.6,
// §12). It is applied by this package before anything is written —
// journal, snapshot and their temporary files — so a policy that forbids
// text can never leave text on disk.
type Policy string

const (
	// PolicyFull stores everything.
	PolicyFull Policy = "full"
	// PolicyHeaders stores times, roles, tool names and call ids, counts
	// and sizes: no text, arguments, outputs or reasoning.
	PolicyHeaders Policy = "headers_only"
	// PolicyNone stores only start, end and error records, without content.
	PolicyNone Policy = "none"
	// PolicyTTL stores everything, degraded to headers_only by Expire once
	// the session is older than its TTL.
	PolicyTTL Policy = "ttl"
)

// ParsePolicy checks a configured policy name; "" is full.
func ParsePolicy(s string) (Policy, error) {
	switch p := Policy(s); p {
	case "":
		return PolicyFull, nil
	case PolicyFull, PolicyHeaders, PolicyNone, PolicyTTL:
		return p, nil
	}
	return "", fmt.Errorf("storage policy %q: want full, headers_only, none or ttl", s)
}

// rank orders policies by how much they keep, least last: ttl keeps
// everything for a while, so it keeps less than full.
func (p Policy) rank() int {
	switch p {
	case PolicyTTL:
		return 1
	case PolicyHeaders:
		return 2
	case PolicyNone:
		return 3
	}
	return 0
}

// Narrower is the policy of a and b that stores less: a conversation may
// store less than its session, never more.
func Narrower(a, b Policy) Policy {
	if b.rank() > a.rank() {
		return b
	}
	if a == "" {
		return PolicyFull
	}
	return a
}

// writes is what p writes now: ttl writes in full until Expire degrades it.
func (p Policy) writes(degraded bool) Policy {
	switch {
	case p == PolicyTTL && degraded:
		return PolicyHeaders
	case p == PolicyTTL, p == "":
		return PolicyFull
	}
	return p
}

// notStored stands in for text a policy keeps out: its size only.
func notStored(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf("[not stored: %d bytes]", len(s))
}

// headerTodos is todos without their text: status and size only.
func headerTodos(todos []Todo) []Todo {
	var out []Todo
	for _, t := range todos {
		out = append(out, Todo{Content: notStored(t.Content), Status: t.Status})
	}
	return out
}

// FilterMessage is m as policy p stores it; ok is false when p stores no
// messages at all. A headers-only message stays a valid OpenAI message
// (roles, tool names and call ids kept, arguments "{}") so a resumed
// session can still be sent.
func FilterMessage(p Policy, m llm.Message) (out llm.Message, ok bool) {
	switch p.writes(false) {
	case PolicyNone:
		return llm.Message{}, false
	case PolicyHeaders:
		out = llm.Message{Role: m.Role, ToolCallID: m.ToolCallID, Name: m.Name, Source: m.Source}
		size := len(m.Content)
		for _, im := range m.Images {
			size += len(im.URL)
		}
		if size > 0 {
			out.Content = fmt.Sprintf("[not stored: %d bytes, %d images, %d bytes of reasoning]", size, len(m.Images), len(m.Reasoning))
		} else if m.Reasoning != "" {
			out.Content = notStored(m.Reasoning)
		}
		for _, c := range m.ToolCalls {
			c.Function.Arguments = "{}"
			out.ToolCalls = append(out.ToolCalls, c)
		}
		return out, true
	}
	return m, true
}

func filterMessages(p Policy, msgs []llm.Message) []llm.Message {
	if p.writes(false) == PolicyFull {
		return msgs
	}
	var out []llm.Message
	for _, m := range msgs {
		if f, ok := FilterMessage(p, m); ok {
			out = append(out, f)
		}
	}
	return out
}

// effective is the policy a snapshot is written under.
func (s *Snapshot) effective() Policy {
	p, err := ParsePolicy(string(s.Storage))
	if err != nil {
		p = PolicyNone // unknown names store the least, never more
	}
	return p.writes(s.Degraded)
}

// convPolicy is conversation c's policy under session policy p.
func convPolicy(p Policy, c string, degraded bool) Policy {
	cp, err := ParsePolicy(c)
	if err != nil {
		cp = PolicyNone
	}
	return Narrower(p, cp).writes(degraded)
}

// filtered is s as its policy stores it: s itself under full, a filtered
// copy otherwise (the caller's snapshot is never changed).
func (s *Snapshot) filtered() *Snapshot {
	s = s.aged()
	p := s.effective()
	conversations := s.Conversations
	var narrowed bool
	for _, c := range s.Conversations {
		narrowed = narrowed || convPolicy(p, c.StoragePolicy, s.Degraded) != PolicyFull
	}
	if p == PolicyFull && !narrowed {
		return s
	}
	c := *s
	c.Conversations = nil
	convs := map[string]Policy{"": p} // each conversation's, for its turns
	for _, cv := range conversations {
		cp := convPolicy(p, cv.StoragePolicy, s.Degraded)
		convs[cv.ID] = cp
		if cp != PolicyFull {
			cv.Instructions = notStored(cv.Instructions)
			cv.UserInstructions = notStored(cv.UserInstructions)
			cv.System = notStored(cv.System)
			cv.Messages = filterMessages(cp, cv.Messages)
			cv.Todos = headerTodos(cv.Todos)
			cv.Commands = headerCommands(cv.Commands)
			cv.AgentsMD = nil // with the results that carried them: given again
		}
		if cp == PolicyNone {
			cv.Instructions, cv.UserInstructions, cv.System, cv.Todos, cv.Commands = "", "", "", nil, nil
		}
		c.Conversations = append(c.Conversations, cv)
	}
	c.Views = nil
	for _, v := range s.Views {
		vp := p
		for _, cv := range conversations {
			if cv.ID == v.Conv {
				vp = convPolicy(p, cv.StoragePolicy, s.Degraded)
			}
		}
		switch vp {
		case PolicyHeaders:
			v.Summary = notStored(v.Summary)
		case PolicyNone:
			continue
		}
		c.Views = append(c.Views, v)
	}
	c.Turns = nil
	for _, t := range s.Turns {
		tp, ok := convs[t.Conv]
		if !ok {
			tp = p
		}
		c.Turns = append(c.Turns, TurnAs(tp, t))
	}
	if p == PolicyFull {
		return &c
	}
	if c.Root != nil && c.Root.AgentsMD != nil {
		root := *c.Root
		root.AgentsMD = nil // with the results that carried them: given again
		c.Root = &root
	}
	c.Messages = filterMessages(p, s.Messages)
	c.Abandoned = nil
	for _, b := range s.Abandoned {
		c.Abandoned = append(c.Abandoned, *b.filtered(p))
	}
	c.Todos, c.Commands = nil, nil
	if p == PolicyHeaders {
		c.Todos = headerTodos(s.Todos)
		c.Commands = headerCommands(s.Commands)
	} else {
		c.Tools = nil
	}
	return &c
}

// aged is s with every message kept under ttl for longer than storage.ttl
// since it was written made headers-only (its time then 0): a session in
// use keeps its recent text, never its old text. s itself when nothing
// is that old.
func (s *Snapshot) aged() *Snapshot {
	cutoff := s.ageCutoff()
	if cutoff == 0 {
		return s
	}
	var c *Snapshot
	cloned := false // c.Conversations is c's own
	if s.Storage == PolicyTTL {
		if msgs, times, ok := ageMessages(s.Messages, s.MessageTimes, cutoff); ok {
			cp := *s
			c = &cp
			c.Messages, c.MessageTimes = msgs, times
		}
		if cmds, ok := ageCommands(s.Commands, cutoff); ok {
			if c == nil {
				cp := *s
				c = &cp
			}
			c.Commands = cmds
		}
	}
	// A turn's input is the user's message again, of its conversation.
	ttl := map[string]bool{"": s.Storage == PolicyTTL}
	for _, cv := range s.Conversations {
		ttl[cv.ID] = Narrower(s.Storage, Policy(cv.StoragePolicy)) == PolicyTTL
	}
	turnsCloned := false
	for i, t := range s.Turns {
		aged, ok := ttl[t.Conv]
		if !ok {
			aged = ttl[""] // a conversation since closed: the session's
		}
		if !aged || !inputAged(t, cutoff) {
			continue
		}
		if c == nil {
			cp := *s
			c = &cp
		}
		if !turnsCloned {
			c.Turns, turnsCloned = append([]Turn(nil), s.Turns...), true
		}
		c.Turns[i].Input = notStored(t.Input)
	}
	for i, cv := range s.Conversations {
		if !ttl[cv.ID] {
			continue
		}
		msgs, times, ok := ageMessages(cv.Messages, cv.MessageTimes, cutoff)
		cmds, cok := ageCommands(cv.Commands, cutoff)
		if !ok && !cok {
			continue
		}
		if c == nil {
			cp := *s
			c = &cp
		}
		if !cloned {
			c.Conversations, cloned = append([]Conversation(nil), s.Conversations...), true
		}
		if ok {
			c.Conversations[i].Messages, c.Conversations[i].MessageTimes = msgs, times
		}
		if cok {
			c.Conversations[i].Commands = cmds
		}
	}
	if c == nil {
		return s
	}
	return c
}

// TurnAs is turn t as policy p stores it (ttl: as it writes until aged):
// its input and review verdicts are its conversation's text.
func TurnAs(p Policy, t Turn) Turn {
	p = p.writes(false)
	if p == PolicyFull {
		return t
	}
	t.Input = notStored(t.Input)
	t.Review = headerVerdicts(t.Review, p)
	if p == PolicyNone {
		t.Input = ""
	}
	return t
}

// ageCutoff is the time (unix ms) before which text kept under ttl is
// made headers-only when s is written; 0 when nothing is aged.
func (s *Snapshot) ageCutoff() int64 {
	ttl := s.ttl()
	if ttl <= 0 || s.Degraded {
		return 0
	}
	ref := s.agedAt
	if ref.IsZero() {
		ref = s.UpdatedAt
	}
	return ref.Add(-ttl).UnixMilli()
}

// ageCommands keeps only the size of the command outputs written before
// cutoff (unix ms); ok is false when none is.
func ageCommands(cmds []Command, cutoff int64) ([]Command, bool) {
	var out []Command
	for i, c := range cmds {
		if c.Time.IsZero() || c.Time.UnixMilli() >= cutoff || strings.HasPrefix(c.Output, "[not stored") {
			continue
		}
		if out == nil {
			out = slices.Clone(cmds)
		}
		out[i].Output = notStored(c.Output)
	}
	return out, out != nil
}

// ageMessages makes headers-only the messages written before cutoff (unix
// ms); ok is false when none is, or the times do not match the messages.
func ageMessages(msgs []llm.Message, times []int64, cutoff int64) ([]llm.Message, []int64, bool) {
	if len(times) != len(msgs) {
		return nil, nil, false
	}
	var out []llm.Message
	var outTimes []int64
	for i, at := range times {
		if at == 0 || at >= cutoff {
			continue
		}
		if out == nil {
			out, outTimes = slices.Clone(msgs), slices.Clone(times)
		}
		out[i], _ = FilterMessage(PolicyHeaders, msgs[i])
		outTimes[i] = 0
	}
	return out, outTimes, out != nil
}

// inputAged reports whether turn's input, still whole, was given before
// cutoff (unix ms).
func inputAged(turn Turn, cutoff int64) bool {
	return !turn.Started.IsZero() && turn.Started.UnixMilli() < cutoff && turn.Input != "" && !strings.HasPrefix(turn.Input, "[not stored")
}

// AgedTurn is turn as a journal record may hold it under policy p at now:
// under ttl, the input of a turn started more than ttl ago is kept no
// longer (a turn record is written again when the turn's snapshots land,
// maybe long after it started).
func AgedTurn(p Policy, ttl time.Duration, now time.Time, turn Turn) Turn {
	if p == PolicyTTL && ttl > 0 && inputAged(turn, now.Add(-ttl).UnixMilli()) {
		turn.Input = notStored(turn.Input)
	}
	return turn
}

// stale reports whether some message under ttl is older than storage.ttl
// at now: the snapshot on disk still holds text it must no longer keep.
func (s *Snapshot) stale(now time.Time) bool {
	ttl := s.ttl()
	if ttl <= 0 || s.Degraded || s.Storage != PolicyTTL {
		return false
	}
	cutoff := now.Add(-ttl).UnixMilli()
	for _, at := range s.MessageTimes {
		if at != 0 && at < cutoff {
			return true
		}
	}
	for _, t := range s.Turns {
		if inputAged(t, cutoff) {
			return true
		}
	}
	return false
}

// TTL is the parsed storage.ttl of a snapshot; 0 when unset or invalid.
func (s *Snapshot) ttl() time.Duration {
	d, err := time.ParseDuration(s.StorageTTL)
	if err != nil || d <= 0 {
		return 0
	}
	return d
}
