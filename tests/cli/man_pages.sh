#!/usr/bin/env bash
# The manual pages (docs/man) render without a troff warning, name every
# command ulnetctl has (`ulnetctl --list-commands`) and every option of
# `ulnetd --help`, and `cmake --install` puts both in share/man/man8 and
# the library's ulnet.3 in share/man/man3.
. "$(dirname "$0")/lib.bash"
: "${ULNETD:?ULNETD must name the ulnetd binary}"
man=$ULNET_SRC/docs/man

check() { # name, command...: passes when the command succeeds
	local name=$1
	shift
	if "$@" >"$TMP/out" 2>&1; then
		passed=$((passed + 1))
	else
		echo "FAIL $name:"
		cat "$TMP/out"
		failed=$((failed + 1))
	fi
}

if command -v groff >/dev/null; then
	for page in ulnetctl.8 ulnetd.8 ulnet.3; do
		check "renders $page" bash -c \
			"groff -man -ww -z '$man/$page' 2>&1 | (! grep .)"
	done
else
	echo "groff missing: rendering not checked"
fi

# Every top-level command of ulnetctl is described (".B <cmd>" lines).
"$ULNETCTL" --list-commands | tr -s ' ' '\n' | grep . |
	grep -vE '^(-*help|-*version|-*list-commands|-*ignore_errors|exit|quit)$' \
		>"$TMP/cmds"
sed 's/\\-/-/g' "$man/ulnetctl.8" >"$TMP/ulnetctl.8"
while read -r cmd; do
	check "ulnetctl.8 names '$cmd'" grep -q "^\.B $cmd\b" "$TMP/ulnetctl.8"
done <"$TMP/cmds"
[ -s "$TMP/cmds" ] || { echo "FAIL: no commands listed"; failed=$((failed + 1)); }

# Every long option ulnetd documents in --help is in its page.
"$ULNETD" --help | grep -oE -- '--[a-z-]+' | sort -u >"$TMP/opts"
sed 's/\\-/-/g' "$man/ulnetd.8" >"$TMP/ulnetd.8"
while read -r opt; do
	check "ulnetd.8 names $opt" grep -qF -- "$opt" "$TMP/ulnetd.8"
done <"$TMP/opts"

# cmake --install puts the pages where man finds them.
if [ -n "${ULNET_BUILD:-}" ] && command -v cmake >/dev/null; then
	check "cmake --install" cmake --install "$ULNET_BUILD" \
		--prefix "$TMP/prefix"
	for page in ulnetctl.8 ulnetd.8; do
		check "installed $page" test -s "$TMP/prefix/share/man/man8/$page"
	done
	check "installed ulnet.3" test -s "$TMP/prefix/share/man/man3/ulnet.3"
fi
finish
