package shellcheck

import "strings"

// The Go toolchain's read-only commands: go list, go env, go vet, go
// version/doc/help, and gofmt without -w. The repository cannot make them
// run a program of its choosing: GOFLAGS and GOENV come from the
// environment (an assignment in the command is judged apart), go.work and
// go.mod set no tool; only flags can, and those are refused here.

// goFlag is the name of a Go-style flag argument ("-x", "--x=1" → "x"),
// "" for an operand.
func goFlag(s string) string {
	if !strings.HasPrefix(s, "-") || s == "-" {
		return ""
	}
	name, _, _ := strings.Cut(strings.TrimLeft(s, "-"), "=")
	return name
}

func goCmd(rest []arg) effect {
	if len(rest) == 0 || !allLit(rest) {
		return effect{Unknown, "not known to be read-only"}
	}
	switch rest[0].s {
	case "list":
		for _, a := range rest[1:] {
			switch goFlag(a.s) {
			case "toolexec", "exec", "mod", "modfile", "export", "compiled", "overlay", "pkgdir", "pgo", "a", "x", "n", "work", "o":
				return effect{Unknown, "go list " + a.s + " builds or runs tools"}
			}
		}
		return readOnly
	case "vet":
		return goVet(rest[1:])
	case "version", "doc", "help":
		return readOnly
	case "env":
		for _, a := range rest[1:] {
			if a.s == "-w" || a.s == "-u" {
				return effect{Unknown, "go env -w changes the Go configuration"}
			}
		}
		return readOnly
	}
	return effect{Unknown, "not known to be read-only"}
}

// goVetRefused are go vet's flags that run a program (-vettool,
// -toolexec, a compiler's plugins through its flags), write files (-fix,
// -o, profiles, -mod=mod's go.mod) or read a build from elsewhere.
var goVetRefused = set(
	"vettool", "toolexec", "exec", "fix", "diff", "o", "mod", "modfile", "overlay", "pkgdir", "pgo", "work",
	"compiler", "gccgoflags", "gcflags", "asmflags", "ldflags", "buildmode", "linkshared", "toolchain",
	"cpuprofile", "memprofile", "trace", "cover", "coverpkg", "covermode",
)

// goVet: go vet type-checks and runs the analyzers, which execute none of
// the package's code.
func goVet(rest []arg) effect {
	for _, a := range rest {
		name := goFlag(a.s)
		if goVetRefused[name] || strings.HasSuffix(name, "profile") {
			return effect{Unknown, "go vet " + a.s + " runs a program or writes files"}
		}
	}
	return readOnly
}

// gofmtCmd: gofmt prints (-l lists, -d diffs, -s and -r rewrite what it
// prints); -w writes the files and -cpuprofile a profile.
func gofmtCmd(rest []arg) effect {
	for _, a := range rest {
		if !a.lit {
			return notLiteral
		}
		switch goFlag(a.s) {
		case "", "l", "d", "s", "e", "r":
		default:
			return effect{Unknown, "gofmt " + a.s + " writes files"}
		}
	}
	return readOnly
}
