#!/bin/sh
# Prepares the Neovim versions users run besides the system's (Debian 12's
# 0.7.2): 0.10.x from Debian trixie and 0.12.x from Debian sid, taken from
# Debian's own archive (the address the machine's apt sources use), unpacked
# into DIR (default build/nvim) and run through that suite's own loader.
# Nothing is installed system-wide, and a prepared version is reused.
#
# Prints the wrapper of each version it has, one per line, on stdout. When
# the archive cannot be reached it says so on stderr and prints nothing for
# that version: the tests then run on the system's Neovim only.
set -u
dir=${1:-build/nvim}
mkdir -p "$dir" || exit 0
dir=$(cd "$dir" && pwd)

say() { echo "nvim-versions: $*" >&2; }

# archive is the first non-security Debian archive the machine's apt sources
# name (deb822 .sources files and the one-line sources.list format).
archive() {
	{
		cat /etc/apt/sources.list.d/*.sources 2>/dev/null | sed -n 's/^URIs:[[:space:]]*//p' | tr ' ' '\n'
		cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]\+\).*/\2/p'
	} | grep -v -e security -e '^$' | head -n 1
}

keyring=/usr/share/keyrings/debian-archive-keyring.gpg

# prepare SUITE VERSION: unpack that suite's neovim and its libraries.
prepare() {
	suite=$1 ver=$2
	wrapper="$dir/nvim-$ver"
	if [ -x "$wrapper" ] && "$wrapper" --version >/dev/null 2>&1; then
		echo "$wrapper"
		return
	fi
	command -v apt-get >/dev/null 2>&1 && command -v dpkg >/dev/null 2>&1 || { say "no apt-get/dpkg here: Neovim $ver is not tested"; return; }
	uri=$(archive)
	[ -n "$uri" ] || { say "no Debian archive in the apt sources: Neovim $ver is not tested"; return; }
	[ -r "$keyring" ] || { say "no $keyring: Neovim $ver is not tested"; return; }
	apt="$dir/apt-$suite"
	root="$dir/root-$suite"
	rm -rf "$apt" "$root"
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs" "$root"
	echo "deb [signed-by=$keyring] $uri $suite main" >"$apt/sources.list"
	: >"$apt/status"
	set -- -o "Dir::Etc::sourcelist=$apt/sources.list" -o Dir::Etc::sourceparts=- \
		-o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o "Dir::State::status=$apt/status" \
		-o APT::Architecture=amd64 -o Debug::NoLocking=1
	if ! apt-get "$@" -qq update >"$apt/update.log" 2>&1 || ! ls "$apt/lists/"*Packages* >/dev/null 2>&1; then
		say "Debian's archive ($uri, $suite) cannot be reached: Neovim $ver is not tested ($(tail -n 1 "$apt/update.log"))"
		return
	fi
	pkgs=$(apt-cache "$@" depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances neovim 2>/dev/null | grep -v -e '^ ' -e '^<' | sort -u)
	if ! (cd "$apt/debs" && apt-get "$@" -qq download $pkgs >"$apt/download.log" 2>&1); then
		say "downloading neovim from $suite failed: Neovim $ver is not tested ($(tail -n 1 "$apt/download.log"))"
		return
	fi
	for deb in "$apt/debs"/*.deb; do
		dpkg -x "$deb" "$root" || { say "unpacking $deb failed: Neovim $ver is not tested"; return; }
	done
	# The suite's tree-sitter parsers (markdown among them) on the runtimepath.
	[ -d "$root/usr/lib/nvim/parser" ] && ln -sfn ../../../lib/nvim/parser "$root/usr/share/nvim/runtime/parser"
	cat >"$wrapper" <<EOF
#!/bin/sh
# Neovim $ver from Debian $suite, through that suite's own loader (made by scripts/nvim-versions.sh).
R='$root'
L="\$R/usr/lib/x86_64-linux-gnu"
export VIMRUNTIME="\$R/usr/share/nvim/runtime"
export LUA_CPATH="\$L/lua/5.1/?.so;\${LUA_CPATH:-;}"
exec "\$L/ld-linux-x86-64.so.2" --library-path "\$L:\$R/lib/x86_64-linux-gnu" "\$R/usr/bin/nvim" "\$@"
EOF
	chmod +x "$wrapper"
	if "$wrapper" --version >/dev/null 2>&1; then
		rm -rf "$apt"
		echo "$wrapper"
	else
		say "Neovim $ver from $suite does not run here: not tested"
	fi
}

prepare trixie 0.10
prepare sid 0.12
