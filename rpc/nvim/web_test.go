package nvimhost

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// TestWebFetchInNeovim: the first fetch from a host asks in the float,
// naming the host; "always" covers the host's next page; the tool line
// shows the host, the size and the time, and gO on it opens the fetched
// Markdown.
func TestWebFetchInNeovim(t *testing.T) {
	var hits atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<h1>Page %s</h1><p>%s</p><script>NOSCRIPT()</script>", r.URL.Path, strings.Repeat("line of text. ", 400))
	}))
	defer site.Close()
	host := strings.TrimPrefix(site.URL, "http://")
	e := newEditor(t, editorOpts{userConfig: `{"web": {"allow_private": true}}`})
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w1", "web_fetch", map[string]string{"url": site.URL + "/one"})}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{toolCall("w2", "web_fetch", map[string]string{"url": site.URL + "/two"})}},
		fakellm.Reply{Content: "read both"},
	)
	e.start()
	e.cmd("Coder read the docs")
	e.waitApproval()
	var text string
	e.lua(`local c = require('coder.approval').current()
		return table.concat(vim.api.nvim_buf_get_lines(c.buf, 0, -1, false), '\n')`, &text)
	for _, want := range []string{"web_fetch", host, "fetches from 127.0.0.1 in this session"} {
		if !strings.Contains(text, want) {
			t.Errorf("the approval float lacks %q:\n%s", want, text)
		}
	}
	e.input("a")
	e.waitFor("the answer", 15*time.Second, func() bool { return strings.Contains(e.transcript(), "read both") })
	var n int
	e.lua(`return _G.approvals`, &n)
	if n != 1 || hits.Load() != 2 {
		t.Errorf("%d approvals and %d fetches, want 1 and 2 (always covers the host)", n, hits.Load())
	}
	tr := e.transcript()
	if !strings.Contains(tr, host+" · ") || !strings.Contains(tr, "KB · ") {
		t.Errorf("the tool line does not show host, size and time:\n%s", tr)
	}
	e.lua(`local ui = require('coder.ui')
		vim.api.nvim_set_current_win(vim.fn.bufwinid(ui.transcript_buf()))
		local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
		for i, l in ipairs(lines) do if l:find('/two', 1, true) then vim.api.nvim_win_set_cursor(0, {i, 0}) end end
		ui.open_full()`, nil)
	var opened string
	e.waitFor("the fetched page", 5*time.Second, func() bool {
		e.lua(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')`, &opened)
		return strings.Contains(opened, "# Page /two")
	})
	if strings.Contains(opened, "NOSCRIPT") {
		t.Errorf("gO opened the page with its script:\n%s", opened[:min(len(opened), 500)])
	}
}
