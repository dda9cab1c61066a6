package conv

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/llm"
)

// Item is one seed 000 InputItem: text or an image.
type Item struct {
	Type     string          `json:"type"`
	Text     string          `json:"text,omitempty"`
	ImageURL json.RawMessage `json:"image_url,omitempty"`
}

// Limits on what the model hands a conversation: instruction files as the
// read tool shows at most, images as an ACP prompt may carry.
const (
	MaxInstructionFile = 256 << 10
	MaxItemImage       = 5 << 20 // decoded bytes of one image
	MaxItemImages      = 8
)

// remoteImages lists the http(s) image URLs among raw's items: a URL the
// model chose can carry data out (a secret in its query), so the call is
// asked about, and refused in plan mode.
func remoteImages(raw json.RawMessage) []string {
	var args struct {
		Items []Item `json:"items"`
	}
	_ = json.Unmarshal(raw, &args)
	var urls []string
	for _, it := range args.Items {
		if u := ItemURL(it); strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://") {
			urls = append(urls, u)
		}
	}
	return urls
}

// ItemURL is an item's image_url, given as a string or {"url": …}.
func ItemURL(it Item) string {
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

// CheckDataURL checks an image given as a data: URL: base64 PNG, JPEG,
// GIF or WebP of at most MaxItemImage bytes.
func CheckDataURL(url string) error {
	mime, data, ok := strings.Cut(strings.TrimPrefix(url, "data:"), ";base64,")
	if !ok || !llm.ImageType(mime) {
		return errors.New("a data: URL must be base64 PNG, JPEG, GIF or WebP (data:image/png;base64,…)")
	}
	if base64.StdEncoding.DecodedLen(len(data)) > MaxItemImage {
		return fmt.Errorf("the image is over %d MiB", MaxItemImage>>20)
	}
	if _, err := base64.StdEncoding.DecodeString(data); err != nil {
		return fmt.Errorf("the data is not valid base64: %v", err)
	}
	return nil
}

// NonEmpty keeps the strings that are not blank.
func NonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

// HistoryMessage is a message conv_history shows: the user's, and the
// assistant's with text; tool calls and their results are not messages.
func HistoryMessage(m llm.Message) bool {
	return m.Role == llm.RoleUser || m.Role == llm.RoleAssistant && m.Content != ""
}

// CountHistory counts what conv_history shows of msgs.
func CountHistory(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		if HistoryMessage(m) {
			n++
		}
	}
	return n
}

// ShortID is the first 8 characters of a conversation id, for people.
func ShortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
