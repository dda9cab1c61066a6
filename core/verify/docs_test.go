package verify

import "testing"

func TestIsDocPath(t *testing.T) {
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"README.md", true},
		{"readme", true},
		{"README", true},
		{"README.txt", true},
		{"README.zh-CN.md", true},
		{"docs/guide.md", true},
		{"CHANGELOG", true},
		{"CHANGELOG.md", true},
		{"LICENSE", true},
		{"LICENSE-MIT", true},
		{"LICENCE.txt", true},
		{"CONTRIBUTING.md", true},
		{"notes.rst", true},
		{"manual.adoc", true},
		{"pkg/foo/README.markdown", true},
		{"docs/images/arch.png", true},
		{"docs/_config.yml", true},
		{"website/doc/index.html", true},
		{`docs\intro.md`, true},
		{"./docs/intro.md", true},
		{"main.go", false},
		{"docs/conf.py", false},           // Sphinx config is Python
		{"internal/doc/render.go", false}, // a Go package named doc
		{"license.go", false},
		{"license_test.go", false},
		{"notice.json", false},
		{"requirements.txt", false},
		{"CMakeLists.txt", false},
		{"notes.txt", false},
		{"testdata/golden.md", false}, // golden file read by tests
		{"pkg/x/testdata/out.md", false},
		{"src/__snapshots__/a.md", false},
		{"package.json", false},
		{"go.mod", false},
		{"documentation.go", false},
		{"docsgen/main.go", false},
		{"", false},
		{"  ", false},
		{".", false},
	} {
		if got := IsDocPath(tc.path); got != tc.want {
			t.Errorf("IsDocPath(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}
