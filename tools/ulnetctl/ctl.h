/*
 * ulnetctl's side of the control socket (src/ctl/proto.h): where the
 * socket is, and one request/reply exchange with bounds and a deadline.
 *
 * The path is the global option "--ctl SOCKET" (before the command),
 * else $ULNET_CTL, else UL_CTL_DEFAULT_PATH (/run/ulnet/ulnetd.ctl).
 */
#ifndef ULNETCTL_CTL_H
#define ULNETCTL_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ctl/proto.h"

#include "cmd.h"

struct ul_err;

/* Use path for every later exchange (the --ctl option). */
void ulnetctl_ctl_set_path(const char *path);
/* The socket path in use. */
const char *ulnetctl_ctl_path(void);

/* Time allowed for a show reply; a ping adds its own timeout to this. */
#define ULNETCTL_CTL_TIMEOUT_MS 30000

/*
 * Connect, send req, wait up to timeout_ms for its reply and decode it
 * into *reply (ul_ctl_reply_fini() it). 0, whatever the reply's rc; or
 * -errno with an lnetctl-style text in err: the socket missing or
 * refusing (a dead daemon), the daemon closing early, -ETIMEDOUT, or
 * -EPROTO for a reply that is not one.
 */
int ulnetctl_ctl_call(const struct ul_ctl_req *req, uint32_t timeout_ms,
		      struct ul_ctl_reply *reply, struct ul_err *err);
/*
 * The same, the reply's document kept raw (reply->doc_raw, for
 * ul_doc_print_raw() or ul_doc_pages_print()): a large table printed
 * without building its tree.
 */
int ulnetctl_ctl_call_raw(const struct ul_ctl_req *req, uint32_t timeout_ms,
			  struct ul_ctl_reply *reply, struct ul_err *err);
/*
 * The same with the ulnetd at path (selftest drives several); safe to
 * call from several threads at once.
 */
int ulnetctl_ctl_call_at(const char *path, const struct ul_ctl_req *req,
			 uint32_t timeout_ms, struct ul_ctl_reply *reply,
			 struct ul_err *err);

/*
 * Keep one connection for all the requests that follow (single-threaded
 * callers sending many: import); false closes it. Off by default: the
 * calls above are then safe from several threads at once.
 */
void ulnetctl_ctl_keep(bool is_on);
/*
 * One generic op (proto.h): send args, wait up to timeout_ms, decode the
 * reply (ul_ctl_reply_fini() it). 0 whatever the reply's rc, or -errno
 * with err set (as ulnetctl_ctl_call()).
 */
int ulnetctl_call(uint16_t op, const struct ul_ctl_args *a, uint32_t timeout_ms,
		  struct ul_ctl_reply *reply, struct ul_err *err);
/*
 * The common case of a netlink-backed lnetctl command: run op; on any
 * failure (the socket, or the instance's rc) print the D1 error YAML
 * "<d1_op>: - <object>: errno, descr" on stderr and return -EINVAL (exit
 * 234); on success print the reply's document in engine (enum
 * ul_doc_engine; -1 prints nothing) and return 0.
 */
int ulnetctl_do(uint16_t op, const struct ul_ctl_args *a, const char *d1_op,
		const char *object, int engine);
/*
 * `net add --ip2net RULES` (ip2net.c): LNet's legacy ip2nets matching,
 * against the interfaces of ulnetctl's own network namespace, then one
 * net add per net that matched.
 */
int ulnetctl_net_add_ip2net(const char *rules);
/*
 * Expand a NID range list (§4.3) as lnetctl does, IPv4 host names (words
 * that start with a letter) resolved first ("myhost@tcp"):
 * ul_nidrange_expand()'s results and errors (peer.c). Used by peer,
 * route, ping and discover.
 */
int ulnetctl_nidlist_expand(const char *list, struct ulnet_nid *out, size_t max,
			    size_t *count, struct ul_err *err);
/* A fault op; failures print "failed to <what>: <why>" (fault.c). */
int ulnetctl_fault_call(uint16_t op, const struct ul_ctl_args *a,
			const char *what);
/* `net set` / `peer set` failure: D2 "net: - set:"; returns -EINVAL. */
int ulnetctl_set_failed(const char *descr);
/* Print a D1 error (descr NULL or "": strerror's text); returns -EINVAL. */
int ulnetctl_d1(const char *d1_op, const char *object, int errnum,
		const char *descr);

/*
 * The commands that talk to the instance (cmd.h is the table's shape):
 * "net" and "peer" verbs, and "ping", a command without verbs.
 */
extern const struct ulnetctl_cmd ulnetctl_net_cmds[];
extern const struct ulnetctl_cmd ulnetctl_peer_cmds[];
extern const struct ulnetctl_cmd ulnetctl_lnet_cmds[];	  /* lnet.c */
extern const struct ulnetctl_cmd ulnetctl_route_cmds[];	  /* route.c */
extern const struct ulnetctl_cmd ulnetctl_routing_cmds[]; /* route.c */
extern const struct ulnetctl_cmd ulnetctl_set_cmds[];	  /* global.c */
extern const struct ulnetctl_cmd ulnetctl_global_cmds[];  /* global.c */
extern const struct ulnetctl_cmd ulnetctl_stats_cmds[];	  /* global.c */
extern const struct ulnetctl_cmd ulnetctl_udsp_cmds[];	  /* udsp.c */
extern const struct ulnetctl_cmd ulnetctl_fault_cmds[];	  /* fault.c */
/* Commands without verbs. */
int ulnetctl_discover(int argc, char **argv);	/* ping.c */
int ulnetctl_cpt_of_nid(int argc, char **argv); /* lnet.c */
int ulnetctl_import(int argc, char **argv);	/* import.c */
int ulnetctl_export(int argc, char **argv);	/* export.c */
/*
 * export's global section (global.c): asks for it and writes lnetctl's
 * numa_range error into out at once if LNet is down; true and *reply
 * (the caller prints reply->doc later, then frees it) when there are
 * values to print.
 */
bool ulnetctl_global_export(FILE *out, struct ul_ctl_reply *reply);
/* ulnet's own "perf" noun (perf.c). */
extern const struct ulnetctl_cmd ulnetctl_perf_cmds[];
extern const struct ulnetctl_cmd ulnetctl_selftest_cmds[];
extern const struct ulnetctl_cmd ulnetctl_param_cmds[]; /* param.c */

/*
 * Shared by perf put and selftest (perf.c): a positive integer within
 * [1, max] with an optional K or M suffix (0 or -EINVAL); MiB/s of bytes
 * over ns; "-ETIMEDOUT", or "-123" for an errno ulnet has no name for.
 */
int ulnetctl_parse_size(const char *s, unsigned long max, uint32_t *out);
double ulnetctl_mib_per_s(uint64_t bytes, uint64_t ns);
const char *ulnetctl_status_name(int status, char *buf, size_t size);
int ulnetctl_ping(int argc, char **argv);

/* lnetctl's -v/--verbose level, called for the option inside getopt. */
uint32_t ulnetctl_verbose_arg(int argc, char **argv);
/* Print a show failure as lnetctl does (D1 on stderr); returns 234's rc. */
int ulnetctl_show_failed(const char *object, int rc, const char *descr);

#endif /* ULNETCTL_CTL_H */
