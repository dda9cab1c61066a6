package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/coder-nvim/coder-nvim/core/agent/conv"
	"github.com/coder-nvim/coder-nvim/core/agent/toolcalls"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/store"
	"github.com/coder-nvim/coder-nvim/core/tools"
)

// convHost carries out the conv_* tools (conv.Host) as the task running
// in ctx.
type convHost struct{ s *Session }

func (h convHost) Mode() policy.Mode { return h.s.Mode() }

func (h convHost) run(ctx context.Context, raw json.RawMessage, f func(*Session, context.Context, *task, json.RawMessage) (string, error)) (string, error) {
	t := taskFrom(ctx)
	if t == nil {
		return "", fmt.Errorf("%w: no task", ErrInternal)
	}
	return f(h.s, ctx, t, raw)
}

func (h convHost) Create(ctx context.Context, raw json.RawMessage) (string, error) {
	return h.run(ctx, raw, (*Session).convCreate)
}

func (h convHost) Send(ctx context.Context, raw json.RawMessage) (string, error) {
	return h.run(ctx, raw, (*Session).convSend)
}

func (h convHost) List(ctx context.Context, raw json.RawMessage) (string, error) {
	return h.run(ctx, raw, (*Session).convList)
}

func (h convHost) History(ctx context.Context, raw json.RawMessage) (string, error) {
	return h.run(ctx, raw, (*Session).convHistory)
}

func (h convHost) Destroy(ctx context.Context, raw json.RawMessage) (string, error) {
	return h.run(ctx, raw, (*Session).convDestroy)
}

// splitItems turns items into message text and image URLs. Images are a
// data: URL of an image type, a workspace image file the conversation may
// read, or an http(s) URL (asked about in Prepare).
func (s *Session) splitItems(ctx context.Context, t *task, items []conv.Item) (string, []llm.Image, error) {
	var texts []string
	var images []llm.Image
	for i, it := range items {
		switch it.Type {
		case "text", "input_text":
			texts = append(texts, it.Text)
		case "image_url", "image", "input_image":
			if !s.opts.Config.AcceptsImages() {
				return "", nil, fmt.Errorf("items[%d]: this model takes no images (model_images is false); describe the picture in text", i)
			}
			if len(images) == conv.MaxItemImages {
				return "", nil, fmt.Errorf("items[%d]: at most %d images per call", i, conv.MaxItemImages)
			}
			img, err := s.itemImage(ctx, t, conv.ItemURL(it))
			if err != nil {
				return "", nil, fmt.Errorf("items[%d].image_url: %w", i, err)
			}
			images = append(images, img)
		default:
			return "", nil, fmt.Errorf("items[%d].type %q is not text or image_url", i, it.Type)
		}
	}
	return strings.Join(texts, "\n\n"), images, nil
}

func (s *Session) itemImage(ctx context.Context, t *task, url string) (llm.Image, error) {
	switch {
	case strings.HasPrefix(url, "https://"), strings.HasPrefix(url, "http://"):
		if s.Mode() == policy.ModePlan {
			return llm.Image{}, errors.New("an http(s) image URL is not sent in plan mode; save the image in the workspace and name the file")
		}
		return llm.Image{URL: url}, nil // asked about before the call ran
	case strings.HasPrefix(url, "data:"):
		if err := conv.CheckDataURL(url); err != nil {
			return llm.Image{}, err
		}
		return llm.Image{URL: url}, nil
	case url == "":
		return llm.Image{}, errors.New("empty; give a data:image/… URL or a workspace image file")
	case strings.Contains(url, "://"):
		return llm.Image{}, fmt.Errorf("image_url must be a data:image/… URL, a workspace image file or an http(s) URL, not %q", url)
	}
	mime := llm.ImageFileType(url)
	if mime == "" {
		return llm.Image{}, fmt.Errorf("%s is not a PNG, JPEG, GIF or WebP file (nor a data:image/… URL)", url)
	}
	data, err := s.readWorkspaceFile(ctx, t, url, conv.MaxItemImage)
	if err != nil {
		return llm.Image{}, err
	}
	return llm.DataImage(mime, data), nil
}

// handOver checks the chain depth and leaves the hand-over on the task;
// the step loop then ends the task (TurnAborted(Replaced)).
func (s *Session) handOver(t *task, cl *closure, text string, images []llm.Image) error {
	if err := s.chainDepthErr(t); err != nil {
		return err
	}
	call := t.call
	if target, err := s.conversation(cl.target); err == nil {
		cl.before = target.Stats()
	}
	cl.callID, cl.tool, cl.arguments, cl.caller = call.ID, call.Function.Name, call.Function.Arguments, t.conv.ID
	t.handover = &handover{closure: cl, target: &taskPlan{
		id: TaskID(s.newID()), kind: planTarget, conv: cl.target, input: text, images: images,
		turn: t.turnID(), depth: t.plan.depth + 1, returnsTo: cl,
	}}
	return nil
}

// chainDepthErr refuses a hand-over past conversations.max_interrupt_chain_depth.
func (s *Session) chainDepthErr(t *task) error {
	if max := s.opts.Config.Conversations.MaxInterruptChainDepth; t.plan.depth+1 > max {
		return fmt.Errorf("hand-over refused: the chain of nested conv.create/conv.send calls is at its limit (conversations.max_interrupt_chain_depth = %d); do the work here or answer your caller", max)
	}
	return nil
}

func (s *Session) convCreate(ctx context.Context, t *task, raw json.RawMessage) (string, error) {
	var args struct {
		BaseText      *string     `json:"base_instruction_text"`
		BaseFile      string      `json:"base_instruction_file"`
		UserInstr     string      `json:"user_instruction"`
		Items         []conv.Item `json:"items"`
		MCPAllowlist  []string    `json:"mcp_allowlist"`
		InternalTools *struct {
			Plan      *bool `json:"include_plan_tool"`
			Patch     *bool `json:"include_apply_patch_tool"`
			WebSearch *bool `json:"web_search_request"`
			Shell     *bool `json:"use_streamable_shell_tool"`
		} `json:"internal_tools"`
		Model   string `json:"model"`
		Storage string `json:"storage_policy"`
	}
	if err := conv.Decode(conv.ToolCreate, raw, &args); err != nil {
		return "", err
	}
	if args.BaseText != nil && args.BaseFile != "" {
		return "", errors.New("base_instruction_text and base_instruction_file are mutually exclusive")
	}
	if strings.TrimSpace(args.UserInstr) == "" && len(args.Items) == 0 {
		return "", errors.New("give user_instruction or items (at least one)")
	}
	text, images, err := s.splitItems(ctx, t, args.Items)
	if err != nil {
		return "", err
	}
	spec := ConversationSpec{Instructions: args.BaseText, UserInstructions: args.UserInstr, Model: strings.TrimSpace(args.Model), MCPAllowlist: args.MCPAllowlist, Storage: StoragePolicy(args.Storage)}
	if args.BaseFile != "" {
		body, err := s.readInstructionFile(ctx, t, args.BaseFile)
		if err != nil {
			return "", err
		}
		spec.Instructions = &body
	}
	var notes []string
	s.mu.Lock()
	prefs := t.conv.Tools
	s.mu.Unlock()
	askedWeb := false
	if it := args.InternalTools; it != nil {
		// A child inherits its caller's tools and may only narrow them.
		set := func(name string, dst *bool, v *bool) {
			switch {
			case v == nil:
			case *v && !*dst:
				notes = append(notes, name+": not enabled (the calling conversation does not have it; a conversation can only narrow its tools)")
			default:
				*dst = *v
			}
		}
		set("include_plan_tool", &prefs.Plan, it.Plan)
		set("include_apply_patch_tool", &prefs.Patch, it.Patch)
		set("use_streamable_shell_tool", &prefs.Shell, it.Shell)
		askedWeb = it.WebSearch != nil && *it.WebSearch
	}
	// The web tools only when asked for (seed 000), and only when the
	// caller has them.
	if askedWeb && !prefs.WebSearch {
		notes = append(notes, "web_search_request: not enabled (the calling conversation has no web tools; a conversation can only narrow its tools)")
	}
	prefs.WebSearch = askedWeb && prefs.WebSearch
	spec.Tools = &prefs
	_, deprecated, err := conv.NormalizeAllowlist(args.MCPAllowlist)
	if err != nil {
		return "", err
	}
	if deprecated {
		s.mu.Lock()
		first := !s.slashNote
		s.slashNote = true
		s.mu.Unlock()
		if first {
			t.emit(event.Event{Kind: event.Notice, Text: "mcp_allowlist: server/tool names are deprecated; use server__tool"})
		}
	}
	if err := s.chainDepthErr(t); err != nil {
		return "", err // before anything is created
	}
	c, clamps, err := s.openConversation(t.conv, spec)
	if err != nil {
		return "", err
	}
	// What was clamped is told to both: the model in the call's result,
	// the user in a notice.
	notes = append(notes, clamps...)
	var told []string
	for _, n := range notes {
		if !strings.HasPrefix(n, "web_search_request") {
			told = append(told, n)
		}
	}
	s.tellClamps(c.ID, told)
	cl := &closure{target: c.ID, create: true, first: args.UserInstr, firstItems: len(args.Items), notes: notes}
	if err := s.handOver(t, cl, text, images); err != nil {
		return "", err
	}
	return fmt.Sprintf(toolcalls.Pending, c.ID), nil
}

// readInstructionFile reads a workspace file the conversation may read,
// by the read tool's rules: a regular file, of a bounded size.
func (s *Session) readInstructionFile(ctx context.Context, t *task, path string) (string, error) {
	data, err := s.readWorkspaceFile(ctx, t, path, conv.MaxInstructionFile)
	if err != nil {
		return "", fmt.Errorf("base_instruction_file: %w", err)
	}
	return string(data), nil
}

// readWorkspaceFile reads a regular workspace file of at most limit bytes
// that the conversation may read unasked.
func (s *Session) readWorkspaceFile(ctx context.Context, t *task, path string, limit int64) ([]byte, error) {
	abs, rel, err := s.ws.Resolve(path)
	if err != nil {
		return nil, err
	}
	action := policy.Action{Tool: "read", Kind: string(tools.KindRead), Paths: []string{rel}, Conversation: string(t.conv.ID)}
	if v := policy.Evaluate(s.Mode(), s.policyFor(t.conv), action, s.root); v.Decision != policy.Allow {
		return nil, fmt.Errorf("reading %s is not allowed without approval (%s); read it with the read tool first and pass its text", rel, v.Reason)
	}
	if _, err := tools.StatFile(abs, rel, limit); err != nil {
		return nil, err
	}
	return s.ws.ReadFile(ctx, abs)
}

func (s *Session) convSend(ctx context.Context, t *task, raw json.RawMessage) (string, error) {
	var args struct {
		ID    ConversationID `json:"conversation_id"`
		Text  string         `json:"text"`
		Items []conv.Item    `json:"items"`
	}
	if err := conv.Decode(conv.ToolSend, raw, &args); err != nil {
		return "", err
	}
	if strings.TrimSpace(args.Text) == "" && len(args.Items) == 0 {
		return "", errors.New("give text or items (at least one)")
	}
	itemText, images, err := s.splitItems(ctx, t, args.Items)
	if err != nil {
		return "", err
	}
	text := strings.TrimSpace(strings.Join(conv.NonEmpty(args.Text, itemText), "\n\n"))
	if _, err := s.conversation(args.ID); err != nil || args.ID == "" {
		return "", errors.New("conversation not found")
	}
	if args.ID == t.conv.ID {
		return "", errors.New("that is this conversation: answer directly instead")
	}
	if s.sched.waiting(args.ID) {
		return "", fmt.Errorf("conversation %s is waiting for a hand-over it started and cannot take messages now", args.ID)
	}
	if err := s.handOver(t, &closure{target: args.ID}, text, images); err != nil {
		return "", err
	}
	return fmt.Sprintf(toolcalls.Pending, args.ID), nil
}

func (s *Session) convList(_ context.Context, _ *task, raw json.RawMessage) (string, error) {
	var args struct{}
	if err := conv.Decode(conv.ToolList, raw, &args); err != nil {
		return "", err
	}
	type entry struct {
		ID           ConversationID `json:"id"`
		MessageCount int            `json:"message_count"` // what conv_history returns
		RecordCount  int            `json:"record_count"`  // every entry, tool calls and results included
		LastActiveAt string         `json:"last_active_at"`
		Stats        Stats          `json:"stats"`
	}
	out := struct {
		Conversations []entry `json:"conversations"`
	}{Conversations: []entry{}}
	for _, c := range s.Conversations() {
		out.Conversations = append(out.Conversations, entry{c.ID, c.Messages, c.Records, c.LastActive.UTC().Format(time.RFC3339), c.Stats})
	}
	data, err := json.Marshal(out)
	return string(data), err
}

func (s *Session) convHistory(_ context.Context, _ *task, raw json.RawMessage) (string, error) {
	var args struct {
		ID    ConversationID `json:"conversation_id"`
		Limit *int           `json:"limit"`
	}
	if err := conv.Decode(conv.ToolHistory, raw, &args); err != nil {
		return "", err
	}
	if args.Limit != nil && *args.Limit < 1 {
		return "", fmt.Errorf("limit must be at least 1, got %d", *args.Limit)
	}
	c, err := s.conversation(args.ID)
	if err != nil || args.ID == "" {
		return "", errors.New("conversation not found")
	}
	type attachment struct {
		Type     string `json:"type"`
		ImageURL string `json:"image_url"`
	}
	type entry struct {
		Role        string       `json:"role"`
		Text        string       `json:"text,omitempty"`
		Attachments []attachment `json:"attachments,omitempty"`
	}
	entries := []entry{}
	msgs := c.messages()
	if c.onDisk() && (args.Limit == nil || conv.CountHistory(msgs) < *args.Limit) {
		msgs = s.allMessages(c) // the older part is read back from disk
	}
	for _, m := range msgs {
		if !conv.HistoryMessage(m) {
			continue // tool calls and tool results are not messages
		}
		e := entry{Role: m.Role, Text: m.Content}
		for _, u := range m.Images {
			e.Attachments = append(e.Attachments, attachment{"image", u.URL})
		}
		entries = append(entries, e)
	}
	if args.Limit != nil && *args.Limit < len(entries) {
		entries = entries[len(entries)-*args.Limit:]
	}
	data, err := json.Marshal(struct {
		Entries []entry `json:"entries"`
	}{entries})
	return string(data), err
}

func (s *Session) convDestroy(_ context.Context, t *task, raw json.RawMessage) (string, error) {
	var args struct {
		ID ConversationID `json:"conversation_id"`
	}
	if err := conv.Decode(conv.ToolDestroy, raw, &args); err != nil {
		return "", err
	}
	result := func(ok bool, reason string) (string, error) {
		data, err := json.Marshal(struct {
			OK     bool   `json:"ok"`
			Reason string `json:"reason,omitempty"`
		}{ok, reason})
		return string(data), err
	}
	if args.ID == s.RootConversation() {
		return result(false, "the root conversation cannot be destroyed")
	}
	if _, err := s.conversation(args.ID); err != nil || args.ID == "" {
		return result(false, "conversation not found")
	}
	if err := s.closeConversation(args.ID, t); err != nil {
		return result(false, err.Error())
	}
	if args.ID == t.conv.ID {
		t.destroyed = true // its own task ends: TurnAborted(Interrupted)
	}
	return result(true, "")
}

// CloseConversation destroys a conversation: its queued work is dropped,
// its running task cancelled and waited for up to
// conversations.close_timeout, then abandoned and reported (ErrTimeout).
// The root cannot be closed; closing an unknown or closed one is harmless.
func (s *Session) CloseConversation(id ConversationID) error {
	return s.closeConversation(id, nil)
}

func (s *Session) closeConversation(id ConversationID, self *task) error {
	s.mu.Lock()
	c := s.convs[id]
	if c == nil {
		s.mu.Unlock()
		return nil
	}
	if c == s.rootConv {
		s.mu.Unlock()
		return errors.New("the root conversation cannot be closed")
	}
	delete(s.convs, id)
	for i, o := range s.order {
		if o == c {
			s.order = append(s.order[:i:i], s.order[i+1:]...)
			break
		}
	}
	// Its turns outlive it, written under the session's policy from
	// now on: what its own policy keeps out goes now (under ttl, the
	// text the session would not age).
	pol := store.Narrower(s.storage, c.Storage)
	if pol == store.PolicyTTL && s.storage != store.PolicyTTL {
		pol = store.PolicyHeaders
	}
	for i, turn := range s.turns {
		if turn.Conv == string(id) {
			s.turns[i] = store.TurnAs(pol, turn)
		}
	}
	s.mu.Unlock()
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	s.sched.dropConversation(id)
	var err error
	text := "closed"
	if rt := s.sched.running(id); rt != nil && rt != self {
		rt.cancel()
		wait := s.opts.Config.CloseWait()
		select {
		case <-rt.done:
			text = "closed; its running task was interrupted"
		case <-time.After(wait):
			err = fmt.Errorf("conversation %s: its task did not stop within %s: %w; abandoned", id, wait, ErrTimeout)
			text = err.Error()
		}
	}
	s.releaseMCPView(id)
	s.save()
	s.emit(event.Event{Kind: event.ConversationClosed, Conversation: string(id), Text: text})
	return err
}

// closeCall writes an interrupting call's result under its call id at the
// start of the caller's continuation (seed 000 承接策略).
func (s *Session) closeCall(t *task, cl *closure) {
	type result struct {
		ConversationID       ConversationID `json:"conversation_id"`
		FirstUserMessage     string         `json:"first_user_message,omitempty"`
		FirstItemsCount      *int           `json:"first_items_count,omitempty"`
		LastAssistantMessage string         `json:"last_assistant_message"`
		Stats                *Stats         `json:"stats,omitempty"`  // what the target's work for this call took
		Status               string         `json:"status,omitempty"` // max_steps, interrupted, error: why there is no answer
		Message              string         `json:"message,omitempty"`
		Error                string         `json:"error,omitempty"`
		Notes                []string       `json:"notes,omitempty"`
		TraceID              string         `json:"trace_id"` // the events' trace_id (seed 004 §9)
	}
	r := result{ConversationID: cl.target, LastAssistantMessage: cl.answer, Stats: cl.stats, Status: cl.status, Message: cl.statusNote, Error: cl.failure, Notes: cl.notes, TraceID: string(t.turnID())}
	if cl.create {
		r.FirstUserMessage = cl.first
		if cl.firstItems > 0 {
			n := cl.firstItems
			r.FirstItemsCount = &n
		}
	}
	if !cl.answered {
		r.Error = fmt.Sprintf("conversation %s was closed before it answered", cl.target)
	}
	data, _ := json.Marshal(r)
	s.setToolResult(t.conv, cl.callID, string(data))
	info := handTool(cl)
	info.Status, info.Summary, info.Output = event.ToolCompleted, "answered", cl.answer
	if r.Error != "" {
		info.Status, info.Summary = event.ToolFailed, r.Error
	}
	t.emit(event.Event{Kind: event.ToolCallEnd, Tool: info})
}
