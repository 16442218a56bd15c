/*
 * The control socket server of one instance: accepts ulnetctl's
 * connections on a Unix socket and answers the requests of
 * src/ctl/proto.h on the instance's loop thread, reading the node's state
 * (struct ul_core, ul_node_ni_info) and running pings through the node.
 *
 * Everything here runs on the loop thread (or the creating thread before
 * the loop runs). Clients never stall the loop: sockets are non-blocking,
 * a request must arrive whole within the client timeout and a reply must
 * be drained within it, else the client is closed.
 */
#ifndef UL_RUNTIME_CTLSRV_H
#define UL_RUNTIME_CTLSRV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct ul_ctlsrv;
struct ul_log;
struct ul_loop;
struct ul_node;
struct ul_udsp_set;

/* Time a client has to send a whole request or read a whole reply. */
#define UL_CTLSRV_CLIENT_TIMEOUT_MS 5000
/*
 * Clients served at once: this many, or a quarter of the process's
 * open-file limit (RLIMIT_NOFILE) when that is less, 16 at least. When a
 * newcomer finds every slot taken, the client the server has waited on
 * longest (idle, sending a request or not reading its reply) is closed
 * to make room; a client whose command runs on the node (ping, discover,
 * perf put) is never closed so. If all of them run, the newcomer gets an
 * -EBUSY error reply "too many control clients (N)" and is closed.
 */
#define UL_CTLSRV_MAX_CLIENTS 512

/*
 * Listen on the Unix socket at path (mode 0600). A file already at path
 * is removed first only when it is a socket nobody listens on (a stale
 * one); -EADDRINUSE when a server answers there, -EEXIST when it is not a
 * socket. Only clients with the daemon's uid, or root, are served.
 * node and log (may be NULL) are borrowed and must outlive the server.
 * 0 and *out, or -errno (-ENAMETOOLONG for a path too long for a socket).
 */
int ul_ctlsrv_create(struct ul_loop *loop, struct ul_node *node,
		     const char *path, const struct ul_log *log,
		     struct ul_ctlsrv **out);
/*
 * Close every client and the listening socket and remove the socket
 * file. A ping still running completes later into nothing. NULL is fine.
 */
void ul_ctlsrv_destroy(struct ul_ctlsrv *srv);

/* The instance's UDSP rule set, for udsp add/del/show (NULL: none). */
void ul_ctlsrv_set_udsp(struct ul_ctlsrv *srv, struct ul_udsp_set *udsp);
/* The perf sink whose counters selftest stat shows (NULL: none). */
struct ul_perf_sink;
void ul_ctlsrv_set_perf_sink(struct ul_ctlsrv *srv, struct ul_perf_sink *sink);
/* The socklnd whose parameters `param get|set` reach (NULL: none). */
struct ul_socklnd;
void ul_ctlsrv_set_socklnd(struct ul_ctlsrv *srv, struct ul_socklnd *s);
/* CPU partitions to report (ulnetd --cpts); 0 means 1. */
void ul_ctlsrv_set_ncpt(struct ul_ctlsrv *srv, unsigned int ncpt);
/* The lnet.conf `lnet configure --all` applies (NULL: none). 0/-ENOMEM. */
int ul_ctlsrv_set_conf_path(struct ul_ctlsrv *srv, const char *path);
/*
 * Without an lnet.conf, let `lnet configure --all` bring up tcp on the
 * first non-loopback interface that is up with an IPv4 address, as LNet
 * applies its module defaults (networks="tcp") and ulnetd does at start.
 */
void ul_ctlsrv_set_default_net(struct ul_ctlsrv *srv, bool is_default_net);
/*
 * Apply that lnet.conf as `ulnetctl import` does (ctl/conf_import.h),
 * through this server's handlers: ulnetd --config at start, and `lnet
 * configure --all`. Every note and error is logged with the file's line,
 * also the refusals lnetctl's import keeps to itself (conf_import.h
 * is_silent), so that a file that fails always says why. 0 (also
 * without a file), or the import's status (a negative errno) with the
 * first error in err ("line L: <why>"); what came before
 * it stays applied.
 */
struct ul_err;
int ul_ctlsrv_apply_conf(struct ul_ctlsrv *srv, struct ul_err *err);
/*
 * Let members of group gid control the instance too (ulnetd
 * --ctl-group): the socket becomes mode 0660 with that group. 0 or -errno.
 */
int ul_ctlsrv_set_group(struct ul_ctlsrv *srv, gid_t gid);

/* For tests: the client timeout in ms (default above). */
void ul_ctlsrv_set_client_timeout(struct ul_ctlsrv *srv, uint32_t timeout_ms);
/* For tests: the client slots (0 means 1), and how many there are. */
void ul_ctlsrv_set_max_clients(struct ul_ctlsrv *srv, unsigned int n);
unsigned int ul_ctlsrv_max_clients(const struct ul_ctlsrv *srv);

#endif /* UL_RUNTIME_CTLSRV_H */
