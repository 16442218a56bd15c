#!/usr/bin/env bash
# libulnet as a distribution ships it (issue: packaging): this source
# tree configured, built and installed into a scratch prefix twice, once
# shared (BUILD_SHARED_LIBS=ON) and once static, and each install used
# by an out-of-tree program (tests/pkg/consumer/main.c) built through
# pkg-config and through find_package(ulnet). Asserted:
#  - shared: libulnet.so.0.MINOR is the SONAME the program records (ldd),
#    and the library exports ulnet_* symbols only;
#  - static: the archive defines no global symbol but ulnet_*, so the
#    program's own sock_conn_close() and ul_log_mask_parse() link;
#    `pkg-config --static` brings libyaml and the thread library;
#  - both: the program runs (library version = header version, a ping
#    of 0@lo answered).
# ctest gives ULNET_SRC (this tree) and CC. Everything happens under one
# temporary directory, removed on exit.
set -u
: "${ULNET_SRC:?ULNET_SRC must name the source tree}"
CC=${CC:-cc}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ulnet-pkg-$$-XXXXXX")
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0

ok() {
	passed=$((passed + 1))
	echo "ok: $*"
}
bad() {
	failed=$((failed + 1))
	echo "FAIL: $*"
}

# install MODE SHARED: configure, build and install into $TMP/MODE.
install_tree() {
	local mode=$1 shared=$2

	if ! cmake -S "$ULNET_SRC" -B "$TMP/build-$mode" -G Ninja \
		-DCMAKE_BUILD_TYPE=Debug -DULNET_PROGRAMS=OFF \
		-DULNET_TESTS=OFF -DBUILD_SHARED_LIBS="$shared" \
		-DCMAKE_INSTALL_PREFIX="$TMP/$mode" >"$TMP/$mode.log" 2>&1 ||
		! cmake --build "$TMP/build-$mode" >>"$TMP/$mode.log" 2>&1 ||
		! cmake --install "$TMP/build-$mode" >>"$TMP/$mode.log" 2>&1; then
		cat "$TMP/$mode.log"
		bad "$mode: the tree does not build and install"
		return 1
	fi
	ok "$mode: built and installed"
}

# run MODE NAME PROGRAM: the consumer runs and answers.
run() {
	local out

	if out=$(LD_LIBRARY_PATH="$TMP/$1/lib" "$3" 2>&1) &&
		grep -q 'ping 0@lo answered' <<<"$out"; then
		ok "$1 $2: $out"
	else
		bad "$1 $2: the program fails: $out"
	fi
}

# by_cmake MODE: the consumer through find_package(ulnet).
by_cmake() {
	local b="$TMP/consumer-cmake-$1"

	if cmake -S "$ULNET_SRC/tests/pkg/consumer" -B "$b" -G Ninja \
		-DCMAKE_PREFIX_PATH="$TMP/$1" >"$b.log" 2>&1 &&
		cmake --build "$b" >>"$b.log" 2>&1; then
		ok "$1: find_package(ulnet) builds the program"
		run "$1" find_package "$b/consumer"
	else
		cat "$b.log"
		bad "$1: find_package(ulnet) does not build the program"
	fi
}

# by_pkgconfig MODE [--static]: the consumer through ulnet.pc.
by_pkgconfig() {
	local mode=$1 flags prog="$TMP/consumer-pc-$1"

	shift
	if ! flags=$(PKG_CONFIG_PATH="$TMP/$mode/lib/pkgconfig" \
		pkg-config "$@" --cflags --libs ulnet); then
		bad "$mode: pkg-config does not know ulnet"
		return
	fi
	if "$CC" -o "$prog" "$ULNET_SRC/tests/pkg/consumer/main.c" \
		$flags 2>"$prog.log"; then
		ok "$mode: pkg-config $* gives '$flags'"
		run "$mode" pkg-config "$prog"
	else
		cat "$prog.log"
		bad "$mode: the program does not link with '$flags'"
	fi
}

for tool in cmake ninja pkg-config nm readelf; do
	if ! command -v "$tool" >/dev/null; then
		echo "SKIP: $tool not found (scripts/bootstrap.sh installs it)"
		exit 77
	fi
done

if install_tree shared ON; then
	so=$(readelf -d "$TMP/shared/lib/libulnet.so" |
		sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
	want="libulnet.so.$(sed -n 's/^#define ULNET_VERSION_MAJOR //p' \
		"$ULNET_SRC/include/ulnet/version.h").$(sed -n \
		's/^#define ULNET_VERSION_MINOR //p' \
		"$ULNET_SRC/include/ulnet/version.h")"
	[ "$so" = "$want" ] && ok "shared: SONAME $so" ||
		bad "shared: SONAME '$so', want '$want'"
	other=$(nm -D --defined-only "$TMP/shared/lib/libulnet.so" |
		awk 'NF == 3 && $3 !~ /^ulnet_/ { print $3 }')
	[ -z "$other" ] && ok "shared: only ulnet_* exported" ||
		bad "shared: exports $(echo $other | head -c 300)"
	by_pkgconfig shared
	by_cmake shared
	if ldd "$TMP/consumer-pc-shared" 2>/dev/null | grep -q "$want =>"; then
		ok "shared: the program records $want"
	else
		bad "shared: ldd does not show $want"
	fi
fi

if install_tree static OFF; then
	other=$(nm -g --defined-only "$TMP/static/lib/libulnet.a" |
		awk 'NF == 3 && $3 !~ /^ulnet_/ { print $3 }')
	[ -z "$other" ] && ok "static: no global symbol but ulnet_*" ||
		bad "static: defines $(echo $other | head -c 300)"
	by_pkgconfig static --static
	by_cmake static
fi

echo "pkg: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
