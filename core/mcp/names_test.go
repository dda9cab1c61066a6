package mcp

import (
	"strings"
	"testing"
)

func TestFQN(t *testing.T) {
	long := strings.Repeat("x", 70)
	tests := []struct{ server, tool, want string }{
		{"github", "create_issue", "github__create_issue"},
		{"fs", "read.file", "fs__read_file"},
		{"a", long, FQN("a", long)},
	}
	for _, tc := range tests {
		if got := FQN(tc.server, tc.tool); got != tc.want {
			t.Errorf("FQN(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
	}
	a, b := FQN("a", long), FQN("a", long+"y")
	if len(a) != MaxNameLen || len(b) != MaxNameLen || a == b || !strings.HasPrefix(a, "a__xxx") {
		t.Errorf("shortened: %q %q", a, b)
	}
	if !serverNameRE().MatchString(a) {
		t.Errorf("shortened name %q has characters the tools API refuses", a)
	}
}

func TestNormalizeAllowlist(t *testing.T) {
	tests := []struct {
		in         []string
		want, bad  string
		deprecated bool
	}{
		{[]string{"s__t"}, "s__t", "", false},
		{[]string{"s/t", "s__t"}, "s__t", "", true},
		{[]string{"s/t.x"}, "s__t_x", "", true},
		{[]string{"plain", "a/b/c", "/t", "bad name__x"}, "", "plain,a/b/c,/t,bad name__x", false},
	}
	for _, tc := range tests {
		got, dep, bad := NormalizeAllowlist(tc.in)
		if strings.Join(got, ",") != tc.want || strings.Join(bad, ",") != tc.bad || dep != tc.deprecated {
			t.Errorf("%v → %v %v %v", tc.in, got, dep, bad)
		}
	}
}

func TestValidateServers(t *testing.T) {
	tests := []struct {
		servers map[string]ServerConfig
		want    string
	}{
		{map[string]ServerConfig{"fs": {Command: "npx"}, "web": {URL: "https://x"}}, ""},
		{map[string]ServerConfig{"bad name": {Command: "x"}}, `"mcpServers.bad name": server names may use only`},
		{map[string]ServerConfig{"e": {}}, `needs "command"`},
		{map[string]ServerConfig{"e": {Command: "x", URL: "http://y"}}, "both"},
		{map[string]ServerConfig{"e": {URL: "ftp://y"}}, "want http"},
		{map[string]ServerConfig{"e": {Command: "x", Headers: map[string]string{"a": "b"}}}, `"headers" belong`},
	}
	for _, tc := range tests {
		err := ValidateServers(tc.servers)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%v: %v, want %q", tc.servers, err, tc.want)
		}
	}
}
