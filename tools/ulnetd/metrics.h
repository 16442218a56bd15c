/*
 * Prometheus metrics for a node: `ulnetd --metrics ADDR:PORT` serves
 * /metrics in the text exposition format (version 0.0.4) over HTTP,
 * from the node's own loop thread (libmicrohttpd driven by the loop's
 * epoll, no thread of its own), so a scrape reads the node's state
 * without a lock.
 *
 * The page is made from the same reply documents ulnetctl prints (net
 * show and peer show at -v 2, stats show, route show -v; built by
 * runtime/ctlsrv_*.c), walked and renamed by one table in metrics.c:
 * a counter a show learns appears on the page too, as a gauge named
 * after its key until the table gives it a conventional name and type.
 * Names follow Prometheus's conventions (ulnet_ prefix, _total for
 * counters, seconds for times); the labels are the ones operators filter
 * on: nid and net for a local NI, primary_nid, nid and net for a peer
 * NI, net, gateway, priority and hops for a route.
 *
 * Threads: everything on the loop thread. Timers: libmicrohttpd's
 * connection timeouts, on a loop timer armed after each of its runs.
 */
#ifndef UL_RUNTIME_METRICS_H
#define UL_RUNTIME_METRICS_H

#include <stdbool.h>
#include <stddef.h>

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
 * most this many (a scrape of 2,000 takes the loop about 0.6 s, Release
 * build); ?peers=1 asks for them whatever their number.
 */
#define UL_METRICS_PEER_NIS_MAX 2000

/* The peer NIs the node has now. */
size_t ul_metrics_peer_nis(struct ul_ctlsrv *srv);

/*
 * The page as a scrape gets it: a NUL-terminated malloc'd string in *out
 * (its length in *len), 0 or -ENOMEM; is_peers false leaves the peer NIs
 * out (`/metrics?peers=0`).
 *
 * Cost: the page is built on the loop thread and blocks the node while
 * it is: about 6.7 us a sample in a Release build, 44 samples a peer NI,
 * so 0.85 s for 1,000 peers of 4 NIDs and 12 s for 10,000 (bench:
 * scripts/bench_metrics.sh). A big node should be scraped with
 * ?peers=0; building the samples straight from the node instead of
 * through the show documents is the way to the 50 ms. Until
 * then a default scrape leaves the peer NIs out past
 * UL_METRICS_PEER_NIS_MAX and says so (ulnet_metrics_peer_nis_omitted).
 */
int ul_metrics_page(struct ul_ctlsrv *srv, bool is_peers, char **out,
		    size_t *len);

#endif /* UL_RUNTIME_METRICS_H */
