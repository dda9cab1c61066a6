package verify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// project makes a temp dir holding the given files.
func project(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const jsWithTest = `{"name":"x","scripts":{"test":"jest"}}`

func TestInfer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"go", map[string]string{"go.mod": "module x\n"}, "go test ./..."},
		{"cargo", map[string]string{"Cargo.toml": "[package]\n"}, "cargo test"},
		{"maven", map[string]string{"pom.xml": "<project/>"}, "mvn -q test"},
		{"gradle wrapper", map[string]string{"gradlew": "#!/bin/sh\n", "build.gradle": ""}, "./gradlew test"},
		{"gradle groovy", map[string]string{"build.gradle": ""}, "gradle test"},
		{"gradle kotlin", map[string]string{"build.gradle.kts": ""}, "gradle test"},
		{"gradle settings only", map[string]string{"settings.gradle.kts": ""}, "gradle test"},
		{"npm no lock", map[string]string{"package.json": jsWithTest}, "npm test -- --watch=false"},
		{"npm lock", map[string]string{"package.json": jsWithTest, "package-lock.json": "{}"}, "npm test -- --watch=false"},
		{"npm shrinkwrap", map[string]string{"package.json": jsWithTest, "npm-shrinkwrap.json": "{}"}, "npm test -- --watch=false"},
		{"pnpm lock", map[string]string{"package.json": jsWithTest, "pnpm-lock.yaml": ""}, "pnpm test -- --watch=false"},
		{"yarn lock", map[string]string{"package.json": jsWithTest, "yarn.lock": ""}, "yarn test --watch=false"},
		{"pnpm beats stray npm lock", map[string]string{"package.json": jsWithTest, "pnpm-lock.yaml": "", "package-lock.json": "{}"}, "pnpm test -- --watch=false"},
		{"packageManager field wins", map[string]string{"package.json": `{"scripts":{"test":"vitest"},"packageManager":"yarn@4.1.0"}`, "package-lock.json": "{}"}, "yarn test --watch=false"},
		{"npm placeholder script", map[string]string{"package.json": `{"scripts":{"test":"echo \"Error: no test specified\" && exit 1"}}`}, ""},
		{"no test script", map[string]string{"package.json": `{"scripts":{"build":"tsc"}}`}, ""},
		{"broken package.json", map[string]string{"package.json": `{`}, ""},
		{"js without tests falls to pytest", map[string]string{"package.json": `{}`, "pytest.ini": "[pytest]\n"}, "pytest -q"},
		{"pytest.ini", map[string]string{"pytest.ini": "[pytest]\n"}, "pytest -q"},
		{"pyproject pytest", map[string]string{"pyproject.toml": "[project]\nname='x'\n\n[tool.pytest.ini_options]\naddopts='-q'\n"}, "pytest -q"},
		{"pyproject without pytest", map[string]string{"pyproject.toml": "[project]\nname='x'\n[tool.ruff]\n"}, ""},
		{"setup.cfg pytest", map[string]string{"setup.cfg": "[metadata]\n[tool:pytest]\ntestpaths=tests\n"}, "pytest -q"},
		{"setup.cfg without pytest", map[string]string{"setup.cfg": "[metadata]\nname=x\n"}, ""},
		{"tox.ini pytest", map[string]string{"tox.ini": "[tox]\n[pytest]\n"}, "pytest -q"},
		{"tox.ini without pytest", map[string]string{"tox.ini": "[tox]\nenvlist=py3\n"}, ""},
		{"conftest.py", map[string]string{"conftest.py": ""}, "pytest -q"},
		{"go beats package.json", map[string]string{"go.mod": "module x\n", "package.json": jsWithTest}, "go test ./..."},
		{"marker in a subdirectory does not count", map[string]string{"sub/go.mod": "module x\n"}, ""},
		{"directory named go.mod does not count", map[string]string{"go.mod/x": ""}, ""},
		{"empty", map[string]string{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, reason := Infer(project(t, tc.files))
			if got != tc.want {
				t.Fatalf("Infer = %q (%s), want %q", got, reason, tc.want)
			}
			if reason == "" {
				t.Error("no reason")
			}
		})
	}
}

func TestChoose(t *testing.T) {
	goProject := map[string]string{"go.mod": "module x\n"}
	for _, tc := range []struct {
		name       string
		files      map[string]string
		input      string
		configured []string
		want       string
		source     string
		reason     string // substring of the reason
	}{
		{"project type", goProject, "add a flag", nil, "go test ./...", SourceProject, "go.mod"},
		{"config beats project", goProject, "add a flag", []string{"cargo test"}, "cargo test", SourceConfig, "workflow.verify_commands"},
		{"user beats config", goProject, "fix it, then run `pytest -q`", []string{"cargo test"}, "pytest -q", SourceUser, "pytest -q"},
		{"user in running text", goProject, "fix it and run cargo test", []string{"mvn -q test"}, "cargo test", SourceUser, "cargo test"},
		{"user mention without verb", map[string]string{}, "`cargo test` fails on CI, fix it", nil, "cargo test", SourceUser, ""},
		{"user alias", goProject, "run npm test afterwards", nil, "npm test -- --watch=false", SourceUser, "npm test"},
		{"user alias in Chinese", goProject, "改完跑一下 pytest", nil, "pytest -q", SourceUser, ""},
		{"user Chinese exact", map[string]string{}, "修复后执行go test ./...再提交", nil, "go test ./...", SourceUser, ""},
		{"first whitelisted user command", goProject, "run `make lint` and `cargo test`", nil, "cargo test", SourceUser, "`make lint` not in the auto-verify whitelist"},
		{"two whitelisted user commands", goProject, "run `pytest -q` and then run `cargo test`", nil, "pytest -q", SourceUser, ""},
		{"config skips non-whitelisted", goProject, "", []string{"make test", "  yarn   test --watch=false "}, "yarn test --watch=false", SourceConfig, "make test"},
		{"config none whitelisted falls through", goProject, "", []string{"make test", "npm test"}, "go test ./...", SourceProject, "no whitelisted entry"},
		{"config blank entries", goProject, "", []string{"", "  "}, "go test ./...", SourceProject, ""},

		// A user-named command outside the whitelist is refused and nothing
		// else is run in its place, though config and project have one.
		{"user non-whitelisted backticks", goProject, "fix it and run `make test`", []string{"cargo test"}, "", "", "`make test`"},
		{"user non-whitelisted running text", goProject, "run make test when done", nil, "", "", "`make test`"},
		{"user whitelisted program with extra args", goProject, "run `go test ./core/...`", nil, "", "", "not in the auto-verify whitelist"},
		{"user cargo test filter", goProject, "run `cargo test parser`", nil, "", "", "`cargo test parser`"},
		{"user script", goProject, "then execute ./scripts/check.sh", nil, "", "", "./scripts/check.sh"},
		{"user Chinese non-whitelisted", goProject, "跑一下 `npm run test:unit`", nil, "", "", "npm run test:unit"},
		{"user python -m pytest", goProject, "run python -m pytest", nil, "", "", "python -m pytest"},

		// Commands that do not block.
		{"non-test command is not a candidate", goProject, "run `go run .` to try it", nil, "go test ./...", SourceProject, ""},
		{"negated command ignored", goProject, "don't run `cargo test`", nil, "go test ./...", SourceProject, ""},
		{"plain request", goProject, "run the tests", nil, "go test ./...", SourceProject, ""},
		{"backtick file name", goProject, "run the tests in `parser_test.go`", nil, "go test ./...", SourceProject, ""},

		{"nothing runnable", map[string]string{"Makefile": "test:\n"}, "add a flag", []string{"make test"}, "", "", "no whitelisted verify command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Choose(project(t, tc.files), tc.input, tc.configured)
			if c.Command != tc.want || c.Source != tc.source {
				t.Fatalf("Choose = %+v, want command %q from %q", c, tc.want, tc.source)
			}
			if c.Command != "" && !IsWhitelisted(c.Command) {
				t.Errorf("chose %q, not whitelisted", c.Command)
			}
			if c.Reason == "" || !strings.Contains(c.Reason, tc.reason) {
				t.Errorf("reason %q does not mention %q", c.Reason, tc.reason)
			}
		})
	}
}

func TestNamedCommands(t *testing.T) {
	for _, tc := range []struct {
		input string
		want  []string // commands, in order
	}{
		{"run go test ./... and fix", []string{"go test ./..."}},
		{"run cargo test quickly", []string{"cargo test"}},
		{"run `cargo test parser`", []string{"cargo test parser"}},
		{"run npm run test:unit -- --ci, then stop", []string{"npm run test:unit -- --ci"}},
		{"run \"make check\"", []string{"make check"}},
		{"run:\n```sh\npytest -q\n```", []string{"pytest -q"}},
		{"运行 ./gradlew test。", []string{"./gradlew test"}},
		{"the build is fine", nil},
		{"run the tests", nil},
	} {
		var got []string
		for _, n := range namedCommands(tc.input) {
			got = append(got, n.cmd)
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("namedCommands(%q) = %q, want %q", tc.input, got, tc.want)
		}
	}
}
