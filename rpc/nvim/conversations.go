package nvimhost

import (
	"fmt"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/event"
)

// conversationsRequest lists the session's conversations for
// `:Coder conversations`: root first, then in creation order, each with a
// picker line (id, first line, messages, last active).
func (h *host) conversationsRequest() ([]map[string]any, error) {
	h.waitOpened()
	sess, err := h.session()
	if err != nil {
		return nil, err
	}
	h.renderMu.Lock()
	target := h.render.target
	h.renderMu.Unlock()
	root := sess.RootConversation()
	var out []map[string]any
	for _, c := range sess.Conversations() {
		out = append(out, map[string]any{
			"id":     string(c.ID),
			"root":   c.ID == root,
			"target": string(c.ID) == target || target == "" && c.ID == root,
			"label":  conversationLabel(c, c.ID == root, string(c.ID) == target),
		})
	}
	return out, nil
}

// conversationLabel is one picker line.
func conversationLabel(c agent.ConversationInfo, root, target bool) string {
	name := event.ShortConversation(string(c.ID))
	if root {
		name = "root"
	}
	first := c.FirstLine
	if r := []rune(first); len(r) > maxPromptRunes {
		first = string(r[:maxPromptRunes]) + "…"
	}
	if first == "" {
		first = "(no messages yet)"
	}
	mark := ""
	switch {
	case c.Running:
		mark = "  ● running"
	case target:
		mark = "  ← input"
	}
	active := "never"
	if !c.LastActive.IsZero() {
		active = c.LastActive.Local().Format("2006-01-02 15:04")
	}
	return fmt.Sprintf("%-9s  %s  (%d messages, %s, active %s)%s", name, first, c.Messages, c.Stats.Short(), active, mark)
}

// targetRequest makes a conversation the input's target ("" or the
// root's id: the root). It returns the prompt's short name for it.
func (h *host) targetRequest(id string) (string, error) {
	h.waitOpened()
	sess, err := h.session()
	if err != nil {
		return "", err
	}
	id = strings.TrimSpace(id)
	if id == "root" || agent.ConversationID(id) == sess.RootConversation() {
		id = ""
	}
	if id != "" {
		found := false
		for _, c := range sess.Conversations() {
			if string(c.ID) == id {
				found = true
			}
		}
		if !found {
			return "", fmt.Errorf("no conversation %q in this session", id)
		}
	}
	h.setTarget(id)
	return event.ShortConversation(id), nil
}

// setTarget changes where input goes and shows it in the prompt.
func (h *host) setTarget(id string) {
	h.renderMu.Lock()
	defer h.renderMu.Unlock()
	h.render.target = id
	h.out.add(h.render.statusOp(), true)
}

// transcriptRequest renders a conversation's messages as transcript text
// chunks ({text, highlight}) for a read-only buffer.
func (h *host) transcriptRequest(id string) ([][]string, error) {
	h.waitOpened()
	sess, err := h.session()
	if err != nil {
		return nil, err
	}
	conv := agent.ConversationID(strings.TrimSpace(id))
	if conv == "root" {
		conv = ""
	}
	found := conv == ""
	var stats agent.Stats
	for _, c := range sess.Conversations() {
		if c.ID == conv || conv == "" && c.ID == sess.RootConversation() {
			found, stats = true, c.Stats
		}
	}
	if !found {
		return nil, fmt.Errorf("no conversation %q in this session", id)
	}
	var chunks [][]string
	r := newRenderer(sess.Root(), func(hl, s string) {
		if n := len(chunks); n > 0 && chunks[n-1][1] == hl {
			chunks[n-1][0] += s
			return
		}
		chunks = append(chunks, []string{s, hl})
	}, func(op, bool) {})
	name := "conversation " + string(conv)
	if conv == "" {
		name = "root conversation " + string(sess.RootConversation())
	}
	r.replayTitled(name, stats.Lines(), sess.History(conv), sess.Commands(conv))
	if len(chunks) == 0 {
		chunks = [][]string{{"", ""}}
	}
	return chunks, nil
}
