package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/llm"
	sdk "github.com/coder/acp-go-sdk"
)

func TestCheckMessage(t *testing.T) {
	for _, tc := range []struct {
		msg    string
		code   int
		wantID string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, 0, ""},
		{`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"x"}}`, 0, ""},
		{`{"jsonrpc":"2.0","id":"a","result":{}}`, 0, ""},
		{`{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"x"}}`, 0, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"x"}`, 0, ""},
		{`{"jsonrpc":"2.0",`, codeParseError, ""},
		{`nonsense`, codeParseError, ""},
		{`"a string"`, codeInvalidRequest, ""},
		{`[{"jsonrpc":"2.0","id":1,"method":"x"}]`, codeInvalidRequest, ""},
		{`null`, codeInvalidRequest, ""},
		{`{"jsonrpc":"1.0","id":1,"method":"x"}`, codeInvalidRequest, "1"},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"x"}`, codeInvalidRequest, ""},
		{`{"jsonrpc":"2.0","id":1,"method":""}`, codeInvalidRequest, "1"},
		{`{"jsonrpc":"2.0","id":1,"method":"x","params":"str"}`, codeInvalidRequest, "1"},
		{`{"jsonrpc":"2.0","id":1}`, codeInvalidRequest, "1"},
		{`{"jsonrpc":"2.0","result":{}}`, codeInvalidRequest, ""},
		{`{"jsonrpc":"2.0","method":"session/prompt","params":{"sessionId":"x","prompt":[]}}`, codeInvalidRequest, ""},
		{`{"jsonrpc":"2.0","method":"initialize","params":{}}`, codeInvalidRequest, ""},
		{`{"jsonrpc":"2.0","method":"_vendor/ping","params":{}}`, 0, ""},
		{`{"jsonrpc":"2.0","method":"session/delete","params":{"sessionId":"x"}}`, codeInvalidRequest, ""},
	} {
		id, code, reason := checkMessage([]byte(tc.msg))
		if code != tc.code || string(id) != tc.wantID {
			t.Errorf("%s: code %d id %q (%s), want code %d id %q", tc.msg, code, id, reason, tc.code, tc.wantID)
		}
		if code != 0 && reason == "" {
			t.Errorf("%s: no reason given", tc.msg)
		}
	}
}

func TestFilterInput(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		``,
		`{broken`,
		`  {"jsonrpc":"2.0","method":"session/cancel","params":{}}  `,
		`{"jsonrpc":"2.0","id":"big","method":"x","params":{"s":"` + strings.Repeat("x", maxMessage) + `"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"last"}`, // no final newline
	}, "\n")
	pr, pw := io.Pipe()
	var out bytes.Buffer
	sw := &syncWriter{w: &out}
	go filterInput(strings.NewReader(in), pw, sw, slog.New(slog.NewTextHandler(io.Discard, nil)))
	passed, err := io.ReadAll(pr)
	if err != nil {
		t.Fatal(err)
	}
	// initialize is routed to the extension method that serves it (wire.go).
	wantPassed := `{"id":1,"jsonrpc":"2.0","method":"_coder-nvim/initialize","params":{}}` + "\n" +
		`{"jsonrpc":"2.0","method":"session/cancel","params":{}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"last"}` + "\n"
	if string(passed) != wantPassed {
		t.Errorf("passed on:\n%s\nwant:\n%s", passed, wantPassed)
	}
	var codes []int
	var ids []string
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var r struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   struct{ Code int }
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.JSONRPC != "2.0" {
			t.Errorf("bad error line %s", sc.Bytes())
		}
		codes = append(codes, r.Error.Code)
		ids = append(ids, string(r.ID))
	}
	if len(codes) != 2 || codes[0] != codeParseError || codes[1] != codeInvalidRequest {
		t.Errorf("error codes %v, want [-32700 -32600]", codes)
	}
	// The oversized request is answered under its own id.
	if strings.Join(ids, " ") != `null "big"` {
		t.Errorf("error ids %v, want [null \"big\"]", ids)
	}
}

func TestOversizedID(t *testing.T) {
	huge := strings.Repeat("x", oversizedHead+oversizedTail)
	for _, tc := range []struct {
		name, line, want string
	}{
		{"id first", `{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"s":"` + huge + `"}}`, "7"},
		{"string id", `{"id":"a\"b","jsonrpc":"2.0","method":"x","params":{"s":"` + huge + `"}}`, `"a\"b"`},
		{"id last", `{"jsonrpc":"2.0","method":"session/prompt","params":{"s":"` + huge + `"},"id":12}`, "12"},
		{"id last with spaces", `{"jsonrpc":"2.0","method":"x","params":{"s":"` + huge + `"} , "id" : "q" }  `, `"q"`},
		{"nested id is not the request's", `{"jsonrpc":"2.0","method":"x","params":{"s":"` + huge + `","id":3}}`, ""},
		{"escaped id inside a string", `{"jsonrpc":"2.0","method":"x","params":{"s":"` + huge + `,\"id\":3}"}}`, ""},
		{"notification", `{"jsonrpc":"2.0","method":"session/cancel","params":{"s":"` + huge + `"}}`, ""},
		{"response to our request", `{"jsonrpc":"2.0","id":4,"result":{"content":"` + huge + `"}}`, ""},
		{"response, id last", `{"jsonrpc":"2.0","result":{"content":"` + huge + `"},"id":4}`, ""},
		{"not JSON", `xx` + huge, ""},
	} {
		var o oversized
		o.start([]byte(tc.line[:100]))
		for rest := tc.line[100:]; rest != ""; {
			n := min(len(rest), 1000)
			o.addTail([]byte(rest[:n]))
			rest = rest[n:]
		}
		if got := string(o.id()); got != tc.want {
			t.Errorf("%s: id %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestFoldPrompt(t *testing.T) {
	text := func(s string) sdk.ContentBlock { return sdk.TextBlock(s) }
	embedded := func(uri, body string) sdk.ContentBlock {
		return sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: uri, Text: body}})
	}
	for _, tc := range []struct {
		name   string
		blocks []sdk.ContentBlock
		want   string
	}{
		{"text", []sdk.ContentBlock{text("hello "), text("world")}, "hello world"},
		{"link", []sdk.ContentBlock{text("see "), sdk.ResourceLinkBlock("a.go", "file:///w/a%20b.go")}, "see `/w/a b.go`"},
		{"non-file link", []sdk.ContentBlock{sdk.ResourceLinkBlock("x", "https://example.com/x")}, "Context: `https://example.com/x`"},
		{"embedded", []sdk.ContentBlock{text("fix "), embedded("file:///w/a.go", "package a")},
			"fix `/w/a.go`\n\nContents of /w/a.go (as open in the editor):\n```\npackage a\n```"},
		{"embedded with fences", []sdk.ContentBlock{embedded("file:///w/R.md", "```go\nx\n```\n")},
			"Context: `/w/R.md`\n\nContents of /w/R.md (as open in the editor):\n````\n```go\nx\n```\n````"},
		{"command keeps its line", []sdk.ContentBlock{text("!cat "), embedded("file:///w/a.go", "package a")}, "!cat /w/a.go"},
		{"slash command", []sdk.ContentBlock{text("  /model "), text("gpt-x")}, "  /model gpt-x"},
		{"file first is no command", []sdk.ContentBlock{text(" "), sdk.ResourceLinkBlock("a", "file:///w/a"), text(" explain")}, " `/w/a` explain"},
		{"blob", []sdk.ContentBlock{sdk.ResourceBlock(sdk.EmbeddedResourceResource{BlobResourceContents: &sdk.BlobResourceContents{Uri: "file:///w/i.png", Blob: "AAAA"}})},
			"Context: `/w/i.png`\n\nAttached /w/i.png: binary content, not included."},
		// codecompanion sends one block per message or context item.
		{"blocks apart", []sdk.ContentBlock{text("Sharing the following file as context: /w/README.md"), text("Explain this file")},
			"Sharing the following file as context: /w/README.md\n\nExplain this file"},
		{"after a stop", []sdk.ContentBlock{text("Tell me something long"), text("Second prompt")}, "Tell me something long\n\nSecond prompt"},
		{"a context item alone", []sdk.ContentBlock{embedded("file:///w/a.go", "package a"), text("Explain it")},
			"Context: `/w/a.go`\n\nExplain it\n\nContents of /w/a.go (as open in the editor):\n```\npackage a\n```"},
	} {
		got, images, err := foldPrompt(tc.blocks)
		if got != tc.want || images != nil || err != nil {
			t.Errorf("%s: got %q %v %v, want %q", tc.name, got, images, err, tc.want)
		}
	}
}

func TestFoldPromptImages(t *testing.T) {
	web := "https://example.com/cat.png"
	file := "file:///w/cat.png"
	for _, tc := range []struct {
		name   string
		blocks []sdk.ContentBlock
		want   string
		urls   []string
		err    string
	}{
		{"data", []sdk.ContentBlock{sdk.TextBlock("what is "), sdk.ImageBlock("iVBORw0KGgo=", "image/png"), sdk.TextBlock(" and "), sdk.ImageBlock("R0lGOD==", "IMAGE/GIF")},
			"what is [image 1] and [image 2]", []string{"data:image/png;base64,iVBORw0KGgo=", "data:image/gif;base64,R0lGOD=="}, ""},
		{"only an image", []sdk.ContentBlock{sdk.ImageBlock("iVBORw0KGgo=", "image/jpeg")}, "[image 1]", []string{"data:image/jpeg;base64,iVBORw0KGgo="}, ""},
		{"web uri", []sdk.ContentBlock{{Image: &sdk.ContentBlockImage{Type: "image", MimeType: "image/png", Uri: &web}}}, "[image 1]", []string{web}, ""},
		{"file uri without data", []sdk.ContentBlock{{Image: &sdk.ContentBlockImage{Type: "image", MimeType: "image/png", Uri: &file}}}, "", nil, "image 1: the block has no data"},
		{"unsupported type", []sdk.ContentBlock{sdk.ImageBlock("AAAA", "image/tiff")}, "", nil, `unsupported type "image/tiff"`},
		{"bad base64", []sdk.ContentBlock{sdk.ImageBlock("not base64!", "image/png")}, "", nil, "not valid base64"},
		{"command", []sdk.ContentBlock{sdk.TextBlock("/model "), sdk.ImageBlock("AAAA", "image/png")}, "", nil, "cannot be attached to a / or ! command"},
	} {
		got, images, err := foldPrompt(tc.blocks)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		var urls []string
		for _, im := range images {
			urls = append(urls, im.URL)
		}
		if err != nil || got != tc.want || strings.Join(urls, " ") != strings.Join(tc.urls, " ") {
			t.Errorf("%s: got %q %v %v, want %q %v", tc.name, got, urls, err, tc.want, tc.urls)
		}
	}
}

func TestReplayImages(t *testing.T) {
	ups := replay("/w", []llm.Message{{Role: llm.RoleUser, Content: "see [image 1] [image 2]", Images: []llm.Image{
		{URL: "data:image/png;base64,iVBORw0KGgo="}, {URL: "https://example.com/c.png"},
	}}})
	if len(ups) != 3 {
		t.Fatalf("%d updates", len(ups))
	}
	if c := ups[1].UserMessageChunk; c == nil || c.Content.Image == nil || c.Content.Image.Data != "iVBORw0KGgo=" || c.Content.Image.MimeType != "image/png" {
		t.Errorf("data image replayed as %+v", ups[1])
	}
	if c := ups[2].UserMessageChunk; c == nil || c.Content.Image == nil || c.Content.Image.Uri == nil || *c.Content.Image.Uri != "https://example.com/c.png" {
		t.Errorf("web image replayed as %+v", ups[2])
	}
}

func TestDecision(t *testing.T) {
	for _, opt := range permissionOptions(&event.Approval{Scope: "write *.go"}) {
		want := map[sdk.PermissionOptionKind]agent.Decision{
			sdk.PermissionOptionKindAllowOnce:   agent.AllowOnce,
			sdk.PermissionOptionKindAllowAlways: agent.AllowAlways,
			sdk.PermissionOptionKindRejectOnce:  agent.Deny,
		}[opt.Kind]
		if got := decision(opt.OptionId); got != want {
			t.Errorf("option %s (%s): decision %s, want %s", opt.OptionId, opt.Kind, got, want)
		}
	}
	if got := decision("made_up"); got != agent.Deny {
		t.Errorf("unknown option: %s, want deny", got)
	}
}

func TestToolEnd(t *testing.T) {
	for _, tc := range []struct {
		tool       event.Tool
		wantStatus sdk.ToolCallStatus
		wantDiff   bool
		wantText   string
	}{
		{event.Tool{CallID: "1", Status: event.ToolCompleted, Output: "exit 0\nhi"}, sdk.ToolCallStatusCompleted, false, "exit 0\nhi"},
		{event.Tool{CallID: "2", Status: event.ToolCompleted, Diffs: []event.Diff{{Path: "a", Op: "update", Old: "x", New: "y"}}}, sdk.ToolCallStatusCompleted, true, ""},
		{event.Tool{CallID: "3", Status: event.ToolDenied, Summary: "denied by the user"}, sdk.ToolCallStatusFailed, false, "denied by the user"},
		{event.Tool{CallID: "4", Status: event.ToolAborted}, sdk.ToolCallStatusFailed, false, "cancelled"},
		{event.Tool{CallID: "5", Status: event.ToolFailed, Output: "no such file"}, sdk.ToolCallStatusFailed, false, "no such file"},
	} {
		u := toolEnd("/w", &tc.tool).ToolCallUpdate
		if *u.Status != tc.wantStatus {
			t.Errorf("%s: status %s, want %s", tc.tool.CallID, *u.Status, tc.wantStatus)
		}
		hasDiff := len(u.Content) > 0 && u.Content[0].Diff != nil
		if hasDiff != tc.wantDiff {
			t.Errorf("%s: diff content %v, want %v", tc.tool.CallID, hasDiff, tc.wantDiff)
		}
		if hasDiff && (u.Content[0].Diff.Path != "/w/a" || *u.Content[0].Diff.OldText != "x" || u.Content[0].Diff.NewText != "y") {
			t.Errorf("%s: diff %+v", tc.tool.CallID, u.Content[0].Diff)
		}
		var text string
		for _, c := range u.Content {
			if c.Content != nil {
				text += c.Content.Content.Text.Text
			}
		}
		if text != tc.wantText {
			t.Errorf("%s: text %q, want %q", tc.tool.CallID, text, tc.wantText)
		}
	}
}

// TestReplay: a saved history replays with a message id on every chunk
// (adjacent user messages stay apart) and each tool call as it ended,
// titled as it was live, with its result.
func TestReplay(t *testing.T) {
	history := []llm.Message{
		{Role: llm.RoleUser, Content: "This request will fail"},
		{Role: llm.RoleUser, Content: "hi"},
		{Role: llm.RoleAssistant, Content: "checking", Reasoning: "hmm", ToolCalls: []llm.ToolCall{
			{ID: "c1", Function: llm.FunctionCall{Name: "bash", Arguments: `{"command":"ls"}`}},
			{ID: "c2", Function: llm.FunctionCall{Name: "edit", Arguments: `{"path":"a.go"}`}},
		}},
		{Role: llm.RoleTool, ToolCallID: "c1", Content: "a.go"},
		{Role: llm.RoleTool, ToolCallID: "c2", Content: "denied by the user: no"},
		{Role: llm.RoleAssistant, Content: "ok", ToolCalls: []llm.ToolCall{
			{ID: "c3", Function: llm.FunctionCall{Name: "read", Arguments: `{"path":"b.go"}`}},
		}},
	}
	var got []string
	ids := map[string]bool{}
	id := func(p *string) {
		if p == nil || ids[*p] {
			t.Errorf("a replayed chunk has no message id of its own: %v", p)
			return
		}
		ids[*p] = true
	}
	for _, u := range replay("/w", history) {
		switch {
		case u.UserMessageChunk != nil:
			id(u.UserMessageChunk.MessageId)
			got = append(got, "user "+u.UserMessageChunk.Content.Text.Text)
		case u.AgentThoughtChunk != nil:
			id(u.AgentThoughtChunk.MessageId)
			got = append(got, "thought "+u.AgentThoughtChunk.Content.Text.Text)
		case u.AgentMessageChunk != nil:
			id(u.AgentMessageChunk.MessageId)
			got = append(got, "agent "+u.AgentMessageChunk.Content.Text.Text)
		case u.ToolCall != nil:
			s := "call " + string(u.ToolCall.ToolCallId) + " " + string(u.ToolCall.Kind) + " " + u.ToolCall.Title + " " + string(u.ToolCall.Status)
			for _, l := range u.ToolCall.Locations {
				s += " @" + l.Path
			}
			for _, c := range u.ToolCall.Content {
				s += " = " + c.Content.Content.Text.Text
			}
			got = append(got, s)
		case u.ToolCallUpdate != nil:
			got = append(got, "update "+string(u.ToolCallUpdate.ToolCallId))
		}
	}
	want := []string{
		"user This request will fail", "user hi", "thought hmm", "agent checking",
		"call c1 execute `ls` completed = a.go", "call c2 edit edit a.go failed @/w/a.go = denied by the user: no",
		"agent ok", "call c3 read read b.go failed @/w/b.go = no result was saved for this call",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("replay:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func BenchmarkCheckMessage(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":12,"method":"session/prompt","params":{"sessionId":"0b4c9d55-0000-4000-8000-000000000000","prompt":[{"type":"text","text":"` + strings.Repeat("explain this code ", 50) + `"}]}}`)
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if _, code, _ := checkMessage(msg); code != 0 {
			b.Fatal("rejected")
		}
	}
}

// TestRoute: session/delete and initialize reach the SDK as our extension
// methods; a message that only mentions them passes as it is.
func TestRoute(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":7,"method":"session/delete","params":{"sessionId":"s"}}`,
			`{"id":7,"jsonrpc":"2.0","method":"_coder-nvim/session/delete","params":{"sessionId":"s"}}`},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
			`{"id":1,"jsonrpc":"2.0","method":"_coder-nvim/initialize","params":{}}`},
		{`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"prompt":[{"type":"text","text":"\"session/delete\""}]}}`, ""},
		{`{"jsonrpc":"2.0","id":3,"result":{"method":"initialize"}}`, ""},
	} {
		want := tc.want
		if want == "" {
			want = tc.in
		}
		if got := string(route([]byte(tc.in))); got != want {
			t.Errorf("route(%s) = %s, want %s", tc.in, got, want)
		}
	}
}
