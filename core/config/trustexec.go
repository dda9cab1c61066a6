package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/coder-nvim/coder-nvim/core/mcp"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Trust covers the programs a trusted file runs, not just its bytes: an
// MCP server `sh tools/mcp.sh` that the model rewrites, or a different
// repository cloned at the trusted path with the same config, must be
// asked about again. The workspace files the file's servers, hooks and
// verify commands name are hashed with it.

// maxExecutedFiles bounds how many named files trust hashes.
const maxExecutedFiles = 64

// trustHash is what trust binds to: the file's bytes and those of the
// workspace files it names to run. Without such files it is the file's
// own hash, so earlier records stay valid.
func trustHash(root string, data []byte) string {
	files := executedFiles(root, data)
	if len(files) == 0 {
		return fileHash(data)
	}
	h := sha256.New()
	h.Write(data)
	for _, f := range files {
		fmt.Fprintf(h, "\x00%s\x00%s", f, pathHash(filepath.Join(root, f)))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// pathHash hashes a file's content; "missing" when it cannot be read.
func pathHash(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "missing"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unreadable"
	}
	return hex.EncodeToString(h.Sum(nil))
}

// executedFiles lists, relative to root and sorted, the regular files
// inside the workspace that the file's MCP servers (command, args, in
// their cwd), hooks and verify commands name, words as written or as a
// python -m module.
func executedFiles(root string, data []byte) []string {
	var doc struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
			Cwd     string   `json:"cwd"`
		} `json:"mcpServers"`
		Hooks    map[string][]struct{ Command string } `json:"hooks"`
		Workflow struct {
			VerifyCommands []string `json:"verify_commands"`
		} `json:"workflow"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return nil
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil
	}
	found := map[string]bool{}
	add := func(dir string, words []string) {
		for i, w := range words {
			w = strings.ReplaceAll(strings.Trim(w, `'"`), mcp.WorkspaceVar, realRoot)
			if _, v, ok := strings.Cut(w, "="); ok && strings.HasPrefix(w, "-") {
				w = v
			}
			candidates := []string{w}
			if i > 0 && words[i-1] == "-m" {
				mod := strings.ReplaceAll(w, ".", "/")
				candidates = append(candidates, mod+".py", mod+"/__main__.py")
			}
			for _, c := range candidates {
				if rel := workspaceFile(realRoot, dir, c); rel != "" && len(found) < maxExecutedFiles {
					found[rel] = true
				}
			}
		}
	}
	for _, sc := range doc.MCPServers {
		// A project file's server starts in the workspace unless its
		// cwd says otherwise.
		dir := realRoot
		if cwd := strings.ReplaceAll(sc.Cwd, mcp.WorkspaceVar, realRoot); cwd != "" {
			dir = filepath.Join(realRoot, cwd)
			if filepath.IsAbs(cwd) {
				dir = cwd
			}
		}
		add(dir, append([]string{sc.Command}, sc.Args...))
	}
	for _, hooks := range doc.Hooks {
		for _, h := range hooks {
			add(realRoot, strings.Fields(h.Command))
		}
	}
	for _, c := range doc.Workflow.VerifyCommands {
		add(realRoot, strings.Fields(c))
	}
	out := make([]string, 0, len(found))
	for f := range found {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// workspaceFile is word, relative to dir, as a regular file inside the
// workspace (links resolved), relative to realRoot; "" otherwise.
func workspaceFile(realRoot, dir, word string) string {
	if word == "" || strings.HasPrefix(word, "-") {
		return ""
	}
	p := word
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	rel, err := filepath.Rel(realRoot, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(rel)
}
