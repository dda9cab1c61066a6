package shellcheck

import (
	"slices"
	"strings"
	"testing"
)

func TestPrefix(t *testing.T) {
	tests := []struct{ args, want string }{
		{"ls -la", "ls"},
		{"cat a b", "cat"},
		{"git push origin main", "git push"},
		{"git -C sub push --force", "git push"},
		{"git --no-pager log -n 3", "git log"},
		{"git stash pop", "git stash pop"},
		{"git", "git"},
		{"npm install", "npm install"},
		{"npm run test -- --watch", "npm run test"},
		{"npm --prefix web run build", "npm run build"},
		{"pnpm run lint", "pnpm run lint"},
		{"yarn test", "yarn test"},
		{"cargo test --all", "cargo test"},
		{"go test -run TestX ./...", "go test"},
		{"go test ./...", "go test"},
		{"go mod tidy", "go mod tidy"},
		{"go run ./cmd/x", "go run ./cmd/x"},
		{"go run -tags dev .", "go run -tags dev ."},
		{"docker compose up -d", "docker compose up"},
		{"docker ps", "docker ps"},
		{"kubectl -n prod get pods", "kubectl get"},
		{"make", "make"},
		{"make -j 4 build", "make build"},
		{"make -C dir test", "make test"},
		{"gh pr create --fill", "gh pr create"},
		{"python3 -m pytest -x", "python3 -m pytest"},
		// Interpreters key with their script; one-liners, stdin and
		// REPLs have no key (never remembered).
		{"python3 script.py", "python3 script.py"},
		{"python3 -u tools/gen.py --out x", "python3 -u tools/gen.py"},
		{"python3 -W ignore a.py", "python3 -W ignore a.py"},
		{"python3 -c print(1)", ""},
		{"python3 -Wignore -c x", ""},
		{"python3", ""},
		{"python3 -", ""},
		{"python3.12 -m http.server", "python3.12 -m http.server"},
		{"node server.js", "node server.js"},
		{"node -e x", ""},
		{"node --eval=x", ""},
		{"node -r ts-node/register a.ts", "node -r ts-node/register a.ts"},
		{"perl -e x", ""},
		{"perl -Ilib t/a.t", "perl -Ilib t/a.t"},
		{"ruby -e x", ""},
		{"ruby a.rb", "ruby a.rb"},
		{"bash build.sh", "bash build.sh"},
		{"bash -x build.sh", "bash -x build.sh"},
		{"bash -xc x", ""},
		{"sh -c x", ""},
		{"zsh", ""},
		{"php -r x", ""},
		{"php -c php.ini a.php", "php -c php.ini a.php"},
		{"lua -e x", ""},
		{"deno run -A main.ts", "deno run -A main.ts"},
		{"deno eval x", ""},
		{"bun run dev.ts", "bun run dev.ts"},
		{"bun -e x", ""},
		{"bun install", "bun install"},
		{"deno task build --watch", "deno task build"},
		{"bun x.ts", "bun x.ts"},
		{"python3 $SCRIPT", ""},
		{"./run.sh arg", "./run.sh"},
		{"npm run $TARGET", "npm run"},
	}
	for _, tc := range tests {
		got := strings.Join(Prefix(strings.Fields(tc.args)), " ")
		if got != tc.want {
			t.Errorf("Prefix(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
	if Prefix(nil) != nil {
		t.Error("Prefix(nil) should be nil")
	}
}

func TestCommandsLookThroughWrappers(t *testing.T) {
	tests := []struct {
		cmd  string
		want [][]string
	}{
		{"sudo -u root env X=1 timeout 5 git push -f", [][]string{{"git", "push", "-f"}}},
		{"FOO=1 nice -n 3 xargs -I{} rm -rf {}", [][]string{{"rm", "-rf", "{}"}}},
		{"ls 'a b'; echo \"x y\" && pwd", [][]string{{"ls", "a b"}, {"echo", "x y"}, {"pwd"}}},
		{"cat f | grep x", [][]string{{"cat", "f"}, {"grep", "x"}}},
		{"echo $(date)", [][]string{{"date"}, {"echo", "$(date)"}}},
		{`bash -c "go test && ls"`, [][]string{{"go", "test"}, {"ls"}, {"bash", "-c", "go test && ls"}}},
	}
	for _, tc := range tests {
		a := Analyze(tc.cmd, ws)
		var got [][]string
		for _, c := range a.Commands {
			got = append(got, c.Args)
		}
		if !slices.EqualFunc(got, tc.want, slices.Equal) {
			t.Errorf("Analyze(%q).Commands = %q, want %q", tc.cmd, got, tc.want)
		}
	}
}

func TestParseErrorIsNeverReadOnly(t *testing.T) {
	for _, cmd := range []string{"ls (", "echo 'x", "cat <<EOF", "if true; then", "ls |", `bash -c "ls ("`} {
		a := Analyze(cmd, ws)
		if a.Class == ReadOnly || a.ParseError == "" || len(a.Reasons) == 0 || !strings.Contains(a.Reasons[0], "parse") {
			t.Errorf("Analyze(%q) = %v, parse error %q, reasons %q", cmd, a.Class, a.ParseError, a.Reasons)
		}
	}
}

func TestNoWorkspaceRoot(t *testing.T) {
	if c := Analyze("echo x > f", "").Class; c != Unknown {
		t.Errorf("relative write without root = %v, want unknown", c)
	}
	if c := Analyze("echo x > /etc/f", "").Class; c != Dangerous {
		t.Errorf("absolute write without root = %v, want dangerous", c)
	}
	if c := Analyze("echo x > "+ws+"/f", ws).Class; c != Unknown {
		t.Errorf("absolute write inside root = %v, want unknown", c)
	}
}

func TestDeepNestingIsBounded(t *testing.T) {
	cmd := "ls"
	for range 10 {
		cmd = "eval " + shQuote(cmd)
	}
	if a := Analyze(cmd, ws); a.Class == ReadOnly {
		t.Errorf("deeply nested eval = %v, want not read-only", a.Class)
	}
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func TestClassString(t *testing.T) {
	for c, want := range map[Class]string{ReadOnly: "read-only", Unknown: "unknown", Dangerous: "dangerous"} {
		if c.String() != want {
			t.Errorf("%d.String() = %q", c, c.String())
		}
	}
	if !(ReadOnly < Unknown && Unknown < Dangerous) {
		t.Error("classes not ordered")
	}
}

func BenchmarkAnalyze(b *testing.B) {
	cmd := `cd sub && FOO=1 git diff --stat | grep -v vendor | sort -u > /dev/null; find . -name '*.go' -exec grep -l TODO {} \; && bash -c "go test ./... && rm -rf build"`
	for b.Loop() {
		Analyze(cmd, ws)
	}
}
