package hooks

import (
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want: the error, "" for none
	}{
		{`{"stop": [{"command": "notify-send done", "timeout": "5s"}], "pre_tool_use": [{"matcher": "bash", "command": "x"}]}`, ""},
		{`null`, ""},
		{`[]`, `key "hooks": expected an object of hook lists by event`},
		{`{"stop": {"command": "x"}}`, `key "hooks.stop": expected an array of hooks`},
		{`{"stop": [{"command": "x"}, {"comand": "x"}]}`, `unknown key "hooks.stop[1].comand" (known: matcher, command, timeout)`},
		{`{"stop": [{"command": 1}]}`, `key "hooks.stop[0].command": expected a string, got JSON number`},
		{`{"stop": ["x"]}`, `key "hooks.stop[0]": expected an object with a command`},
	} {
		_, err := Decode([]byte(tc.in))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.in, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.in, err, tc.want)
		}
	}
}
