// Package config loads coder-nvim's settings: defaults, then the user file
// ($XDG_CONFIG_HOME/coder/config.json), then the workspace file
// (./.coder/config.json), then environment overrides for the provider.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/coder-nvim/coder-nvim/core/mcp"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/store"
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

	// MCPServers are the MCP servers, in the shape Claude Desktop and
	// Codex use; a later file replaces a server of the same name.
	MCPServers map[string]mcp.ServerConfig `json:"mcpServers"`
	MCP        MCP                         `json:"mcp"`

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

// DecodeMCPServers decodes an "mcpServers" object given by a front end
// (Neovim setup, as JSON), strictly, and checks it; errors name the key.
func DecodeMCPServers(data []byte) (map[string]mcp.ServerConfig, error) {
	servers, err := decodeServers(data)
	if err != nil {
		return nil, err
	}
	if err := mcp.ValidateServers(servers); err != nil {
		return nil, err
	}
	return servers, nil
}

func decodeServers(raw json.RawMessage) (map[string]mcp.ServerConfig, error) {
	if string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, errors.New(`key "mcpServers": expected an object of servers by name`)
	}
	out := map[string]mcp.ServerConfig{}
	for name, entry := range entries {
		var sc mcp.ServerConfig
		dec := json.NewDecoder(bytes.NewReader(entry))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&sc); err != nil {
			var typeErr *json.UnmarshalTypeError
			switch {
			case errors.As(err, &typeErr) && typeErr.Field != "":
				return nil, fmt.Errorf("key \"mcpServers.%s.%s\": expected %s, got JSON %s", name, typeErr.Field, jsonType(typeErr.Type), typeErr.Value)
			case strings.HasPrefix(err.Error(), "json: unknown field "):
				field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
				return nil, fmt.Errorf("unknown key \"mcpServers.%s.%s\" (known: command, args, env, cwd, url, headers, type, disabled, trusted)", name, field)
			}
			return nil, fmt.Errorf("key \"mcpServers.%s\": expected an object with command or url", name)
		}
		out[name] = sc
	}
	return out, nil
}

// AddMCPServers adds servers a front end names (Neovim setup, ACP
// session/new) to the configured ones; a server of the same name is
// replaced.
func (c *Config) AddMCPServers(servers map[string]mcp.ServerConfig) {
	if len(servers) == 0 {
		return
	}
	merged := make(map[string]mcp.ServerConfig, len(c.MCPServers)+len(servers))
	for k, v := range c.MCPServers {
		merged[k] = v
	}
	for k, v := range servers {
		merged[k] = v
	}
	c.MCPServers = merged
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
		MCP:           MCP{StartTimeout: "30s", FirstTurnWait: "2s", CallTimeout: "120s", IdleTimeout: "10m"},
		Storage:       Storage{Policy: "full", TTL: "72h"},
		History:       History{MaxItems: 2000},
		LSP:           LSP{Settle: "1.5s", Timeout: "5s"},
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

// UserFile is the user-level config path.
func UserFile() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "coder", "config.json")
}

// WorkspaceFile is the workspace-level config path.
func WorkspaceFile(root string) string {
	return filepath.Join(root, ".coder", "config.json")
}

// Load merges defaults, the user file, the workspace file of root and the
// environment (getenv, usually os.Getenv). A file that does not exist is
// skipped; a malformed one is an error naming the file and the key.
func Load(root string, getenv func(string) string) (Config, error) {
	cfg := Defaults()
	cfg.StateDir = StateDir(getenv)
	if path := UserFile(); path != "" {
		ok, err := mergeFile(&cfg, path)
		if err != nil {
			return Config{}, err
		}
		if ok {
			cfg.Files = append(cfg.Files, path)
		}
	}
	// The workspace's own file came with the repository: it applies whole
	// only once the user trusts this content of it (see trust.go).
	path := WorkspaceFile(root)
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	default:
		cfg.Files = append(cfg.Files, path)
		ok := trusted(cfg.StateDir, root, data)
		if len(bytes.TrimSpace(data)) > 0 {
			if err := mergeWorkspace(&cfg, data, ok); err != nil {
				return Config{}, fmt.Errorf("config %s: %w", path, err)
			}
		}
		cfg.Workspace.File, cfg.Workspace.Trusted = path, ok
		if ok {
			cfg.set.note(path, data, true)
		}
	}
	if v := getenv("OPENAI_BASE_URL"); v != "" {
		cfg.BaseURL = v
		cfg.set.baseURL, cfg.set.baseURLByProject = true, false
	}
	if v := getenv("CODER_MODEL"); v != "" {
		cfg.Model = v
		cfg.set.model = true
	}
	if v := getenv("CODER_PROVIDER"); v != "" {
		cfg.Provider = v
		cfg.set.providerFrom, cfg.set.providerByProject = "CODER_PROVIDER", false
	}
	if err := cfg.resolveProvider(getenv); err != nil {
		return Config{}, err
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

func mergeFile(cfg *Config, path string) (bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("config %s: %w", path, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return true, nil
	}
	if err := Decode(data, cfg); err != nil {
		return false, fmt.Errorf("config %s: %w", path, err)
	}
	cfg.set.note(path, data, false)
	// Check values here, so an error names the file that set them.
	if err := cfg.validate(true); err != nil {
		return false, fmt.Errorf("config %s: %w", path, err)
	}
	return true, nil
}

// Decode merges one JSON document into cfg: keys present replace, keys
// absent keep their value. Unknown keys and wrong types are errors that
// name the key.
func Decode(data []byte, cfg *Config) error {
	// mcpServers is decoded apart, server by server, so an error names
	// the server (encoding/json leaves map keys out of field paths).
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) == nil {
		if raw, ok := top["mcpServers"]; ok {
			servers, err := decodeServers(raw)
			if err != nil {
				return err
			}
			delete(top, "mcpServers")
			data, _ = json.Marshal(top)
			cfg.AddMCPServers(servers)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(cfg); err != nil {
		var typeErr *json.UnmarshalTypeError
		var syntaxErr *json.SyntaxError
		switch {
		case errors.As(err, &typeErr) && typeErr.Field == "":
			return fmt.Errorf("expected a JSON object, got JSON %s", typeErr.Value)
		case errors.As(err, &typeErr):
			return fmt.Errorf("key %q: expected %s, got JSON %s", typeErr.Field, jsonType(typeErr.Type), typeErr.Value)
		case errors.As(err, &syntaxErr):
			return fmt.Errorf("invalid JSON at byte %d: %v", syntaxErr.Offset, syntaxErr)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			return fmt.Errorf("unknown key %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
		}
		return fmt.Errorf("invalid JSON: %w", err)
	}
	if dec.More() {
		return errors.New("invalid JSON: extra data after the top-level object")
	}
	return nil
}

// jsonType names the JSON type a Go type decodes from, for error messages
// that speak the file's language rather than Go's.
func jsonType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean (true or false)"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		elem := map[reflect.Kind]string{reflect.String: " of strings", reflect.Struct: " of objects", reflect.Int: " of integers"}[t.Elem().Kind()]
		return "an array" + elem
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return t.Kind().String()
}

// Validate checks values that JSON types cannot.
func (c Config) Validate() error { return c.validate(false) }

// validate checks the values; providerUnset allows the empty provider that
// files may leave to Load to decide.
func (c Config) validate(providerUnset bool) error {
	var errs []string
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Sprintf("key %q: ", key)+fmt.Sprintf(format, args...))
	}
	switch c.Provider {
	case "":
		if !providerUnset {
			bad("provider", "must not be empty")
		}
	default:
		if _, ok := LookupPreset(c.Provider); !ok {
			bad("provider", "unknown provider %q (known: %s)", c.Provider, strings.Join(PresetNames(), ", "))
		}
	}
	switch c.WireAPI {
	case "", WireChat, WireResponses:
	default:
		bad("wire_api", "want %q or %q, got %q", WireChat, WireResponses, c.WireAPI)
	}
	switch c.ReasoningEffort {
	case "", "minimal", "low", "medium", "high", "xhigh", "none":
	default:
		bad("reasoning_effort", "want minimal, low, medium or high, got %q", c.ReasoningEffort)
	}
	if c.Model == "" {
		bad("model", "must not be empty")
	}
	if c.MaxSteps < 1 {
		bad("max_steps", "must be at least 1, got %d", c.MaxSteps)
	}
	if _, err := policy.ParseMode(c.Mode); err != nil {
		bad("mode", "%v", err)
	}
	// The preset and the rules are checked by the package that applies
	// them; its messages name the keys (permissions.preset,
	// permissions.rules[i]).
	if err := (policy.Policy{Preset: policy.Preset(c.Permissions.Preset), Rules: c.Permissions.Rules}).Validate(); err != nil {
		errs = append(errs, err.Error())
	}
	if c.Permissions.Preset == "" {
		bad("permissions.preset", "must not be empty")
	}
	switch c.Approval.Scope {
	case "session", "conversation":
	default:
		bad("approval.scope", "want session or conversation, got %q", c.Approval.Scope)
	}
	if c.Approval.TTL != "" {
		if d, err := time.ParseDuration(c.Approval.TTL); err != nil || d < 0 {
			bad("approval.ttl", "want a duration such as \"30m\", got %q", c.Approval.TTL)
		}
	}
	if d, err := time.ParseDuration(c.StreamIdleTimeout); err != nil || d <= 0 {
		bad("stream_idle_timeout", "want a positive duration such as \"120s\", got %q", c.StreamIdleTimeout)
	}
	if d, err := time.ParseDuration(c.LSP.Settle); err != nil || d < 0 {
		bad("lsp.settle", "want a duration such as \"1.5s\" (\"0\" turns the diagnostics after edits off), got %q", c.LSP.Settle)
	}
	if d, err := time.ParseDuration(c.LSP.Timeout); err != nil || d <= 0 {
		bad("lsp.timeout", "want a positive duration such as \"5s\", got %q", c.LSP.Timeout)
	}
	if c.ContextWindow < 1000 {
		bad("context_window", "must be at least 1000, got %d", c.ContextWindow)
	}
	if c.CompactThreshold < 0.1 || c.CompactThreshold > 1 {
		bad("compact_threshold", "must be between 0.1 and 1, got %v", c.CompactThreshold)
	}
	if c.Conversations.MaxInterruptChainDepth < 0 {
		bad("conversations.max_interrupt_chain_depth", "must not be negative, got %d", c.Conversations.MaxInterruptChainDepth)
	}
	if c.Conversations.CloseTimeout != "" {
		if d, err := time.ParseDuration(c.Conversations.CloseTimeout); err != nil || d <= 0 {
			bad("conversations.close_timeout", "want a positive duration such as \"10s\", got %q", c.Conversations.CloseTimeout)
		}
	}
	if c.Workflow.MaxVerifyAttempts < 0 || c.Workflow.MaxVerifyAttempts > 2 {
		bad("workflow.max_verify_attempts", "must be between 0 and 2 (it can only tighten the default), got %d", c.Workflow.MaxVerifyAttempts)
	}
	if c.Undo.KeepTurns < 1 {
		bad("undo.keep_turns", "must be at least 1, got %d", c.Undo.KeepTurns)
	}
	if c.Undo.MaxFileMB < 0 {
		bad("undo.max_file_mb", "must be 0 (no limit) or more, got %d", c.Undo.MaxFileMB)
	}
	if err := mcp.ValidateServers(c.MCPServers); err != nil {
		errs = append(errs, err.Error())
	}
	if d, err := time.ParseDuration(c.MCP.CallTimeout); err != nil || d <= 0 {
		bad("mcp.call_timeout", "want a positive duration such as \"120s\", got %q", c.MCP.CallTimeout)
	}
	if d, err := time.ParseDuration(c.MCP.IdleTimeout); err != nil || d < 0 {
		bad("mcp.idle_timeout", "want a duration such as \"10m\" (\"0\": never), got %q", c.MCP.IdleTimeout)
	}
	if d, err := time.ParseDuration(c.MCP.StartTimeout); err != nil || d <= 0 {
		bad("mcp.start_timeout", "want a positive duration such as \"30s\", got %q", c.MCP.StartTimeout)
	}
	if d, err := time.ParseDuration(c.MCP.FirstTurnWait); err != nil || d < 0 {
		bad("mcp.first_turn_wait", "want a duration such as \"2s\", got %q", c.MCP.FirstTurnWait)
	}
	for _, l := range []struct {
		key string
		v   int
	}{{"mcp.concurrent", c.MCP.Concurrent}, {"mcp.calls_per_minute", c.MCP.CallsPerMinute},
		{"mcp.session_concurrent", c.MCP.SessionConcurrent}, {"mcp.session_calls_per_minute", c.MCP.SessionCallsPerMinute}} {
		if l.v < 0 {
			bad(l.key, "must be 0 (the default) or more, got %d", l.v)
		}
	}
	if c.History.MaxItems < 0 || c.History.MaxItems > 0 && c.History.MaxItems < 8 {
		bad("history.max_items", "must be 0 (no bound) or at least 8, got %d", c.History.MaxItems)
	}
	if c.History.MaxTokens < 0 {
		bad("history.max_tokens", "must be 0 (compact_threshold of context_window) or more, got %d", c.History.MaxTokens)
	}
	if _, err := store.ParsePolicy(c.Storage.Policy); err != nil || c.Storage.Policy == "" {
		bad("storage.policy", "want full, headers_only, none or ttl, got %q", c.Storage.Policy)
	}
	if d, err := time.ParseDuration(c.Storage.TTL); err != nil || d <= 0 {
		bad("storage.ttl", "want a positive duration such as \"72h\", got %q", c.Storage.TTL)
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// SetWorkspaceKey writes one top-level key into the workspace config file,
// keeping every other key, atomically. It is how `/model` persists. A file
// the user trusted (or a new one, which holds only this key) stays trusted
// with its new content; an untrusted one stays untrusted.
func SetWorkspaceKey(root, stateDir, key string, value any) error {
	path := WorkspaceFile(root)
	doc := map[string]json.RawMessage{}
	data, err := os.ReadFile(path)
	created := errors.Is(err, fs.ErrNotExist)
	keepTrust := created || err == nil && trusted(stateDir, root, data)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("read %s: %w", path, err)
	case len(bytes.TrimSpace(data)) > 0:
		if err := json.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("%s is not a JSON object, not rewriting it: %w", path, err)
		}
	}
	raw, err := json.Marshal(value)
	if err != nil {
		return fmt.Errorf("encode %s: %w", key, err)
	}
	doc[key] = raw
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	out = append(out, '\n')
	if err := writeFileAtomic(path, out); err != nil {
		return err
	}
	if created {
		// A file the host made, not the project's: like the sessions it
		// stays out of `git status` (a .gitignore the user has is kept).
		ignore := filepath.Join(filepath.Dir(path), ".gitignore")
		if _, err := os.Stat(ignore); errors.Is(err, fs.ErrNotExist) {
			_ = os.WriteFile(ignore, []byte("# made by coder-nvim: .coder/ holds this machine's state\n*\n"), 0o644)
		}
	}
	if keepTrust && stateDir != "" {
		return recordTrust(stateDir, root, out)
	}
	return nil
}
