package nvimhost

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/agent/command"
	"github.com/coder-nvim/coder-nvim/core/event"
)

// conversationNewRequest is `:Coder conversation new`: line holds its
// arguments as typed (`/conversation new` syntax), form the answers of the
// plugin's form (command.NewKeys; empty answers are left out). The new
// conversation becomes the input's target and, with user instructions,
// runs on them at once. It returns {id, name, clamped, text}.
func (h *host) conversationNewRequest(line string, form map[string]string) (map[string]any, error) {
	h.waitOpened()
	sess, err := h.session()
	if err != nil {
		return nil, err
	}
	settings, first, err := command.ParseSettings(line, command.NewKeys)
	if err != nil {
		return nil, err
	}
	for _, k := range command.NewKeys {
		if v := strings.TrimSpace(form[k]); v != "" {
			settings = append(settings, command.Setting{Key: k, Value: v})
		}
	}
	id, clamps, err := sess.NewConversation(context.Background(), settings, first)
	if err != nil {
		return nil, err
	}
	h.setTarget(string(id))
	text := fmt.Sprintf("opened conversation %s; input goes to it now (:Coder conversations root: back to the root)", event.ShortConversation(string(id)))
	if len(clamps) > 0 {
		text += "\nclamped: " + strings.Join(clamps, "; ")
	}
	if len(sess.History(id)) > 0 {
		switch _, err := sess.StartConversation(id); {
		case errors.Is(err, agent.ErrBusy):
			text += "\na task is running: it runs on its first message with your next input"
		case err != nil:
			return nil, err
		}
	}
	return map[string]any{"id": string(id), "name": event.ShortConversation(string(id)), "clamped": nonNil(clamps), "text": text}, nil
}

// conversationSetRequest is `:Coder conversation set KEY VALUE`: it
// changes the context of the conversation input goes to, for its later
// turns. It returns what changed (and was clamped).
func (h *host) conversationSetRequest(line string) (string, error) {
	h.waitOpened()
	sess, err := h.session()
	if err != nil {
		return "", err
	}
	settings, err := command.SetArgs(line)
	if err != nil {
		return "", err
	}
	h.renderMu.Lock()
	target := h.render.target
	h.renderMu.Unlock()
	text, clamps, err := sess.SetConversationContext(context.Background(), agent.ConversationID(target), settings)
	if err != nil {
		return "", err
	}
	if len(clamps) > 0 {
		text += "\nclamped: " + strings.Join(clamps, "; ")
	}
	return text, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
