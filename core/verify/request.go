package verify

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// The input is read clause by clause: a request ("run the tests") and its
// refusal ("don't run the tests") rarely share a clause with the other, and
// the clause keeps "it does not compile. run the tests" apart.

// clause is one stretch of input between separators. Backtick spans are kept
// whole, so "run `a; b`" stays one clause.
type clause struct {
	text string // as typed
	low  string // lower-cased (same byte offsets: ToLower is not used)
}

// splitClauses cuts at newlines, ! ? ; , and their full-width forms, 。 、,
// and at '.' followed by a blank or the end unless it follows '.' or '/'
// ("./..." and "pytest.ini" stay).
func splitClauses(s string) []clause {
	var out []clause
	start := 0
	inTick := false
	fence := false
	add := func(end int) {
		t := strings.TrimSpace(s[start:end])
		if t != "" {
			out = append(out, clause{text: t, low: asciiLower(t)})
		}
	}
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], "```") {
			fence = !fence
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if fence {
			i += size
			continue
		}
		if r == '`' {
			inTick = !inTick
			i += size
			continue
		}
		if inTick && r != '\n' {
			i += size
			continue
		}
		sep := false
		switch r {
		case '\n', '!', '?', ';', ',', '，', '。', '；', '！', '？', '、':
			sep = true
		case '.':
			// "./..." and "etc..." end a path or an ellipsis, not a clause.
			after := i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\t' || s[i+1] == '\n' || s[i+1] == '\r'
			sep = after && (i == 0 || s[i-1] != '.' && s[i-1] != '/')
		}
		if sep {
			if r == '\n' {
				inTick = false
			}
			add(i)
			start = i + size
		}
		i += size
	}
	add(len(s))
	return out
}

// asciiLower lower-cases ASCII only, keeping byte offsets equal to s's.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func anyMatch(res []*regexp.Regexp, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// Requests to run verification, matched against a lower-cased clause.
// The patterns of this package compile on first use, not at start-up:
// `coder-nvim --version` and a cold host must not pay for them.
var askPatterns = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		// run the tests / rerun all unit tests / execute the test suite / run verification
		regexp.MustCompile(`\b(do|perform)\s+(a\s+|the\s+)?(verification|verify)\b`),
		regexp.MustCompile(`\b(run|re-?run|execute|exec)\s+(the\s+|all\s+|of\s+|our\s+|my\s+|your\s+|its\s+|existing\s+|project\s+|relevant\s+|full\s+|a\s+|unit\s+|integration\s+)*(tests?|test\s*suite|specs?|verification|verify)\b`),
		// verify it / validate your changes
		regexp.MustCompile(`\b(verify|validate|double-check)\s+(it|this|them|everything|the\s+(change|changes|fix|fixes|edit|edits|result|results|build|code|behaviou?r)|your\s+(change|changes|work|fix|edit|edits))\b`),
		// a clause that is just "verify" / "and test it" / "then verify again"
		regexp.MustCompile(`(^|\b(and|then)\s+)(please\s+|also\s+|finally\s+|now\s+)*(verify|validate|test)(\s+(it|this|them|everything))?(\s+again)?(\s+please)?\s*$`),
		// test it / test your changes
		regexp.MustCompile(`\btest\s+(it|your\s+changes?|the\s+changes?|the\s+fix|everything)\b`),
		// make sure the tests pass / ensure the test suite still passes
		regexp.MustCompile(`\b(make\s+sure|ensure|confirm|check)\s+(that\s+)?(all\s+)?(of\s+)?(the\s+)?(unit\s+)?(tests?|test\s+suite|it|everything|the\s+build|build)\s+(still\s+)?(pass|passes|works?|compiles?|builds?|succeeds?|is\s+green|are\s+green)\b`),
		// the tests must still pass
		regexp.MustCompile(`\btests?\s+(must|should|need\s+to|have\s+to)\s+(still\s+)?pass\b`),
		// 跑测试 / 运行测试 / 执行验证 / 跑一下单测 / 重新跑一遍用例
		regexp.MustCompile(`(跑|运行|执行|重跑|重新跑|重新运行|重新执行)\s*(一下|下|一遍|一次|遍)?\s*(所有的?|全部的?|现有的?|项目的?)?(单元|集成)?(测试|单测|用例|验证|自测)`),
		// 验证一下 / 测试一下 / 验证下吧. A bare 下 counts only where it ends
		// the phrase: 测试下载, 验证下单 and 检验下游 are nouns (test the
		// download, validate the order, check the downstream).
		regexp.MustCompile(`(验证|测试|校验|检验)(一下|一遍|下($|吧|看|呢|啊|了|是否|能否|有没有))`),
		// 修复并验证 / 然后测试, but not 合并测试用例 (merge the test cases) or
		// 不再验证证书 (no longer verify certificates).
		regexp.MustCompile(`(^|[^合归兼吞不])(并|然后|再|之后|最后|顺便)(验证|测试|自测)`),
		// 确保测试都通过 / 保证单测能跑通
		regexp.MustCompile(`(确保|保证|确认)(所有的?|全部)?(测试|单测|用例)(都|全部|仍然|依然)?(能)?(通过|跑通|过)`),
		regexp.MustCompile(`(跑通|跑过)(测试|单测|用例)`),
		// a clause that is just 验证 / 请自测
		regexp.MustCompile(`^(请)?(验证|自测|测试)(一下)?$`),
	}
})

// Refusals, matched against a lower-cased clause. A clause with a refusal
// asks for nothing.
var declinePatterns = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`\b(don'?t|do\s+not|never|without|no\s+need\s+to|not\s+need\s+to|needn'?t)\s+((bother|need|have|want|try)\s+(to\s+)?)?(re-?run|run|running|execute|executing|verify|verifying|test|testing)\b`),
		regexp.MustCompile(`\bskip(ping)?\s+(the\s+|all\s+)*(tests?|testing|verification|verify|auto-?verify)\b`),
		regexp.MustCompile(`\bno\s+(need\s+(for|of)\s+)?(tests?|testing|verification)\b`),
		regexp.MustCompile(`(不要|不用|别|无需|不需要|不必|先不|没必要|跳过)(再)?(去)?(跑|运行|执行)?(一下|下)?(测试|单测|用例|验证|自测)`),
	}
})

// Negation words that make a command named after them a refusal.
var negationRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(don'?t|do\s+not|never|without|no\s+need|skip|skipping)\b|不要|不用|别跑|别运行|别执行|无需|不需要|不必|先不|没必要|跳过`)
})

// UserAskedToVerify reports whether input explicitly asks for verification
// to run: "run the tests", "verify it", "make sure the tests pass", "fix it
// and verify", "跑测试", "运行测试", "执行验证", "验证一下", "修复并验证",
// "确保测试通过" …, or it asks to run a command (after "run"/"运行"/"执行"/"跑"
// …) that is whitelisted or looks like a test command. A clause that refuses
// ("don't run the tests", "不要跑测试") asks for nothing. Writing code that
// verifies ("add a verify function", "写测试") is not a request.
func UserAskedToVerify(input string) bool {
	for _, c := range splitClauses(input) {
		if anyMatch(declinePatterns(), c.low) {
			continue
		}
		if anyMatch(askPatterns(), c.low) {
			return true
		}
	}
	for _, n := range namedCommands(input) {
		if n.requested && !n.negated && (n.canonical != "" || looksLikeTest(n.cmd)) {
			return true
		}
	}
	return false
}

// UserDeclinedVerify reports whether input asks not to run verification
// ("don't run the tests", "skip the tests", "不用跑测试") and does not ask
// for it elsewhere.
func UserDeclinedVerify(input string) bool {
	declined := false
	for _, c := range splitClauses(input) {
		if anyMatch(declinePatterns(), c.low) {
			declined = true
		}
	}
	return declined && !UserAskedToVerify(input)
}

// named is a command found in the input.
type named struct {
	cmd       string // as typed, blanks collapsed
	canonical string // the whitelist entry it names, or ""
	requested bool   // follows a run verb: the user asks to run it
	negated   bool   // a negation precedes it in its clause
}

// aliases lets the short spelling a person types name a whitelist entry that
// only adds a quiet or no-watch flag to the same command. "go test" is not an
// alias: ./... changes what is tested.
var aliases = map[string]string{
	"pytest":        "pytest -q",
	"npm test":      "npm test -- --watch=false",
	"npm run test":  "npm test -- --watch=false",
	"pnpm test":     "pnpm test -- --watch=false",
	"pnpm run test": "pnpm test -- --watch=false",
	"yarn test":     "yarn test --watch=false",
	"yarn run test": "yarn test --watch=false",
	"mvn test":      "mvn -q test",
	"gradlew test":  "./gradlew test",
}

// canonicalOf maps a command the user named to its whitelist entry.
func canonicalOf(cmd string) string {
	n := normalize(cmd)
	if w, ok := whitelisted(n); ok {
		return w
	}
	return aliases[n]
}

// Programs that start a command in running text, after a run verb.
var programs = map[string]bool{
	"go": true, "pytest": true, "npm": true, "pnpm": true, "yarn": true, "cargo": true,
	"mvn": true, "gradle": true, "./gradlew": true, "gradlew": true, "make": true, "just": true,
	"tox": true, "nox": true, "python": true, "python3": true, "py": true, "bun": true,
	"deno": true, "npx": true, "pnpx": true, "bunx": true, "jest": true, "vitest": true,
	"mocha": true, "ctest": true, "bazel": true, "bazelisk": true, "rake": true, "rspec": true,
	"bundle": true, "phpunit": true, "composer": true, "dotnet": true, "mix": true, "sbt": true,
	"lein": true, "stack": true, "cabal": true, "zig": true, "swift": true, "flutter": true,
	"dart": true, "nx": true, "turbo": true, "task": true, "ninja": true, "meson": true,
	"cmake": true, "mage": true, "uv": true, "poetry": true, "hatch": true, "pdm": true,
	"node": true, "ruby": true, "php": true, "perl": true, "bash": true, "sh": true,
	"golangci-lint": true, "ruff": true, "mypy": true, "eslint": true, "tsc": true,
}

// Whitelisted programs and the word that must follow them for a mention
// without a run verb ("go test ./... fails") to count as naming a command.
var whitelistHeads = map[string]bool{
	"go test": true, "pytest": true, "npm test": true, "pnpm test": true, "yarn test": true,
	"cargo test": true, "mvn -q": true, "mvn test": true, "gradle test": true, "./gradlew test": true,
}

// Bare words that end a command in running text.
var stopWords = map[string]bool{
	"and": true, "then": true, "to": true, "please": true, "again": true, "now": true,
	"first": true, "with": true, "so": true, "until": true, "before": true, "after": true,
	"for": true, "in": true, "on": true, "it": true, "if": true, "or": true, "but": true,
	"once": true, "when": true, "also": true, "too": true, "as": true, "from": true, "at": true,
	"of": true, "the": true, "a": true, "an": true, "this": true, "that": true, "them": true,
	"is": true, "are": true, "was": true, "fails": true, "failed": true, "passes": true,
	"passed": true, "still": true, "should": true, "must": true, "will": true, "works": true,
}

var verbRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(run|re-?run|execute|exec|use|using|via|with)\b\s*(the\s+)?(command\s+)?|(运行|执行|重跑|跑|用|使用)\s*(一下|下|一遍)?\s*(命令)?\s*`)
})

// namedCommands finds the commands the input names: backtick spans, quoted
// or fenced text after a run verb, running text after a run verb that starts
// with a known program or a path ("run make test", "跑 ./test.sh"), and
// whitelisted commands anywhere ("go test ./... fails").
//
// In running text a command ends at a clause separator, a CJK character, or
// a bare word after the first (or second, after "run"/"-m") that is a flag,
// path or assignment only: "run cargo test quickly" names "cargo test".
// Backticks are exact.
func namedCommands(input string) []named {
	var out []named
	seen := map[int]bool{} // start offsets within a clause, to skip duplicates
	for _, c := range splitClauses(input) {
		clear(seen)
		add := func(start int, cmd string, requested bool) {
			cmd = normalize(strings.TrimPrefix(strings.TrimSpace(cmd), "$ "))
			if cmd == "" || seen[start] {
				return
			}
			seen[start] = true
			out = append(out, named{
				cmd:       cmd,
				canonical: canonicalOf(cmd),
				requested: requested,
				negated:   negationRE().MatchString(c.low[:start]),
			})
		}
		// covered marks bytes of commands already read (and of backtick
		// spans), so "run python -m pytest" does not also name "pytest".
		covered := make([]bool, len(c.text)+1)
		cover := func(from, to int) {
			for j := from; j < to && j < len(covered); j++ {
				covered[j] = true
			}
		}
		// After a run verb.
		for _, m := range verbRE().FindAllStringIndex(c.low, -1) {
			at := m[1]
			if span, ok := quoted(c.text[at:]); ok {
				for _, line := range strings.Split(span, "\n") {
					add(at, line, true)
				}
				continue
			}
			if cmd, n := runningCommand(c.text[at:], false); cmd != "" {
				add(at, cmd, true)
				cover(at, at+n)
			}
		}
		// Backtick spans anywhere name a command when whitelisted; running
		// text inside them is not read again below.
		for i := 0; i < len(c.text); i++ {
			if c.text[i] != '`' {
				continue
			}
			span, ok := quoted(c.text[i:])
			if !ok {
				continue
			}
			if !seen[i] {
				for _, line := range strings.Split(span, "\n") {
					if canonicalOf(line) != "" {
						add(i, line, false)
					}
				}
			}
			end := i + spanLen(c.text[i:])
			cover(i, end)
			i = end - 1
		}
		// Whitelisted commands in running text.
		for i := 0; i < len(c.low); i++ {
			if covered[i] || c.low[i] == ' ' || c.low[i] == '\t' || i > 0 && !boundary(c.low[i-1]) {
				continue
			}
			if cmd, _ := runningCommand(c.text[i:], true); cmd != "" && canonicalOf(cmd) != "" {
				add(i, cmd, false)
			}
		}
	}
	return out
}

// spanLen is the length in bytes of the backtick span at the start of s,
// delimiters included; quoted must have found it.
func spanLen(s string) int {
	if strings.HasPrefix(s, "```") {
		return 3 + strings.Index(s[3:], "```") + 3
	}
	return 1 + strings.IndexByte(s[1:], '`') + 1
}

func boundary(b byte) bool {
	return b == ' ' || b == '\t' || b == '`' || b == '"' || b == '\'' || b == '(' || b >= utf8.RuneSelf
}

// quoted returns the text of a span at the start of s: `x`, ```x```, "x",
// 'x', “x”, ‘x’ or 「x」.
func quoted(s string) (string, bool) {
	if rest, ok := strings.CutPrefix(s, "```"); ok {
		if i := strings.Index(rest, "```"); i >= 0 {
			body := rest[:i]
			// Drop a language tag on the fence line: ```sh
			if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.ContainsAny(body[:nl], " \t") {
				body = body[nl+1:]
			}
			return body, true
		}
		return "", false
	}
	pairs := [][2]string{{"`", "`"}, {`"`, `"`}, {"'", "'"}, {"“", "”"}, {"‘", "’"}, {"「", "」"}}
	for _, p := range pairs {
		if rest, ok := strings.CutPrefix(s, p[0]); ok {
			if i := strings.Index(rest, p[1]); i > 0 {
				return rest[:i], true
			}
		}
	}
	return "", false
}

// runningCommand reads a command at the start of s in running text, or "",
// and the length of s it spans. With onlyWhitelisted, it must start with a
// whitelisted program and its subcommand.
func runningCommand(s string, onlyWhitelisted bool) (string, int) {
	var toks []string
	var ends []int // end offset in s of each token
	pos := 0
	for _, f := range strings.Fields(s) {
		start := pos + strings.Index(s[pos:], f)
		pos = start + len(f)
		// A CJK character ends the command: "跑go test ./...再提交".
		cut := strings.IndexFunc(f, func(r rune) bool { return r >= 0x2E80 })
		if cut >= 0 {
			f = f[:cut]
		}
		stop := cut >= 0
		if t := strings.TrimRight(f, ",;:!?)"); t != f {
			f, stop = t, true
		}
		if strings.HasSuffix(f, ".") && !strings.HasSuffix(f, "...") || strings.HasSuffix(f, "....") {
			f, stop = f[:len(f)-1], true
		}
		if f != "" {
			toks = append(toks, f)
			ends = append(ends, start+len(f))
		}
		if stop {
			break
		}
	}
	if len(toks) == 0 {
		return "", 0
	}
	prog := strings.ToLower(toks[0])
	if !programs[prog] && !pathLike(prog) {
		return "", 0
	}
	n := 1
	bare := 0
	maxBare := 1
	for ; n < len(toks); n++ {
		t := toks[n]
		lt := strings.ToLower(t)
		switch {
		case strings.HasPrefix(t, "-"):
			if n+1 < len(toks) && t == "-m" {
				maxBare++ // python -m pytest
			}
			continue
		case pathLike(t) || strings.Contains(t, "="):
			continue
		case stopWords[lt] || bare >= maxBare || !isWord(lt):
		default:
			bare++
			if lt == "run" || lt == "exec" {
				maxBare++ // npm run test
			}
			continue
		}
		break
	}
	cmd := strings.Join(toks[:n], " ")
	if onlyWhitelisted {
		low := strings.ToLower(cmd)
		ok := false
		for h := range whitelistHeads {
			if low == h || strings.HasPrefix(low, h+" ") {
				ok = true
			}
		}
		if !ok {
			return "", 0
		}
	}
	return cmd, ends[n-1]
}

func pathLike(t string) bool {
	return strings.Contains(t, "/") || strings.HasPrefix(t, ".") ||
		strings.HasSuffix(t, ".sh") || strings.HasSuffix(t, ".py")
}

func isWord(t string) bool {
	for _, r := range t {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune(":_-", r) {
			return false
		}
	}
	return t != ""
}

// looksLikeTest reports whether a non-whitelisted command the user asked to
// run is a verification command (so it blocks substitution) rather than,
// say, a dev server.
func looksLikeTest(cmd string) bool {
	low := strings.ToLower(cmd)
	for _, w := range []string{"test", "spec", "check", "verify", "lint", "vet", "tox", "nox"} {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}
