/*
 * Prometheus metrics for a node: `ulnetd --metrics ADDR:PORT` serves
 * /metrics in the text exposition format (version 0.0.4) over HTTP,
 * from the node's own loop thread (libmicrohttpd driven by the loop's
 * epoll, no thread of its own), so a scrape reads the node's state
 * without a lock.
 *
 * The page is made from the same reply documents ulnetctl prints (net
 * show at -v 2, stats show, route show -v; built by runtime/ctlsrv_*.c),
 * walked and renamed by one table in metrics.c: a counter those shows
 * learn appears on the page too, as a gauge named after its key until
 * the table gives it a conventional name and type. The peer NIs, which
 * a big node has tens of thousands of, are printed from the values
 * peer show -v 2 prints (metrics_peers.c, under the same names), not
 * through its document: a new peer NI counter needs a line there.
 * Names follow Prometheus's conventions (ulnet_ prefix, _total for
 * counters, seconds for times); the labels are the ones operators filter
 * on: nid and net for a local NI, primary_nid, nid and net for a peer
 * NI, net, gateway, priority and hops for a route.
 *
 * Threads: the loop thread takes what a page needs from the node: the
 * page but the peer NIs, built from the documents, and a copy of every
 * peer NI's numbers (ul_ctlsrv_pni_vals, what peer show -v 2 prints);
 * then it suspends the request and a worker thread of that scrape prints
 * the peer NIs' samples into a memfd (gzip'd when the client accepts
 * it) and resumes it; libmicrohttpd sends the file with sendfile(). A
 * big page costs the node a copy, not the printing (docs/performance.md
 * has the figures). Timers:
 * libmicrohttpd's connection timeouts, on a loop timer armed after each
 * of its runs.
 */
#ifndef UL_RUNTIME_METRICS_H
#define UL_RUNTIME_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct ul_ctlsrv;
struct ul_err;
struct ul_loop;
struct ul_metrics;

/*
 * Serve srv's node on addr ("IPv4:PORT", e.g. "127.0.0.1:9469") from
 * loop. 0 and *out, or -EINVAL (a bad address), -EADDRINUSE or another
 * -errno with err filled.
 */
int ul_metrics_create(struct ul_loop *loop, struct ul_ctlsrv *srv,
		      const char *addr, struct ul_metrics **out,
		      struct ul_err *err);
/* Stop serving (on the loop thread, or with the loop stopped). */
void ul_metrics_destroy(struct ul_metrics *m);

/*
 * Without ?peers=, a page lists the peer NIs only while the node has at
 * most this many: each brings 44 series, and a Prometheus server should
 * not take 1.8 million series from one node it scrapes by default (the
 * node itself pays little: 19 ms of loop time for a gzip'd page at
 * 40,000 peer NIs);
 * ?peers=1 asks for them whatever their number.
 */
#define UL_METRICS_PEER_NIS_MAX 2000

/* The peer NIs the node has now. */
size_t ul_metrics_peer_nis(struct ul_ctlsrv *srv);

/*
 * The peer NIs' part of a page (metrics_peers.c): take copies every peer
 * NI's numbers on the loop thread into reuse (an earlier snapshot, whose
 * memory is then already the process's; NULL: a new one), 0 or -ENOMEM
 * (reuse is freed then); print writes their samples to f on any thread.
 */
struct ul_metrics_snap;
int ul_metrics_snap_take(struct ul_ctlsrv *srv, struct ul_metrics_snap *reuse,
			 struct ul_metrics_snap **out);
int ul_metrics_snap_print(struct ul_metrics_snap *s, FILE *f);
void ul_metrics_snap_free(struct ul_metrics_snap *s);

#endif /* UL_RUNTIME_METRICS_H */
