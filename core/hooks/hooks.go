// Package hooks runs the user's own commands on agent events (session
// start, input submit, before and after a tool call, the turn's final
// answer), in the shape Claude Code's hooks use: the event as JSON on
// stdin; exit 0 goes on (stdout may add context for the model), exit 2
// blocks, any other outcome is a warning for the user. Hooks are the
// user's programs: they run outside any sandbox, on the host, with their
// time and output capped.
package hooks

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"time"
)

// Event names an agent event hooks run on; the names are the config keys.
type Event string

// The events, in the order a session meets them.
const (
	SessionStart     Event = "session_start"
	UserPromptSubmit Event = "user_prompt_submit"
	PreToolUse       Event = "pre_tool_use"
	PostToolUse      Event = "post_tool_use"
	Stop             Event = "stop"
	// Notification is a front end's notice to the user (a task done or
	// waiting for an answer): Claude Code's Notification event.
	Notification Event = "notification"
)

// Events lists every event, in order.
var Events = []Event{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop, Notification}

// claudeNames are the hook_event_name values Claude Code sends, so that
// scripts written for it recognise the event.
var claudeNames = map[Event]string{
	SessionStart:     "SessionStart",
	UserPromptSubmit: "UserPromptSubmit",
	PreToolUse:       "PreToolUse",
	PostToolUse:      "PostToolUse",
	Stop:             "Stop",
	Notification:     "Notification",
}

// Timeout bounds: a hook gets DefaultTimeout unless it names its own, at
// most MaxTimeout.
const (
	DefaultTimeout = 30 * time.Second
	MaxTimeout     = 10 * time.Minute
)

// Hook is one configured command.
type Hook struct {
	// Matcher selects the tool calls a pre_tool_use or post_tool_use hook
	// runs on: tool names or globs separated by "|" ("bash",
	// "edit|patch|write", "github__*"); "" or "*": every call. Other
	// events take no matcher.
	Matcher string `json:"matcher,omitempty"`
	// Command is run by sh -c (on Windows: Git for Windows' bash, else
	// cmd.exe /C) in the workspace root.
	Command string `json:"command"`
	// Timeout (a Go duration, "10s") ends the hook, with every process it
	// started; empty: DefaultTimeout.
	Timeout string `json:"timeout,omitempty"`
}

// Config is the "hooks" object: hooks by event, run in order.
type Config map[Event][]Hook

// Validate checks every event name, command, matcher and timeout; errors
// name the key.
func (c Config) Validate() error {
	var errs []string
	for _, ev := range sortedEvents(c) {
		if _, ok := claudeNames[ev]; !ok {
			errs = append(errs, fmt.Sprintf("unknown key \"hooks.%s\" (known: %s)", ev, strings.Join(eventNames(), ", ")))
			continue
		}
		for i, h := range c[ev] {
			key := fmt.Sprintf("hooks.%s[%d]", ev, i)
			if strings.TrimSpace(h.Command) == "" {
				errs = append(errs, fmt.Sprintf("key %q: command is empty", key+".command"))
			}
			if h.Matcher != "" && !takesMatcher(ev) {
				errs = append(errs, fmt.Sprintf("key %q: only pre_tool_use and post_tool_use hooks take a matcher", key+".matcher"))
			}
			for _, pat := range strings.Split(h.Matcher, "|") {
				if _, err := path.Match(strings.TrimSpace(pat), ""); err != nil {
					errs = append(errs, fmt.Sprintf("key %q: bad glob %q", key+".matcher", pat))
				}
			}
			if h.Timeout != "" {
				if d, err := time.ParseDuration(h.Timeout); err != nil || d <= 0 || d > MaxTimeout {
					errs = append(errs, fmt.Sprintf("key %q: want a positive duration up to %s such as \"10s\", got %q", key+".timeout", MaxTimeout, h.Timeout))
				}
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// Add appends more's hooks after c's, event by event (the user's first,
// then a trusted project's), and returns the result; c is not changed.
func (c Config) Add(more Config) Config {
	if len(more) == 0 {
		return c
	}
	out := make(Config, len(c)+len(more))
	for ev, hs := range c {
		out[ev] = append([]Hook(nil), hs...)
	}
	for ev, hs := range more {
		out[ev] = append(out[ev], hs...)
	}
	return out
}

// Describe lists every hook as one line, "pre_tool_use[0] (bash): runs
// \"cmd\", timeout 30s", in event order: for /status, :checkhealth and
// the trust float.
func (c Config) Describe() []string {
	var out []string
	for _, ev := range Events {
		for i, h := range c[ev] {
			out = append(out, fmt.Sprintf("%s[%d]%s: runs %q, timeout %s", ev, i, matcherNote(h.Matcher), h.Command, h.timeout()))
		}
	}
	return out
}

func matcherNote(m string) string {
	if m == "" || m == "*" {
		return ""
	}
	return " (" + m + ")"
}

// Matches reports whether the hook runs for tool (any tool when the hook
// names none). Case does not matter: Claude Code's "Bash" matches bash.
func (h Hook) Matches(tool string) bool {
	if h.Matcher == "" || tool == "" {
		return true
	}
	for _, pat := range strings.Split(h.Matcher, "|") {
		if ok, _ := path.Match(strings.ToLower(strings.TrimSpace(pat)), strings.ToLower(tool)); ok {
			return true
		}
	}
	return false
}

func (h Hook) timeout() time.Duration {
	if d, err := time.ParseDuration(h.Timeout); err == nil && d > 0 {
		return min(d, MaxTimeout)
	}
	return DefaultTimeout
}

func takesMatcher(ev Event) bool { return ev == PreToolUse || ev == PostToolUse }

func eventNames() []string {
	names := make([]string, len(Events))
	for i, ev := range Events {
		names[i] = string(ev)
	}
	return names
}

func sortedEvents(c Config) []Event {
	evs := make([]Event, 0, len(c))
	for ev := range c {
		evs = append(evs, ev)
	}
	sort.Slice(evs, func(i, j int) bool { return evs[i] < evs[j] })
	return evs
}
