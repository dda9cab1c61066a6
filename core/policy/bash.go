package policy

// Shell commands: the analyzer's class, rules and the mode decide.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/shellcheck"
)

func (p Policy) bash(mode Mode, a Action, an *shellcheck.Analysis) Verdict {
	cmd := strings.TrimSpace(a.Command)
	if cmd == "" {
		return Verdict{Decision: Deny, Reason: "bash was called without a command"}
	}
	if mode == ModeYolo {
		return Verdict{Decision: Allow, Reason: "yolo mode: bash runs without policy or danger checks", Dangerous: an.Class == shellcheck.Dangerous}
	}
	why := strings.Join(an.Reasons, "; ")
	if mode == ModePlan && an.Class != shellcheck.ReadOnly {
		return Verdict{Decision: Deny, Reason: fmt.Sprintf(
			"plan mode is read-only: only commands proven read-only may run, and `%s` is %s (%s). Do not retry it; use read-only commands, or ask the user to switch to default mode to make changes.",
			cmd, an.Class, why)}
	}
	v := Verdict{Decision: Allow, Dangerous: an.Class == shellcheck.Dangerous}
	if len(an.Commands) == 0 {
		// Nothing to match rules against: empty, or unparseable.
		v.Decision = p.base(bashCell(an.Class))
		v.Reason = bashReason(v.Decision, an.Class, why, p.preset())
		return v
	}
	keyable := true
	var keys []Key
	var prefixes []string
	denyReason, askReasons, allowReasons := "", []string(nil), []string(nil)
	for _, c := range an.Commands {
		line := strings.Join(c.Args, " ")
		cl := bashCell(c.Class)
		outside := ""
		if c.Class == shellcheck.ReadOnly && len(c.Outside) > 0 {
			// As the file tools refuse reads outside the workspace, a
			// read-only command that makes them asks like an unknown one.
			cl = cellBashUnknown
			outside = "reads outside the workspace: " + strings.Join(c.Outside, ", ")
		}
		base := p.base(cl)
		sandboxed := a.Sandboxed && mode == ModeAutoEdit && cl == cellBashUnknown && outside == ""
		if sandboxed {
			base = Allow
		}
		d := base
		rd, rule, matched := p.matchRules(a.Tool, line, true)
		if norm := normalizedLine(c.Args); norm != line {
			// `git -C . push` must not dodge a deny or ask rule for
			// `git push*`; an allow rule still needs the command as
			// written, since global options change what it does.
			if nd, nrule, nm := p.matchRules(a.Tool, norm, true); nm && nd != Allow && (!matched || nd.rank() > rd.rank()) {
				rd, rule, matched = nd, nrule, true
			}
		}
		if len(c.Context) > 0 {
			// sudo, PATH=... and the like: deny and ask rules match the
			// command with or without them, an allow rule only with them.
			full := strings.Join(append(slices.Clone(c.Context), c.Args...), " ")
			cd, crule, cm := p.matchRules(a.Tool, full, true)
			switch {
			case cm && (!matched || cd.rank() > rd.rank()):
				rd, rule, matched = cd, crule, true
			case matched && rd == Allow && !(cm && cd == Allow):
				matched = false
			}
			line = full
		}
		reason := ""
		if matched {
			d = rd
			reason = fmt.Sprintf("rule %s matches `%s`", rule, line)
			if c.Class == shellcheck.Dangerous && base.rank() > d.rank() {
				d = base // rules never lower a dangerous command
				reason = ""
			}
		}
		if reason == "" && outside != "" {
			reason = bashReason(d, shellcheck.Unknown, fmt.Sprintf("`%s` %s", line, outside), p.preset())
		}
		if reason == "" && sandboxed {
			reason = fmt.Sprintf("`%s` runs in the sandbox (auto-edit)", line)
		}
		if reason == "" {
			reason = bashReason(d, c.Class, fmt.Sprintf("`%s`: %s", line, c.Reason), p.preset())
		}
		switch d {
		case Deny:
			if denyReason == "" {
				denyReason = reason
			}
		case Ask:
			askReasons = append(askReasons, reason)
			pre := shellcheck.Prefix(c.Args)
			if len(pre) > 0 && len(c.Context) > 0 {
				// Approving `sudo x` or `PATH=... x` keys on that context,
				// and approving plain `x` does not cover them.
				pre = append(slices.Clone(c.Context), pre...)
			}
			// Reads outside are approved one at a time: `cat` for one
			// file must not cover `cat ~/.ssh/id_rsa`.
			if len(pre) == 0 || c.Class == shellcheck.Dangerous || outside != "" || slices.ContainsFunc(pre, func(w string) bool { return strings.ContainsAny(w, "$`") }) {
				keyable = false
				continue
			}
			ps := strings.Join(pre, " ")
			if !slices.Contains(prefixes, ps) {
				prefixes = append(prefixes, ps)
				keys = append(keys, p.key(a, a.Tool, pre))
			}
		default:
			allowReasons = append(allowReasons, reason)
		}
	}
	switch {
	case denyReason != "":
		v.Decision, v.Reason = Deny, denyReason+". Do not retry this command; choose a different approach or ask the user."
	case len(askReasons) > 0:
		v.Decision, v.Reason = Ask, strings.Join(askReasons, "; ")
		if keyable && !v.Dangerous && an.ParseError == "" {
			v.Keys = keys
		}
	default:
		v.Reason = strings.Join(allowReasons, "; ")
	}
	return v
}

func bashReason(d Decision, c shellcheck.Class, why string, preset Preset) string {
	switch {
	case d == Deny:
		return fmt.Sprintf("the %s preset denies %s commands: %s", preset, c, why)
	case d == Ask && c == shellcheck.Dangerous:
		return "DANGEROUS " + why
	case d == Ask:
		return "needs approval: " + why
	case c == shellcheck.ReadOnly:
		return "read-only command"
	}
	return fmt.Sprintf("the %s preset allows %s commands", preset, c)
}

// normalizedLine is a command line with the options between the program
// and its subcommand left out, following shellcheck.Prefix: `git -C . push
// origin` reads `git push origin`.
func normalizedLine(args []string) string {
	prefix := shellcheck.Prefix(args)
	i, j := 0, 0
	for ; i < len(args) && j < len(prefix); i++ {
		if args[i] == prefix[j] {
			j++
		}
	}
	if j < len(prefix) {
		return strings.Join(args, " ")
	}
	return strings.Join(append(slices.Clone(prefix), args[i:]...), " ")
}

// OutsideSandboxTool keys remembered approvals of commands run outside
// the sandbox, apart from those of confined ones: approving `make` in the
// sandbox never lets it run outside.
const OutsideSandboxTool = "bash:outside"

// OutsideSandbox is the verdict on a bash command the model asked to run
// outside the sandbox: whatever the mode, yolo included, it is asked
// (denied where the policy denies it), and "always" remembers its
// prefixes for outside runs only.
func (p Policy) OutsideSandbox(a Action, root string) Verdict {
	a.Sandboxed = false
	v := Evaluate(ModeDefault, p, a, root)
	if v.Decision == Deny {
		return v
	}
	reason := "runs OUTSIDE the sandbox, as the model asked"
	if v.Reason != "" {
		reason += "; " + v.Reason
	}
	out := Verdict{Decision: Ask, Reason: reason, Dangerous: v.Dangerous, Analysis: v.Analysis}
	an := v.Analysis
	keyable := an != nil && an.ParseError == "" && !v.Dangerous && len(an.Commands) > 0
	for _, c := range an.Commands {
		if !keyable {
			break
		}
		pre := shellcheck.Prefix(c.Args)
		if len(pre) == 0 || len(c.Context) > 0 || slices.ContainsFunc(pre, func(w string) bool { return strings.ContainsAny(w, "$`") }) {
			keyable = false
			break
		}
		k := p.key(a, OutsideSandboxTool, pre)
		if !slices.ContainsFunc(out.Keys, func(o Key) bool { return sameKey(o, k) }) {
			out.Keys = append(out.Keys, k)
		}
	}
	if !keyable {
		out.Keys = nil
	}
	out.Scope = p.describe(out.Keys, out.Dangerous)
	return out
}
