package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/coder-nvim/coder-nvim/core/tools"
)

// The user's side of conversations (seed 002 NewConversationParams and
// SetConversationContext): `/conversation new|set`, and the Neovim
// `:Coder conversation` commands through the same functions. The user is
// the authority here, the session the limit: anything wider than the
// session allows is clamped, and the user is told what.

// Setting is one KEY=VALUE of a conversation request.
type Setting struct{ Key, Value string }

// NewKeys are the settings of a new conversation, in the order a form asks
// for them.
var NewKeys = []string{"instructions", "user", "mcp", "model", "storage", "preset", "deny", "ask", "allow", "tools"}

// SetKeys are the settings of a live conversation's context.
var SetKeys = []string{"instructions", "model", "mcp", "refresh_mcp", "preset", "deny", "ask", "allow", "tools"}

// conversationUsage is /conversation's help.
const conversationUsage = `usage:
  /conversation new [KEY=VALUE ...] [FIRST MESSAGE]
      instructions=TEXT|@FILE  base instructions (default: the built-in ones)
      user=TEXT                user instructions: its first message (or give them as FIRST MESSAGE)
      mcp=a__b,c__d|none|all   the MCP tools it may use
      model=NAME               its model (default: the session's)
      storage=full|headers_only|none|ttl   what is stored of it (at most what the session stores)
      preset=strict|balanced|auto-edit|yolo   its permission preset (at most the session's)
      deny=TOOL[:PATTERN], ask=TOOL[:PATTERN], allow=TOOL[:PATTERN]   extra rules (narrowing only)
      tools=todo,patch,bash|none   the built-in switches it keeps
    With a first message it runs on it at once.
  /conversation set [ID|root] KEY VALUE  (or KEY=VALUE ...)
      changes instructions, model, mcp, preset, rules or tools for later
      turns (history is never rewritten); refresh_mcp rebuilds its MCP view.
    Without ID: the conversation the command is typed in.
Values with spaces go in "double" or 'single' quotes.`

// ParseSettings reads the leading KEY=VALUE words of line whose KEY is one
// of keys; values may be quoted. The first other word starts rest, which
// is returned as typed.
func ParseSettings(line string, keys []string) ([]Setting, string, error) {
	var out []Setting
	i := 0
	for {
		for i < len(line) && unicode.IsSpace(rune(line[i])) {
			i++
		}
		if i == len(line) {
			return out, "", nil
		}
		key, _, ok := strings.Cut(line[i:], "=")
		if !ok || !slices.Contains(keys, key) || strings.ContainsFunc(key, unicode.IsSpace) {
			return out, strings.TrimSpace(line[i:]), nil
		}
		val, n, err := readValue(line[i+len(key)+1:])
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", key, err)
		}
		out = append(out, Setting{key, val})
		i += len(key) + 1 + n
	}
}

// readValue reads one value: "quoted" (backslash escapes " and \),
// 'quoted' (as is) or up to the next space. It returns the bytes used.
func readValue(s string) (string, int, error) {
	if s == "" || s[0] != '"' && s[0] != '\'' {
		n := strings.IndexFunc(s, unicode.IsSpace)
		if n < 0 {
			n = len(s)
		}
		return s[:n], n, nil
	}
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == q:
			if i+1 < len(s) && !unicode.IsSpace(rune(s[i+1])) {
				return "", 0, errors.New("a quoted value must be followed by a space")
			}
			return b.String(), i + 1, nil
		case c == '\\' && q == '"' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\'):
			i++
			b.WriteByte(s[i])
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, fmt.Errorf("unterminated %c quote", q)
}

// userInstructionFile reads the user's @FILE: a regular workspace file of
// bounded size (the user names it: no approval).
func (s *Session) userInstructionFile(ctx context.Context, path string) (string, error) {
	abs, rel, err := s.ws.Resolve(path)
	if err != nil {
		return "", fmt.Errorf("instructions @%s: %w", path, err)
	}
	if _, err := tools.StatFile(abs, rel, maxInstructionFile); err != nil {
		return "", fmt.Errorf("instructions @%s: %w", path, err)
	}
	data, err := s.ws.ReadFile(ctx, abs)
	if err != nil {
		return "", fmt.Errorf("instructions @%s: %w", path, err)
	}
	return string(data), nil
}

// instructionValue is TEXT, or a workspace file's text for @FILE.
func (s *Session) instructionValue(ctx context.Context, v string) (string, error) {
	if p, ok := strings.CutPrefix(v, "@"); ok && p != "" {
		return s.userInstructionFile(ctx, p)
	}
	return v, nil
}

// parseTools reads tools=todo,patch,bash|none.
func parseTools(v string) (ToolPrefs, error) {
	var p ToolPrefs
	if v == "none" || v == "" {
		return p, nil
	}
	for _, n := range strings.Split(v, ",") {
		switch strings.TrimSpace(n) {
		case "todo":
			p.Plan = true
		case "patch":
			p.Patch = true
		case "bash":
			p.Shell = true
		default:
			return p, fmt.Errorf("tools: %q is not todo, patch or bash (or none)", n)
		}
	}
	return p, nil
}

// parseAllowlist reads mcp=a__b,c__d|none|all (all: nil).
func parseAllowlist(v string) ([]string, error) {
	switch v {
	case "all":
		return nil, nil
	case "none", "":
		return []string{}, nil
	}
	var names []string
	for _, n := range strings.Split(v, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	allow, _, err := normalizeAllowlist(names)
	return allow, err
}

// parseRule reads deny|ask|allow=TOOL[:PATTERN].
func parseRule(decision, v string) (policy.Rule, error) {
	tool, pattern, _ := strings.Cut(v, ":")
	r := policy.Rule{Tool: strings.TrimSpace(tool), Pattern: pattern, Decision: policy.Decision(decision)}
	if err := (policy.Policy{Rules: []policy.Rule{r}}).Validate(); err != nil {
		return r, fmt.Errorf("%s=%s: %w", decision, v, err)
	}
	return r, nil
}

// NewConversation opens a conversation for the user from settings
// (NewKeys); first, when set, is its user instructions (its first
// message). It returns the new id and what was clamped, which the user is
// also told in a Notice.
func (s *Session) NewConversation(ctx context.Context, settings []Setting, first string) (ConversationID, []string, error) {
	spec := ConversationSpec{UserInstructions: strings.TrimSpace(first)}
	var pol *policy.Policy
	for _, st := range settings {
		switch st.Key {
		case "instructions":
			text, err := s.instructionValue(ctx, st.Value)
			if err != nil {
				return "", nil, err
			}
			spec.Instructions = &text
		case "user":
			if spec.UserInstructions != "" {
				return "", nil, errors.New("user instructions given twice (user= and a first message)")
			}
			spec.UserInstructions = strings.TrimSpace(st.Value)
		case "mcp":
			allow, err := parseAllowlist(st.Value)
			if err != nil {
				return "", nil, err
			}
			spec.MCPAllowlist = allow
		case "model":
			spec.Model = strings.TrimSpace(st.Value)
		case "storage":
			if _, err := store.ParsePolicy(st.Value); err != nil {
				return "", nil, fmt.Errorf("storage: %w", err)
			}
			spec.Storage = StoragePolicy(st.Value)
		case "preset", "deny", "ask", "allow":
			if pol == nil {
				pol = &policy.Policy{}
			}
			if err := addPolicySetting(pol, st); err != nil {
				return "", nil, err
			}
		case "tools":
			p, err := parseTools(st.Value)
			if err != nil {
				return "", nil, err
			}
			spec.Tools = &p
		default:
			return "", nil, fmt.Errorf("unknown setting %q (one of %s)", st.Key, strings.Join(NewKeys, ", "))
		}
	}
	if pol != nil {
		s.mu.Lock()
		pol.Remember = s.policy.Remember
		s.mu.Unlock()
		spec.Policy = pol
	}
	c, clamps, err := s.openConversation(nil, spec)
	if err != nil {
		return "", nil, err
	}
	s.tellClamps(c.ID, clamps)
	return c.ID, clamps, nil
}

// addPolicySetting applies preset=, deny=, ask= or allow= to p.
func addPolicySetting(p *policy.Policy, st Setting) error {
	if st.Key == "preset" {
		preset, err := policy.ParsePreset(st.Value)
		if err != nil {
			return fmt.Errorf("preset: %w", err)
		}
		p.Preset = preset
		return nil
	}
	r, err := parseRule(st.Key, st.Value)
	if err != nil {
		return err
	}
	p.Rules = append(p.Rules, r)
	return nil
}

// SetConversationContext changes a live conversation's context for its
// later model calls (SetKeys): instructions, model, MCP allowlist, policy
// narrowing, tools; refresh_mcp rebuilds its MCP view from the servers'
// current tools. The history is never rewritten. It returns a description
// of the change and what was clamped (also told in a Notice).
func (s *Session) SetConversationContext(ctx context.Context, id ConversationID, settings []Setting) (string, []string, error) {
	c, err := s.conversation(id)
	if err != nil {
		return "", nil, err
	}
	if len(settings) == 0 {
		return "", nil, fmt.Errorf("nothing to set (one of %s)", strings.Join(SetKeys, ", "))
	}
	// Everything is checked before anything changes.
	s.mu.Lock()
	instr, model, prefs, allow, sessPol := c.Instructions, c.Model, c.Tools, c.MCPAllowlist, s.policy
	var pol *policy.Policy
	if c.Policy != nil {
		p := *c.Policy
		p.Rules = slices.Clone(p.Rules)
		pol = &p
	}
	s.mu.Unlock()
	var changed, clamps []string
	refresh := false
	for _, st := range settings {
		switch st.Key {
		case "instructions":
			if instr, err = s.instructionValue(ctx, st.Value); err != nil {
				return "", nil, err
			}
			changed = append(changed, "instructions")
		case "model":
			model = strings.TrimSpace(st.Value)
			changed = append(changed, "model "+orSession(model))
		case "mcp":
			if allow, err = parseAllowlist(st.Value); err != nil {
				return "", nil, err
			}
			if err := s.checkMCPAllowlist(nil, allow); err != nil {
				return "", nil, err
			}
			refresh = true
			changed = append(changed, "mcp "+orAll(allow))
		case "refresh_mcp":
			if st.Value != "" && st.Value != "true" {
				return "", nil, fmt.Errorf("refresh_mcp takes no value, got %q", st.Value)
			}
			refresh = true
			changed = append(changed, "MCP view refreshed")
		case "preset", "deny", "ask", "allow":
			if pol == nil {
				pol = &policy.Policy{Remember: sessPol.Remember}
			}
			if err := addPolicySetting(pol, st); err != nil {
				return "", nil, err
			}
			changed = append(changed, st.Key+" "+st.Value)
		case "tools":
			if prefs, err = parseTools(st.Value); err != nil {
				return "", nil, err
			}
			changed = append(changed, "tools "+orNone(st.Value))
		default:
			return "", nil, fmt.Errorf("unknown setting %q (one of %s)", st.Key, strings.Join(SetKeys, ", "))
		}
	}
	if pol != nil {
		var notes []string
		*pol, notes = clampPolicy(sessPol, *pol)
		clamps = append(clamps, notes...)
	}
	s.mu.Lock()
	c.mu.Lock()
	c.Instructions, c.Model, c.Tools, c.MCPAllowlist, c.Policy = instr, model, prefs, allow, pol
	if refresh {
		c.refreshMCP = true
	}
	c.mu.Unlock()
	if refresh && s.mcp != nil {
		if v := s.mcp.views[c.ID]; v != nil {
			v.Release() // the next model call takes a new view
		}
		delete(s.mcp.views, c.ID)
	}
	sc := c.saved()
	sc.Messages, sc.MessageTimes, sc.Todos = nil, nil, nil // a context change: the record leaves them as they are
	rerr := s.recordLocked(store.Record{Kind: store.KindConv, Conversation: &sc})
	s.mu.Unlock()
	s.reportSave(rerr)
	s.save()
	s.tellClamps(c.ID, clamps)
	return fmt.Sprintf("conversation %s: %s (from its next model call; its history is unchanged)", shortID(c.ID), strings.Join(changed, ", ")), clamps, nil
}

func orSession(model string) string {
	if model == "" {
		return "(the session's)"
	}
	return model
}

func orAll(allow []string) string {
	switch {
	case allow == nil:
		return "all"
	case len(allow) == 0:
		return "none"
	}
	return strings.Join(allow, ",")
}

func orNone(v string) string {
	if v == "" {
		return "none"
	}
	return v
}

// cmdConversation is /conversation new|set.
func (s *Session) cmdConversation(ctx context.Context, t *task, arg string) (string, error) {
	verb, rest, _ := strings.Cut(arg, " ")
	switch verb {
	case "new":
		settings, first, err := ParseSettings(rest, NewKeys)
		if err != nil {
			return "", err
		}
		id, clamps, err := s.NewConversation(ctx, settings, first)
		if err != nil {
			return "", err
		}
		out := "opened conversation " + string(id)
		if len(clamps) > 0 {
			out += "\nclamped: " + strings.Join(clamps, "; ")
		}
		c, _ := s.conversation(id)
		if c != nil && c.UserInstructions != "" {
			// It runs on its first message once this command is done.
			s.sched.then(s.firstRun(id))
			t.runs = id
			out += "\nit runs on its first message now"
		}
		return out, nil
	case "set":
		target := t.conv.ID
		rest = strings.TrimSpace(rest)
		if first, more, _ := strings.Cut(rest, " "); first != "" && !strings.Contains(first, "=") && !slices.Contains(SetKeys, first) {
			id, err := s.lookupConversation(first)
			if err != nil {
				return "", err
			}
			target, rest = id, strings.TrimSpace(more)
		}
		settings, err := SetArgs(rest)
		if err != nil {
			return "", err
		}
		out, _, err := s.SetConversationContext(ctx, target, settings)
		return out, err
	case "", "help":
		return conversationUsage, nil
	}
	return "", fmt.Errorf("unknown /conversation %s\n%s", verb, conversationUsage)
}

// SetArgs reads the settings of `set`: KEY VALUE (the rest of the line is
// the value) or KEY=VALUE ....
func SetArgs(line string) ([]Setting, error) {
	line = strings.TrimSpace(line)
	key, val, _ := strings.Cut(line, " ")
	if slices.Contains(SetKeys, key) {
		val = strings.TrimSpace(val)
		if len(val) >= 2 && (val[0] == '"' || val[0] == '\'') && val[len(val)-1] == val[0] {
			v, n, err := readValue(val)
			if err == nil && n == len(val) {
				val = v
			}
		}
		return []Setting{{key, val}}, nil
	}
	settings, rest, err := ParseSettings(line, SetKeys)
	if err != nil {
		return nil, err
	}
	if rest != "" {
		return nil, fmt.Errorf("%q is not KEY VALUE or KEY=VALUE (keys: %s)", rest, strings.Join(SetKeys, ", "))
	}
	return settings, nil
}

// lookupConversation finds a conversation by id, unique id prefix or
// "root".
func (s *Session) lookupConversation(name string) (ConversationID, error) {
	if name == "root" {
		return s.RootConversation(), nil
	}
	var found []ConversationID
	for _, c := range s.Conversations() {
		if c.ID == ConversationID(name) {
			return c.ID, nil
		}
		if strings.HasPrefix(string(c.ID), name) {
			found = append(found, c.ID)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", fmt.Errorf("no conversation %q in this session (and %q is not one of %s)", name, name, strings.Join(SetKeys, ", "))
	}
	return "", fmt.Errorf("%q names %d conversations; give more of the id", name, len(found))
}

// firstRun is the plan that runs a conversation the user opened on its
// first message (already in its history): a user turn of its own.
func (s *Session) firstRun(id ConversationID) *taskPlan {
	tid := TaskID(s.newID())
	return &taskPlan{id: tid, kind: planTarget, conv: id, turn: tid, fresh: true}
}

// StartConversation runs a conversation the user opened on its first
// message (its user instructions) and returns the task id; ErrBusy while
// a task runs (it then runs on the next input sent to it).
func (s *Session) StartConversation(id ConversationID) (TaskID, error) {
	c, err := s.conversation(id)
	if err != nil {
		return "", err
	}
	if len(c.messages()) == 0 {
		return "", fmt.Errorf("conversation %s has no first message to run on", shortID(id))
	}
	p := s.firstRun(c.ID)
	if _, err := s.sched.submit(p); err != nil {
		return "", err
	}
	return p.id, nil
}

// then queues a plan to run after the running task, in the same chain.
func (sc *scheduler) then(p *taskPlan) {
	sc.mu.Lock()
	sc.queue = append(sc.queue, p)
	sc.mu.Unlock()
}
