package agent

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/policy"
	"github.com/coder-nvim/coder-nvim/core/tools"
)

// The conversation tools (seed 000). OpenAI function names allow no dots,
// so conv_create is the wire name of conv.create; a dotted name from the
// model is mapped back by sanitizeToolNames.
const (
	toolConvCreate  = "conv_create"
	toolConvSend    = "conv_send"
	toolConvList    = "conv_list"
	toolConvHistory = "conv_history"
	toolConvDestroy = "conv_destroy"
)

// convTool is one conversation tool; the session implements it.
type convTool struct {
	s      *Session
	name   string
	desc   string
	params string
	run    func(s *Session, ctx context.Context, t *task, raw json.RawMessage) (string, error)
}

func (convTool) own() {}

func (convTool) Kind() tools.Kind { return tools.KindOther }

func (c convTool) Spec() llm.Tool {
	return llm.Tool{Type: "function", Function: llm.FunctionDef{Name: c.name, Description: c.desc, Parameters: json.RawMessage(c.params)}}
}

func (c convTool) Prepare(_ context.Context, _ *tools.Workspace, raw json.RawMessage) (*tools.Invocation, error) {
	title := event.ToolDisplayName(c.name)
	confirm := ""
	if urls := remoteImages(raw); len(urls) > 0 {
		if c.s.Mode() == policy.ModePlan {
			return nil, errors.New("http(s) image URLs are not sent in plan mode; save the image in the workspace and name the file")
		}
		confirm = fmt.Sprintf("%s sends the image URL %s to the model provider: a URL chosen by the model can carry data out", c.name, strings.Join(urls, ", "))
	}
	inv := tools.NewInvocation(c.name, tools.KindOther, title, func(ctx context.Context) tools.Result {
		t := taskFrom(ctx)
		if t == nil {
			return tools.Result{Output: "error: " + ErrInternal.Error() + ": no task", IsError: true}
		}
		out, err := c.run(c.s, ctx, t, raw)
		if err != nil {
			// Errors are results the model reads, never a failed turn.
			data, _ := json.Marshal(map[string]string{"error": err.Error()})
			return tools.Result{Output: string(data), Summary: firstLine(err.Error()), IsError: true}
		}
		return tools.Result{Output: out, Summary: "ok"}
	})
	inv.Confirm = confirm
	return inv, nil
}

const itemsSchema = `{"type":"array","items":{"type":"object","properties":{"type":{"type":"string","enum":["text","image_url"]},"text":{"type":"string"},"image_url":{"type":"string"}},"required":["type"]}}`

// convTools are the five tools in their fixed order.
func convTools(s *Session) []tools.Tool {
	return []tools.Tool{
		convTool{s, toolConvCreate, "Interrupting: open a sub-conversation with its own context, run it on your brief until it answers, then continue here with its last answer. Unset fields inherit yours.",
			`{"type":"object","properties":{"base_instruction_text":{"type":"string"},"base_instruction_file":{"type":"string"},"user_instruction":{"type":"string"},"items":` + itemsSchema +
				`,"mcp_allowlist":{"type":"array","items":{"type":"string"}},"internal_tools":{"type":"object","properties":{"include_plan_tool":{"type":"boolean"},"include_apply_patch_tool":{"type":"boolean"},"web_search_request":{"type":"boolean"},"use_streamable_shell_tool":{"type":"boolean"}},"additionalProperties":false},"model":{"type":"string"},"storage_policy":{"type":"string","enum":["full","headers_only","none","ttl"]}},"additionalProperties":false}`,
			(*Session).convCreate},
		convTool{s, toolConvSend, "Interrupting: send a message to a conversation, run it until it answers, then continue here with its last answer.",
			`{"type":"object","properties":{"conversation_id":{"type":"string"},"text":{"type":"string"},"items":` + itemsSchema + `},"required":["conversation_id"],"additionalProperties":false}`,
			(*Session).convSend},
		convTool{s, toolConvList, "List the conversations of this session.", `{"type":"object","properties":{},"additionalProperties":false}`, (*Session).convList},
		convTool{s, toolConvHistory, "Read a conversation's messages (newest limit).",
			`{"type":"object","properties":{"conversation_id":{"type":"string"},"limit":{"type":"integer","minimum":1}},"required":["conversation_id"],"additionalProperties":false}`,
			(*Session).convHistory},
		convTool{s, toolConvDestroy, "Destroy a sub-conversation.", `{"type":"object","properties":{"conversation_id":{"type":"string"}},"required":["conversation_id"],"additionalProperties":false}`, (*Session).convDestroy},
	}
}

// decodeArgs decodes strictly, naming the tool in errors.
func decodeArgs(tool string, raw json.RawMessage, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("invalid arguments for %s: %s", event.ToolDisplayName(tool), strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// inputItem is one seed 000 InputItem: text or an image.
type inputItem struct {
	Type     string          `json:"type"`
	Text     string          `json:"text,omitempty"`
	ImageURL json.RawMessage `json:"image_url,omitempty"`
}

// Limits on what the model hands a conversation: instruction files as the
// read tool shows at most, images as an ACP prompt may carry.
const (
	maxInstructionFile = 256 << 10
	maxItemImage       = 5 << 20 // decoded bytes of one image
	maxItemImages      = 8
)

// remoteImages lists the http(s) image URLs among raw's items: a URL the
// model chose can carry data out (a secret in its query), so the call is
// asked about, and refused in plan mode.
func remoteImages(raw json.RawMessage) []string {
	var args struct {
		Items []inputItem `json:"items"`
	}
	_ = json.Unmarshal(raw, &args)
	var urls []string
	for _, it := range args.Items {
		if u := itemURL(it); strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://") {
			urls = append(urls, u)
		}
	}
	return urls
}

// itemURL is an item's image_url, given as a string or {"url": …}.
func itemURL(it inputItem) string {
	var url string
	if json.Unmarshal(it.ImageURL, &url) != nil {
		var obj struct {
			URL string `json:"url"`
		}
		_ = json.Unmarshal(it.ImageURL, &obj)
		url = obj.URL
	}
	return strings.TrimSpace(url)
}

// splitItems turns items into message text and image URLs. Images are a
// data: URL of an image type, a workspace image file the conversation may
// read, or an http(s) URL (asked about in Prepare).
func (s *Session) splitItems(ctx context.Context, t *task, items []inputItem) (string, []llm.Image, error) {
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
			if len(images) == maxItemImages {
				return "", nil, fmt.Errorf("items[%d]: at most %d images per call", i, maxItemImages)
			}
			img, err := s.itemImage(ctx, t, itemURL(it))
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
		mime, data, ok := strings.Cut(strings.TrimPrefix(url, "data:"), ";base64,")
		if !ok || !llm.ImageType(mime) {
			return llm.Image{}, errors.New("a data: URL must be base64 PNG, JPEG, GIF or WebP (data:image/png;base64,…)")
		}
		if base64.StdEncoding.DecodedLen(len(data)) > maxItemImage {
			return llm.Image{}, fmt.Errorf("the image is over %d MiB", maxItemImage>>20)
		}
		if _, err := base64.StdEncoding.DecodeString(data); err != nil {
			return llm.Image{}, fmt.Errorf("the data is not valid base64: %v", err)
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
	data, err := s.readWorkspaceFile(ctx, t, url, maxItemImage)
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
		Items         []inputItem `json:"items"`
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
	if err := decodeArgs(toolConvCreate, raw, &args); err != nil {
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
	if it := args.InternalTools; it != nil {
		s.mu.Lock()
		prefs := t.conv.Tools
		s.mu.Unlock()
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
		if it.WebSearch != nil && *it.WebSearch {
			notes = append(notes, "web_search_request: unavailable (this agent has no web search tool)")
		}
		spec.Tools = &prefs
	}
	_, deprecated, err := normalizeAllowlist(args.MCPAllowlist)
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
	return fmt.Sprintf(pendingResult, c.ID), nil
}

// readInstructionFile reads a workspace file the conversation may read,
// by the read tool's rules: a regular file, of a bounded size.
func (s *Session) readInstructionFile(ctx context.Context, t *task, path string) (string, error) {
	data, err := s.readWorkspaceFile(ctx, t, path, maxInstructionFile)
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
		Items []inputItem    `json:"items"`
	}
	if err := decodeArgs(toolConvSend, raw, &args); err != nil {
		return "", err
	}
	if strings.TrimSpace(args.Text) == "" && len(args.Items) == 0 {
		return "", errors.New("give text or items (at least one)")
	}
	itemText, images, err := s.splitItems(ctx, t, args.Items)
	if err != nil {
		return "", err
	}
	text := strings.TrimSpace(strings.Join(nonEmpty(args.Text, itemText), "\n\n"))
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
	return fmt.Sprintf(pendingResult, args.ID), nil
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

func (s *Session) convList(_ context.Context, _ *task, raw json.RawMessage) (string, error) {
	var args struct{}
	if err := decodeArgs(toolConvList, raw, &args); err != nil {
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
	if err := decodeArgs(toolConvHistory, raw, &args); err != nil {
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
	if c.onDisk() && (args.Limit == nil || countHistory(msgs) < *args.Limit) {
		msgs = s.allMessages(c) // the older part is read back from disk
	}
	for _, m := range msgs {
		if !historyMessage(m) {
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

// countHistory counts what conv_history shows of msgs.
func countHistory(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		if historyMessage(m) {
			n++
		}
	}
	return n
}

func (s *Session) convDestroy(_ context.Context, t *task, raw json.RawMessage) (string, error) {
	var args struct {
		ID ConversationID `json:"conversation_id"`
	}
	if err := decodeArgs(toolConvDestroy, raw, &args); err != nil {
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
	}
	r := result{ConversationID: cl.target, LastAssistantMessage: cl.answer, Stats: cl.stats, Status: cl.status, Message: cl.statusNote, Error: cl.failure, Notes: cl.notes}
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
