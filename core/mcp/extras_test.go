package mcp

import (
	"context"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/mcptest"
)

// Prompts are listed with their arguments and fetched as one user turn;
// resources are read only through a view that includes their server.
func TestPromptsAndResources(t *testing.T) {
	url := mcptest.HTTP(t, mcptest.Server(mcptest.Options{Tools: 1, Prompts: true, Resources: true}))
	plain := mcptest.HTTP(t, mcptest.Server(mcptest.Options{Tools: 1}))
	p := newPool(t, Options{Servers: map[string]ServerConfig{"docs": {URL: url}, "other": {URL: plain}}})
	ready(t, p, "docs", "other")
	prs := p.Prompts()
	if len(prs) != 2 || prs[0].Command() != "docs:hello" || prs[1].Command() != "docs:review" || prs[1].Hint() != "lang=… [focus=…]" {
		t.Fatalf("prompts = %+v", prs)
	}
	if st := state(p, "docs"); st.Prompts != 2 || st.Resources != 2 || st.Tools != 1 {
		t.Errorf("status = %+v", st)
	}
	ctx := context.Background()
	for _, tc := range []struct{ args, want string }{
		{"", "needs lang"},
		{"lang=go colour=red", `no argument "colour"`},
		{"go", "not NAME=VALUE"},
	} {
		args, err := ParsePromptArgs(tc.args)
		if err == nil {
			_, err = p.GetPrompt(ctx, prs[1], args)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.args, err, tc.want)
		}
	}
	args, err := ParsePromptArgs(`lang=go focus="error handling"`)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := p.GetPrompt(ctx, prs[1], args)
	if err != nil || !strings.HasPrefix(msg.Text, "Review the go code with a focus on error handling.") || !strings.Contains(msg.Text, mcptest.ReadmeText) {
		t.Fatalf("prompt = %q, %v", msg.Text, err)
	}

	if server, uri, ok := p.SplitMention("docs:" + mcptest.ReadmeURI); !ok || server != "docs" || uri != mcptest.ReadmeURI {
		t.Errorf("split = %q %q %v", server, uri, ok)
	}
	for _, tok := range []string{"main.go:10", "docs:10", "docs:"} {
		if _, _, ok := p.SplitMention(tok); ok {
			t.Errorf("%s is taken for a resource", tok)
		}
	}
	all, _ := p.View(nil)
	if rs := all.Resources(); len(rs) != 2 || rs[0].Mention() != "docs:"+mcptest.ReadmeURI || !rs[1].Template {
		t.Errorf("resources = %+v", rs)
	}
	if rt, err := all.ReadResource(ctx, "docs", mcptest.ReadmeURI); err != nil || rt.Text != mcptest.ReadmeText {
		t.Errorf("read = %q, %v", rt.Text, err)
	}
	if _, ok := all.ResourceReadSpec(); !ok {
		t.Error("no mcp_resource_read in the full view")
	}
	if res := all.CallResourceRead(ctx, []byte(`{"server":"docs","uri":"notes://x"}`), 0); res.IsError || res.Text != "note x" {
		t.Errorf("tool read = %+v", res)
	}
	narrow, err := p.View([]string{"other__tool_00"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := narrow.ResourceReadSpec(); ok || len(narrow.Resources()) != 0 {
		t.Error("a view without docs is offered its resources")
	}
	if res := narrow.CallResourceRead(ctx, []byte(`{"server":"docs","uri":"`+mcptest.ReadmeURI+`"}`), 0); !res.IsError || !strings.Contains(res.Text, "not in this conversation's view") || strings.Contains(res.Text, "forty-two") {
		t.Errorf("read outside the view = %+v", res)
	}
}
