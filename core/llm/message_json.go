package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The stored and wire form of a message with images is OpenAI's: content
// is an array of parts, the text first, then one image_url part per image
// (seed 001 §10: a saved session replays every request as sent). A message
// without images keeps its plain string content.

// contentPart is one OpenAI chat content part.
type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

// messageFields is Message without its methods, for the default codec.
type messageFields Message

// MarshalJSON writes images as content parts.
func (m Message) MarshalJSON() ([]byte, error) {
	f := messageFields(m)
	if len(m.Images) == 0 {
		return json.Marshal(f)
	}
	parts := make([]contentPart, 0, len(m.Images)+1)
	if m.Content != "" {
		parts = append(parts, contentPart{Type: "text", Text: m.Content})
	}
	for _, im := range m.Images {
		parts = append(parts, contentPart{Type: "image_url", ImageURL: &imageURL{URL: im.URL}})
	}
	f.Images = nil
	return json.Marshal(struct {
		messageFields
		Content []contentPart `json:"content"`
	}{f, parts})
}

// UnmarshalJSON reads content as a string or as parts (text parts joined,
// image_url parts as Images), and the older "images" field.
func (m *Message) UnmarshalJSON(data []byte) error {
	var f struct {
		messageFields
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	*m = Message(f.messageFields)
	raw := f.Content
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] == '"' {
		if bytes.IndexByte(raw, '\\') < 0 {
			// No escapes: the text is the bytes between the quotes (the
			// decoder has validated them).
			m.Content = string(raw[1 : len(raw)-1])
			return nil
		}
		return json.Unmarshal(raw, &m.Content)
	}
	var parts []contentPart
	if err := json.Unmarshal(raw, &parts); err != nil {
		return fmt.Errorf("message content: want a string or an array of parts: %w", err)
	}
	var text []string
	for _, p := range parts {
		switch p.Type {
		case "text":
			text = append(text, p.Text)
		case "image_url":
			if p.ImageURL == nil || p.ImageURL.URL == "" {
				return fmt.Errorf("message content: an image_url part without a url")
			}
			m.Images = append(m.Images, Image{URL: p.ImageURL.URL})
		default:
			return fmt.Errorf("message content: unknown part type %q", p.Type)
		}
	}
	m.Content = strings.Join(text, "\n")
	return nil
}
