package command

// initPrompt is /init's request: study the repository and write or improve
// AGENTS.md through the normal tools, so every change is shown and, by the
// mode's rules, approved.
const initPrompt = `Study this repository and write AGENTS.md at the workspace root, the file coding agents read for a project's instructions. If it already exists, improve it: keep what is still right, fix what is wrong or stale, add what is missing.

First find out, from the files themselves (README, build files such as Makefile, package.json, go.mod, pyproject.toml or Cargo.toml, CI configuration, existing CONTRIBUTING or agent instruction files such as CLAUDE.md, .cursorrules or .github/copilot-instructions.md):
- how to build, test (the whole suite and one test), lint and format, as exact commands;
- the layout: the main directories and what each holds;
- the conventions: code style, naming, error handling, testing, commits, anything the project asks of contributors.

Then write it: short and concrete, in Markdown, with the exact commands in code blocks; at most about 150 lines. Only what is true of this repository: no generic advice, no guesses, nothing a reader could not check. Do not copy secrets or personal data. Change no other file. When done, say in two or three lines what you wrote or changed.`
