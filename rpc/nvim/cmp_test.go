package nvimhost

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The completion plugins' own code, vendored under testdata/plugins (see
// its README for the upstream commits): the tests run the chat input's
// sources in the real nvim-cmp and blink.cmp, with no network.

// vendoredPlugin copies testdata/plugins/name into a temp dir (the checkout
// stays untouched whatever a plugin writes next to its code) and returns
// the copy, a runtimepath entry.
func vendoredPlugin(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("testdata", "plugins", name))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// pluginEditor starts the chat with the vendored completion plugin loaded
// as a plugin manager loads it: put on the runtimepath, configured by the
// user's setup code, its plugin/ scripts run. late loads it only once the
// chat is open, as a manager loading it on InsertEnter (or a :packadd)
// does. The cursor is in the empty input, in Normal mode; the workspace
// holds notes.txt and src/other.go, the model server lists test-large and
// test-small. The test is skipped on a Neovim older than needs ("0.10").
func pluginEditor(t *testing.T, plugin, needs, setup string, late bool) *editor {
	t.Helper()
	e := newEditor(t, editorOpts{})
	if needs != "" && !e.boolLua(`return vim.fn.has('nvim-' .. ...) == 1`, needs) {
		t.Skipf("%s needs Neovim %s or later; this is %s", plugin, needs, nvimVersion())
	}
	writeFile(t, filepath.Join(e.dir, "notes.txt"), "n\n")
	writeFile(t, filepath.Join(e.dir, "src", "other.go"), "package src\n")
	e.llm.SetModels([]string{"test-large", "test-small"})
	load := func() {
		e.lua(`local dir = ...
			vim.opt.rtp:append(dir)
			`+setup+`
			for _, f in ipairs(vim.fn.glob(dir .. '/plugin/**/*.lua', true, true)) do
				vim.cmd('source ' .. vim.fn.fnameescape(f))
			end`, nil, vendoredPlugin(t, plugin))
	}
	if !late {
		load()
	}
	e.start()
	if late {
		load()
	}
	e.lua(`vim.api.nvim_set_current_win(vim.fn.bufwinid(require('coder.ui').input_buf()))
		vim.cmd('stopinsert')`, nil)
	return e
}

// completion is a real completion plugin as the tests drive it.
type completion struct {
	name     string
	visible  string // Lua: the menu is shown
	labels   string // Lua: the labels of the items it shows, a list
	selected string // Lua: the label of the selected item, '' if none
}

// typeSlowly types text in Insert mode one key at a time, as a user types:
// keys sent at once are one change to the plugins, which complete on each.
// It waits for each key to show at the end of the current line.
func (e *editor) typeSlowly(text string) {
	e.t.Helper()
	line := e.currentLine()
	for i := range text {
		e.input(text[i : i+1])
		e.waitFor("the input to show "+line+text[:i+1], 10*time.Second, func() bool {
			return e.currentLine() == line+text[:i+1]
		})
	}
}

// currentLine is the text of the cursor's line.
func (e *editor) currentLine() string {
	var line string
	e.lua(`return vim.api.nvim_get_current_line()`, &line)
	return line
}

// waitShown waits until the plugin's menu shows want among its items, and
// returns them.
func (e *editor) waitShown(c completion, text, want string) []string {
	e.t.Helper()
	var last []string
	e.waitFor(c.name+" menu with "+want+" after "+text, 10*time.Second, func() bool {
		var labels []string
		e.lua(`if not (`+c.visible+`) then return {} end
			return `+c.labels, &labels)
		if !slices.Equal(labels, last) {
			e.t.Logf("%s after %q shows %q", c.name, text, labels)
			last = labels
		}
		return slices.Contains(labels, want)
	})
	return last
}

// typeAndConfirm types text at the end of the input's empty first line,
// waits until the plugin's menu shows want among its items, selects it
// with <C-n> (nvim-cmp selects none at first, blink.cmp the first) and
// confirms it with <C-y> — keys of both plugins' default mappings — and
// returns the input's line.
func (e *editor) typeAndConfirm(c completion, text, want string) string {
	e.t.Helper()
	e.lua(`vim.api.nvim_buf_set_lines(0, 0, -1, false, {''})`, nil)
	e.input("a")
	e.typeSlowly(text)
	last := e.waitShown(c, text, want)
	// Neovim's own completion (the omnifunc's) stays out of it: it would
	// insert a single match, or open its menu over the plugin's.
	if e.boolLua(`return vim.fn.pumvisible() == 1 or vim.api.nvim_get_mode().mode == 'ic'`) {
		e.t.Errorf("%s: after %q Neovim's own completion is active too", c.name, text)
	}
	selected := func() string {
		var label string
		e.lua(c.selected, &label)
		return label
	}
	for n := 0; selected() != want; n++ {
		if n > len(last) {
			e.t.Fatalf("%s: <C-n> never selected %s in %q", c.name, want, last)
		}
		was := selected()
		e.input("<C-n>")
		e.waitFor(c.name+" selecting the next item", 10*time.Second, func() bool { return selected() != was })
	}
	e.input("<C-y>")
	var line string
	e.waitFor(c.name+" inserting "+want, 10*time.Second, func() bool {
		line = e.currentLine()
		return strings.Contains(line, want)
	})
	e.input("<Esc>")
	return line
}

// completes checks each kind of word the sources complete: paths from the
// host (@, mid-line and at the start), a mention (#), a command (/ at the
// start) and a model name from the host (after /model).
func completes(t *testing.T, e *editor, c completion) {
	for _, tc := range []struct{ text, want, line string }{
		{"see @not", "@notes.txt", "see @notes.txt"},
		{"@src/oth", "@src/other.go", "@src/other.go"},
		{"check #diag", "#diagnostics", "check #diagnostics"},
		{"/mod", "/model", "/model"},
		{"/model test-s", "test-small", "/model test-small"},
	} {
		if got := e.typeAndConfirm(c, tc.text, tc.want); got != tc.line {
			t.Errorf("%s: %q then %s: the line is %q, want %q", c.name, tc.text, tc.want, got, tc.line)
		}
	}
	// Neither plugin nor source complained.
	if e.boolLua(`for _, n in ipairs(_G.notes) do if n.level >= vim.log.levels.WARN then return true end end
		return false`) {
		t.Errorf("%s: notes: %s", c.name, e.notes())
	}
	var msgs string
	e.lua(`return vim.api.nvim_exec('messages', true)`, &msgs)
	if strings.Contains(msgs, "Error") || strings.Contains(msgs, "stack traceback") {
		t.Errorf("%s: :messages holds an error:\n%s", c.name, msgs)
	}
}

// nvimCmpSetup sets nvim-cmp up as its README shows.
const nvimCmpSetup = `local cmp = require('cmp')
	cmp.setup({ mapping = cmp.mapping.preset.insert({}) })`

var nvimCmp = completion{
	name:    "nvim-cmp",
	visible: `require('cmp').visible()`,
	labels: `vim.tbl_map(function(en) return en:get_completion_item().label end,
		require('cmp').get_entries())`,
	selected: `local en = require('cmp').get_selected_entry()
		return en and en:get_completion_item().label or ''`,
}

// TestNvimCmpSource: with nvim-cmp installed and set up as its README
// shows, loaded at startup or once the chat is open, typing in the chat
// input shows the coder source's items in nvim-cmp's menu, and confirming
// one inserts it.
func TestNvimCmpSource(t *testing.T) {
	for _, late := range []bool{false, true} {
		t.Run(fmt.Sprintf("late=%v", late), func(t *testing.T) {
			e := pluginEditor(t, "nvim-cmp", "", nvimCmpSetup, late)
			completes(t, e, nvimCmp)
		})
	}
}

// TestNvimCmpSourceWithoutHost: with the host stopped, the source answers
// nvim-cmp at once (nothing), so that nvim-cmp asks again as the word
// grows: once the host is back, the word being typed completes.
func TestNvimCmpSourceWithoutHost(t *testing.T) {
	e := pluginEditor(t, "nvim-cmp", "", nvimCmpSetup, false)
	e.lua(`require('coder.host').stop()`, nil)
	e.waitFor("the host to stop", 10*time.Second, func() bool { return !e.boolLua(`return require('coder.host').running()`) })
	e.input("a")
	e.typeSlowly("see @no")
	e.lua(`require('coder.host').ensure()`, nil)
	e.waitFor("the host to be back", 10*time.Second, func() bool {
		return e.boolLua(`return require('coder.host').state.ready == true`)
	})
	e.typeSlowly("t")
	e.waitShown(nvimCmp, "see @not", "@notes.txt")
}

// TestBlinkCmpSource: the same with blink.cmp (its Lua fuzzy matcher: the
// Rust one is a download). blink.cmp needs Neovim 0.10.
func TestBlinkCmpSource(t *testing.T) {
	for _, late := range []bool{false, true} {
		t.Run(fmt.Sprintf("late=%v", late), func(t *testing.T) {
			e := pluginEditor(t, "blink.cmp", "0.10", `require('blink.cmp').setup({ fuzzy = { implementation = 'lua' } })`, late)
			completes(t, e, completion{
				name:    "blink.cmp",
				visible: `require('blink.cmp').is_menu_visible()`,
				labels:  `vim.tbl_map(function(it) return it.label end, require('blink.cmp').get_items())`,
				selected: `local it = require('blink.cmp').get_selected_item()
					return it and it.label or ''`,
			})
		})
	}
}

// TestNvimCmpKeepsUserInputSetup: a user's own nvim-cmp setup for the chat
// input (cmp.setup.filetype('coder-input', …)) is kept when the source
// registers: its sources and options stay, the coder source is added.
func TestNvimCmpKeepsUserInputSetup(t *testing.T) {
	e := pluginEditor(t, "nvim-cmp", "", nvimCmpSetup+`
		cmp.setup.filetype('coder-input', { sources = { { name = 'path' } }, completion = { keyword_length = 2 } })`, false)
	var got struct {
		Sources []string `msgpack:"sources"`
		Length  int      `msgpack:"length"`
	}
	e.lua(`local c = require('cmp.config').filetypes['coder-input']
		local names = {}
		for _, s in ipairs(c.sources or {}) do table.insert(names, s.name) end
		return { sources = names, length = (c.completion or {}).keyword_length or 0 }`, &got)
	if strings.Join(got.Sources, ",") != "coder,path" || got.Length != 2 {
		t.Errorf("the input's nvim-cmp setup is %+v, want the user's (path, keyword_length 2) with coder added", got)
	}
}
