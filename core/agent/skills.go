package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/skills"
	"github.com/coder-nvim/coder-nvim/core/text"
	"github.com/coder-nvim/coder-nvim/core/tools"
)

// skillTool loads a skill's instructions. It needs no approval (seed 001
// §5); a missing or broken skill falls back to the no-skill path with a
// readable notice.
type skillTool struct{ s *Session }

func (skillTool) own() {}

func (skillTool) Kind() tools.Kind { return tools.KindRead }

func (skillTool) Spec() llm.Tool {
	return llm.Tool{Type: "function", Function: llm.FunctionDef{
		Name:        "skill",
		Description: "Load the full instructions of one of the skills listed in your instructions, by name, when the task matches it.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false}`),
	}}
}

func (st skillTool) Prepare(_ context.Context, _ *tools.Workspace, raw json.RawMessage) (*tools.Invocation, error) {
	var args struct {
		Name string `json:"name"`
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&args); err != nil || args.Name == "" {
		return nil, fmt.Errorf("invalid arguments for skill: want {\"name\": \"SKILL_NAME\"}")
	}
	s := st.s
	return tools.NewInvocation("skill", tools.KindRead, "skill: "+args.Name, func(ctx context.Context) tools.Result {
		s.mu.Lock()
		list := s.skills
		s.mu.Unlock()
		fallback := func(why string) tools.Result {
			if t := taskFrom(ctx); t != nil {
				t.emit(event.Event{Kind: event.Notice, Text: why + "; continuing without it"})
			} else {
				s.emit(event.Event{Kind: event.Notice, Conversation: string(s.RootConversation()), Text: why + "; continuing without it"})
			}
			return tools.Result{Output: why + "; continue without this skill.", Summary: "not loaded"}
		}
		sk, ok := skills.Find(list, args.Name)
		if !ok {
			var names []string
			for _, k := range list {
				names = append(names, k.Name)
			}
			return fallback(fmt.Sprintf("skill %q does not exist (available: %s)", args.Name, strings.Join(names, ", ")))
		}
		body, err := skills.Load(sk)
		if err != nil {
			return fallback(fmt.Sprintf("skill %q could not be loaded: %v", args.Name, err))
		}
		return tools.Result{Output: body, Display: fmt.Sprintf("loaded skill %s (%s)", sk.Name, sk.Path), Summary: "loaded " + sk.Name}
	}), nil
}

// discoverSkills rescans the skill directories.
func (s *Session) discoverSkills() []skills.Problem {
	userDir, _ := skills.UserConfigDir()
	list, problems := skills.Discover(s.root, userDir)
	s.mu.Lock()
	s.skills = list
	s.mu.Unlock()
	return problems
}

func (c slash) Skills(_ context.Context, _ string) (string, error) {
	s := c.s
	problems := s.discoverSkills()
	s.mu.Lock()
	list := s.skills
	s.mu.Unlock()
	var b strings.Builder
	if len(list) == 0 {
		fmt.Fprintf(&b, "no skills (add them as %s/<name>/SKILL.md)\n", skills.WorkspaceDir(s.root))
	}
	for _, sk := range list {
		fmt.Fprintf(&b, "  %-20s %s  [%s]\n", sk.Name, text.FirstLine(sk.Description), sk.Source)
	}
	for _, p := range problems {
		fmt.Fprintf(&b, "  broken: %s: %s\n", p.Path, p.Reason)
	}
	return b.String(), nil
}
