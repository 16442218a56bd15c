# Sourced by the tests/cli/*.sh scripts (not a test itself): run ulnetctl, compare stdout, stderr and
# the exit status with what lnetctl gives, count, and clean up.
# ctest sets ULNETCTL (the binary) and ULNET_SRC (the source tree).
set -u
: "${ULNETCTL:?ULNETCTL must name the ulnetctl binary}"
: "${ULNET_SRC:?ULNET_SRC must name the source tree}"
EXPECTED="$ULNET_SRC/tests/cli/expected"
VECTORS="$ULNET_SRC/tests/vectors"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/ulnet-cli-$$-XXXXXX")
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0

# check NAME REGEX [FILE]: FILE (default: the last command's stdout) has a
# line matching the extended REGEX.
check() {
	local file=${3:-$TMP/out}

	if grep -Eq "$2" "$file"; then
		passed=$((passed + 1))
	else
		echo "FAIL $1: no line matches '$2' in:"
		cat "$file"
		failed=$((failed + 1))
	fi
}

# d1 OP OBJECT ERRNO DESCR: lnetctl's D1 error YAML ("OP: - OBJECT:").
d1() {
	printf -- '---\n%s:\n-     %s:\n      errno: %s\n      descr: ! "%s"\n...' \
		"$1" "$2" "$3" "$4"
}

# d2 OP ENTITY ERRNO DESCR: one cYAML (D2) error entry.
d2() {
	printf '%s:\n    - %s:\n          errno: %s\n          descr: %s' \
		"$1" "$2" "$3" "$4"
}

# expect NAME STATUS STDOUT STDERR -- COMMAND...
# STDOUT and STDERR are the exact texts (a trailing newline is implied
# when the text is not empty); "@file" means the contents of
# tests/cli/expected/file; "*" is not compared (the script checks it).
expect() {
	local name=$1 want_rc=$2 want_out=$3 want_err=$4
	shift 5
	local rc=0
	"$@" >"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
	check_result "$name" "$want_rc" "$want_out" "$want_err" "$rc"
}

# expect_stdin NAME STATUS STDOUT STDERR INPUT -- COMMAND...
expect_stdin() {
	local name=$1 want_rc=$2 want_out=$3 want_err=$4 input=$5
	shift 6
	local rc=0
	printf '%s' "$input" | "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	check_result "$name" "$want_rc" "$want_out" "$want_err" "$rc"
}

want_file() {
	case $1 in
	@*) cp "$EXPECTED/${1#@}" "$2" ;;
	"" | "*") : >"$2" ;;
	*) printf '%s\n' "$1" >"$2" ;;
	esac
}

# UL_CLI_RECORD=1 writes a missing "@file" from what the command printed,
# for a person to read and check before committing it.
record() { # want, actual file
	case $1 in
	@*) [ -e "$EXPECTED/${1#@}" ] || cp "$2" "$EXPECTED/${1#@}" ;;
	esac
}

check_result() {
	local name=$1 want_rc=$2 want_out=$3 want_err=$4 rc=$5 ok=1
	if [ "${UL_CLI_RECORD:-0}" = 1 ]; then
		record "$want_out" "$TMP/out"
		record "$want_err" "$TMP/err"
	fi
	want_file "$want_out" "$TMP/want_out"
	want_file "$want_err" "$TMP/want_err"
	if [ "$rc" != "$want_rc" ]; then
		echo "FAIL $name: exit status $rc, want $want_rc"
		ok=0
	fi
	if [ "$want_out" != "*" ] &&
		! diff -u "$TMP/want_out" "$TMP/out" >"$TMP/diff"; then
		echo "FAIL $name: stdout differs:"
		cat "$TMP/diff"
		ok=0
	fi
	if [ "$want_err" != "*" ] && ! diff -u "$TMP/want_err" "$TMP/err" >"$TMP/diff"; then
		echo "FAIL $name: stderr differs:"
		cat "$TMP/diff"
		ok=0
	fi
	if [ $ok = 1 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
}

finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
