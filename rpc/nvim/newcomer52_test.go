package nvimhost

import (
	"path/filepath"
	"testing"
	"time"
)

// A file opened from the chat's input or transcript (:e) opens in the
// editing window; the chat windows keep their buffers (issue 52,
// newcomer 1).
func TestEditFromChatOpensInEditingWindow(t *testing.T) {
	for _, tc := range []struct{ layout, from string }{
		{"right", "iwin"}, {"right", "twin"}, {"tab", "iwin"}, {"float", "iwin"},
	} {
		t.Run(tc.layout+"/"+tc.from, func(t *testing.T) {
			e := newEditor(t, editorOpts{setup: `{layout = '` + tc.layout + `'}`})
			writeFile(t, filepath.Join(e.dir, "calc.go"), "package calc\n")
			e.cmd("Coder open")
			e.lua(`vim.api.nvim_set_current_win(require('coder.ui').state.`+tc.from+`)`, nil)
			e.cmd("edit calc.go")
			e.waitFor("calc.go in the editing window, the chat on its buffers", 5*time.Second, func() bool {
				return e.boolLua(`
					local st = require('coder.ui').state
					local cur = vim.api.nvim_get_current_win()
					return vim.api.nvim_win_get_buf(st.iwin) == st.ibuf and vim.api.nvim_win_get_buf(st.twin) == st.tbuf
						and cur ~= st.iwin and cur ~= st.twin
						and vim.fn.fnamemodify(vim.api.nvim_buf_get_name(0), ':t') == 'calc.go'
						and vim.api.nvim_win_get_config(cur).relative == ''`)
			})
		})
	}
}
