package config

import (
	"strings"
	"testing"
)

// TestDecodeErrorsSayWhere: a syntax error names line, column and the
// line's text (a trailing comma says so); an unknown key one or two edits
// from a known one suggests it (issue 52, newcomer 5).
func TestDecodeErrorsSayWhere(t *testing.T) {
	for _, tc := range []struct{ in, want, not string }{
		{"{\n  \"model\": \"x\",\n  \"mode\": \"plan\",\n}\n", `invalid JSON at line 4, column 1: invalid character '}' looking for beginning of object key string (a trailing comma before it? JSON allows none): "}"`, ""},
		{"{\n  \"model\": \"x\" \"mode\": 1}", `invalid JSON at line 2, column 16: invalid character '"' after object key:value pair: "  \"model\": \"x\" \"mode\": 1}"`, "trailing comma"},
		{`{"model": `, "invalid JSON", "byte"},
		{`{"permisions": {}}`, `unknown key "permisions" (did you mean "permissions"?)`, ""},
		{`{"approval": {"interactiv": false}}`, `unknown key "interactiv" (did you mean "interactive"?)`, ""},
		{`{"zzzzzzzz": 1}`, `unknown key "zzzzzzzz"`, "did you mean"},
	} {
		var c Config
		err := Decode([]byte(tc.in), &c)
		if err == nil || !strings.Contains(err.Error(), tc.want) || tc.not != "" && strings.Contains(err.Error(), tc.not) {
			t.Errorf("Decode(%q) = %v, want %q", tc.in, err, tc.want)
		}
	}
}
