package verify

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// Outcome is how a finished verify run ended.
type Outcome int

const (
	// Passed: the command exited 0.
	Passed Outcome = iota
	// Failed: tests or the build failed; the model may fix and retry.
	Failed
	// EnvError: the command could not do its job (not found, missing
	// toolchain, timed out, killed); no code fix helps, so auto-verify ends.
	EnvError
)

func (o Outcome) String() string {
	switch o {
	case Passed:
		return "passed"
	case Failed:
		return "failed"
	case EnvError:
		return "environment error"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Output lines that mean the toolchain, not the code, is at fault. They
// are checked only on a non-zero exit.
type envPattern struct {
	re     *regexp.Regexp
	reason string
}

var envPatterns = sync.OnceValue(func() []envPattern {
	return []envPattern{
		{regexp.MustCompile(`(?m)^(/bin/|/usr/bin/)?(ba|da|z)?sh:( line \d+:| \d+:)? \S+: (command )?not found\s*$|executable file not found in \$PATH`), "command not found"},
		{regexp.MustCompile(`(?m)^(bash: )?\./gradlew: (No such file or directory|Permission denied)`), "gradle wrapper not runnable"},
		{regexp.MustCompile(`No module named pytest\b`), "pytest is not installed"},
		{regexp.MustCompile(`(?m)^(=+ )?no tests ran\b`), "no tests were collected"},
		{regexp.MustCompile(`(?i)npm (ERR!|error) Missing script: "?test`), "no test script"},
		{regexp.MustCompile(`(?i)ERR_PNPM_NO_SCRIPT|error Command "test" not found|Couldn't find a script named "test"`), "no test script"},
		{regexp.MustCompile(`go: go\.mod file not found|go: cannot find main module`), "no Go module"},
		{regexp.MustCompile(`toolchain not available|go: cannot find GOROOT`), "Go toolchain missing"},
		{regexp.MustCompile("could not find `Cargo\\.toml`|toolchain '[^']+' is not installed|no default toolchain configured|rustup could not choose a version"), "Rust toolchain missing"},
		{regexp.MustCompile(`JAVA_HOME is not set|Unable to locate a Java Runtime|no Java runtime present|Could not find or load main class org\.gradle\.wrapper|The JAVA_HOME environment variable is not defined correctly`), "Java toolchain missing"},
		{regexp.MustCompile(`(?i)ENOSPC|No space left on device`), "disk full"},
	}
})

// Classify reads a finished run of a verify command. Canceled runs are not
// classified: the turn ends with them.
func Classify(exitCode int, timedOut bool, output string) Outcome {
	o, _ := Diagnose(exitCode, timedOut, output)
	return o
}

// Diagnose is Classify with the reason for an EnvError (or a failure), for
// the best-effort warning:
//   - timed out → EnvError;
//   - exit 0 → Passed;
//   - exit -1 (bash could not start), 126 (not executable), 127 (not found)
//     → EnvError;
//   - killed from outside: 128+N for SIGHUP, SIGINT, SIGKILL, SIGTERM
//     (129, 130, 137, 143) → EnvError; a crash by the code's own signal
//     (SIGSEGV 139, SIGABRT 134 …) is a test failure;
//   - other exits → EnvError when the output shows a missing command or
//     toolchain (envPatterns), else Failed.
func Diagnose(exitCode int, timedOut bool, output string) (Outcome, string) {
	switch {
	case timedOut:
		return EnvError, "timed out"
	case exitCode == 0:
		return Passed, ""
	case exitCode == -1:
		return EnvError, "could not start the command"
	case exitCode == 126:
		return EnvError, "command not executable (exit 126)"
	case exitCode == 127:
		return EnvError, "command not found (exit 127)"
	case exitCode == 129 || exitCode == 130 || exitCode == 137 || exitCode == 143:
		return EnvError, fmt.Sprintf("killed by signal %d", exitCode-128)
	}
	for _, p := range envPatterns() {
		if p.re.MatchString(output) {
			return EnvError, p.reason
		}
	}
	return Failed, fmt.Sprintf("exit code %d", exitCode)
}

// EnvWarning is the best-effort warning shown when auto-verify ends on an
// environment error.
func EnvWarning(command, reason string) string {
	return fmt.Sprintf("auto-verify stopped: `%s` could not run (%s); this is a best-effort check, so the changes are unverified", command, reason)
}

// Output caps for the model: the first lines show the first failure, the
// last ones the summary.
const (
	CapHead = 2 << 10
	CapTail = 6 << 10
)

// Cap returns output whole if it fits in head+tail bytes, else its first
// head and last tail bytes around a marker saying how much was left out.
// Cuts fall on rune boundaries and, when one is near (within 256 bytes
// of the cut), on line boundaries. Negative sizes count as 0.
func Cap(output string, head, tail int) string {
	head, tail = max(head, 0), max(tail, 0)
	if len(output) <= head+tail {
		return output
	}
	h := head
	for h > 0 && !utf8.RuneStart(output[h]) {
		h--
	}
	if nl := strings.LastIndexByte(output[:h], '\n'); nl >= 0 && h-nl-1 <= 256 {
		h = nl + 1
	}
	t := len(output) - tail
	for t < len(output) && !utf8.RuneStart(output[t]) {
		t++
	}
	if nl := strings.IndexByte(output[t:], '\n'); nl >= 0 && nl < 256 && t > 0 && output[t-1] != '\n' {
		t += nl + 1
	}
	return fmt.Sprintf("%s\n[… %d bytes omitted …]\n%s", output[:h], t-h, output[t:])
}

// FixPrompt is the message injected for the model after a retryable
// failure of attempt (1-based) of limit: the capped output and, while
// attempts remain, "fix it and verify again". Verification reruns by itself
// after the next edit, so the model is told not to run the command itself.
// When attempt has reached limit, it says no automatic attempt is left and
// asks the model to report the failure instead.
func FixPrompt(command string, output string, attempt, limit int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Auto-verify: `%s` failed (attempt %d of %d).\n\n", command, attempt, limit)
	b.WriteString("Output (capped):\n```\n")
	out := Cap(strings.TrimRight(output, "\n"), CapHead, CapTail)
	b.WriteString(strings.ReplaceAll(out, "```", "` ` `"))
	b.WriteString("\n```\n\n")
	if attempt < limit {
		fmt.Fprintf(&b, "Fix the cause and verify again: after your next edit `%s` runs again automatically (attempt %d of %d), so do not run it yourself. Change the code, not the tests, unless the tests are wrong.", command, attempt+1, limit)
	} else {
		b.WriteString("That was the last automatic attempt. Do not retry; tell the user that verification still fails and summarize the failure and what you think causes it.")
	}
	return b.String()
}
