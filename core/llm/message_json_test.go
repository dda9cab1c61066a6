package llm

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestMessageJSON(t *testing.T) {
	tests := []struct {
		name string
		msg  Message
		want string // the encoded form
	}{
		{"text", Message{Role: RoleUser, Content: "hi"}, `{"role":"user","content":"hi"}`},
		{"unicode, no escapes", Message{Role: RoleUser, Content: "héllo 世界"}, `{"role":"user","content":"héllo 世界"}`},
		{"escapes", Message{Role: RoleUser, Content: "a\n\"b\" \\ <c>"}, `{"role":"user","content":"a\n\"b\" \\ \u003cc\u003e"}`},
		{"images as parts", Message{Role: RoleUser, Content: "see", Images: []Image{{URL: "data:image/png;base64,AA=="}}},
			`{"role":"user","content":[{"type":"text","text":"see"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}]}`},
		{"image only", Message{Role: RoleUser, Images: []Image{{URL: "data:image/png;base64,AA=="}}},
			`{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}]}`},
		{"tool call", Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c", Type: "function", Function: FunctionCall{Name: "read", Arguments: "{}"}}}},
			`{"role":"assistant","content":"","tool_calls":[{"id":"c","type":"function","function":{"name":"read","arguments":"{}"}}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("encoded\n%s\nwant\n%s", b, tc.want)
			}
			var back Message
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, tc.msg) {
				t.Errorf("decoded %+v, want %+v", back, tc.msg)
			}
		})
	}
}

func TestMessageJSONOlderAndBadForms(t *testing.T) {
	var m Message
	if err := json.Unmarshal([]byte(`{"role":"user","content":"x","images":[{"url":"data:image/png;base64,AA=="}]}`), &m); err != nil || len(m.Images) != 1 || m.Content != "x" {
		t.Errorf("older images field: %+v %v", m, err)
	}
	for _, bad := range []string{
		`{"role":"user","content":[{"type":"audio"}]}`,
		`{"role":"user","content":[{"type":"image_url"}]}`,
		`{"role":"user","content":7}`,
	} {
		if err := json.Unmarshal([]byte(bad), &m); err == nil || !strings.Contains(err.Error(), "content") {
			t.Errorf("%s: err %v, want a content error", bad, err)
		}
	}
}

func TestImageFileType(t *testing.T) {
	for name, want := range map[string]string{
		"a.png": "image/png", "dir/b.JPG": "image/jpeg", "c.jpeg": "image/jpeg", "d.gif": "image/gif",
		"e.WebP": "image/webp", "f.svg": "", "png": "", "g.png.txt": "",
	} {
		if got := ImageFileType(name); got != want {
			t.Errorf("ImageFileType(%q) = %q, want %q", name, got, want)
		}
	}
	if got := DataImage("image/png", []byte("PNG")).URL; got != "data:image/png;base64,UE5H" {
		t.Errorf("DataImage = %q", got)
	}
}
