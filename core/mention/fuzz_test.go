package mention

import (
	"strings"
	"testing"
)

// FuzzAttachSplit: any typed text and item text survive Attach and come
// back apart from Split; Parse never panics.
func FuzzAttachSplit(f *testing.F) {
	f.Add("explain @a.go:1-2 #diff", "x\n```\ny", "go")
	f.Add("", "", "")
	f.Add("``` @x\n#diff ```", "````\n", "a]b")
	f.Fuzz(func(t *testing.T, text, body, ft string) {
		_ = Parse(text)
		items := []Item{{Source: "#buffer", Path: "p", Filetype: strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' {
				return r
			}
			return -1
		}, ft), Text: body}, {Source: "@", Path: "q", Err: "gone\n]x"}}
		msg, _, _ := Attach(text, items, DefaultLimits)
		got, sums, rest := Split(msg)
		if strings.Contains(text, "[context ") {
			return // typed text that looks like items may be read as items
		}
		if got != strings.TrimRight(text, "\n") || len(sums) != 2 || rest != "" {
			t.Fatalf("Split(Attach(%q)) = %q, %d items, rest %q", text, got, len(sums), rest)
		}
		want := body
		if want != "" && !strings.HasSuffix(want, "\n") {
			want += "\n"
		}
		if sums[0].Body != want {
			t.Fatalf("body %q, want %q", sums[0].Body, want)
		}
	})
}
