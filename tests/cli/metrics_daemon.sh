#!/usr/bin/env bash
# ulnetd --metrics (tools/ulnetd/metrics.c) against live daemons on
# loopback: A (127.1.31.1) streams PUTs to B (127.1.31.2), B serves
# http://127.0.0.1:PORT/metrics.
#  - the page parses with Debian's prometheus_client (python3-prometheus-
#    client) and carries, under Prometheus names and types, the counters
#    net show and peer show print (messages, bytes by type, health,
#    credits, latency summaries), the global counters of stats show, and
#    the labels nid/net and primary_nid; B's received count grows with
#    the traffic; other paths are 404; ?peers=0 leaves the peer NIs out
#    (a default scrape does so by itself past 2,000 peer NIs);
#  - a real Prometheus server (Debian's prometheus) scraping B every
#    second answers a rate() query over B's received messages with a
#    value above 0.
# Skips (77) without Debian's python3 prometheus_client; the Prometheus
# part skips alone without the prometheus binary.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/daemon.bash"

PY=/usr/bin/python3
if ! "$PY" -c 'import prometheus_client' 2>/dev/null; then
	echo "SKIP: $PY has no prometheus_client (apt-get install python3-prometheus-client)"
	exit 77
fi
mport=$((41000 + $$ % 10000))
pport=$((mport + 10000))

u=$ULNETCTL
cli_daemon b 'net:
  - net type: tcp
    local NI(s):
      - nid: 127.1.31.2@tcp' --metrics "127.0.0.1:$mport"
cli_daemon a 'net:
  - net type: tcp
    local NI(s):
      - nid: 127.1.31.1@tcp'
expect ping 0 "*" "" -- $u ping 127.1.31.2@tcp
# A stream for the rate: runs while Prometheus scrapes, however late a
# loaded machine starts it (stopped at the end, not by a clock).
"$u" --ctl "$TMP/a.ctl" perf put 127.1.31.2@tcp --size 64K --seconds 300 \
	--inflight 4 >"$TMP/perf.out" 2>&1 &
perf=$!

# fetch PATH: the page (or the HTTP status for another path).
fetch() {
	"$PY" - "http://127.0.0.1:$mport$1" <<'EOF'
import sys, urllib.request, urllib.error
try:
    with urllib.request.urlopen(sys.argv[1], timeout=10) as r:
        sys.stdout.write(r.read().decode())
except urllib.error.HTTPError as e:
    print("HTTP", e.code)
EOF
}

sleep_until_traffic() { # the stream's first ACKs, 10 s at most
	for _ in $(seq 100); do
		fetch /metrics >"$TMP/page"
		grep -Eq '^ulnet_ni_messages_received_total\{nid="127\.1\.31\.2@tcp",net="tcp"\} [1-9]' \
			"$TMP/page" && return
		sleep 0.1
	done
}
sleep_until_traffic

# The page as Prometheus's own parser reads it, checked family by family.
if "$PY" - "$TMP/page" >"$TMP/parsed" 2>&1 <<'EOF'; then
import sys
from prometheus_client.parser import text_string_to_metric_families
fams = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
want = {
    # family (as the parser names it): type
    "ulnet_ni_messages_received": "counter",
    "ulnet_ni_messages_sent": "counter",
    "ulnet_ni_messages_dropped": "counter",
    "ulnet_ni_received_messages_by_type": "counter",
    "ulnet_ni_health_value": "gauge",
    "ulnet_ni_health_timeouts": "counter",
    "ulnet_ni_up": "gauge",
    "ulnet_ni_put_ack_latency_seconds": "summary",
    "ulnet_ni_tunables_peer_credits": "gauge",
    "ulnet_peer_multi_rail": "gauge",
    "ulnet_peer_state": "gauge",
    "ulnet_metrics_last_print_seconds": "gauge",
}
# Every family of a peer NI (tools/ulnetd/metrics_peers.c prints them
# from what peer show -v 2 prints, not from its document): the list.
for fam in ("messages_received", "messages_sent", "messages_dropped",
            "sent_messages_by_type", "received_messages_by_type",
            "dropped_messages_by_type", "health_dropped", "health_errors",
            "health_network_timeouts", "health_timeouts"):
    want["ulnet_peer_ni_" + fam] = "counter"
for fam in ("health_value", "max_tx_credits", "tx_credits", "min_tx_credits",
            "tx_queue_bytes", "rtr_credits", "min_rtr_credits", "refcount",
            "recovery_pings", "recovery_next_ping"):
    want["ulnet_peer_ni_" + fam] = "gauge"
for lat in ("put_egress", "get_rtt", "put_ack"):
    want["ulnet_peer_ni_%s_latency_seconds" % lat] = "summary"
    want["ulnet_peer_ni_%s_latency_min_seconds" % lat] = "gauge"
    want["ulnet_peer_ni_%s_latency_max_seconds" % lat] = "gauge"
want.update({
    "ulnet_send": "counter",
    "ulnet_resend": "counter",
    "ulnet_msgs_alloc": "gauge",
    "ulnet_metrics_scrapes": "counter",
})
bad = 0
for name, typ in want.items():
    f = fams.get(name)
    if f is None or f.type != typ:
        print("FAIL family %s: %s" % (name, "missing" if f is None else f.type))
        bad += 1
def value(fam, suffix="", **labels):
    for s in fams[fam].samples:
        if s.name == fam + suffix and all(s.labels.get(k) == v for k, v in labels.items()):
            return s.value
    return None
v = value("ulnet_ni_messages_received", "_total", nid="127.1.31.2@tcp", net="tcp")
if not v or v < 1:
    print("FAIL B's NI received nothing:", v); bad += 1
v = value("ulnet_peer_ni_messages_received", "_total", primary_nid="127.1.31.1@tcp", nid="127.1.31.1@tcp", net="tcp")
if not v or v < 1:
    print("FAIL B's peer NI for A received nothing:", v); bad += 1
v = value("ulnet_peer_ni_received_messages_by_type", "_total", primary_nid="127.1.31.1@tcp", nid="127.1.31.1@tcp", net="tcp", type="put")
if not v or v < 1:
    print("FAIL B's peer NI for A counted no PUT by type:", v); bad += 1
if value("ulnet_peer_ni_health_value", primary_nid="127.1.31.1@tcp", nid="127.1.31.1@tcp", net="tcp") != 1000:
    print("FAIL peer NI health value not 1000"); bad += 1
if value("ulnet_ni_health_value", nid="127.1.31.2@tcp", net="tcp") != 1000:
    print("FAIL health value not 1000"); bad += 1
if value("ulnet_ni_up", nid="127.1.31.2@tcp", net="tcp") != 1:
    print("FAIL NI not up"); bad += 1
if value("ulnet_ni_received_messages_by_type", "_total", nid="127.1.31.2@tcp", net="tcp", type="put") < 1:
    print("FAIL no PUT counted by type"); bad += 1
print("parsed %d families" % len(fams))
sys.exit(1 if bad else 0)
EOF
	passed=$((passed + 1))
	echo "ok: $(tail -1 "$TMP/parsed")"
else
	echo "FAIL parse:"
	cat "$TMP/parsed"
	failed=$((failed + 1))
fi
# gzip, as Prometheus asks for it: the same page, compressed.
"$PY" - "http://127.0.0.1:$mport/metrics" >"$TMP/gz" 2>&1 <<'EOF'
import gzip, sys, urllib.request
req = urllib.request.Request(sys.argv[1], headers={"Accept-Encoding": "gzip"})
with urllib.request.urlopen(req, timeout=10) as r:
    enc = r.headers.get("Content-Encoding")
    raw = r.read()
page = gzip.decompress(raw).decode()
names = sorted(l.split(" ")[0] for l in page.splitlines() if l and l[0] != "#")
print("encoding", enc, "samples", len(names), "smaller", len(raw) < len(page))
EOF
check gzip '^encoding gzip samples [1-9][0-9]* smaller True$' "$TMP/gz"
fetch /other >"$TMP/other"
check not_found '^HTTP 404$' "$TMP/other"
# A small node lists its peer NIs by default; ?peers=0 leaves them out
# and says so.
check peers_by_default '^ulnet_metrics_peer_nis_omitted 0$' "$TMP/page"
fetch '/metrics?peers=0' >"$TMP/nopeers"
check peers_left_out '^ulnet_metrics_peer_nis_omitted 1$' "$TMP/nopeers"
if grep -q '^ulnet_peer_ni_' "$TMP/nopeers"; then
	echo "FAIL peers_left_out: ?peers=0 still lists peer NIs"
	failed=$((failed + 1))
fi
check nis_kept '^ulnet_ni_up\{nid="127\.1\.31\.2@tcp",net="tcp"\} 1$' "$TMP/nopeers"

if command -v prometheus >/dev/null; then
	cat >"$TMP/prom.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: ulnetd
    static_configs:
      - targets: ['127.0.0.1:$mport']
EOF
	prometheus --config.file="$TMP/prom.yml" \
		--storage.tsdb.path="$TMP/prom" \
		--web.listen-address="127.0.0.1:$pport" \
		>"$TMP/prom.log" 2>&1 &
	prom=$!
	# Poll the query API until the rate shows (an event, 60 s at most).
	rate=""
	for _ in $(seq 120); do
		rate=$("$PY" - "$pport" <<'EOF' 2>/dev/null
import json, sys, urllib.parse, urllib.request
q = 'rate(ulnet_ni_messages_received_total{nid="127.1.31.2@tcp"}[5s])'
url = "http://127.0.0.1:%s/api/v1/query?query=%s" % (sys.argv[1], urllib.parse.quote(q))
with urllib.request.urlopen(url, timeout=5) as r:
    res = json.load(r)["data"]["result"]
print(res[0]["value"][1] if res else "")
EOF
		)
		[ -n "$rate" ] && awk -v r="$rate" 'BEGIN { exit !(r > 0) }' && break
		rate=""
		sleep 0.5
	done
	kill "$prom" 2>/dev/null || true
	wait "$prom" 2>/dev/null || true
	if [ -n "$rate" ]; then
		passed=$((passed + 1))
		echo "ok: Prometheus scraped B: rate $rate messages/s received"
	else
		echo "FAIL prometheus: no rate from the query API; its log:"
		tail -20 "$TMP/prom.log"
		failed=$((failed + 1))
	fi
else
	echo "SKIP prometheus: no prometheus binary (apt-get install prometheus)"
fi

kill "$perf" 2>/dev/null || true
wait "$perf" 2>/dev/null || true
echo "metrics: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
