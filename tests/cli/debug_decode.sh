#!/usr/bin/env bash
# ulnetctl debug decode: the wire vectors decode to the expected YAML in
# every accepted input form; bad frames give cYAML errors and status 234
# while the good frames around them still decode.
. "$(dirname "$0")/lib.bash"

expect decode_all_vectors 0 @decode-frames.yaml "" -- \
	"$ULNETCTL" debug decode "$VECTORS/frames.txt"

# The same vectors through stdin, as "-".
rc=0
"$ULNETCTL" debug decode - <"$VECTORS/frames.txt" >"$TMP/stdin.yaml" || rc=$?
if [ $rc = 0 ] && cmp -s "$TMP/stdin.yaml" "$EXPECTED/decode-frames.yaml"; then
	passed=$((passed + 1))
else
	echo "FAIL decode_from_stdin: status $rc or output differs"
	failed=$((failed + 1))
fi

acr='00 71 ce ac 01 00 00 00 02 00 12 c6 00 00 02 00'
acr_yaml='- frame: 1
  line: 1
  offset: 0
  length: 16
  acceptor request:
    acr_magic: 0xacce7100
    byte order: little-endian
    acr_version: 1
    acr_nid: 198.18.0.2@tcp'

expect_stdin acr_plain_pairs 0 "$acr_yaml" "" "$acr
" -- "$ULNETCTL" debug decode
expect_stdin acr_xxd_plain 0 "$acr_yaml" "" "0071ceac01000000020012c600000200
" -- "$ULNETCTL" debug decode -
expect_stdin acr_hexdump_canonical 0 "$acr_yaml" "" \
	"00000000  00 71 ce ac 01 00 00 00  02 00 12 c6 00 00 02 00  |.q..............|
" -- "$ULNETCTL" debug decode -

# A hello from a big-endian host: every field swapped, decoded the same.
be_hello='45 72 69 63 00 00 00 03 00 02 00 00 c6 12 00 01
00 02 00 00 c6 12 00 02 00 00 30 39 00 00 00 00
18 11 22 33 44 55 66 77 00 00 00 00 00 00 00 00
00 00 00 01 00 00 00 00'
expect_stdin hello_big_endian 0 '- frame: 1
  line: 1
  offset: 0
  length: 56
  hello:
    kshm_magic: 0x45726963
    kshm_version: 3
    byte order: big-endian
    kshm_src_nid: 198.18.0.1@tcp
    kshm_dst_nid: 198.18.0.2@tcp
    kshm_src_pid: 12345
    kshm_dst_pid: 0
    kshm_src_incarnation: 0x1811223344556677
    kshm_dst_incarnation: 0x0
    kshm_ctype: CONTROL
    kshm_nips: 0' "" "$be_hello
" -- "$ULNETCTL" debug decode

# One segment carrying the request, the hello and a NOOP, back to back.
expect_stdin three_units_in_one_frame 0 '- frame: 1
  line: 1
  offset: 0
  length: 16
  acceptor request:
    acr_magic: 0xacce7100
    byte order: little-endian
    acr_version: 1
    acr_nid: 198.18.0.2@tcp
- frame: 1
  line: 1
  offset: 16
  length: 56
  hello:
    kshm_magic: 0x45726963
    kshm_version: 3
    byte order: little-endian
    kshm_src_nid: 198.18.0.1@tcp
    kshm_dst_nid: 198.18.0.2@tcp
    kshm_src_pid: 12345
    kshm_dst_pid: 0
    kshm_src_incarnation: 0x1811223344556677
    kshm_dst_incarnation: 0x0
    kshm_ctype: BULK_OUT
    kshm_nips: 0
- frame: 1
  line: 1
  offset: 72
  length: 24
  ksock:
    ksh_type: NOOP
    ksh_csum: 0x0
    ksh_zc_cookies:
    - 0x0
    - 0x1
    meaning: keepalive' "" "$acr
63 69 72 45 03 00 00 00 01 00 12 c6 00 00 02 00 02 00 12 c6 00 00 02 00
39 30 00 00 00 00 00 00 77 66 55 44 33 22 11 18 00 00 00 00 00 00 00 00
03 00 00 00 00 00 00 00
c0 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00
" -- "$ULNETCTL" debug decode

noop_yaml='- frame: 3
  line: 5
  offset: 0
  length: 24
  ksock:
    ksh_type: NOOP
    ksh_csum: 0x0
    ksh_zc_cookies:
    - 0x0
    - 0x1
    meaning: keepalive'
expect_stdin bad_frames_reported_good_ones_decoded 234 "$noop_yaml" 'debug:
    - decode:
          errno: -71
          descr: frame 1, offset 0: ksock header: bad type 0xc2 (input line 1)
    - decode:
          errno: -71
          descr: frame 2, offset 0: truncated: ksock message: 4 bytes present, it needs 24 (input line 3)' \
	"c2 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00

c0000000

c0 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00
" -- "$ULNETCTL" debug decode

# A GET must not carry a payload (wire.md §10.5): the receiver closes.
get_hdr='c1 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
02 00 12 c6 00 00 02 00 01 00 12 c6 00 00 02 00 39 30 00 00 39 30 00 00
02 00 00 00 01 00 00 00'
expect_stdin get_with_payload_refused 234 "" "*" "$get_hdr
$(printf '00 %.0s' $(seq 1 41))
" -- "$ULNETCTL" debug decode
grep -q 'GET' "$TMP/err" && passed=$((passed + 1)) ||
	{ echo "FAIL get_with_payload_refused: reason does not name GET"; cat "$TMP/err"; failed=$((failed + 1)); }

expect missing_file 234 "" "debug:
    - decode:
          errno: -2
          descr: cannot open '$TMP/nope': No such file or directory" -- \
	"$ULNETCTL" debug decode "$TMP/nope"
expect too_many_arguments 234 "" "Too many arguments" -- \
	"$ULNETCTL" debug decode a b
expect_stdin empty_input_is_an_error 234 "" 'debug:
    - decode:
          errno: -61
          descr: no frame found: the input holds no hex' "" -- "$ULNETCTL" debug decode

# A line that is not hex is named, the rest of its frame skipped, and the
# next frame still decoded.
expect_stdin odd_digits_named 234 "$(printf '%s\n' "$noop_yaml" | sed 's/frame: 3/frame: 1/; s/line: 5/line: 4/')" 'debug:
    - decode:
          errno: -22
          descr: line 1: '"'"'0'"'"' has an odd number of hex digits' \
	"c0 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 0
00 00 00

c0 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00
" -- "$ULNETCTL" debug decode
expect_stdin garbage_is_refused 234 "" 'debug:
    - decode:
          errno: -22
          descr: line 1: '"'"'hello'"'"' is not hex' "hello world
" -- "$ULNETCTL" debug decode

# Output that cannot be written is a failure, not a silent success.
if [ -w /dev/full ]; then
	rc=0
	"$ULNETCTL" debug decode "$VECTORS/frames.txt" >/dev/full 2>"$TMP/err" || rc=$?
	if [ $rc -ne 0 ] && grep -q 'cannot write' "$TMP/err"; then
		passed=$((passed + 1))
	else
		echo "FAIL write_error_reported: status $rc"; cat "$TMP/err"
		failed=$((failed + 1))
	fi
fi

finish
