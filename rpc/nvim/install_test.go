package nvimhost

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/testrelease"
)

// hostVersion is what the test's host binary says its version is.
func hostVersion(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(hostBinary, "--version").Output()
	v, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "coder-nvim ")
	if err != nil || !ok {
		t.Fatalf("%s --version: %q %v", hostBinary, out, err)
	}
	return v
}

// healthSection is the lines of the :checkhealth report from the line
// naming section to the next section's heading.
func healthSection(report, section string) string {
	_, rest, ok := strings.Cut(report, section)
	if !ok {
		return ""
	}
	var out []string
	for _, l := range strings.Split(rest, "\n")[1:] {
		if strings.HasPrefix(l, "coder: ") || (l != "" && l[0] != ' ' && l[0] != '-' && strings.TrimSpace(l) == l && !strings.HasPrefix(l, "=")) {
			break
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// TestInstalledPluginHealth: a plugin whose build step installed the
// release binary (as lazy.nvim runs build.lua) runs that binary, and
// :checkhealth coder shows the plugin's and the host's version, the
// binary's path and the sandbox launcher beside it, with no warning.
func TestInstalledPluginHealth(t *testing.T) {
	needNvim(t)
	testrelease.Skip(t)
	version := hostVersion(t)
	rel := testrelease.Serve(t, hostBinary, version)
	plugin := testrelease.PluginCopy(t, repoRoot(), version)
	// build.lua, as lazy.nvim runs it after an install.
	cmd := exec.Command(nvimCommand(), "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", "luafile "+filepath.Join(plugin, "build.lua"), "-c", "qa!")
	cmd.Env = append(os.Environ(), "CODER_NVIM_RELEASE_URL="+rel.URL)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "checksum ok") {
		t.Fatalf("build.lua: %v\n%s", err, out)
	}
	e := newEditor(t, editorOpts{rtp: plugin, pluginBin: true})
	e.cmd("checkhealth coder")
	var report string
	e.waitFor("the provider section", 20*time.Second, func() bool {
		e.lua(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')`, &report)
		return strings.Contains(report, "provider openai at")
	})
	bin := healthSection(report, "host binary")
	t.Logf("host binary section:\n%s", bin)
	wants := []string{"plugin " + plugin + ", version " + version, "host " + filepath.Join(plugin, "bin", "coder-nvim") + ", version " + version}
	if runtime.GOOS == "linux" {
		wants = append(wants, "sandbox launcher beside it: "+filepath.Join(plugin, "bin", "coder-nvim-sandbox"))
	}
	for _, want := range wants {
		if !strings.Contains(bin, want) {
			t.Errorf("host binary section lacks %q:\n%s", want, bin)
		}
	}
	if strings.Contains(bin, "WARNING") || strings.Contains(report, "ERROR") {
		t.Errorf("health report not clean:\n%s", report)
	}
}

// TestHostVersionMismatchSaidOnce: a host of another version than the
// plugin makes the plugin say so, and how to update, once per Neovim —
// not again when the host restarts.
func TestHostVersionMismatchSaidOnce(t *testing.T) {
	needNvim(t)
	plugin := testrelease.PluginCopy(t, repoRoot(), "9.9.9")
	e := newEditor(t, editorOpts{rtp: plugin})
	count := func() int {
		var n int
		e.lua(`local n = 0
			for _, m in ipairs(_G.notes) do
				if m.msg:find('the host binary is version', 1, true) then n = n + 1 end
			end
			return n`, &n)
		return n
	}
	e.start()
	e.waitFor("the version notice", 10*time.Second, func() bool { return count() > 0 })
	var note string
	e.lua(`for _, m in ipairs(_G.notes) do if m.msg:find('the host binary is version', 1, true) then return m.msg end end`, &note)
	for _, want := range []string{"version " + hostVersion(t), "the plugin is 9.9.9", ":Lazy build coder-nvim", "make install-binary"} {
		if !strings.Contains(note, want) {
			t.Errorf("notice %q lacks %q", note, want)
		}
	}
	// A host that restarts says its version again: no second notice.
	e.lua(`require('coder.host').stop()`, nil)
	e.waitFor("the host to stop", 10*time.Second, func() bool { return !e.boolLua(`return require('coder.host').running()`) })
	e.start()
	if n := count(); n != 1 {
		t.Errorf("version notice shown %d times, want once", n)
	}
}
