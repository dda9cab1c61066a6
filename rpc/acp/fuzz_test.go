package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// FuzzFilterInput feeds arbitrary input to the JSON-RPC line filter in
// front of the SDK. Every non-blank line gets exactly one outcome: it is
// passed on as a JSON-RPC 2.0 message, or answered with one JSON-RPC
// error whose id is the line's own id when it has a usable one (so the
// client never waits forever) and null otherwise.
func FuzzFilterInput(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n",
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}` + "\n\n  \n",
		`{"jsonrpc":"2.0","id":"a","result":{}}` + "\r\n" + `{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"x"}}`,
		"not json\n[1,2]\n{}\nnull\n",
		`{"jsonrpc":"1.0","id":3,"method":"x"}` + "\n" + `{"jsonrpc":"2.0","id":{},"method":"x"}`,
		`{"jsonrpc":"2.0","method":"session/prompt","params":{}}` + "\n" + `{"jsonrpc":"2.0","id":-1.5e3,"method":"x","params":5}`,
		`{"jsonrpc":"2.0","id":null,"method":""}` + "\n" + `{"jsonrpc":"2.0","id":"\u00e9","nothing":true}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}\u00a0\n\x00\n",
	} {
		f.Add(s)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	f.Fuzz(func(t *testing.T, in string) {
		var out bytes.Buffer
		pr, pw := io.Pipe()
		forwarded := make(chan []string)
		go func() {
			var lines []string
			sc := bufio.NewScanner(pr)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				lines = append(lines, sc.Text())
			}
			forwarded <- lines
		}()
		filterInput(strings.NewReader(in), pw, &syncWriter{w: &out}, log)
		passed := <-forwarded

		var want, answered int
		ids := map[string]int{} // usable ids of the lines that must be answered
		for _, line := range strings.Split(in, "\n") {
			msg := bytes.TrimSpace([]byte(line))
			if len(msg) == 0 {
				continue
			}
			want++
			if id, ok := usableID(msg); ok {
				ids[id]++
			}
		}
		for _, line := range passed {
			var m map[string]json.RawMessage
			if err := json.Unmarshal([]byte(line), &m); err != nil || string(m["jsonrpc"]) != `"2.0"` {
				t.Fatalf("passed on a line that is not a JSON-RPC 2.0 object: %q", line)
			}
			if id, ok := usableID([]byte(line)); ok {
				ids[id]--
			}
		}
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if line == "" {
				continue
			}
			answered++
			var e struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(line), &e); err != nil || e.JSONRPC != "2.0" || e.Error == nil || e.Error.Message == "" {
				t.Fatalf("bad error response %q", line)
			}
			if e.Error.Code != codeParseError && e.Error.Code != codeInvalidRequest {
				t.Fatalf("unexpected error code in %q", line)
			}
			if string(e.ID) != "null" {
				id, ok := usableID([]byte(line))
				if !ok {
					t.Fatalf("error response with an unusable id: %q", line)
				}
				ids[id]--
			}
		}
		if len(passed)+answered != want {
			t.Fatalf("%d non-blank lines, but %d passed on and %d answered", want, len(passed), answered)
		}
		for id, n := range ids {
			if n != 0 {
				t.Fatalf("id %s: %d lines with it unaccounted for (passed on or answered with it)", id, n)
			}
		}
	})
}

// usableID returns the id of a JSON object line, as the client would
// compare it, when it is a string or a number: the decoded string (the
// answer may escape it differently, e.g. & as \u0026) or the number's text.
func usableID(msg []byte) (string, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return "", false
	}
	raw, ok := m["id"]
	if !ok {
		return "", false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return "", false
	}
	switch v := v.(type) {
	case string:
		return "string " + strconv.Quote(v), true
	case json.Number:
		return "number " + v.String(), true
	}
	return "", false
}

// FuzzFoldPrompt decodes a prompt's content blocks as the SDK does and
// folds them into the engine's input: the text the user typed comes
// through in order, and outside commands every embedded file's text is
// attached.
func FuzzFoldPrompt(f *testing.F) {
	for _, s := range []string{
		`[{"type":"text","text":"explain "},{"type":"resource_link","uri":"file:///w/a.go","name":"a.go"}]`,
		`[{"type":"text","text":"/model gpt"},{"type":"resource","resource":{"uri":"file:///w/b.go","text":"package b"}}]`,
		`[{"type":"resource","resource":{"uri":"file:///w/c.go","text":"x` + "```" + `y"}},{"type":"text","text":"!ls"}]`,
		`[{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"audio","data":"","mimeType":"audio/wav"}]`,
		`[{"type":"resource","resource":{"uri":"mem:x","blob":"AAAA"}},{"type":"resource","resource":null},{"type":"text"}]`,
		`[{"type":"nope"},{},null,1]`,
		`[{"type":"resource_link","uri":"file://%zz"}]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		var blocks []sdk.ContentBlock
		if json.Unmarshal([]byte(data), &blocks) != nil {
			return
		}
		got, _, err := foldPrompt(blocks)
		if err != nil {
			// Only an image that cannot be sent is refused.
			if !slices.ContainsFunc(blocks, func(b sdk.ContentBlock) bool { return b.Image != nil }) {
				t.Fatalf("refused a prompt without images: %v", err)
			}
			return
		}
		command := isCommand(blocks)
		rest := got
		for _, b := range blocks {
			if b.Text == nil {
				if b.Resource != nil && b.Resource.Resource.TextResourceContents != nil && !command &&
					!strings.Contains(got, b.Resource.Resource.TextResourceContents.Text) {
					t.Fatalf("embedded text %q missing from %q", b.Resource.Resource.TextResourceContents.Text, got)
				}
				continue
			}
			i := strings.Index(rest, b.Text.Text)
			if i < 0 {
				t.Fatalf("text %q missing or out of order in %q", b.Text.Text, got)
			}
			rest = rest[i+len(b.Text.Text):]
		}
	})
}
