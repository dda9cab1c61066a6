package acp

import (
	"fmt"
	"net/url"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// foldPrompt turns a prompt's content blocks into the one input string the
// engine takes. Text is kept as written; a resource link or an embedded
// resource is named inline by its path (or URI); embedded texts follow the
// input as attachments, so the model sees the editor's version of a file.
//
// Input whose leading text starts with `/` or `!` is a command line: names
// stay bare paths (`!cat /w/a.go`) and attachments are left out, since they
// would become part of the command's argument. Elsewhere names are quoted
// as code, so a prompt that starts with a file is never taken for a command.
func foldPrompt(blocks []sdk.ContentBlock) string {
	command := isCommand(blocks)
	name := func(uri string) string {
		if command {
			return uriPath(uri)
		}
		return "`" + uriPath(uri) + "`"
	}
	var text strings.Builder
	var attached []string
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			text.WriteString(b.Text.Text)
		case b.ResourceLink != nil:
			text.WriteString(name(b.ResourceLink.Uri))
		case b.Resource != nil:
			switch r := b.Resource.Resource; {
			case r.TextResourceContents != nil:
				text.WriteString(name(r.TextResourceContents.Uri))
				attached = append(attached, attachment(uriPath(r.TextResourceContents.Uri), r.TextResourceContents.Text))
			case r.BlobResourceContents != nil:
				text.WriteString(name(r.BlobResourceContents.Uri))
				attached = append(attached, fmt.Sprintf("Attached %s: binary content, not included.", uriPath(r.BlobResourceContents.Uri)))
			}
		case b.Image != nil:
			text.WriteString("[an image was attached; this agent cannot see images]")
		case b.Audio != nil:
			text.WriteString("[an audio clip was attached; this agent cannot hear audio]")
		}
	}
	if command || len(attached) == 0 {
		return text.String()
	}
	return text.String() + "\n\n" + strings.Join(attached, "\n\n")
}

// isCommand reports whether the text before the first non-text block
// starts with `/` or `!`.
func isCommand(blocks []sdk.ContentBlock) bool {
	var lead strings.Builder
	for _, b := range blocks {
		if b.Text == nil {
			break
		}
		lead.WriteString(b.Text.Text)
	}
	t := strings.TrimSpace(lead.String())
	return strings.HasPrefix(t, "/") || strings.HasPrefix(t, "!")
}

// attachment renders one embedded file in a fence longer than any backtick
// run inside it.
func attachment(path, body string) string {
	fence := "```"
	for strings.Contains(body, fence) {
		fence += "`"
	}
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	return fmt.Sprintf("Contents of %s (as open in the editor):\n%s\n%s%s", path, fence, body, fence)
}

// uriPath returns the file path of a file:// URI, or the URI itself.
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return uri
	}
	return u.Path
}
