package config

import (
	"strings"
)

// Preset is what a provider name fills in: the endpoint, the variable the
// API key is read from, a default model and context window, the wire
// protocol and any headers the endpoint requires. Explicit settings
// (base_url, api_key_env, model, context_window, wire_api) override it.
type Preset struct {
	Name          string
	BaseURL       string
	KeyEnv        string // "" for local servers that take no key, and copilot (token file)
	Model         string // default model; "" keeps the configured one
	ContextWindow int
	Headers       map[string]string
	Local         bool // a server on this machine: no key needed
}

// Preset names that code refers to.
const (
	ProviderOpenAICompat = "openai-compatible"
	ProviderCopilot      = "copilot"
	ProviderOllama       = "ollama"
)

// Presets lists the provider presets, in the order the documentation
// shows them. It returns a new slice each call.
func Presets() []Preset {
	return []Preset{
		{Name: ProviderOpenAI, BaseURL: "https://api.openai.com/v1", KeyEnv: "OPENAI_API_KEY", Model: "gpt-4o-mini", ContextWindow: 128000},
		{Name: "anthropic", BaseURL: "https://api.anthropic.com/v1", KeyEnv: "ANTHROPIC_API_KEY", Model: "claude-sonnet-4-5", ContextWindow: 200000},
		{Name: "gemini", BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai", KeyEnv: "GEMINI_API_KEY", Model: "gemini-2.5-flash", ContextWindow: 1048576},
		{Name: "openrouter", BaseURL: "https://openrouter.ai/api/v1", KeyEnv: "OPENROUTER_API_KEY", Model: "openai/gpt-4o-mini", ContextWindow: 128000,
			Headers: map[string]string{"HTTP-Referer": "https://github.com/coder-nvim/coder-nvim", "X-Title": "coder-nvim"}},
		{Name: "deepseek", BaseURL: "https://api.deepseek.com/v1", KeyEnv: "DEEPSEEK_API_KEY", Model: "deepseek-chat", ContextWindow: 64000},
		{Name: "groq", BaseURL: "https://api.groq.com/openai/v1", KeyEnv: "GROQ_API_KEY", Model: "llama-3.3-70b-versatile", ContextWindow: 128000},
		{Name: "mistral", BaseURL: "https://api.mistral.ai/v1", KeyEnv: "MISTRAL_API_KEY", Model: "mistral-large-latest", ContextWindow: 128000},
		{Name: ProviderOllama, BaseURL: "http://localhost:11434/v1", Model: "qwen2.5-coder", ContextWindow: 32768, Local: true},
		{Name: "lmstudio", BaseURL: "http://localhost:1234/v1", Model: "local-model", ContextWindow: 32768, Local: true},
		// Its token and headers come from core/copilot.
		{Name: ProviderCopilot, BaseURL: "https://api.githubcopilot.com", Model: "gpt-4o", ContextWindow: 128000},
		{Name: ProviderOpenAICompat, BaseURL: "https://api.openai.com/v1", KeyEnv: "OPENAI_API_KEY", ContextWindow: 128000},
		{Name: ProviderDemo},
	}
}

// LookupPreset returns the preset of a provider name (case-insensitive).
func LookupPreset(name string) (Preset, bool) {
	for _, p := range Presets() {
		if strings.EqualFold(p.Name, name) {
			return p, true
		}
	}
	return Preset{}, false
}

// PresetNames lists the known provider names, for error messages.
func PresetNames() []string {
	var out []string
	for _, p := range Presets() {
		out = append(out, p.Name)
	}
	return out
}

// modelWindows are context windows of well-known models, by name prefix
// (the longest matching prefix wins); a model the endpoint describes, or
// a configured context_window, comes first.
func modelWindows() map[string]int {
	return map[string]int{
		"gpt-4o": 128000, "gpt-4.1": 1047576, "gpt-5": 400000, "o1": 200000, "o3": 200000, "o4-mini": 200000,
		"gpt-3.5-turbo": 16385, "gpt-4-turbo": 128000,
		"claude-": 200000, "gemini-1.5-pro": 2097152, "gemini-": 1048576,
		"deepseek-": 64000, "mistral-large": 128000, "codestral": 256000,
		"llama-3.3": 128000, "llama-3.1": 128000, "qwen2.5-coder": 32768, "qwen3": 40960,
	}
}

// ModelWindow is the built-in context window of a model name, 0 when the
// table does not know it. A provider prefix ("openai/gpt-4o") is skipped.
func ModelWindow(model string) int {
	name := strings.ToLower(model)
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	best, window := -1, 0
	for prefix, w := range modelWindows() {
		if strings.HasPrefix(name, prefix) && len(prefix) > best {
			best, window = len(prefix), w
		}
	}
	return window
}

// Wire APIs.
const (
	WireChat      = "chat"      // /chat/completions
	WireResponses = "responses" // /responses (OpenAI's Responses API)
)

// responsesOnly reports whether an OpenAI model is served only through the
// Responses API.
func responsesOnly(model string) bool {
	m := strings.ToLower(model)
	return strings.Contains(m, "codex") || strings.HasSuffix(m, "-pro") || strings.Contains(m, "-pro-") || strings.HasPrefix(m, "computer-use")
}
