package shellcheck

import (
	"strings"
)

// arity is how many words identify a command for "always" approvals:
// "git push", "go test", "npm run build". Commands not listed use one word.
var arity = map[string]int{
	"git": 2, "npm": 2, "pnpm": 2, "yarn": 2, "bun": 2, "deno": 2, "cargo": 2, "go": 2,
	"docker": 2, "podman": 2, "kubectl": 2, "helm": 2, "make": 2, "just": 2, "terraform": 2,
	"tofu": 2, "pip": 2, "pip3": 2, "uv": 2, "poetry": 2, "pipenv": 2, "conda": 2, "gh": 3,
	"glab": 3, "systemctl": 2, "apt": 2, "apt-get": 2, "brew": 2, "rustup": 2, "dotnet": 2,
	"mvn": 2, "gradle": 2, "./gradlew": 2, "composer": 2, "bundle": 2, "rake": 2, "nix": 2,
	"gcloud": 3, "aws": 3, "az": 3, "npx": 2, "pnpx": 2, "bunx": 2, "swift": 2, "mix": 2,
	"rails": 2, "zig": 2, "stack": 2, "cabal": 2, "opam": 2, "dune": 2, "ninja": 2, "cmake": 1,
}

// deeper lists prefixes whose next word is also part of the key.
var deeper = map[string]int{
	"npm run": 3, "npm run-script": 3, "npm exec": 3, "pnpm run": 3, "pnpm exec": 3, "pnpm dlx": 3,
	"yarn run": 3, "yarn dlx": 3, "bun run": 3, "bun x": 3, "go mod": 3, "go work": 3, "go tool": 3,
	"go run": 3, "docker compose": 3, "docker container": 3, "docker image": 3, "docker volume": 3,
	"docker network": 3, "docker system": 3, "docker buildx": 3, "kubectl config": 3,
	"kubectl rollout": 3, "git stash": 3, "git remote": 3, "git submodule": 3, "git worktree": 3,
	"git config": 3, "git reflog": 3, "uv run": 3, "uv pip": 3, "uv tool": 3, "poetry run": 3,
	"pipenv run": 3, "cargo run": 2, "deno task": 3, "bundle exec": 3, "dotnet tool": 3,
	"nix flake": 3,
}

// prefixValueFlags are options before the subcommand that take a value,
// so that "git -C dir push" keys as "git push".
var prefixValueFlags = map[string]map[string]bool{
	"git":    gitGlobalValue,
	"make":   set("-C", "-f", "--file", "--directory", "-I", "-o", "-W"),
	"docker": set("-H", "--host", "--context", "-c", "--config", "-l", "--log-level"),
	"kubectl": set("-n", "--namespace", "--context", "--kubeconfig", "--cluster", "--user", "-s",
		"--server"),
	"npm":   set("--prefix", "-w", "--workspace"),
	"pnpm":  set("--filter", "-F", "-C", "--dir"),
	"yarn":  set("--cwd"),
	"cargo": set("-C", "--config", "-Z"),
	"go":    set("-C"),
}

// Prefix returns the approval key of a simple command by arity: "git
// push" rather than "git", "npm run test" rather than "npm", "ls" for ls.
// Options are skipped while looking for subcommands, and the key stops at
// a word that is not a plain literal. An interpreter keys with its script
// (interpreterKey), and a one-liner has no key: nil, never remembered.
func Prefix(args []string) []string {
	if len(args) == 0 {
		return nil
	}
	name := args[0]
	key := []string{name}
	if k, ok := interpreterKey(args); ok {
		return k // the interpreter and its script, or nothing
	}
	need := arity[name]
	if need == 0 {
		need = 1
	}
	valueFlags := prefixValueFlags[name]
	for i := 1; i < len(args) && len(key) < need; i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			if valueFlags[a] {
				i++
			}
			continue
		}
		if a == "" || strings.ContainsAny(a, "$`*?[]{}|;&<>()'\"\\ \t\n=/") {
			break
		}
		if name == "make" && isDigits(a) {
			continue
		}
		key = append(key, a)
		if d, ok := deeper[strings.Join(key, " ")]; ok && d > need {
			need = d
		}
	}
	return key
}
