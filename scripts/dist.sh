#!/bin/sh
# dist.sh writes a release binary of the host for each target in $TARGETS
# (GOOS/GOARCH) to $DIST, named coder-nvim-$VERSION-GOOS-GOARCH (.exe on
# Windows), and their SHA-256 sums to $DIST/SHA256SUMS.
set -eu
GO=${GO:-go}
rm -rf "$DIST"
mkdir -p "$DIST"
for t in $TARGETS; do
	os=${t%/*} arch=${t#*/}
	exe=""
	[ "$os" = windows ] && exe=.exe
	name=coder-nvim-$VERSION-$os-$arch$exe
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch $GO build -trimpath -buildvcs=false -ldflags "$LDFLAGS" -o "$DIST/$name" ./cmd/coder-nvim
	echo "dist: $DIST/$name"
	if [ "$os" = linux ]; then
		# The sandbox launcher, to lie beside the host (coder-nvim-sandbox).
		CGO_ENABLED=0 GOOS=$os GOARCH=$arch $GO build -trimpath -buildvcs=false -ldflags "-s -w" -o "$DIST/coder-nvim-sandbox-$VERSION-$os-$arch" ./cmd/coder-nvim-sandbox
		echo "dist: $DIST/coder-nvim-sandbox-$VERSION-$os-$arch"
	fi
done
cd "$DIST"
if command -v sha256sum >/dev/null 2>&1; then
	sha256sum coder-nvim-* >SHA256SUMS
else
	shasum -a 256 coder-nvim-* >SHA256SUMS # macOS and the BSDs
fi
echo "dist: $DIST/SHA256SUMS"
