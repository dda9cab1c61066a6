#!/bin/sh
# install-binary.sh puts the host (and, on Linux, the sandbox's launcher)
# for this machine and the plugin's VERSION into the plugin's bin/: it
# downloads them from the project's release, checks each against the
# release's SHA256SUMS and moves them into place only when every one
# matched, so bin/ never holds a half-written or unchecked binary. When the
# download fails and Go of the version go.mod names is here, it builds
# from source instead; CODER_NVIM_BUILD_FROM_SOURCE=1 builds from source
# without trying the download.
#
#   CODER_NVIM_RELEASE_URL   where releases are (default below); the
#                            files are read from $CODER_NVIM_RELEASE_URL/vVERSION/
#   CODER_NVIM_BUILD_FROM_SOURCE=1   build with Go, no download
#
# Used by build.lua (lazy.nvim's build step) and `make install-binary`.
set -u

release_url=https://github.com/coder-nvim/coder-nvim/releases/download

root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/bin"
say() { echo "coder-nvim install: $*"; }
fail() {
	echo "coder-nvim install: $*" >&2
	exit 1
}

version=$(sed -n '1{s/[[:space:]]//g;p;}' "$root/VERSION" 2>/dev/null)
[ -n "$version" ] || fail "no VERSION file in $root"

case "$(uname -s)" in
Linux) os=linux ;;
Darwin) os=darwin ;;
FreeBSD) os=freebsd ;;
MINGW* | MSYS* | CYGWIN*) os=windows ;;
*) os=unknown ;;
esac
case "$(uname -m)" in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*) arch=unknown ;;
esac
exe=""
[ "$os" = windows ] && exe=.exe

# names: the release files this machine needs, each with the name it
# gets in bin/ (make dist's names; the launcher only on Linux).
names="coder-nvim-$version-$os-$arch$exe:coder-nvim$exe"
[ "$os" = linux ] && names="$names coder-nvim-sandbox-$version-$os-$arch:coder-nvim-sandbox"

tmp=""
cleanup() { [ -n "$tmp" ] && rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

fetch() { # URL FILE
	if command -v curl >/dev/null 2>&1; then
		curl -fsSL --connect-timeout 15 --max-time 600 -o "$2" "$1"
	elif command -v wget >/dev/null 2>&1; then
		wget -q -T 15 -O "$2" "$1"
	else
		echo "neither curl nor wget is installed" >&2
		return 1
	fi
}

sha256() { # FILE: its SHA-256, hex
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$1" | cut -d' ' -f1
	else
		sha256 -q "$1" # FreeBSD
	fi
}

# place moves the checked files from $tmp into bin/, each by a rename in
# the same directory: a running host keeps its old file.
place() {
	for pair in $names; do
		mv -f "$tmp/${pair##*:}" "$bin/${pair##*:}" || fail "cannot move ${pair##*:} into $bin"
	done
}

download() {
	base="${CODER_NVIM_RELEASE_URL:-$release_url}/v$version"
	if ! fetch "$base/SHA256SUMS" "$tmp/SHA256SUMS"; then
		say "cannot download $base/SHA256SUMS"
		return 1
	fi
	for pair in $names; do
		name=${pair%%:*}
		if ! fetch "$base/$name" "$tmp/${pair##*:}"; then
			say "cannot download $base/$name"
			return 1
		fi
	done
	for pair in $names; do
		name=${pair%%:*}
		want=$(awk -v n="$name" '$2 == n || $2 == "*" n { print $1; exit }' "$tmp/SHA256SUMS")
		[ -n "$want" ] || fail "$name is not listed in the release's SHA256SUMS; nothing was installed"
		got=$(sha256 "$tmp/${pair##*:}")
		[ "$got" = "$want" ] || fail "checksum mismatch for $name (SHA256SUMS says $want, the download is $got): refused, nothing was installed"
		chmod 755 "$tmp/${pair##*:}"
	done
	place
	say "downloaded $version for $os/$arch from $base, checksum ok: $bin/coder-nvim$exe"
}

# go_ok reports whether Go is here and at least go.mod's version.
go_ok() {
	command -v go >/dev/null 2>&1 || return 1
	have=$(go env GOVERSION 2>/dev/null | sed -n 's/^go\([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
	need=$(sed -n 's/^go \([0-9]*\)\.\([0-9]*\).*/\1 \2/p' "$root/go.mod" 2>/dev/null)
	[ -n "$have" ] && [ -n "$need" ] || return 1
	set -- $have $need
	[ "$1" -gt "$3" ] || { [ "$1" -eq "$3" ] && [ "$2" -ge "$4" ]; }
}

build() {
	gover=$(go env GOVERSION)
	say "building from source with $gover (the first build downloads and compiles dependencies, about a minute)"
	(
		cd "$root" &&
			CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$version" -o "$tmp/coder-nvim$exe" ./cmd/coder-nvim &&
			if [ "$os" = linux ]; then
				CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp/coder-nvim-sandbox" ./cmd/coder-nvim-sandbox
			fi
	) || fail "go build failed (see above); nothing was installed"
	place
	say "built $version from source with $gover: $bin/coder-nvim$exe"
}

mkdir -p "$bin" || fail "cannot create $bin"
tmp=$(mktemp -d "$bin/.install.XXXXXX") || fail "cannot create a temporary directory in $bin"

if [ "${CODER_NVIM_BUILD_FROM_SOURCE:-}" = 1 ]; then
	go_ok || fail "CODER_NVIM_BUILD_FROM_SOURCE=1 needs Go $(sed -n 's/^go //p' "$root/go.mod") or newer (go: $(command -v go || echo 'not found'))"
	build
	exit 0
fi
if [ "$os" = unknown ] || [ "$arch" = unknown ]; then
	say "no release binary for $(uname -s)/$(uname -m)"
elif download; then
	exit 0
fi
if go_ok; then
	build
	exit 0
fi
fail "no binary installed: the download failed and Go $(sed -n 's/^go //p' "$root/go.mod") or newer is not here to build from source.
Install Go (https://go.dev/dl/) and run 'make build' in $root, or download coder-nvim-$version-$os-$arch$exe and SHA256SUMS
from the release by hand, check the sum and copy the file to $bin/coder-nvim$exe (set CODER_NVIM_RELEASE_URL to use a mirror)."
