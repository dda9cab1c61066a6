package nvimhost

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/mcp/mcpauth/authtest"
)

// :Coder mcp login NAME opens the sign-in page with the user's opener
// (vim.ui.open on 0.10+, printed before); once the "browser" followed it
// the server is ready, :checkhealth shows its authorization, and the
// token is kept 0600 in the state directory.
func TestMCPLoginInNeovim(t *testing.T) {
	as := authtest.NewAuthServer()
	t.Cleanup(as.Close)
	var seen sync.Map
	ps, url := authtest.Protected(as, &seen)
	t.Cleanup(ps.Close)
	e := newEditor(t, editorOpts{setup: `{mcp_servers = {remote = {url = '` + url + `', headers = {}}}}`})
	e.start()
	e.lua(`_G.opened = {}; if vim.ui.open then vim.ui.open = function(u) table.insert(_G.opened, u) end end`, nil)
	health := func() string {
		var report string
		e.cmd("checkhealth coder")
		e.lua(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')`, &report)
		e.cmd("bwipeout!")
		return report
	}
	e.waitFor("needs login in :checkhealth", 30*time.Second, func() bool {
		return strings.Contains(health(), "remote (http): needs_login, 0 tools, auth: needs login")
	})
	e.cmd("Coder mcp login remote")
	addr := regexp.MustCompile(`https?://[^\s"]+/authorize\?[^\s"]+`)
	var signIn string
	e.waitFor("the sign-in page handed to the opener", 30*time.Second, func() bool {
		var opened []string
		e.lua(`return _G.opened`, &opened)
		if len(opened) > 0 {
			signIn = opened[0]
			return true
		}
		signIn = addr.FindString(e.notes()) // 0.7, 0.9: printed
		return signIn != ""
	})
	if !strings.HasPrefix(signIn, as.URL+"/authorize?") {
		t.Fatalf("sign-in address %q", signIn)
	}
	authtest.Browse(context.Background(), signIn)
	e.waitFor("ready and logged in", 30*time.Second, func() bool {
		return strings.Contains(health(), "remote (http): ready, 1 tools, auth: logged in")
	})
	if tr := e.transcript(); !strings.Contains(tr, "signed in") {
		t.Errorf("transcript:\n%s", tr)
	}
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(e.dir), "state", "coder-nvim", "mcp-oauth", "remote-*.json"))
	if len(files) != 1 {
		t.Fatalf("token files %v", files)
	}
	if fi, err := os.Stat(files[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("token file: %v %v", fi, err)
	}
}
