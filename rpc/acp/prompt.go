package acp

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/llm"
	sdk "github.com/coder/acp-go-sdk"
)

// foldPrompt turns a prompt's content blocks into the one input string the
// engine takes. Text is kept as written; a resource link or an embedded
// resource is named inline by its path (or URI); embedded texts follow the
// input as attachments, so the model sees the editor's version of a file.
//
// Image blocks become the turn's images, marked in the text as [image N]
// where they stood; an image that cannot be sent is an error, never
// dropped. Audio is named but not sent (promptCapabilities.audio is off).
//
// Input whose leading text starts with `/` or `!` is a command line: names
// stay bare paths (`!cat /w/a.go`) and attachments are left out, since they
// would become part of the command's argument. Elsewhere names are quoted
// as code, so a prompt that starts with a file is never taken for a command.
func foldPrompt(blocks []sdk.ContentBlock) (string, []llm.Image, error) {
	command := isCommand(blocks)
	name := func(uri string) string {
		if command {
			return uriPath(uri)
		}
		return "`" + uriPath(uri) + "`"
	}
	var text strings.Builder
	var attached []string
	var images []llm.Image
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
			if command {
				return "", nil, errors.New("images cannot be attached to a / or ! command")
			}
			img, err := imagePart(b.Image)
			if err != nil {
				return "", nil, fmt.Errorf("image %d: %w", len(images)+1, err)
			}
			images = append(images, img)
			fmt.Fprintf(&text, "[image %d]", len(images))
		case b.Audio != nil:
			text.WriteString("[an audio clip was attached; this agent cannot hear audio]")
		}
	}
	if command || len(attached) == 0 {
		return text.String(), images, nil
	}
	return text.String() + "\n\n" + strings.Join(attached, "\n\n"), images, nil
}

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
