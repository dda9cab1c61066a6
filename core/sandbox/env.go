package sandbox

import (
	"path"
	"slices"
	"strings"
)

// secretEnv are the names of variables a confined command does not get
// (glob patterns, matched without regard to case): secrets by their
// names, the providers' and the clouds' own variables, and the addresses
// of the host's daemons (their sockets are hidden as well).
var secretEnv = []string{
	"*KEY*", "*SECRET*", "*TOKEN*", "*PASSWORD*", "*PASSWD*", "*CREDENTIAL*",
	"OPENAI_*", "ANTHROPIC_*", "GEMINI_*", "GOOGLE_*", "MISTRAL_*", "GROQ_*", "DEEPSEEK_*", "OPENROUTER_*",
	"XAI_*", "AZURE_*", "COPILOT_*", "AWS_*", "GH_*",
}

// socketEnv name the host's daemons and the terminal's: a command that
// had them would know where to connect.
var socketEnv = []string{
	"NVIM", "NVIM_LISTEN_ADDRESS", "TMUX", "TMUX_PANE", "STY", "SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO",
	"DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS", "DOCKER_HOST", "CONTAINER_HOST", "WAYLAND_DISPLAY",
	"DISPLAY", "XAUTHORITY", "PULSE_SERVER", "PIPEWIRE_REMOTE", "KITTY_LISTEN_ON", "WEZTERM_UNIX_SOCKET",
	"VSCODE_IPC_HOOK_CLI", "GNOME_KEYRING_CONTROL", "SWAYSOCK", "I3SOCK", "HYPRLAND_INSTANCE_SIGNATURE",
}

// DroppedEnv is every pattern a confined command's environment loses by
// default, for the documentation and the model's note.
func DroppedEnv() []string { return append(slices.Clone(secretEnv), socketEnv...) }

// EnvNote tells the model, in the bash tool's description, what its
// confined shell lacks.
const EnvNote = "Sandboxed commands do not get secrets (variables named like *KEY*, *TOKEN*, *SECRET*, *PASSWORD*, the providers' and clouds' own) nor the addresses of the editor's, terminal's and desktop's sockets."

// ScrubEnv is env without what a confined command must not get: a name
// matching drop goes always, one matching the defaults unless it matches
// keep. It runs at every confined start: the defaults are plain
// substring, prefix and name tests, compiled once.
func ScrubEnv(env, keep, drop []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		upper := strings.ToUpper(name)
		if matchAny(drop, upper) || defaultDropped(upper) && !matchAny(keep, upper) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// defaultDropped reports whether upper, a name in upper case, matches
// secretEnv or socketEnv, each "*X*", "X*" or a name.
func defaultDropped(upper string) bool {
	for _, list := range [][]string{secretEnv, socketEnv} {
		for _, p := range list {
			inner := strings.Trim(p, "*")
			switch {
			case strings.HasPrefix(p, "*"):
				if strings.Contains(upper, inner) {
					return true
				}
			case strings.HasSuffix(p, "*"):
				if strings.HasPrefix(upper, inner) {
					return true
				}
			case upper == p:
				return true
			}
		}
	}
	return false
}

// matchAny reports whether upper, a name in upper case, matches one of
// the user's glob patterns, without regard to case.
func matchAny(patterns []string, upper string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(strings.ToUpper(p), upper); ok {
			return true
		}
	}
	return false
}
