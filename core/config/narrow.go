package config

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/mcp"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// Workspace is the standing of the workspace's own .coder/config.json.
type Workspace struct {
	File    string // its path; "" when the workspace has none
	Trusted bool   // the user trusted exactly this content
	// Hash is what trust binds to (trustHash: the content read and the
	// workspace files it names to run), shown with Ignored: a trust
	// decision names it (TrustShown).
	Hash string
	// Invalid is why the file was ignored whole (it does not parse or
	// holds an invalid value); "" when it was read. An untrusted
	// repository's file must not stop the agent.
	Invalid string
	// Ignored names each setting of the file that was not applied, with
	// its value: untrusted, everything that does not narrow; trusted or
	// not, api_key_env.
	Ignored []string
}

// Restricted reports whether the file asked for something that was
// ignored because the workspace is not trusted.
func (w Workspace) Restricted() bool { return w.File != "" && !w.Trusted && len(w.Ignored) > 0 }

// mergeWorkspace applies a workspace file's settings to cfg: all of them
// (but api_key_env) when the user trusts the file, else only those that
// narrow what cfg already allows.
func mergeWorkspace(cfg *Config, data []byte, isTrusted bool) error {
	proj := *cfg
	proj.MCPServers = nil // the file's own servers, apart from the user's
	proj.Hooks = nil      // the file's own hooks, likewise
	proj.Prices = nil     // decoding must not add to the user's map
	if err := Decode(data, &proj); err != nil {
		return err
	}
	if err := proj.validate(true); err != nil {
		return err
	}
	var ignored []string
	ignore := func(key string, value any) {
		v, _ := json.Marshal(value)
		ignored = append(ignored, fmt.Sprintf("%s: %s", key, v))
	}
	if proj.APIKeyEnv != cfg.APIKeyEnv {
		// Which secret goes to the endpoint is the user's choice alone.
		ignored = append(ignored, fmt.Sprintf("api_key_env: %q (never taken from a project file)", proj.APIKeyEnv))
		proj.APIKeyEnv = cfg.APIKeyEnv
	}
	if proj.Copilot != cfg.Copilot {
		// The token URL receives the user's GitHub token.
		v, _ := json.Marshal(proj.Copilot)
		ignored = append(ignored, fmt.Sprintf("copilot: %s (never taken from a project file)", v))
		proj.Copilot = cfg.Copilot
	}
	if proj.Prices != nil {
		// What calls cost is the user's to state: a repository could
		// otherwise show any figure it likes.
		v, _ := json.Marshal(proj.Prices)
		ignored = append(ignored, fmt.Sprintf("prices: %s (never taken from a project file)", v))
	}
	proj.Prices = cfg.Prices
	// Trusted or not, a project file never loosens the sandbox.
	proj.Sandbox = narrowSandbox(cfg.Sandbox, proj.Sandbox, func(key string, value any) {
		ignored = append(ignored, sandboxIgnored(key, value))
	})
	// Nor does it widen what the web tools reach.
	proj.Web = narrowWeb(cfg.Web, proj.Web, func(key string, value any) {
		v, _ := json.Marshal(value)
		ignored = append(ignored, fmt.Sprintf("%s: %s (a project file may only add to web.deny)", key, v))
	})
	if isTrusted {
		servers := proj.MCPServers
		for name, sc := range servers {
			sc.FromProject = true
			servers[name] = sc
		}
		proj.MCPServers = cfg.MCPServers
		proj.AddMCPServers(servers)
		proj.Hooks = cfg.Hooks.Add(proj.Hooks)
		addTasks(cfg.Tasks, &proj.Tasks)
		*cfg = proj
		cfg.Workspace.Ignored = ignored
		return nil
	}
	out := *cfg
	narrowKeys(&out, cfg, &proj, ignore, fileRules(data))
	out.Sandbox = proj.Sandbox
	out.Web = proj.Web
	names := make([]string, 0, len(proj.MCPServers))
	for name := range proj.MCPServers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		sc := proj.MCPServers[name]
		if sc.URL != "" {
			ignored = append(ignored, fmt.Sprintf("mcpServers.%s: connects to %s", name, sc.URL))
		} else {
			ignored = append(ignored, fmt.Sprintf("mcpServers.%s: runs %q%s", name, strings.Join(append([]string{sc.Command}, sc.Args...), " "), serverSetting(sc)))
		}
	}
	// Hooks run programs: like servers, only once the file is trusted.
	for _, h := range proj.Hooks.Describe() {
		ignored = append(ignored, "hooks."+h)
	}
	// Whatever else would apply on trust is named too: trusting must
	// never enable a setting the user was not shown.
	ignored = append(ignored, unnamed(out, proj, ignored)...)
	out.Workspace.Ignored = ignored
	*cfg = out
	return nil
}

// unnamed lists the top-level settings in which the file as trusted
// (proj, without its servers and hooks, named apart) differs from what
// applies untrusted (out), that no entry of named covers yet.
func unnamed(out, proj Config, named []string) []string {
	proj.MCPServers, proj.Hooks = out.MCPServers, out.Hooks
	var a, b map[string]json.RawMessage
	ja, _ := json.Marshal(out)
	jb, _ := json.Marshal(proj)
	if json.Unmarshal(ja, &a) != nil || json.Unmarshal(jb, &b) != nil {
		return nil
	}
	keys := make([]string, 0, len(b))
	for k := range b {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var extra []string
	for _, k := range keys {
		if string(a[k]) == string(b[k]) || slices.ContainsFunc(named, func(n string) bool {
			return strings.HasPrefix(n, k+":") || strings.HasPrefix(n, k+".")
		}) {
			continue
		}
		extra = append(extra, fmt.Sprintf("%s: %s", k, b[k]))
	}
	return extra
}

// serverSetting shows the rest of what a server runs with: its
// environment (PYTHONPATH, BASH_ENV and the like run other code) and
// directory.
func serverSetting(sc mcp.ServerConfig) string {
	out := ""
	if len(sc.Env) > 0 {
		env, _ := json.Marshal(sc.Env) // keys sorted
		out += " with env " + string(env)
	}
	if sc.Cwd != "" {
		out += fmt.Sprintf(" in %q", sc.Cwd)
	}
	return out
}

// fileRules returns the permission rules the file itself lists (nil when it
// lists none): decoding replaces the user's rules, so they are read apart.
func fileRules(data []byte) []policy.Rule {
	var doc struct {
		Permissions struct {
			Rules []policy.Rule `json:"rules"`
		} `json:"permissions"`
	}
	_ = json.Unmarshal(data, &doc) // decoded strictly before
	return doc.Permissions.Rules
}

// narrowKeys sets in out what proj (cur with the file merged in) asks for
// that narrows cur, and reports every other difference to ignore.
func narrowKeys(out, cur, proj *Config, ignore func(string, any), rules []policy.Rule) {
	// Modes and presets are listed from the narrowest.
	if proj.Mode != cur.Mode {
		if rank(policy.Modes, policy.Mode(proj.Mode)) < rank(policy.Modes, policy.Mode(cur.Mode)) {
			out.Mode = proj.Mode
		} else {
			ignore("mode", proj.Mode)
		}
	}
	if proj.Permissions.Preset != cur.Permissions.Preset {
		if rank(policy.Presets, policy.Preset(proj.Permissions.Preset)) < rank(policy.Presets, policy.Preset(cur.Permissions.Preset)) {
			out.Permissions.Preset = proj.Permissions.Preset
		} else {
			ignore("permissions.preset", proj.Permissions.Preset)
		}
	}
	out.Permissions.Rules = slices.Clone(cur.Permissions.Rules)
	for i, r := range rules {
		if strings.EqualFold(string(r.Decision), string(policy.Allow)) {
			ignore(fmt.Sprintf("permissions.rules[%d]", i), r)
			continue
		}
		out.Permissions.Rules = append(out.Permissions.Rules, r) // deny and ask only narrow
	}
	if proj.Approval.Interactive != nil && (cur.Approval.Interactive == nil || *proj.Approval.Interactive != *cur.Approval.Interactive) {
		if *proj.Approval.Interactive {
			out.Approval.Interactive = proj.Approval.Interactive
		} else if cur.Interactive() {
			ignore("approval.interactive", false)
		}
	}
	if proj.Approval.Scope != cur.Approval.Scope {
		if proj.Approval.Scope == "conversation" {
			out.Approval.Scope = proj.Approval.Scope
		} else {
			ignore("approval.scope", proj.Approval.Scope)
		}
	}
	if proj.Approval.TTL != cur.Approval.TTL {
		if d := proj.ApprovalTTL(); d > 0 && (cur.ApprovalTTL() == 0 || d < cur.ApprovalTTL()) {
			out.Approval.TTL = proj.Approval.TTL
		} else {
			ignore("approval.ttl", proj.Approval.TTL)
		}
	}
	if proj.AutoApproveAsk != cur.AutoApproveAsk {
		if !proj.AutoApproveAsk {
			out.AutoApproveAsk = false
		} else {
			ignore("auto_approve_ask", true)
		}
	}
	lower(&out.MaxSteps, cur.MaxSteps, proj.MaxSteps, "max_steps", ignore)
	if proj.ModelImages != nil && (cur.ModelImages == nil || *proj.ModelImages != *cur.ModelImages) {
		if !*proj.ModelImages {
			out.ModelImages = proj.ModelImages
		} else {
			ignore("model_images", true)
		}
	}
	if proj.Workflow.AutoVerifyAfterEdit != cur.Workflow.AutoVerifyAfterEdit {
		if !proj.Workflow.AutoVerifyAfterEdit {
			out.Workflow.AutoVerifyAfterEdit = false
		} else {
			ignore("workflow.auto_verify_after_edit", true)
		}
	}
	if !slices.Equal(proj.Workflow.VerifyCommands, cur.Workflow.VerifyCommands) {
		ignore("workflow.verify_commands", proj.Workflow.VerifyCommands)
	}
	lower(&out.Workflow.MaxVerifyAttempts, cur.Workflow.MaxVerifyAttempts, proj.Workflow.MaxVerifyAttempts, "workflow.max_verify_attempts", ignore)
	if proj.Workflow.RequireTodoForComplex != cur.Workflow.RequireTodoForComplex {
		if proj.Workflow.RequireTodoForComplex {
			out.Workflow.RequireTodoForComplex = true
		} else {
			ignore("workflow.require_todo_for_complex", false)
		}
	}
	if proj.Storage.Policy != cur.Storage.Policy {
		pp, _ := store.ParsePolicy(proj.Storage.Policy)
		cp, _ := store.ParsePolicy(cur.Storage.Policy)
		if store.Narrower(pp, cp) == pp {
			out.Storage.Policy = proj.Storage.Policy
		} else {
			ignore("storage.policy", proj.Storage.Policy)
		}
	}
	if proj.Storage.TTL != cur.Storage.TTL {
		if proj.StorageTTL() < cur.StorageTTL() {
			out.Storage.TTL = proj.Storage.TTL
		} else {
			ignore("storage.ttl", proj.Storage.TTL)
		}
	}
	lowerBound(&out.History.MaxItems, cur.History.MaxItems, proj.History.MaxItems, "history.max_items", ignore)
	lowerBound(&out.History.MaxTokens, cur.History.MaxTokens, proj.History.MaxTokens, "history.max_tokens", ignore)
	narrowAgentsMD(out, cur, proj, ignore)
	narrowTasks(out, cur, proj, ignore)
	lower(&out.Conversations.MaxInterruptChainDepth, cur.Conversations.MaxInterruptChainDepth, proj.Conversations.MaxInterruptChainDepth, "conversations.max_interrupt_chain_depth", ignore)
	lower(&out.MCP.Concurrent, orDefault(cur.MCP.Concurrent, mcp.DefaultConcurrent), orDefault(proj.MCP.Concurrent, mcp.DefaultConcurrent), "mcp.concurrent", ignore)
	lower(&out.MCP.CallsPerMinute, orDefault(cur.MCP.CallsPerMinute, mcp.DefaultCallsPerMinute), orDefault(proj.MCP.CallsPerMinute, mcp.DefaultCallsPerMinute), "mcp.calls_per_minute", ignore)
	lower(&out.MCP.SessionConcurrent, orDefault(cur.MCP.SessionConcurrent, mcp.DefaultSessionConcurrent), orDefault(proj.MCP.SessionConcurrent, mcp.DefaultSessionConcurrent), "mcp.session_concurrent", ignore)
	lower(&out.MCP.SessionCallsPerMinute, orDefault(cur.MCP.SessionCallsPerMinute, mcp.DefaultSessionCallsPerMinute), orDefault(proj.MCP.SessionCallsPerMinute, mcp.DefaultSessionCallsPerMinute), "mcp.session_calls_per_minute", ignore)

	// The rest neither narrows nor widens a permission, but chooses where
	// requests go, what runs or what they cost: the user's to decide.
	for _, o := range []struct {
		key   string
		same  bool
		value any
	}{
		{"provider", proj.Provider == cur.Provider, proj.Provider},
		{"base_url", proj.BaseURL == cur.BaseURL, proj.BaseURL + " (your API key would be sent there)"},
		{"model", proj.Model == cur.Model, proj.Model},
		{"wire_api", proj.WireAPI == cur.WireAPI, proj.WireAPI},
		{"reasoning_effort", proj.ReasoningEffort == cur.ReasoningEffort, proj.ReasoningEffort},
		{"context_window", proj.ContextWindow == cur.ContextWindow, proj.ContextWindow},
		{"compact_threshold", proj.CompactThreshold == cur.CompactThreshold, proj.CompactThreshold},
		{"stream_idle_timeout", proj.StreamIdleTimeout == cur.StreamIdleTimeout, proj.StreamIdleTimeout},
		{"undo", proj.Undo == cur.Undo, proj.Undo},
		{"conversations.close_timeout", proj.Conversations.CloseTimeout == cur.Conversations.CloseTimeout, proj.Conversations.CloseTimeout},
		{"mcp.start_timeout", proj.MCP.StartTimeout == cur.MCP.StartTimeout, proj.MCP.StartTimeout},
		{"mcp.call_timeout", proj.MCP.CallTimeout == cur.MCP.CallTimeout, proj.MCP.CallTimeout},
		{"mcp.first_turn_wait", proj.MCP.FirstTurnWait == cur.MCP.FirstTurnWait, proj.MCP.FirstTurnWait},
		{"mcp.idle_timeout", proj.MCP.IdleTimeout == cur.MCP.IdleTimeout, proj.MCP.IdleTimeout},
	} {
		if !o.same {
			ignore(o.key, o.value)
		}
	}
}

// rank is v's place in order, listed from the narrowest; a value not in
// it ranks as the strictest, so that nothing narrows past it.
func rank[T comparable](order []T, v T) int {
	return slices.Index(order, v) // -1 when unknown
}

// lower applies a smaller positive limit.
func lower(out *int, cur, proj int, key string, ignore func(string, any)) {
	if proj == cur {
		return
	}
	if proj < cur {
		*out = proj
		return
	}
	ignore(key, proj)
}

// orDefault is v, or def where 0 stands for it.
func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// lowerBound applies a smaller bound where 0 means the default or none:
// a positive value below the current one, or any positive value where
// there is none.
func lowerBound(out *int, cur, proj int, key string, ignore func(string, any)) {
	if proj == cur {
		return
	}
	if proj > 0 && (cur == 0 || proj < cur) {
		*out = proj
		return
	}
	ignore(key, proj)
}

// Notice is what a front end tells the user about the workspace file: the
// settings that were ignored and how to trust it; "" when nothing was.
func (w Workspace) Notice(root string) string {
	if w.Invalid != "" {
		return w.Invalid + "\n"
	}
	if len(w.Ignored) == 0 {
		return ""
	}
	var b strings.Builder
	if w.Trusted {
		fmt.Fprintf(&b, "%s: ignored (never taken from a project file):\n", w.File)
	} else {
		fmt.Fprintf(&b, "%s is not trusted, so only its narrowing settings apply; ignored:\n", w.File)
	}
	for _, k := range w.Ignored {
		fmt.Fprintf(&b, "  - %s\n", k)
	}
	if !w.Trusted {
		fmt.Fprintf(&b, "Review the file, then trust it with: coder-nvim trust --cwd %s\n", root)
	}
	return b.String()
}
