#!/bin/sh
# Installs the packages the project needs from Debian's archive when missing.
missing=""
command -v git >/dev/null 2>&1 || missing="$missing git"
command -v nvim >/dev/null 2>&1 || missing="$missing neovim"
[ -z "$missing" ] && exit 0
echo "installing:$missing" >&2
if [ "$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
	echo "missing:$missing; install them with apt-get (needs root)" >&2; exit 1
fi
$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
