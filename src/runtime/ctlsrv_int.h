/*
 * Inside the control server: the server object and the handlers of the
 * generic ops (src/ctl/proto.h), one file per command group:
 *
 *	ctlsrv.c         the socket, client connections, request dispatch
 *	ctlsrv_show.c    net show / peer show (the typed show replies)
 *	ctlsrv_ping.c    ping, discover (ops that wait)
 *	ctlsrv_perf.c    perf streams (perf put, selftest) and selftest stat
 *	ctlsrv_net.c     net add / del / set
 *	ctlsrv_peer.c    peer add / del / set / list
 *	ctlsrv_route.c   route add / del / show
 *	ctlsrv_routing.c routing show, set routing and *_buffers
 *	ctlsrv_global.c  set, global show, stats show / reset
 *	ctlsrv_udsp.c    udsp add / del / show
 *	ctlsrv_fault.c   fault add / del / show / reset
 *	ctlsrv_lnet.c    lnet configure / unconfigure, debug recovery /
 *	                 peer, cpt-of-nid
 *
 * A handler runs on the loop thread with the decoded request. It answers
 * with 0 and what the command prints in doc (ctl/proto_doc.h; the root
 * mapping is open; nothing added means the command prints nothing), or a
 * negative errno and lnetctl's text for the error YAML's "descr" in err
 * (err->msg empty: the client prints strerror's). A failing handler may
 * have written part of doc: it is dropped. Handlers never block.
 */
#ifndef UL_RUNTIME_CTLSRV_INT_H
#define UL_RUNTIME_CTLSRV_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/ni.h"
#include "ctl/proto.h"
#include "util/loop.h"
#include "ulnet/ulnet.h"
#include "util/list.h"

struct ul_core;
struct ul_err;
struct ul_log;
struct ul_loop;
struct ul_ni;
struct ul_node;
struct ul_node_req_env;
struct ul_peer;
struct ul_perf_sink;
struct ul_perf_stream;
struct ul_udsp_set;

/* One kind of log line, at most one a second (ctlsrv.c). */
struct ul_ctlsrv_ratelimit {
	bool is_used;
	uint64_t last_ns;   /* when the last line was written */
	unsigned int quiet; /* lines not written since */
};

struct ul_ctlsrv {
	struct ul_loop *loop;
	struct ul_node *node;
	struct ul_udsp_set *udsp; /* NULL: udsp ops answer -EOPNOTSUPP */
	const struct ul_log *log;
	char *path;
	int fd;
	struct ul_io io;
	struct ul_list clients;
	unsigned int nclients;
	unsigned int max_clients;	      /* slots (ctlsrv.h) */
	struct ul_ctlsrv_ratelimit crowd_rl;  /* evictions, refusals */
	struct ul_ctlsrv_ratelimit client_rl; /* timeouts, mid-request EOF */
	uint64_t timeout_ns;
	gid_t group; /* --ctl-group: members are served too */
	bool has_group;
	char *conf_path; /* what `lnet configure --all` applies */
	/* no conf_path: `lnet configure --all` brings up tcp (ulnetd) */
	bool is_default_net;
	unsigned int ncpt;	    /* CPTs reported (ulnetd --cpts) */
	unsigned int nnodes;	    /* NUMA nodes of this host (sysfs), >= 1 */
	struct ul_perf_sink *sink;  /* NULL: selftest stat shows no sink */
	struct ul_socklnd *socklnd; /* NULL: its parameters answer -ENODEV */
};

/*
 * A control client connection (ctlsrv.c has its state machine), and the
 * requests that outlive it.
 */
struct ctl_client;

enum ctl_client_state {
	CTL_CLIENT_READ_HDR,
	CTL_CLIENT_READ_BODY,
	CTL_CLIENT_BUSY,
	CTL_CLIENT_WRITE,
	CTL_CLIENT_WRITE_CLOSE,
};

/* A ping in flight; outlives its client if the client goes first. */
struct ctl_ping {
	struct ctl_client *c; /* NULL once the client closed */
	struct ulnet_nid target;
	bool is_discover; /* `discover`: merge what the reply says */
	bool is_force;	  /* `discover --force`: and push, FORCE_PUSH */
};

/* Rails a perf reply reports (local NIs, 0@lo excluded). */
#define UL_CTLSRV_PERF_RAILS_MAX 32

/* A perf stream in flight; outlives its client like a ping. */
struct ctl_perf {
	struct ctl_client *c; /* NULL once the client closed */
	struct ul_node *node;
	struct ul_perf_stream *stream; /* until perf_done runs */
	uint32_t op;		       /* enum ul_perf_op */
	size_t nrails;
	struct ulnet_ni_info before[UL_CTLSRV_PERF_RAILS_MAX];
};

struct ctl_client {
	struct ul_list link; /* on ul_ctlsrv.clients */
	struct ul_ctlsrv *srv;
	int fd;
	pid_t pid; /* from SO_PEERCRED, for log lines */
	struct ul_io io;
	struct ul_timer timer;
	enum ctl_client_state state;
	uint8_t hdr[UL_CTL_HDR_SIZE];
	size_t hdr_got;
	uint8_t *frame; /* header + payload being read */
	size_t frame_len;
	size_t frame_got;
	struct ul_ctl_msg out; /* reply being written */
	size_t out_off;
	struct ctl_ping *ping;
	struct ctl_perf *perf;
};

/*
 * Queue a reply (or a generic op's document) to c and start writing it;
 * then_close: close once it is out. c may be gone when this returns.
 */
void ul_ctlsrv_client_send(struct ctl_client *c, const struct ul_ctl_reply *r,
			   bool then_close);
void ul_ctlsrv_client_send_doc(struct ctl_client *c, uint16_t op,
			       const struct ul_ctl_msg *doc);
/* A page of a paged table: cursor, where the next starts, or NULL. */
void ul_ctlsrv_client_send_page(struct ctl_client *c, uint16_t op,
				const struct ul_ctl_msg *doc,
				const uint32_t *cursor);

/*
 * ctlsrv_show.c: the reply documents of NET_SHOW and PEER_SHOW. 0 with
 * the document in d (initialised here; the caller sends and frees it),
 * 1 with an error reply in r instead (no such net or peer), or -ENOMEM.
 * A paged PEER_SHOW (req->has_cursor) that stopped before the end of the
 * table sets r->has_cursor and r->cursor, where the next page starts.
 */
int ul_ctlsrv_net_show(struct ul_ctlsrv *srv,
		       const struct ul_ctl_net_show_req *req,
		       struct ul_ctl_msg *d, struct ul_ctl_reply *r);
int ul_ctlsrv_peer_show(struct ul_ctlsrv *srv,
			const struct ul_ctl_peer_show_req *req,
			struct ul_ctl_msg *d, struct ul_ctl_reply *r);
/* ctlsrv_ping.c: start a ping or discover for c (BUSY). */
void ul_ctlsrv_do_ping(struct ctl_client *c, const struct ul_ctl_ping_req *req);
void ul_ctlsrv_do_discover(struct ctl_client *c, const struct ul_ctl_args *a);
/* ctlsrv_perf.c: start a perf stream for c (BUSY); selftest stat. */
void ul_ctlsrv_do_perf(struct ctl_client *c, const struct ul_ctl_perf_req *req);
int ul_ctlsrv_selftest_stat(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			    struct ul_ctl_msg *doc, struct ul_err *err);

/*
 * The CPT of NUMA node numa ("dev cpt" of net show -v), as LNet's
 * cfs_cpt_of_node() gives it when ncpt CPTs are spread evenly over the
 * host's nnodes nodes: the first CPT on that node; -1 for no node
 * (UL_NUMA_ANY) or a node that no CPT covers.
 */
int ul_ctlsrv_dev_cpt(unsigned int ncpt, unsigned int nnodes, int numa);

/*
 * LNet's CPT of a NID among ncpt (lnet_nid_cpt_hash, core/ni.h): what
 * cpt-of-nid prints and what orders peers by their primary NID.
 */
unsigned int ul_ctlsrv_cpt_of(const struct ulnet_nid *nid, unsigned int ncpt);
/*
 * The numbers `peer show -v 2` prints of one peer NI, gathered in one
 * place for the show document (ctlsrv_show.c) and the metrics page,
 * which copies them on the loop and prints them from another thread.
 */
struct ul_ctlsrv_pni_vals {
	const char *state; /* "up", "down" or "NA" (static) */
	int max_tx, tx, min_tx;
	uint64_t txq; /* bytes queued */
	int rtr, min_rtr;
	int refcount;
	struct ulnet_msg_stats st;
	struct ul_lat lat[UL_LAT_NR];
	int healthv;
	uint64_t hs_dropped, hs_timeout, hs_error, hs_network_timeout;
	uint32_t ping_count;
	int64_t next_ping;
};
void ul_ctlsrv_pni_vals(const struct ul_core *core,
			const struct ul_peer_ni *lpni,
			struct ul_ctlsrv_pni_vals *v);
/* The loopback peer (0@lo), which no show lists. */
bool ul_ctlsrv_peer_is_lo(const struct ul_peer *p);
/*
 * Every peer but 0@lo in the order LNet lists them (peer show, peer
 * list, export): by the CPT of the primary NID (its peer table), then in
 * creation order. *out is an array the caller frees (NULL when there is
 * no peer); *n its length. 0 or -ENOMEM.
 */
int ul_ctlsrv_peers_by_cpt(const struct ul_ctlsrv *srv, struct ul_peer ***out,
			   size_t *n);

/*
 * The configuration requests as the node takes them (ctl/node_req.h):
 * this instance's node, CPT count and the host's own interfaces.
 */
void ul_ctlsrv_node_env(const struct ul_ctlsrv *srv,
			struct ul_node_req_env *env);

typedef int (*ul_ctlsrv_op_fn)(struct ul_ctlsrv *srv,
			       const struct ul_ctl_args *a,
			       struct ul_ctl_msg *doc, struct ul_err *err);

/* ctlsrv_param.c */
int ul_ctlsrv_param_get(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			struct ul_ctl_msg *doc, struct ul_err *err);
int ul_ctlsrv_param_set(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			struct ul_ctl_msg *doc, struct ul_err *err);
/* ctlsrv_peer.c */
int ul_ctlsrv_peer_list(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			struct ul_ctl_msg *doc, struct ul_err *err);
/* ctlsrv_route.c */
int ul_ctlsrv_route_show(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			 struct ul_ctl_msg *doc, struct ul_err *err);
int ul_ctlsrv_routing_show(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			   struct ul_ctl_msg *doc, struct ul_err *err);
/* ctlsrv_global.c */
int ul_ctlsrv_global_show(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			  struct ul_ctl_msg *doc, struct ul_err *err);
int ul_ctlsrv_stats_show(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			 struct ul_ctl_msg *doc, struct ul_err *err);
int ul_ctlsrv_stats_reset(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			  struct ul_ctl_msg *doc, struct ul_err *err);
/* ctlsrv_udsp.c */
int ul_ctlsrv_udsp_show(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			struct ul_ctl_msg *doc, struct ul_err *err);
/* ctlsrv_fault.c */
int ul_ctlsrv_fault_add(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			struct ul_ctl_msg *doc, struct ul_err *err);
int ul_ctlsrv_fault_del(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			struct ul_ctl_msg *doc, struct ul_err *err);
int ul_ctlsrv_fault_show(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			 struct ul_ctl_msg *doc, struct ul_err *err);
int ul_ctlsrv_fault_reset(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			  struct ul_ctl_msg *doc, struct ul_err *err);
/* ctlsrv_lnet.c */
int ul_ctlsrv_lnet_configure(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			     struct ul_ctl_msg *doc, struct ul_err *err);
int ul_ctlsrv_lnet_unconfigure(struct ul_ctlsrv *srv,
			       const struct ul_ctl_args *a,
			       struct ul_ctl_msg *doc, struct ul_err *err);
int ul_ctlsrv_debug_recovery(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			     struct ul_ctl_msg *doc, struct ul_err *err);
int ul_ctlsrv_debug_peer(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			 struct ul_ctl_msg *doc, struct ul_err *err);
int ul_ctlsrv_cpt_of_nid(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			 struct ul_ctl_msg *doc, struct ul_err *err);

/* An NI's "CPT" as net show prints it: "[0,1]" (every CPT if unbound). */
void ul_ctlsrv_cpt_format(const struct ul_ctlsrv *srv, const struct ul_ni *ni,
			  char *buf, size_t len);

#endif /* UL_RUNTIME_CTLSRV_INT_H */
