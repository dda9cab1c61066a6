package mcp

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/coder-nvim/coder-nvim/core/llm"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// extras are what a server offers besides tools: prompts (the user's
// `/server:prompt` commands) and resources (`@server:uri` mentions and
// mcp_resource_read). Listed at start and again on list_changed.
type extras struct {
	prompts      []*sdk.Prompt
	resources    []*sdk.Resource
	templates    []*sdk.ResourceTemplate
	hasResources bool // the server declared the resources capability
}

// listExtras lists a server's prompts and resources, as far as it
// declared them. A failed list is logged, never a failed start: tools
// matter more.
func (p *Pool) listExtras(ctx context.Context, name string, sess *sdk.ClientSession) extras {
	var x extras
	caps := &sdk.ServerCapabilities{}
	if ir := sess.InitializeResult(); ir != nil && ir.Capabilities != nil {
		caps = ir.Capabilities
	}
	if caps.Prompts != nil {
		x.prompts = []*sdk.Prompt{}
		for pr, err := range sess.Prompts(ctx, nil) {
			if err != nil {
				p.logf("mcp %s: prompts/list: %v", name, err)
				break
			}
			x.prompts = append(x.prompts, pr)
		}
	}
	if caps.Resources != nil {
		x.hasResources = true
		for r, err := range sess.Resources(ctx, nil) {
			if err != nil {
				p.logf("mcp %s: resources/list: %v", name, err)
				break
			}
			x.resources = append(x.resources, r)
		}
		for t, err := range sess.ResourceTemplates(ctx, nil) {
			if err != nil {
				p.logf("mcp %s: resources/templates/list: %v", name, err)
				break
			}
			x.templates = append(x.templates, t)
		}
	}
	return x
}

// relistExtras applies prompts/list_changed or resources/list_changed.
func (p *Pool) relistExtras(srv *server) {
	sess := srv.session()
	if sess == nil {
		return
	}
	ctx, cancel := context.WithTimeout(p.ctx, p.opts.StartTimeout)
	defer cancel()
	x := p.listExtras(ctx, srv.name, sess)
	srv.mu.Lock()
	if srv.sess == sess {
		srv.extras = x
	}
	srv.mu.Unlock()
	p.notify(Notice{Server: srv.name, Kind: NoticePromptsChanged, Text: fmt.Sprintf("%d prompts", len(x.prompts))})
}

// Prompt is one server prompt as the user's command `/server:prompt`.
type Prompt struct {
	Server      string
	Name        string // the server's own name
	Description string
	Arguments   []PromptArgument
}

// PromptArgument is one argument a prompt takes, given as name=value.
type PromptArgument struct {
	Name, Description string
	Required          bool
}

// Command is the prompt's command name, without "/".
func (p Prompt) Command() string { return p.Server + ":" + p.Name }

// Hint is the argument hint shown with the command: "lang=… [style=…]".
func (p Prompt) Hint() string {
	var parts []string
	for _, a := range p.Arguments {
		s := a.Name + "=…"
		if !a.Required {
			s = "[" + s + "]"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// Prompts lists the prompts of every running server, by command name.
// Prompts are typed by the user, so they are not narrowed by a view.
func (p *Pool) Prompts() []Prompt {
	var out []Prompt
	for _, name := range sortedNames(p.servers) {
		srv := p.servers[name]
		srv.mu.Lock()
		list := srv.extras.prompts
		srv.mu.Unlock()
		for _, sp := range list {
			if sp == nil || sp.Name == "" || strings.ContainsAny(sp.Name, " \t\n") {
				continue // no command can name it
			}
			pr := Prompt{Server: name, Name: sp.Name, Description: sp.Description}
			if pr.Description == "" {
				pr.Description = sp.Title
			}
			for _, a := range sp.Arguments {
				if a != nil {
					pr.Arguments = append(pr.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
				}
			}
			out = append(out, pr)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Command() < out[j].Command() })
	return out
}

// PromptCommand fetches the prompt a typed `/server:prompt a=1 …` line
// names; ok is false when no server's prompt has that name. A line
// naming a configured server waits up to startWait for servers still
// starting: it may be the session's first.
func (p *Pool) PromptCommand(ctx context.Context, line string, startWait time.Duration) (msg PromptMessage, ok bool, err error) {
	name, args, _ := strings.Cut(strings.TrimPrefix(line, "/"), " ")
	server, _, isServer := strings.Cut(name, ":")
	if !isServer || !p.Has(server) {
		return PromptMessage{}, false, nil
	}
	p.WaitStarted(ctx, startWait)
	for _, pr := range p.Prompts() {
		if pr.Command() != name {
			continue
		}
		parsed, err := ParsePromptArgs(args)
		if err != nil {
			return PromptMessage{}, false, err
		}
		msg, err := p.GetPrompt(ctx, pr, parsed)
		return msg, err == nil, err
	}
	return PromptMessage{}, false, nil
}

// ParsePromptArgs splits `a=1 b="two words"` into arguments. A word
// without "=" is an error naming it (the server names its arguments).
func ParsePromptArgs(s string) (map[string]string, error) {
	out := map[string]string{}
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		key, rest, ok := strings.Cut(s, "=")
		if !ok || key == "" || strings.ContainsAny(key, " \t\n") {
			word, _, _ := strings.Cut(s, " ")
			return nil, fmt.Errorf("argument %q is not NAME=VALUE", word)
		}
		var val string
		if strings.HasPrefix(rest, `"`) {
			end := strings.Index(rest[1:], `"`)
			if end < 0 {
				return nil, fmt.Errorf("argument %s: no closing quote", key)
			}
			val, rest = rest[1:1+end], rest[2+end:]
		} else {
			val, rest, _ = strings.Cut(rest, " ")
		}
		out[key] = val
		s = rest
	}
	return out, nil
}

// PromptMessage is a fetched prompt as one user turn.
type PromptMessage struct {
	Text   string
	Images []llm.Image
}

// GetPrompt fetches a prompt with its arguments (prompts/get) and makes
// its messages one user turn: text as is, embedded text resources with
// their URI, images attached; a message of another role than the user's
// is labelled with it. Missing required arguments are refused before the
// server is asked.
func (p *Pool) GetPrompt(ctx context.Context, pr Prompt, args map[string]string) (PromptMessage, error) {
	known := map[string]bool{}
	var missing []string
	for _, a := range pr.Arguments {
		known[a.Name] = true
		if a.Required && args[a.Name] == "" {
			missing = append(missing, a.Name)
		}
	}
	for k := range args {
		if !known[k] {
			return PromptMessage{}, fmt.Errorf("/%s takes no argument %q (it takes: %s)", pr.Command(), k, orNone(pr.Hint()))
		}
	}
	if len(missing) > 0 {
		return PromptMessage{}, fmt.Errorf("/%s needs %s (usage: /%s %s)", pr.Command(), strings.Join(missing, ", "), pr.Command(), pr.Hint())
	}
	sess, err := p.liveSession(pr.Server)
	if err != nil {
		return PromptMessage{}, err
	}
	callCtx, cancel := context.WithTimeout(ctx, p.opts.CallTimeout)
	defer cancel()
	res, err := sess.GetPrompt(callCtx, &sdk.GetPromptParams{Name: pr.Name, Arguments: args})
	if err != nil {
		return PromptMessage{}, fmt.Errorf("MCP server %s: prompts/get %s: %w", pr.Server, pr.Name, err)
	}
	var out PromptMessage
	var parts []string
	for _, m := range res.Messages {
		if m == nil {
			continue
		}
		r := convert(&sdk.CallToolResult{Content: []sdk.Content{m.Content}}, DefaultMaxResultBytes)
		out.Images = append(out.Images, r.Images...)
		t := r.Text
		if m.Role != "" && m.Role != "user" {
			t = "[" + string(m.Role) + "] " + t
		}
		parts = append(parts, t)
	}
	out.Text = strings.Join(parts, "\n\n")
	if strings.TrimSpace(out.Text) == "" && len(out.Images) == 0 {
		return PromptMessage{}, fmt.Errorf("MCP server %s: prompt %s has no messages", pr.Server, pr.Name)
	}
	return out, nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
