#!/usr/bin/env bash
# A ulnetd that may not use privileged source ports (--src-port any, as
# without root) dialling a peer with accept=secure, the kernel's default
# (issue 16 item 9): the peer refuses the connection, the ping fails,
# and the dialler's log says why and what to do, instead of a bare reset.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/daemon.bash"

u=$ULNETCTL
cli_daemon b 'net:
  - net type: tcp
    local NI(s):
      - nid: 127.1.61.2@tcp' --accept secure
cli_daemon a 'net:
  - net type: tcp
    local NI(s):
      - nid: 127.1.61.1@tcp'
expect ping_refused 255 "*" "*" -- $u --ctl "$TMP/a.ctl" ping 127.1.61.2@tcp --timeout 5
check "b refused the port" 'refused .*source port above 1023 \(accept=secure\)' "$TMP/b.log"
check "a says why" 'conn to 127\.1\.61\.2@tcp failed: .*our source port is above 1023, which a kernel LNet peer with accept=secure \(its default\) refuses' "$TMP/a.log"
finish
