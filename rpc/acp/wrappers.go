package acp

// The wrappers clients put around a prompt's text, in one place (issue
// 48). What they wrap is not the user's newest words alone: commands,
// titles and the complexity of a task are found in the words inside.
//
//   - avante.nvim sends, as separate text blocks, the user's recent
//     messages newest first, the one being sent included (as seen in
//     session titles and commands), each as
//     <previous_user_message>…</previous_user_message>, then a
//     <system_context>Continuing from previous session …</system_context>
//     note; after a session recovery also its answers, as
//     <previous_assistant_message>…</previous_assistant_message>.
//
// The model still gets the whole prompt as it came (a recovered
// session's earlier messages are context); a command runs alone.

import (
	"regexp"
	"strings"
	"sync"

	"github.com/coder-nvim/coder-nvim/core/agent/command"
	sdk "github.com/coder/acp-go-sdk"
)

// newestWrapped matches avante's wrapper of a user message; its first
// match in a prompt is the message being sent. resent matches all it
// adds around the user's words.
var (
	newestWrapped = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)<previous_user_message>(.*?)</previous_user_message>`)
	})
	resent = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)<(previous_user_message|previous_assistant_message|system_context)>.*?</(previous_user_message|previous_assistant_message|system_context)>`)
	})
)

// unwrapped is the user's newest words in text, and whether a client's
// wrappers were found: the text outside them if there is any (a client
// that wraps only the earlier messages), else the first wrapped message;
// text itself without wrappers.
func unwrapped(text string) (string, bool) {
	m := newestWrapped().FindStringSubmatch(text)
	if m == nil {
		return text, false
	}
	if rest := strings.TrimSpace(resent().ReplaceAllString(text, "")); rest != "" {
		return rest, true
	}
	return strings.TrimSpace(m[1]), true
}

// wrappedCommand is the command line a wrapped prompt carries: its newest
// words when they start with one of this agent's commands ("/mode
// default"); ok is false for any other prompt.
func wrappedCommand(blocks []sdk.ContentBlock) (line string, ok bool) {
	words, wrapped := unwrapped(promptWords(blocks))
	if !wrapped || !strings.HasPrefix(words, "/") {
		return "", false
	}
	name := strings.Fields(words)[0][1:]
	for _, n := range command.Names() {
		if n == name {
			return words, true
		}
	}
	return "", false
}

// sessionTitle is a session's title from its first prompt: the user's words
// without a client's wrapper.
func sessionTitle(firstPrompt string) string {
	words, _ := unwrapped(firstPrompt)
	return shorten(words, 80)
}
