package verify

import (
	"path"
	"strings"
)

// Documentation extensions. ".txt" is deliberately absent: requirements.txt,
// CMakeLists.txt and testdata golden files are .txt and change what tests do.
var docExts = map[string]bool{
	".md": true, ".markdown": true, ".mdx": true, ".rst": true,
	".adoc": true, ".asciidoc": true, ".org": true,
}

// Base-name stems of the usual top-level documents (README, LICENSE-MIT,
// CHANGELOG.txt …).
var docStems = []string{
	"readme", "changelog", "changes", "history", "license", "licence",
	"copying", "notice", "authors", "contributors", "contributing",
	"code_of_conduct", "security",
}

// Source extensions of the languages the whitelisted runners build. A file
// with one of these is never documentation, even under docs/ or named
// license.go: a test run compiles it.
var codeExts = map[string]bool{
	".go": true, ".py": true, ".pyi": true, ".pyx": true,
	".js": true, ".mjs": true, ".cjs": true, ".jsx": true,
	".ts": true, ".mts": true, ".cts": true, ".tsx": true,
	".vue": true, ".svelte": true, ".rs": true,
	".java": true, ".kt": true, ".kts": true, ".scala": true, ".groovy": true, ".gradle": true,
	".c": true, ".h": true, ".cc": true, ".cpp": true, ".hpp": true, ".s": true,
}

// IsDocPath reports whether the workspace-relative path p is documentation,
// so that editing only such files does not trigger auto-verify. It leans
// towards "no": wrongly calling code documentation skips a needed check,
// while the opposite only costs one test run.
//
// A path is documentation when it is not under a testdata/ or fixtures/
// directory (golden files there feed tests) and one of:
//   - its extension is .md, .markdown, .mdx, .rst, .adoc, .asciidoc or .org;
//   - its base name is a usual top-level document — README, CHANGELOG,
//     CHANGES, HISTORY, LICENSE/LICENCE, COPYING, NOTICE, AUTHORS,
//     CONTRIBUTORS, CONTRIBUTING, CODE_OF_CONDUCT, SECURITY, any case,
//     alone or followed by '.', '-' or '_' — with no extension or .txt
//     (so LICENSE-MIT and README.txt are documents, license.go and
//     notice.json are not);
//   - it lies under a directory named docs or doc, at any depth, and its
//     extension is not a source extension of the whitelisted runners' languages
//     (docs/conf.py and doc/render.go are code).
//
// Matching is case-insensitive; '\' separators are accepted. An empty path
// is not documentation.
func IsDocPath(p string) bool {
	p = strings.ReplaceAll(strings.TrimSpace(p), `\`, "/")
	if p == "" {
		return false
	}
	p = strings.ToLower(path.Clean(p))
	dirs := strings.Split(p, "/")
	base := dirs[len(dirs)-1]
	dirs = dirs[:len(dirs)-1]
	if base == "" || base == "." || base == ".." {
		return false
	}
	for _, d := range dirs {
		if d == "testdata" || d == "fixtures" || d == "__snapshots__" {
			return false
		}
	}
	ext := path.Ext(base)
	if docExts[ext] {
		return true
	}
	if ext == "" || ext == ".txt" {
		for _, s := range docStems {
			rest, ok := strings.CutPrefix(base, s)
			if ok && (rest == "" || strings.ContainsRune(".-_", rune(rest[0]))) {
				return true
			}
		}
	}
	if codeExts[ext] {
		return false
	}
	for _, d := range dirs {
		if d == "docs" || d == "doc" {
			return true
		}
	}
	return false
}
