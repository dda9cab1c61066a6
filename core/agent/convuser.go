package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/agent/command"
	"github.com/coder-nvim/coder-nvim/core/agent/conv"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/coder-nvim/coder-nvim/core/tools"
)

// userInstructionFile reads the user's @FILE: a regular workspace file of
// bounded size (the user names it: no approval).
func (s *Session) userInstructionFile(ctx context.Context, path string) (string, error) {
	abs, rel, err := s.ws.Resolve(path)
	if err != nil {
		return "", fmt.Errorf("instructions @%s: %w", path, err)
	}
	if _, err := tools.StatFile(abs, rel, conv.MaxInstructionFile); err != nil {
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

// NewConversation opens a conversation for the user from settings
// (NewKeys); first, when set, is its user instructions (its first
// message). It returns the new id and what was clamped, which the user is
// also told in a Notice.
func (s *Session) NewConversation(ctx context.Context, settings []command.Setting, first string) (ConversationID, []string, error) {
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
			allow, err := conv.ParseAllowlist(st.Value)
			if err != nil {
				return "", nil, err
			}
			spec.MCPAllowlist = allow
		case "model":
			spec.Model = strings.TrimSpace(st.Value)
		case "agents_md":
			switch st.Value {
			case "on":
			case "off":
				spec.NoAgentsMD = true
			default:
				return "", nil, fmt.Errorf("agents_md: want on or off, got %q", st.Value)
			}
		case "storage":
			if _, err := store.ParsePolicy(st.Value); err != nil {
				return "", nil, fmt.Errorf("storage: %w: %w", ErrStoragePolicy, err)
			}
			spec.Storage = StoragePolicy(st.Value)
		case "preset", "deny", "ask", "allow":
			if pol == nil {
				pol = &policy.Policy{}
			}
			if err := conv.AddPolicySetting(pol, st); err != nil {
				return "", nil, err
			}
		case "tools":
			p, err := conv.ParseTools(st.Value)
			if err != nil {
				return "", nil, err
			}
			spec.Tools = &p
		default:
			return "", nil, fmt.Errorf("unknown setting %q (one of %s)", st.Key, strings.Join(command.NewKeys, ", "))
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

// SetConversationContext changes a live conversation's context for its
// later model calls (SetKeys): instructions, model, MCP allowlist, policy
// narrowing, tools; refresh_mcp rebuilds its MCP view from the servers'
// current tools. The history is never rewritten. It returns a description
// of the change and what was clamped (also told in a Notice).
func (s *Session) SetConversationContext(ctx context.Context, id ConversationID, settings []command.Setting) (string, []string, error) {
	c, err := s.conversation(id)
	if err != nil {
		return "", nil, err
	}
	if len(settings) == 0 {
		return "", nil, fmt.Errorf("nothing to set (one of %s)", strings.Join(command.SetKeys, ", "))
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
			changed = append(changed, "model "+conv.OrSession(model))
		case "mcp":
			if allow, err = conv.ParseAllowlist(st.Value); err != nil {
				return "", nil, err
			}
			if err := s.checkMCPAllowlist(nil, allow); err != nil {
				return "", nil, err
			}
			refresh = true
			changed = append(changed, "mcp "+conv.OrAll(allow))
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
			if err := conv.AddPolicySetting(pol, st); err != nil {
				return "", nil, err
			}
			changed = append(changed, st.Key+" "+st.Value)
		case "tools":
			if prefs, err = conv.ParseTools(st.Value); err != nil {
				return "", nil, err
			}
			changed = append(changed, "tools "+conv.OrNone(st.Value))
		default:
			return "", nil, fmt.Errorf("unknown setting %q (one of %s)", st.Key, strings.Join(command.SetKeys, ", "))
		}
	}
	if pol != nil {
		var notes []string
		*pol, notes = conv.ClampPolicy(sessPol, *pol)
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
	return fmt.Sprintf("conversation %s: %s (from its next model call; its history is unchanged)", conv.ShortID(string(c.ID)), strings.Join(changed, ", ")), clamps, nil
}

// Conversation is /conversation new|set.
func (c slash) Conversation(ctx context.Context, arg string) (string, error) {
	s, t := c.s, c.t
	verb, rest, _ := strings.Cut(arg, " ")
	switch verb {
	case "new":
		settings, first, err := command.ParseSettings(rest, command.NewKeys)
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
		if first, more, _ := strings.Cut(rest, " "); first != "" && !strings.Contains(first, "=") && !slices.Contains(command.SetKeys, first) {
			id, err := s.lookupConversation(first)
			if err != nil {
				return "", err
			}
			target, rest = id, strings.TrimSpace(more)
		}
		settings, err := command.SetArgs(rest)
		if err != nil {
			return "", err
		}
		out, _, err := s.SetConversationContext(ctx, target, settings)
		return out, err
	case "", "help":
		return command.ConversationUsage, nil
	}
	return "", fmt.Errorf("unknown /conversation %s\n%s", verb, command.ConversationUsage)
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
		return "", fmt.Errorf("no conversation %q in this session (and %q is not one of %s)", name, name, strings.Join(command.SetKeys, ", "))
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
		return "", fmt.Errorf("conversation %s has no first message to run on", conv.ShortID(string(id)))
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
