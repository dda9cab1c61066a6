package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/coder-nvim/coder-nvim/core/llm"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxResultBytes caps the text of one result, like bash output.
const DefaultMaxResultBytes = 32 << 10

// Result is a converted tool result.
type Result struct {
	Text    string      // the tool message
	Images  []llm.Image // data: URLs, for a following user message
	IsError bool
	// Failed: the call failed in MCP (not offered, server down, no
	// answer), not as the tool's own error result.
	Failed  bool
	Summary string // one line for the transcript
}

func errorResult(msg string) Result {
	return Result{Text: "error: " + msg, IsError: true, Failed: true, Summary: firstLine(msg)}
}

// convert turns an MCP result into a tool message: text as is,
// structuredContent as JSON text (unless a text block already says the
// same), images attached (and named in the text), resource links listed,
// isError as an error. Text beyond maxBytes is cut with a note.
func convert(res *sdk.CallToolResult, maxBytes int) Result {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxResultBytes
	}
	var parts []string
	var out Result
	var texts []string
	for i, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
			texts = append(texts, c.Text)
		case *sdk.ImageContent:
			mime := c.MIMEType
			if mime == "" {
				mime = "image/png"
			}
			if !llm.ImageType(mime) {
				// A server's word is no image: never sent as a data URL of
				// another type (text/html, …).
				parts = append(parts, fmt.Sprintf("[image content %d refused: MIME type %q is not PNG, JPEG, GIF or WebP; not shown]", i+1, mime))
				continue
			}
			out.Images = append(out.Images, llm.DataImage(mime, c.Data))
			parts = append(parts, fmt.Sprintf("[image %d: %s, %d bytes]", len(out.Images), mime, len(c.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio content %d: %s, %d bytes, not shown]", i+1, c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			line := "resource: " + c.URI
			if c.Name != "" {
				line += " (" + c.Name
				if c.MIMEType != "" {
					line += ", " + c.MIMEType
				}
				line += ")"
			}
			if c.Description != "" {
				line += " — " + c.Description
			}
			parts = append(parts, line)
		case *sdk.EmbeddedResource:
			r := c.Resource
			switch {
			case r == nil:
			case r.Text != "":
				parts = append(parts, "resource "+r.URI+":\n"+r.Text)
			default:
				parts = append(parts, fmt.Sprintf("[resource %s: %s, %d bytes of binary data, not shown]", r.URI, r.MIMEType, len(r.Blob)))
			}
		default:
			parts = append(parts, fmt.Sprintf("[content %d of an unsupported type, not shown]", i+1))
		}
	}
	if res.StructuredContent != nil {
		if data, err := json.Marshal(res.StructuredContent); err == nil && !sameJSON(data, texts) {
			parts = append(parts, "structured content:\n"+string(data))
		}
	}
	text := strings.Join(parts, "\n")
	if text == "" {
		text = "(no output)"
	}
	if len(text) > maxBytes {
		total := len(text)
		text = cutUTF8(text, maxBytes) + fmt.Sprintf("\n[... result cut: %d of %d bytes shown]", maxBytes, total)
	}
	out.Summary = firstLine(text)
	if res.IsError {
		out.IsError = true
		text = "error: " + text
	}
	out.Text = text
	return out
}

// sameJSON reports whether one of the texts is data as JSON (servers are
// asked to repeat structured content as text).
func sameJSON(data []byte, texts []string) bool {
	var want bytes.Buffer
	if json.Compact(&want, data) != nil {
		return false
	}
	// Both sides decoded and encoded again: key order and spacing aside.
	var norm any
	_ = json.Unmarshal(want.Bytes(), &norm)
	wantNorm, _ := json.Marshal(norm)
	for _, t := range texts {
		var v any
		if json.Unmarshal([]byte(t), &v) != nil {
			continue
		}
		if again, _ := json.Marshal(v); bytes.Equal(again, wantNorm) {
			return true
		}
	}
	return false
}

func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return cutUTF8(s, n) + "…"
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return truncate(line, 160)
}
