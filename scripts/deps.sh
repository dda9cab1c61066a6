#!/bin/sh
# Installs what the project needs (git, Neovim) when missing: from Debian's
# archive where apt-get is; elsewhere it says what to install, and how.
missing=""
command -v git >/dev/null 2>&1 || missing="$missing git"
command -v nvim >/dev/null 2>&1 || missing="$missing neovim"
[ -z "$missing" ] && exit 0
case "$(uname -s)" in
Darwin)
	echo "missing:$missing; install with Homebrew: brew install$missing" >&2
	exit 1
	;;
FreeBSD)
	echo "missing:$missing; install as root: pkg install$missing bash" >&2
	exit 1
	;;
esac
if ! command -v apt-get >/dev/null 2>&1; then
	echo "missing:$missing; install them with the system's package manager" >&2
	exit 1
fi
echo "installing:$missing" >&2
if [ "$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
	echo "missing:$missing; install them with apt-get (needs root)" >&2
	exit 1
fi
$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
