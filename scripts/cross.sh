#!/bin/sh
# cross.sh builds the host and vets every package, tests included, for each
# target in $TARGETS (GOOS/GOARCH, CGO_ENABLED=0). The first failure stops
# it, naming the target and the first error.
set -u
GO=${GO:-go}
for t in $TARGETS; do
	os=${t%/*} arch=${t#*/}
	start=$(date +%s)
	if ! out=$(CGO_ENABLED=0 GOOS=$os GOARCH=$arch $GO build -o /dev/null ./cmd/coder-nvim 2>&1 &&
		CGO_ENABLED=0 GOOS=$os GOARCH=$arch $GO vet ./... 2>&1); then
		first=$(printf '%s\n' "$out" | grep -v '^#' | head -n 1)
		echo "cross: $t fails: $first" >&2
		printf '%s\n' "$out" | head -n 30 >&2
		exit 1
	fi
	echo "cross: $t builds and vets ($(($(date +%s) - start)) s)"
done
