// Package config loads coder-nvim's settings: defaults, then the user file
// ($XDG_CONFIG_HOME/coder/config.json), then the workspace file
// (./.coder/config.json), then environment overrides for the provider.
package config

import (
	"time"

	"github.com/coder-nvim/coder-nvim/core/agentsmd"
	"github.com/coder-nvim/coder-nvim/core/hooks"
	"github.com/coder-nvim/coder-nvim/core/mcp"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/pricing"
)

// Provider names.
const (
	ProviderOpenAI = "openai" // any OpenAI-compatible endpoint
	ProviderDemo   = "demo"   // the built-in offline scripted demo
)

// Config is the merged configuration. JSON keys are the file keys.
type Config struct {
	Provider  string `json:"provider"`    // a preset name (Presets); empty: detected (detect.go)
	BaseURL   string `json:"base_url"`    // OpenAI-compatible endpoint; OPENAI_BASE_URL overrides; default: the preset's
	Model     string `json:"model"`       // model name; default: the preset's
	APIKeyEnv string `json:"api_key_env"` // env var holding the API key; default: the preset's; never from a project file
	// WireAPI is "chat" (/chat/completions) or "responses" (OpenAI's
	// Responses API); empty: responses for the OpenAI models served only
	// there, else chat.
	WireAPI string `json:"wire_api"`
	// ReasoningEffort ("low", "medium", "high", ...) is passed to models
	// that take it; empty: not sent.
	ReasoningEffort string `json:"reasoning_effort"`
	// Copilot holds the GitHub Copilot endpoints (provider "copilot").
	Copilot Copilot `json:"copilot"`
	// Prices are the user's prices by model name (US dollars per million
	// tokens), shown as the cost of calls the endpoint does not price
	// itself; they override the built-in table (core/pricing). Never
	// taken from a project file.
	Prices map[string]pricing.Price `json:"prices"`

	MaxSteps      int    `json:"max_steps"`      // model calls per turn
	Mode          string `json:"mode"`           // plan, default, auto-edit, yolo
	ContextWindow int    `json:"context_window"` // tokens
	// CompactThreshold is the share of the context window at which the
	// history is summarised before a model call.
	CompactThreshold float64 `json:"compact_threshold"`
	// StreamIdleTimeout (a Go duration, "120s") ends a model request that
	// receives nothing for that long; it is retried once if nothing was
	// shown yet.
	StreamIdleTimeout string `json:"stream_idle_timeout"`
	// ModelImages false says the model takes no image parts: images from
	// the user, conv_create items and MCP results are then named in text
	// or refused, never sent. Unset: true.
	ModelImages *bool `json:"model_images"`

	Permissions    Permissions   `json:"permissions"`
	Approval       Approval      `json:"approval"`
	AutoApproveAsk bool          `json:"auto_approve_ask"`
	Workflow       Workflow      `json:"workflow"`
	Undo           Undo          `json:"undo"`
	Conversations  Conversations `json:"conversations"`
	Storage        Storage       `json:"storage"`
	History        History       `json:"history"`
	LSP            LSP           `json:"lsp"`
	Sandbox        Sandbox       `json:"sandbox"`
	Web            Web           `json:"web"`
	AgentsMD       AgentsMD      `json:"agents_md"`
	Tasks          Tasks         `json:"tasks"`

	// MCPServers are the MCP servers, in the shape Claude Desktop and
	// Codex use; a later file replaces a server of the same name.
	MCPServers map[string]mcp.ServerConfig `json:"mcpServers"`
	MCP        MCP                         `json:"mcp"`

	// Hooks are the user's commands run on agent events (:help
	// coder-hooks); a trusted project file's run after the user's, an
	// untrusted one's never.
	Hooks hooks.Config `json:"hooks"`

	// Not from files: filled by Load.
	APIKey string `json:"-"`
	// ProviderReason says why Provider was chosen ("ANTHROPIC_API_KEY is
	// set", "configured in …"), for exec and :checkhealth.
	ProviderReason string `json:"-"`
	// Detected is set when no provider was configured and none of the
	// keys or token files were found: the backend then probes Ollama
	// (OllamaURL) before falling back to the demo.
	Detected  bool      `json:"-"`
	OllamaURL string    `json:"-"` // where the probe looks; default http://localhost:11434
	set       keySet    // which keys were given, and by whom
	Files     []string  `json:"-"` // the files that were read, in order
	Workspace Workspace `json:"-"` // the workspace file's standing (trust)
	// StateDir is the user's state directory (trust records, the sessions
	// this machine created); "" when unknown.
	StateDir string `json:"-"`
}

// Permissions selects a preset and adds rules.
type Permissions struct {
	Preset string        `json:"preset"`
	Rules  []policy.Rule `json:"rules"`
}

// Approval controls how asks are answered.
type Approval struct {
	// Interactive false: an ask is allowed without prompting (seed 001 §5).
	Interactive *bool `json:"interactive"`
	// Scope of "always": "session" (default) or "conversation".
	Scope string `json:"scope"`
	// TTL of "always", a Go duration ("30m"); empty: no expiry.
	TTL string `json:"ttl"`
}

// Workflow holds the edit/verify settings (seed 001 §6, §7).
type Workflow struct {
	AutoVerifyAfterEdit   bool     `json:"auto_verify_after_edit"`
	VerifyCommands        []string `json:"verify_commands"`
	MaxVerifyAttempts     int      `json:"max_verify_attempts"`
	RequireTodoForComplex bool     `json:"require_todo_for_complex"`
}

// Conversations bounds the conversation tools (seed 000, seed 004 §10).
type Conversations struct {
	// MaxInterruptChainDepth bounds nested hand-overs (conv_create,
	// conv_send); a call past it gets an error result instead.
	MaxInterruptChainDepth int `json:"max_interrupt_chain_depth"`
	// CloseTimeout is how long closing a conversation or the session
	// waits for its task to stop before abandoning it, a Go duration.
	CloseTimeout string `json:"close_timeout"`
}

// LSP holds the language-server settings of front ends that run servers
// (Neovim): the diagnostics fed back after edits and the lsp tool.
type LSP struct {
	// Settle (a Go duration) is how long a tool call that changed files
	// waits at most for the servers to publish diagnostics; "0" turns
	// the feedback off.
	Settle string `json:"settle"`
	// Timeout (a Go duration) bounds one lsp tool query.
	Timeout string `json:"timeout"`
}

// LSPSettle is the parsed lsp.settle (0: no diagnostics after edits).
func (c Config) LSPSettle() time.Duration {
	d, _ := time.ParseDuration(c.LSP.Settle) // validated in Load
	return d
}

// LSPTimeout is the parsed lsp.timeout.
func (c Config) LSPTimeout() time.Duration {
	d, _ := time.ParseDuration(c.LSP.Timeout) // validated in Load
	return d
}

// AcceptsImages reports whether images may be sent to the model
// (model_images, default true).
func (c Config) AcceptsImages() bool { return c.ModelImages == nil || *c.ModelImages }

// CloseWait is the parsed conversations.close_timeout.
func (c Config) CloseWait() time.Duration {
	d, err := time.ParseDuration(c.Conversations.CloseTimeout)
	if err != nil || d <= 0 {
		return 10 * time.Second
	}
	return d
}

// Undo holds the /undo snapshot settings.
type Undo struct {
	// KeepTurns is how many of a session's latest turns keep their
	// snapshots (and so can be undone); older snapshot refs are deleted.
	KeepTurns int `json:"keep_turns"`
	// MaxFileMB: untracked files larger than this many MiB are not
	// snapshotted (0: no limit); /undo names them.
	MaxFileMB int `json:"max_file_mb"`
}

// MCP holds the MCP pool settings; the limits are promoted keys
// (concurrent, calls_per_minute, session_concurrent,
// session_calls_per_minute).
type MCP struct {
	// StartTimeout (a Go duration) bounds one server's start: connect,
	// initialize and the first tools/list.
	StartTimeout string `json:"start_timeout"`
	// CallTimeout (a Go duration) bounds one tool call: a server that
	// does not answer by then gets an error result.
	CallTimeout string `json:"call_timeout"`
	// FirstTurnWait (a Go duration) is how long the first turn waits for
	// servers still starting; later ones join at a later turn.
	FirstTurnWait string `json:"first_turn_wait"`
	// IdleTimeout (a Go duration) stops a server no conversation has
	// used since the last one using it closed; "0": never.
	IdleTimeout string `json:"idle_timeout"`
	// ToolBudgetTokens: when the schemas of a conversation's MCP tools
	// would take more (chars/4), it is offered mcp_tool_search and the
	// names instead; 0: every schema, always.
	ToolBudgetTokens int `json:"tool_budget_tokens"`
	mcp.Limits
}

// MCPIdleTimeout is the parsed mcp.idle_timeout.
func (c Config) MCPIdleTimeout() time.Duration {
	d, _ := time.ParseDuration(c.MCP.IdleTimeout) // validated in Load
	return d
}

// MCPCallTimeout is the parsed mcp.call_timeout.
func (c Config) MCPCallTimeout() time.Duration {
	d, _ := time.ParseDuration(c.MCP.CallTimeout) // validated in Load
	return d
}

// MCPStartTimeout is the parsed mcp.start_timeout.
func (c Config) MCPStartTimeout() time.Duration {
	d, _ := time.ParseDuration(c.MCP.StartTimeout) // validated in Load
	return d
}

// MCPFirstTurnWait is the parsed mcp.first_turn_wait.
func (c Config) MCPFirstTurnWait() time.Duration {
	d, _ := time.ParseDuration(c.MCP.FirstTurnWait) // validated in Load
	return d
}

// Storage says what of a session is kept on disk (seed 004 §3.6, §12).
type Storage struct {
	// Policy is full, headers_only, none or ttl.
	Policy string `json:"policy"`
	// TTL (a Go duration, "72h") is how long a ttl session keeps its text
	// before a cleanup pass degrades it to headers_only.
	TTL string `json:"ttl"`
}

// History bounds what a conversation sends (seed 004 §4): past either
// bound its oldest messages are sent as one summary; the history itself is
// kept whole.
type History struct {
	// MaxItems bounds the messages of a request (0: no bound).
	MaxItems int `json:"max_items"`
	// MaxTokens bounds a request's estimated tokens; 0 (and anything
	// larger): compact_threshold of context_window.
	MaxTokens int `json:"max_tokens"`
}

// StorageTTL is the parsed storage.ttl.
func (c Config) StorageTTL() time.Duration {
	d, _ := time.ParseDuration(c.Storage.TTL) // validated in Load
	return d
}

// Defaults returns the built-in settings.
func Defaults() Config {
	return Config{
		Model:             "gpt-4o-mini",
		MaxSteps:          50,
		Mode:              "default",
		ContextWindow:     128000,
		CompactThreshold:  0.8,
		StreamIdleTimeout: "120s",
		Permissions:       Permissions{Preset: "balanced"},
		Approval:          Approval{Scope: "session"},
		Workflow: Workflow{
			AutoVerifyAfterEdit:   true,
			MaxVerifyAttempts:     2,
			RequireTodoForComplex: true,
		},
		Conversations: Conversations{MaxInterruptChainDepth: 4, CloseTimeout: "10s"},
		Undo:          Undo{KeepTurns: 100, MaxFileMB: 10},
		MCP:           MCP{StartTimeout: "30s", FirstTurnWait: "2s", CallTimeout: "120s", IdleTimeout: "10m", ToolBudgetTokens: 1500},
		Storage:       Storage{Policy: "full", TTL: "72h"},
		History:       History{MaxItems: 2000},
		LSP:           LSP{Settle: "1.5s", Timeout: "5s"},
		AgentsMD:      AgentsMD{MaxBytes: agentsmd.DefaultMaxBytes},
	}
}

// Interactive reports whether asks are put to the user.
func (c Config) Interactive() bool {
	if c.AutoApproveAsk {
		return false
	}
	return c.Approval.Interactive == nil || *c.Approval.Interactive
}

// ApprovalTTL is the parsed approval TTL (0: none).
func (c Config) ApprovalTTL() time.Duration {
	d, _ := time.ParseDuration(c.Approval.TTL) // validated in Load
	return d
}

// IdleTimeout is the parsed stream_idle_timeout.
func (c Config) IdleTimeout() time.Duration {
	d, _ := time.ParseDuration(c.StreamIdleTimeout) // validated in Load
	return d
}
