package verify

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Sources of a Choice.
const (
	SourceUser    = "user"
	SourceConfig  = "config"
	SourceProject = "project"
)

// Choice is the command auto-verify runs, or why there is none.
type Choice struct {
	Command string // a Whitelist entry; "" when nothing runnable
	Source  string // SourceUser, SourceConfig or SourceProject; "" with no command
	Reason  string // why this command, or why nothing runs
}

// Choose picks the verify command, highest first (seed 001 §6):
//
//  1. A whitelisted command the user named in userInput, in backticks or
//     running text ("run `go test ./...`", "跑 cargo test", "go test ./...
//     fails"); the short spellings pytest, npm/pnpm/yarn test, mvn test and
//     gradlew test name their whitelisted forms, which only add a quiet or
//     no-watch flag. Commands named after a negation ("don't run …") do not
//     count.
//  2. The first whitelisted entry of workflow.verify_commands (configured).
//     Entries must match exactly, up to blanks; others are skipped and named
//     in the reason.
//  3. The command inferred from the project type in root (see Infer).
//
// A user-named command outside the whitelist blocks the rest: when the user
// asked to run a command that looks like a test command ("run `make test`",
// "执行 ./scripts/check.sh") and named no whitelisted one, nothing runs and
// the reason says so. Running a different command than the one the user
// chose would be substituting, which the seed forbids; the user asked for
// their command, not for "some tests". Config entries do not block: the
// setting is defined as "the first whitelisted entry", so the others are
// skipped by definition.
func Choose(root string, userInput string, configured []string) Choice {
	var refused []string
	var pick named
	for _, n := range namedCommands(userInput) {
		switch {
		case n.negated:
		case n.canonical != "":
			if pick.canonical == "" {
				pick = n
			}
		case n.requested && looksLikeTest(n.cmd):
			refused = append(refused, "`"+n.cmd+"`")
		}
	}
	if pick.canonical != "" {
		reason := fmt.Sprintf("the user named `%s`", pick.cmd)
		if pick.cmd != pick.canonical {
			reason += fmt.Sprintf(", run as the whitelisted `%s`", pick.canonical)
		}
		if len(refused) > 0 {
			reason += fmt.Sprintf("; %s not in the auto-verify whitelist and not run", strings.Join(refused, ", "))
		}
		return Choice{Command: pick.canonical, Source: SourceUser, Reason: reason}
	}
	if len(refused) > 0 {
		return Choice{Reason: fmt.Sprintf("the user named %s, which is not in the auto-verify whitelist; nothing else is substituted", strings.Join(refused, ", "))}
	}

	var skipped []string
	for _, c := range configured {
		if w, ok := whitelisted(c); ok {
			reason := "first whitelisted entry of workflow.verify_commands"
			if len(skipped) > 0 {
				reason += "; skipped entries not in the whitelist: " + strings.Join(skipped, ", ")
			}
			return Choice{Command: w, Source: SourceConfig, Reason: reason}
		}
		if strings.TrimSpace(c) != "" {
			skipped = append(skipped, "`"+normalize(c)+"`")
		}
	}
	note := ""
	if len(skipped) > 0 {
		note = "; workflow.verify_commands has no whitelisted entry (skipped " + strings.Join(skipped, ", ") + ")"
	}

	cmd, why := Infer(root)
	if cmd == "" {
		return Choice{Reason: "no whitelisted verify command: " + why + note}
	}
	return Choice{Command: cmd, Source: SourceProject, Reason: why + note}
}

// maxMarkerSize bounds how much of a marker file is read.
const maxMarkerSize = 1 << 20

// Infer maps the project type found in root to its whitelisted command and
// says why; it returns "" and the reason when no type matches. Markers are
// tried in this order, the first match winning (a Go module with a
// package.json for its web assets is tested with go test):
//
//	go.mod                                → go test ./...
//	Cargo.toml                            → cargo test
//	pom.xml                               → mvn -q test
//	gradlew                               → ./gradlew test
//	build.gradle(.kts), settings.gradle(.kts) → gradle test
//	package.json with a "test" script     → by package manager:
//	    "packageManager" field (pnpm@…, yarn@…, npm@…) if set, else the lock
//	    file: pnpm-lock.yaml → pnpm, yarn.lock → yarn, package-lock.json,
//	    npm-shrinkwrap.json or none → npm
//	pytest.ini, pyproject.toml with [tool.pytest…], setup.cfg with
//	[tool:pytest], tox.ini with [pytest], or conftest.py → pytest -q
//
// A package.json without a test script, or with npm init's placeholder
// ("no test specified"), is no JS project for this purpose: npm test would
// fail for a reason no code fix cures.
func Infer(root string) (cmd, reason string) {
	has := func(name string) bool {
		fi, err := os.Stat(filepath.Join(root, name))
		return err == nil && fi.Mode().IsRegular()
	}
	switch {
	case has("go.mod"):
		return "go test ./...", "go.mod found"
	case has("Cargo.toml"):
		return "cargo test", "Cargo.toml found"
	case has("pom.xml"):
		return "mvn -q test", "pom.xml found"
	case has("gradlew"):
		return "./gradlew test", "gradlew found"
	}
	for _, name := range []string{"build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"} {
		if has(name) {
			return "gradle test", name + " found"
		}
	}
	jsNote := ""
	if has("package.json") {
		cmd, reason := inferJS(root, has)
		if cmd != "" {
			return cmd, reason
		}
		jsNote = "; " + reason
	}
	pytestMarkers := []struct{ file, section string }{
		{"pytest.ini", ""},
		{"pyproject.toml", "[tool.pytest"},
		{"setup.cfg", "[tool:pytest]"},
		{"tox.ini", "[pytest]"},
		{"conftest.py", ""},
	}
	for _, m := range pytestMarkers {
		if !has(m.file) {
			continue
		}
		if m.section == "" {
			return "pytest -q", m.file + " found"
		}
		if hasSection(filepath.Join(root, m.file), m.section) {
			return "pytest -q", m.file + " configures pytest"
		}
	}
	return "", "no project type with a whitelisted test command was recognized in the workspace root" + jsNote
}

func inferJS(root string, has func(string) bool) (cmd, reason string) {
	data, err := readCapped(filepath.Join(root, "package.json"))
	if err != nil {
		return "", fmt.Sprintf("package.json unreadable: %v", err)
	}
	var pkg struct {
		Scripts        map[string]any `json:"scripts"`
		PackageManager string         `json:"packageManager"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		return "", fmt.Sprintf("package.json is not valid JSON: %v", err)
	}
	test, _ := pkg.Scripts["test"].(string)
	if strings.TrimSpace(test) == "" || strings.Contains(test, "no test specified") {
		return "", "package.json has no test script"
	}
	pm := strings.ToLower(strings.TrimSpace(pkg.PackageManager))
	switch {
	case strings.HasPrefix(pm, "pnpm@"):
		return "pnpm test -- --watch=false", "package.json declares packageManager " + pkg.PackageManager
	case strings.HasPrefix(pm, "yarn@"):
		return "yarn test --watch=false", "package.json declares packageManager " + pkg.PackageManager
	case strings.HasPrefix(pm, "npm@"):
		return "npm test -- --watch=false", "package.json declares packageManager " + pkg.PackageManager
	case has("pnpm-lock.yaml"):
		return "pnpm test -- --watch=false", "package.json with pnpm-lock.yaml found"
	case has("yarn.lock"):
		return "yarn test --watch=false", "package.json with yarn.lock found"
	case has("package-lock.json"):
		return "npm test -- --watch=false", "package.json with package-lock.json found"
	case has("npm-shrinkwrap.json"):
		return "npm test -- --watch=false", "package.json with npm-shrinkwrap.json found"
	}
	return "npm test -- --watch=false", "package.json found, no lock file: npm"
}

// hasSection reports whether an INI/TOML file has a line starting with the
// section header prefix.
func hasSection(name, prefix string) bool {
	data, err := readCapped(name)
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(data)) {
		if strings.HasPrefix(strings.TrimSpace(line), prefix) {
			return true
		}
	}
	return false
}

func readCapped(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxMarkerSize))
}
