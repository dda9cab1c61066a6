package gitsnap

import "context"

// Git runs one git command in dir as the snapshots run theirs: with every
// program a configuration names disarmed (hooks, filters, diff drivers,
// pager, editor, ssh), the environment's repository variables dropped and
// env added. Other packages that drive git for the user's repository
// (core/worktree) use it so that none runs a repository's program.
func Git(ctx context.Context, dir string, env []string, args ...string) ([]byte, error) {
	prog := hostGit(dir) // never a git the workspace put on PATH
	guard, _, err := driverGuard(ctx, prog, dir, env)
	if err != nil {
		return nil, err
	}
	return run(ctx, prog, dir, runOpts{env: env}, append(guard, args...)...)
}
