package acp

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/llm"
	sdk "github.com/coder/acp-go-sdk"
)

// foldPrompt turns a prompt's content blocks into the one input string the
// engine takes. Clients send either one message with inline mentions (Zed:
// "explain " + a link + " and " …) or one block per message or context
// item (codecompanion: "Sharing the following file as context: …" and
// then the user's words). So blocks are glued where their boundary is
// inline — whitespace on either side, or punctuation starting the next
// text — and kept apart by a blank line elsewhere, never run together. A
// resource link or embedded resource inside a sentence is named there as
// `path`; one standing alone is a context item on a line of its own
// ("Context: `path`"). Embedded texts follow the input as attachments, so
// the model sees the editor's version of a file.
//
// Image blocks become the turn's images, marked in the text as [image N];
// an image that cannot be sent is an error, never dropped. Audio is named
// but not sent (promptCapabilities.audio is off).
//
// Input whose leading text starts with `/` or `!` is a command line: its
// blocks are joined as written, names stay bare paths (`!cat /w/a.go`) and
// attachments are left out, since they would become part of the command's
// argument.
func foldPrompt(blocks []sdk.ContentBlock) (string, []llm.Image, error) {
	input, _, images, err := fold(blocks)
	return input, images, err
}

// fold is foldPrompt that also returns typed: the user's own words when
// the prompt carries context items standing alone — the text after the
// last of them (clients put the context first) — else "" (all of it).
func fold(blocks []sdk.ContentBlock) (input, typed string, images []llm.Image, err error) {
	command := isCommand(blocks)
	type part struct {
		text   string
		isText bool
		item   bool // a resource: named inline, or as a context item alone
		shared bool // a file codecompanion shares by name: a context item too
	}
	var parts []part
	var attached []string
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			shared := strings.HasPrefix(strings.TrimSpace(b.Text.Text), sharedFilePrefix)
			parts = append(parts, part{text: b.Text.Text, isText: true, shared: shared})
		case b.ResourceLink != nil:
			parts = append(parts, part{text: uriPath(b.ResourceLink.Uri), item: true})
		case b.Resource != nil:
			switch r := b.Resource.Resource; {
			case r.TextResourceContents != nil:
				parts = append(parts, part{text: uriPath(r.TextResourceContents.Uri), item: true})
				attached = append(attached, attachment(uriPath(r.TextResourceContents.Uri), r.TextResourceContents.Text))
			case r.BlobResourceContents != nil:
				parts = append(parts, part{text: uriPath(r.BlobResourceContents.Uri), item: true})
				attached = append(attached, fmt.Sprintf("Attached %s: binary content, not included.", uriPath(r.BlobResourceContents.Uri)))
			}
		case b.Image != nil:
			if command {
				return "", "", nil, errors.New("images cannot be attached to a / or ! command")
			}
			img, err := imagePart(b.Image)
			if err != nil {
				return "", "", nil, fmt.Errorf("image %d: %w", len(images)+1, err)
			}
			images = append(images, img)
			parts = append(parts, part{text: fmt.Sprintf("[image %d]", len(images))})
		case b.Audio != nil:
			parts = append(parts, part{text: "[an audio clip was attached; this agent cannot hear audio]"})
		}
	}
	if command {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.text)
		}
		return b.String(), "", images, nil
	}
	// glued reports whether parts i and i+1 meet inside a sentence.
	glued := func(i int) bool {
		if i < 0 || i+1 >= len(parts) {
			return false
		}
		a, b := parts[i], parts[i+1]
		return a.isText && endsInline(a.text) || b.isText && startsInline(b.text)
	}
	var out strings.Builder
	own := 0 // where the user's own words start: after the last context item alone
	for i, p := range parts {
		if i > 0 && !glued(i-1) {
			out.WriteString("\n\n")
		}
		switch {
		case p.item && !glued(i-1) && !glued(i):
			out.WriteString(contextPrefix + "`" + p.text + "`")
			own = out.Len()
		case p.item:
			out.WriteString("`" + p.text + "`")
		case p.shared && !glued(i-1) && !glued(i):
			out.WriteString(p.text)
			own = out.Len()
		default:
			out.WriteString(p.text)
		}
	}
	if own > 0 {
		typed = strings.TrimSpace(out.String()[own:])
	}
	if words, ok := unwrapped(out.String()); ok {
		typed = words // the newest of the messages a client resends (wrappers.go)
	}
	return strings.Join(append([]string{out.String()}, attached...), "\n\n"), typed, images, nil
}

// contextPrefix starts the line naming a context item that stands alone.
const contextPrefix = "Context: "

// endsInline and startsInline tell a block that continues a sentence:
// whitespace at its edge, or punctuation where it goes on.
func endsInline(s string) bool { return s != "" && strings.ContainsRune(" \t\n", rune(s[len(s)-1])) }

func startsInline(s string) bool { return s != "" && strings.ContainsRune(" \t\n.,;:!?)", rune(s[0])) }

// imageBlock is the content block of an image sent earlier, for replay.
func imageBlock(img llm.Image) sdk.ContentBlock {
	rest, ok := strings.CutPrefix(img.URL, "data:")
	mime, data, isData := strings.Cut(rest, ";base64,")
	if !ok || !isData {
		return sdk.ContentBlock{Image: &sdk.ContentBlockImage{Type: "image", Uri: sdk.Ptr(img.URL)}}
	}
	return sdk.ImageBlock(data, mime)
}

// imagePart turns an image block into what the model is sent: its data as
// a data: URL, or else its http(s) URI.
func imagePart(b *sdk.ContentBlockImage) (llm.Image, error) {
	if b.Data == "" {
		if b.Uri != nil && (strings.HasPrefix(*b.Uri, "https://") || strings.HasPrefix(*b.Uri, "http://")) {
			return llm.Image{URL: *b.Uri}, nil
		}
		return llm.Image{}, errors.New("the block has no data and no http(s) URI; send the image's bytes")
	}
	mime := strings.ToLower(strings.TrimSpace(b.MimeType))
	if !llm.ImageType(mime) {
		return llm.Image{}, fmt.Errorf("unsupported type %q (want image/png, image/jpeg, image/gif or image/webp)", b.MimeType)
	}
	if _, err := base64.StdEncoding.DecodeString(b.Data); err != nil {
		return llm.Image{}, fmt.Errorf("data is not valid base64: %v", err)
	}
	return llm.Image{URL: "data:" + mime + ";base64," + b.Data}, nil
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

// linkedFiles are the local files the prompt links without their text: its
// resource links, and the files codecompanion shares by name alone (a text
// block "Sharing the following file as context: PATH", what its /file and
// #{buffer} send). A file the prompt also embeds is already attached.
func linkedFiles(blocks []sdk.ContentBlock) []string {
	embedded := map[string]bool{}
	for _, b := range blocks {
		if b.Resource != nil && b.Resource.Resource.TextResourceContents != nil {
			embedded[uriPath(b.Resource.Resource.TextResourceContents.Uri)] = true
		}
	}
	var paths []string
	for _, b := range blocks {
		p := ""
		switch {
		case b.ResourceLink != nil:
			p = uriPath(b.ResourceLink.Uri)
		case b.Text != nil:
			p, _ = strings.CutPrefix(strings.TrimSpace(b.Text.Text), sharedFilePrefix)
		}
		if filepath.IsAbs(p) && !strings.Contains(p, "\n") && !embedded[p] {
			paths = append(paths, p)
		}
	}
	return paths
}

// sharedFilePrefix starts the text block codecompanion sends for a file it
// shares by name.
const sharedFilePrefix = "Sharing the following file as context: "

// promptWords is the text the user typed: the prompt's text blocks, never
// the contents of attached resources (a file that mentions "@x" attaches
// nothing).
func promptWords(blocks []sdk.ContentBlock) string {
	var parts []string
	for _, b := range blocks {
		if b.Text != nil {
			parts = append(parts, b.Text.Text)
		}
	}
	return strings.Join(parts, "\n")
}
