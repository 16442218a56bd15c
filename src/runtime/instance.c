/*
 * The instance: the public API of include/ulnet/ulnet.h over one node
 * (core/node.h) driven by one loop thread (util/loop.h), with socklnd
 * for tcp nets, lolnd for 0@lo and the link monitor.
 *
 * Threads: every call lands on the loop thread. Before ulnet_start()
 * there is no loop thread and calls run on the caller's thread; on the
 * loop thread (callbacks, ulnet_call()) they run at once; from any other
 * thread they are posted to the loop's command queue and the caller waits
 * on the instance's condition variable for the result (struct sync_call).
 * The node and everything under it are touched by the loop thread only.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "core/core.h"
#include "core/discovery_send.h"
#include "core/node.h"
#include "core/udsp.h"
#include "ctl/conf.h"
#include "ctl/conf_host.h"
#include "ctl/node_req.h"
#include "core/lnd.h"
#include "lnd/socklnd.h"
#include "runtime/instance.h"
#include "runtime/linkmon.h"
#include "runtime/params.h"
#include "util/loop.h"
#include "ulnet/ulnet.h"
#include "util/clock.h"
#include "util/err.h"
#include "util/log.h"
#include "lnd/lolnd.h"

enum inst_state {
	INST_CREATED, /* configured, no thread */
	INST_RUNNING, /* loop thread up */
	INST_STOPPED, /* thread joined; node shut down */
};

struct ulnet {
	struct ulnet_opts opts; /* strings below are our copies */
	struct ul_log log;
	struct ul_loop *loop;
	struct ul_node *node;
	struct ul_udsp_set *udsp;
	struct ul_socklnd *socklnd;
	struct ul_linkmon *linkmon;
	pthread_t thread;
	pthread_mutex_t lock; /* guards state and every sync_call.done */
	pthread_cond_t cond;
	enum inst_state state;
	bool has_thread;   /* thread is valid (under lock) */
	bool is_stopping;  /* a ulnet_stop() took charge (under lock) */
	bool is_joined;	   /* ... joined the loop thread (under lock) */
	bool is_stop_done; /* ... and finished (under lock) */
};

/* A call carried to the loop thread and waited for. */
struct sync_call {
	struct ulnet *u;
	int (*fn)(struct ulnet *u, void *arg);
	void *arg;
	int rc;
	bool done; /* under u->lock */
};

static void sync_call_run(void *arg, bool is_shutdown)
{
	struct sync_call *sc = arg;
	int rc = -ESHUTDOWN;

	if (!is_shutdown)
		rc = sc->fn(sc->u, sc->arg);
	pthread_mutex_lock(&sc->u->lock);
	sc->rc = rc;
	sc->done = true;
	pthread_cond_broadcast(&sc->u->cond);
	pthread_mutex_unlock(&sc->u->lock);
}

/*
 * The instance's state and whether the caller is its loop thread, read
 * together under the lock. The loop's own notion of its thread is not
 * used: until the new thread has entered the loop, the loop counts its
 * creator as its thread.
 */
static enum inst_state state_of(struct ulnet *u, bool *is_loop)
{
	enum inst_state state;

	pthread_mutex_lock(&u->lock);
	state = u->state;
	*is_loop = state == INST_RUNNING &&
		   pthread_equal(pthread_self(), u->thread);
	pthread_mutex_unlock(&u->lock);
	return state;
}

/*
 * Post a command while the instance runs: the state check and the post
 * are one step under u->lock, so every command posted before
 * ulnet_stop() marks the instance stopped is queued before stop_cmd and
 * runs; none can land behind it and wait for ulnet_destroy(). 1 when the
 * caller is the loop thread or there is none yet (run it yourself).
 */
static int post_running(struct ulnet *u, ul_loop_cmd_fn fn, void *arg)
{
	int rc;

	pthread_mutex_lock(&u->lock);
	if (u->state == INST_STOPPED)
		rc = -ESHUTDOWN;
	else if (u->state == INST_CREATED ||
		 pthread_equal(pthread_self(), u->thread))
		rc = 1;
	else
		rc = ul_loop_post(u->loop, fn, arg);
	pthread_mutex_unlock(&u->lock);
	return rc;
}

/* Run fn on the thread that owns the node and return its result. */
static int run_on_loop(struct ulnet *u, int (*fn)(struct ulnet *u, void *arg),
		       void *arg)
{
	struct sync_call sc = { .u = u, .fn = fn, .arg = arg };
	int rc;

	rc = post_running(u, sync_call_run, &sc);
	if (rc == 1)
		return fn(u, arg);
	if (rc < 0)
		return rc;
	pthread_mutex_lock(&u->lock);
	while (!sc.done)
		pthread_cond_wait(&u->cond, &u->lock);
	pthread_mutex_unlock(&u->lock);
	return sc.rc;
}

static void copy_err(char *err, size_t err_size, const struct ul_err *e)
{
	if (err && err_size)
		snprintf(err, err_size, "%s", e->msg[0] ? e->msg : "");
}

/* The public mask names are the log's own bits. */
_Static_assert((unsigned)ULNET_LOG_NET == (unsigned)UL_D_NET &&
		       (unsigned)ULNET_LOG_NETERROR ==
			       (unsigned)UL_D_NETERROR &&
		       (unsigned)ULNET_LOG_CONSOLE == (unsigned)UL_D_CONSOLE &&
		       (unsigned)ULNET_LOG_WARNING == (unsigned)UL_D_WARNING &&
		       (unsigned)ULNET_LOG_ERROR == (unsigned)UL_D_ERROR &&
		       (unsigned)ULNET_LOG_INFO == (unsigned)UL_D_INFO,
	       "ulnet_log_mask and ul_log_mask differ");

void ulnet_opts_init(struct ulnet_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->accept_port = ULNET_ACCEPT_PORT;
	opts->accept = ULNET_ACCEPT_SECURE;
	opts->src_port = ULNET_SRC_PORT_AUTO;
}

static void log_note(void *ctx, unsigned int line, unsigned int column,
		     const char *text)
{
	struct ulnet *u = ctx;

	if (line)
		ul_log(&u->log, UL_D_WARNING, "lnet.conf line %u column %u: %s",
		       line, column, text);
	else
		ul_log(&u->log, UL_D_WARNING, "lnet.conf: %s", text);
}

/* An error of the file, as the daemon logs it (ctlsrv_lnet.c). */
static void log_report(void *ctx, const struct ul_conf_report *r)
{
	struct ulnet *u = ctx;

	ul_node_req_log_report(&u->log, "lnet.conf", r);
}

static void log_warning(void *ctx, const struct ul_conf_warning *w)
{
	log_note(ctx, w->line, w->column, w->text);
}

/* CPUs online, as ulnetd reports CPTs by default: 1 to 64. */
static unsigned int online_cpts(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 64 ? 64 : (unsigned int)n;
}

/*
 * The configuration goes in as ulnetd's --config does: through the node
 * requests of ctl/node_req.h. No configuration and is_default_net: LNet's
 * default networks="tcp", a net block with no interface, which takes the
 * first up IPv4 interface but a loopback one.
 */
static int configure(struct ulnet *u, struct ul_err *err)
{
	struct ul_node_req_apply_ops ops = { log_report, log_warning, u };
	struct ul_node_req_env env = { 0 };
	const char *text = u->opts.conf_text;
	struct ul_conf conf;
	int rc;

	if (!text && !u->opts.conf_path) {
		if (!u->opts.is_default_net)
			return 0;
		text = UL_NODE_REQ_DEFAULT_NET;
	}
	ul_conf_init(&conf);
	if (text)
		rc = ul_conf_parse(text, strlen(text), &conf, err);
	else
		rc = ul_conf_parse_file(u->opts.conf_path, &conf, err);
	env.node = u->node;
	env.ncpt = online_cpts();
	if (rc == 0)
		rc = ul_node_req_apply(&env, &conf, &ops, err);
	ul_conf_fini(&conf);
	return rc;
}

static char *dup_opt(const char *s, int *rc)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*rc = -ENOMEM;
	return d;
}

static void free_opts(struct ulnet_opts *o)
{
	free((char *)o->conf_text);
	free((char *)o->conf_path);
}

/*
 * The interface cookie of the wire handles we give out (wire.md §7.3):
 * different on every run, so that an answer to an earlier incarnation of
 * this node is refused.
 */
static uint64_t new_interface_cookie(void)
{
	struct timespec ts;
	uint64_t cookie = 0;

	if (getrandom(&cookie, sizeof(cookie), GRND_NONBLOCK) !=
	    (ssize_t)sizeof(cookie)) {
		clock_gettime(CLOCK_REALTIME, &ts);
		cookie = (uint64_t)ts.tv_sec * 1000000000u +
			 (uint64_t)ts.tv_nsec;
		cookie ^= (uint64_t)getpid() << 32;
	}
	/* 0 and ~0 are LNet's "none" cookies. */
	if (cookie == 0 || cookie == UINT64_MAX)
		cookie = 1;
	return cookie;
}

/* Free whatever part of an instance exists; the thread is not running. */
static void teardown(struct ulnet *u)
{
	if (u->linkmon)
		ul_linkmon_destroy(u->linkmon);
	if (u->node)
		ul_node_shutdown(u->node);
	/* UDSP watches the core's objects: detach before the core goes. */
	ul_udsp_detach(u->udsp);
	ul_node_destroy(u->node);
	if (u->socklnd)
		ul_socklnd_destroy(u->socklnd);
	if (u->loop)
		ul_loop_destroy(u->loop);
	pthread_cond_destroy(&u->cond);
	pthread_mutex_destroy(&u->lock);
	ul_log_limits_free(u->log.limits);
	free_opts(&u->opts);
	free(u);
}

static int register_lnds(struct ulnet *u)
{
	struct ul_socklnd_opts sopts;
	struct ul_lnd lnd;
	int rc;

	ul_socklnd_opts_init(&sopts);
	sopts.accept_port = u->opts.accept_port;
	sopts.accept = u->opts.accept;
	sopts.src_port = u->opts.src_port;
	sopts.log = &u->log;
	rc = ul_socklnd_create(u->loop, &sopts, &u->socklnd);
	if (rc < 0)
		return rc;
	lnd = (struct ul_lnd){ &ul_socklnd_ops, u->socklnd, ULNET_LND_SOCK };
	rc = ul_node_register_lnd(u->node, &lnd);
	if (rc < 0)
		return rc;
	/* 0@lo, which every node starts. */
	return ul_lolnd_register(u->node);
}

int ulnet_create(const struct ulnet_opts *opts, struct ulnet **out, char *err,
		 size_t err_size)
{
	struct ul_node_opts nopts = { 0 };
	struct ul_err e = { 0 };
	struct ul_core *c = NULL;
	struct ulnet *u;
	int rc = 0;

	if (opts->conf_text && opts->conf_path) {
		rc = ul_err_set(&e, -EINVAL,
				"give conf_text or conf_path, not both");
		goto fail;
	}
	u = calloc(1, sizeof(*u));
	if (!u) {
		rc = -ENOMEM;
		goto fail;
	}
	pthread_mutex_init(&u->lock, NULL);
	pthread_cond_init(&u->cond, NULL);
	u->opts = *opts;
	u->opts.conf_text = dup_opt(opts->conf_text, &rc);
	u->opts.conf_path = dup_opt(opts->conf_path, &rc);
	if (!u->opts.accept_port)
		u->opts.accept_port = ULNET_ACCEPT_PORT;
	u->log.fn = opts->log;
	u->log.ctx = opts->log_ctx;
	u->log.mask = opts->log_mask ? opts->log_mask & UL_LOG_ALL_MASK
				     : UL_LOG_DEFAULT_MASK;
	/* Lines a remote host can trigger are rate limited, as libcfs's. */
	u->log.limits = ul_log_limits_new();
	if (!u->log.limits)
		rc = -ENOMEM;
	if (rc == 0)
		rc = ul_loop_create(&u->loop);
	if (rc == 0)
		rc = ul_core_create(&c);
	if (rc == 0)
		rc = ul_udsp_attach(c, &u->udsp);
	if (rc < 0) {
		ul_core_destroy(c);
		goto fail_free;
	}
	nopts.timers = ul_loop_timers(u->loop);
	nopts.log = &u->log;
	nopts.api = u;
	nopts.pid = ULNET_PID_LUSTRE;
	nopts.interface_cookie = new_interface_cookie();
	nopts.clock_ns = ul_clock_monotonic_ns;
	/* Fault rules draw differently in each run, as LNet's do. */
	nopts.fault_seed = ul_clock_monotonic_ns() ^ ((uint64_t)getpid() << 32);
	rc = ul_node_create(c, &nopts, &u->node); /* owns c, even on failure */
	if (rc < 0) {
		ul_udsp_detach(u->udsp);
		u->udsp = NULL;
		goto fail_free;
	}
	ul_node_set_udsp(u->node, u->udsp);
	rc = register_lnds(u);
	if (rc < 0)
		goto fail_free;
	rc = configure(u, &e);
	if (rc < 0)
		goto fail_free;
	*out = u;
	return 0;

fail_free:
	teardown(u);
fail:
	if (!e.msg[0])
		ul_err_set(&e, rc, "%s", ulnet_strerror(rc));
	copy_err(err, err_size, &e);
	return rc;
}

static void on_link(void *arg, const char *ifname, bool is_up)
{
	struct ulnet *u = arg;

	ul_log(&u->log, UL_D_CONSOLE, "interface %s is %s", ifname,
	       is_up ? "up" : "down");
	ul_node_link_change(u->node, ifname, is_up);
}

/* Before-sleep hook: deliver the node's queued events. */
static void flush_node(void *arg)
{
	struct ulnet *u = arg;

	if (ul_node_flush(u->node))
		ul_loop_wake_self(u->loop);
}

static void *loop_main(void *arg)
{
	struct ulnet *u = arg;
	int rc;

	rc = ul_loop_run(u->loop);
	if (rc < 0)
		ul_log(&u->log, UL_D_ERROR, "event loop failed: %s",
		       ulnet_strerror(rc));
	return NULL;
}

int ulnet_start(struct ulnet *u)
{
	struct ul_err e = { 0 };
	int rc;

	pthread_mutex_lock(&u->lock);
	rc = u->state == INST_CREATED ? 0 : -EALREADY;
	pthread_mutex_unlock(&u->lock);
	if (rc < 0)
		return rc;
	ul_loop_update_time(u->loop);
	rc = ul_loop_hook_add(u->loop, flush_node, u);
	if (rc < 0)
		return rc;
	rc = ul_node_startup(u->node, &e);
	if (rc < 0) {
		ul_log(&u->log, UL_D_ERROR, "cannot start: %s", e.msg);
		ul_loop_hook_del(u->loop, flush_node, u);
		return rc;
	}
	if (!u->opts.is_link_monitor_off) {
		rc = ul_linkmon_create(u->loop, on_link, u, &u->linkmon);
		if (rc < 0) /* not fatal: NIs simply never go down */
			ul_log(&u->log, UL_D_WARNING,
			       "no link monitor (%s): interface state is not "
			       "tracked",
			       ulnet_strerror(rc));
	}
	/*
	 * RUNNING and the thread id become visible together: a call from
	 * the new thread (a callback) or from any other waits for the lock.
	 */
	pthread_mutex_lock(&u->lock);
	rc = pthread_create(&u->thread, NULL, loop_main, u);
	if (rc == 0) {
		u->state = INST_RUNNING;
		u->has_thread = true;
	}
	pthread_mutex_unlock(&u->lock);
	if (rc) {
		ul_node_shutdown(u->node);
		return -rc;
	}
	return 0;
}

static void stop_cmd(void *arg, bool is_shutdown)
{
	struct ulnet *u = arg;

	(void)is_shutdown;
	ul_node_shutdown(u->node);
	ul_loop_stop(u->loop);
}

/*
 * Whether the caller is the loop thread while it lives (under u->lock).
 * After the join its id may name a new thread, so it no longer counts.
 */
static bool is_loop_thread_locked(const struct ulnet *u)
{
	return u->has_thread && !u->is_joined &&
	       pthread_equal(pthread_self(), u->thread);
}

int ulnet_stop(struct ulnet *u)
{
	enum inst_state state;

	pthread_mutex_lock(&u->lock);
	/*
	 * From a callback (or ulnet_call()) the loop thread would wait for
	 * its own join, and the node would shut down under the handler
	 * that is running: refuse, and change nothing.
	 */
	if (is_loop_thread_locked(u)) {
		pthread_mutex_unlock(&u->lock);
		return -EDEADLK;
	}
	if (u->is_stopping) {
		/*
		 * Another thread stops it: return only once it is stopped, as
		 * the caller may free its buffers then.
		 */
		while (!u->is_stop_done)
			pthread_cond_wait(&u->cond, &u->lock);
		pthread_mutex_unlock(&u->lock);
		return 0;
	}
	u->is_stopping = true;
	state = u->state;
	u->state = INST_STOPPED;
	pthread_mutex_unlock(&u->lock);
	if (state == INST_RUNNING) {
		if (ul_loop_post(u->loop, stop_cmd, u) < 0)
			ul_loop_stop(u->loop);
		pthread_join(u->thread, NULL);
		pthread_mutex_lock(&u->lock);
		u->is_joined = true;
		pthread_mutex_unlock(&u->lock);
	}
	if (u->linkmon) {
		ul_linkmon_destroy(u->linkmon);
		u->linkmon = NULL;
	}
	/* Nothing runs the loop any more: finish here, events included. */
	ul_node_shutdown(u->node);
	pthread_mutex_lock(&u->lock);
	u->is_stop_done = true;
	pthread_cond_broadcast(&u->cond);
	pthread_mutex_unlock(&u->lock);
	return 0;
}

void ulnet_destroy(struct ulnet *u)
{
	if (!u)
		return;
	/* On the loop thread nothing may be freed: refused as ulnet_stop. */
	if (ulnet_stop(u) < 0)
		return;
	teardown(u);
}

struct call_req {
	struct ulnet *u;
	ulnet_call_fn fn;
	void *arg;
};

static void call_run(void *arg, bool is_shutdown)
{
	struct call_req *cr = arg;

	if (!is_shutdown)
		cr->fn(cr->u, cr->arg);
	free(cr);
}

int ulnet_call(struct ulnet *u, ulnet_call_fn fn, void *arg)
{
	struct call_req *cr;
	int rc;

	cr = malloc(sizeof(*cr));
	if (!cr)
		return -ENOMEM;
	*cr = (struct call_req){ u, fn, arg };
	pthread_mutex_lock(&u->lock);
	rc = u->state == INST_RUNNING ? ul_loop_post(u->loop, call_run, cr)
				      : -ESHUTDOWN;
	pthread_mutex_unlock(&u->lock);
	if (rc < 0)
		free(cr);
	return rc;
}

/* ---- nets, NIs, peers ---- */

struct ni_add_args {
	const struct ulnet_ni_spec *spec;
	struct ul_err e;
};

static int ifname_ipv4(const char *ifname, uint32_t *ipv4)
{
	struct ul_conf_ifaddr *ifs;
	size_t n, i;
	int rc;

	rc = ul_conf_host_ifaddrs(&ifs, &n);
	if (rc < 0)
		return rc;
	rc = -ENOENT;
	for (i = 0; i < n; i++) {
		if (strcmp(ifs[i].ifname, ifname) == 0) {
			*ipv4 = ifs[i].ipv4;
			rc = 0;
			break;
		}
	}
	free(ifs);
	return rc;
}

static int do_ni_add(struct ulnet *u, void *arg)
{
	struct ni_add_args *a = arg;
	const struct ulnet_ni_spec *spec = a->spec;
	struct ul_net_tunables tun;
	struct ulnet_nid nid;
	uint32_t net_id, ipv4;
	char why[128];
	int rc;

	rc = ulnet_net_parse(spec->net, &net_id, why, sizeof(why));
	if (rc < 0)
		return ul_err_set(&a->e, -EINVAL, "bad net '%s': %s",
				  spec->net ? spec->net : "", why);
	if (spec->nid) {
		nid = *spec->nid;
		if (ulnet_nid_net(&nid) != net_id)
			return ul_err_set(&a->e, -EINVAL,
					  "NID is not on net '%s'", spec->net);
	} else {
		if (!spec->ifname)
			return ul_err_set(&a->e, -EINVAL,
					  "an NI needs an interface or a NID");
		rc = ifname_ipv4(spec->ifname, &ipv4);
		if (rc < 0)
			return ul_err_set(&a->e, rc,
					  "interface '%s' has no IPv4 address",
					  spec->ifname);
		memset(&nid, 0, sizeof(nid));
		nid.nid_type = ulnet_net_type(net_id);
		nid.nid_num = ulnet_net_num(net_id);
		nid.nid_addr[0] = ipv4;
	}
	ul_net_tunables_default(&tun);
	return ul_node_ni_add(u->node, &nid, spec->ifname, spec->numa_node,
			      &tun, &a->e);
}

int ulnet_ni_add(struct ulnet *u, const struct ulnet_ni_spec *spec, char *err,
		 size_t err_size)
{
	struct ni_add_args a = { .spec = spec };
	int rc;

	rc = run_on_loop(u, do_ni_add, &a);
	if (rc < 0)
		copy_err(err, err_size, &a.e);
	return rc;
}

static int do_ni_del(struct ulnet *u, void *arg)
{
	return ul_node_ni_del(u->node, arg, NULL);
}

int ulnet_ni_del(struct ulnet *u, const struct ulnet_nid *nid)
{
	return run_on_loop(u, do_ni_del, (void *)nid);
}

static int do_net_del(struct ulnet *u, void *arg)
{
	int rc = ul_node_net_del(u->node, *(uint32_t *)arg, NULL);

	/* core says -EINVAL for an unknown net; the API says -ENOENT */
	return rc == -EINVAL ? -ENOENT : rc;
}

int ulnet_net_del(struct ulnet *u, uint32_t net_id)
{
	return run_on_loop(u, do_net_del, &net_id);
}

struct peer_add_args {
	const struct ulnet_nid *prim;
	const struct ulnet_nid *nids;
	size_t nnids;
	bool is_mr;
	struct ul_err e;
};

static int do_peer_add(struct ulnet *u, void *arg)
{
	struct peer_add_args *a = arg;
	struct ul_core *c = ul_node_core(u->node);
	struct ul_peer *peer;
	size_t i;
	int rc;

	rc = ul_peer_add(c, a->prim, a->is_mr, false, &peer, &a->e);
	for (i = 0; rc == 0 && i < a->nnids; i++)
		rc = ul_peer_ni_add(c, peer, &a->nids[i], NULL, &a->e);
	return rc;
}

int ulnet_peer_add(struct ulnet *u, const struct ulnet_nid *prim,
		   const struct ulnet_nid *nids, size_t nnids, bool is_mr,
		   char *err, size_t err_size)
{
	struct peer_add_args a = { prim, nids, nnids, is_mr, { 0 } };
	int rc;

	rc = run_on_loop(u, do_peer_add, &a);
	if (rc < 0)
		copy_err(err, err_size, &a.e);
	return rc;
}

struct peer_learn_args {
	const struct ulnet_nid *nids;
	size_t count;
	struct ul_err e;
};

static int do_peer_learn(struct ulnet *u, void *arg)
{
	struct peer_learn_args *a = arg;

	return ul_disc_add_known(u->node, a->nids, a->count, &a->e);
}

int ulnet_peer_learn(struct ulnet *u, const struct ulnet_nid *nids,
		     size_t count, char *err, size_t err_size)
{
	struct peer_learn_args a = { nids, count, { 0 } };
	int rc;

	rc = run_on_loop(u, do_peer_learn, &a);
	if (rc < 0)
		copy_err(err, err_size, &a.e);
	return rc;
}

/* ---- MDs, PUT, GET ---- */

struct md_args {
	uint32_t portal;
	const struct ulnet_process_id *match_id;
	uint64_t match_bits, ignore_bits;
	enum ulnet_ins_pos pos;
	const struct ulnet_md *md;
	enum ulnet_unlink unlink;
	struct ulnet_handle handle;
	bool is_attach;
};

static int do_md(struct ulnet *u, void *arg)
{
	struct md_args *a = arg;

	if (!a->is_attach)
		return ul_node_md_bind(u->node, a->md, a->unlink, &a->handle);
	return ul_node_md_attach(u->node, a->portal, a->match_id, a->match_bits,
				 a->ignore_bits, a->pos, a->md, a->unlink,
				 &a->handle);
}

int ulnet_md_bind(struct ulnet *u, const struct ulnet_md *md,
		  enum ulnet_unlink unlink, struct ulnet_handle *out)
{
	struct md_args a = { .md = md, .unlink = unlink };
	int rc = run_on_loop(u, do_md, &a);

	if (rc == 0)
		*out = a.handle;
	return rc;
}

int ulnet_md_attach(struct ulnet *u, uint32_t portal,
		    const struct ulnet_process_id *match_id,
		    uint64_t match_bits, uint64_t ignore_bits,
		    enum ulnet_ins_pos pos, const struct ulnet_md *md,
		    enum ulnet_unlink unlink, struct ulnet_handle *out)
{
	struct md_args a = { portal, match_id, match_bits, ignore_bits, pos,
			     md,     unlink,   { 0 },	   true };
	int rc;

	/*
	 * LNet's own ping and push buffers: an ME there could take the
	 * node's pings. The kernel does not check (only LNet attaches
	 * there); a library open to any program does.
	 */
	if (portal == ULNET_RESERVED_PORTAL)
		return -EINVAL;
	rc = run_on_loop(u, do_md, &a);

	if (rc == 0)
		*out = a.handle;
	return rc;
}

static int do_md_unlink(struct ulnet *u, void *arg)
{
	return ul_node_md_unlink(u->node, *(struct ulnet_handle *)arg);
}

int ulnet_md_unlink(struct ulnet *u, struct ulnet_handle md)
{
	return run_on_loop(u, do_md_unlink, &md);
}

struct xfer_args {
	const struct ulnet_nid *self;
	struct ulnet_handle md;
	enum ulnet_ack_req ack;
	const struct ulnet_process_id *target;
	uint32_t portal;
	uint64_t match_bits;
	uint32_t offset;
	uint64_t hdr_data;
	bool is_get;
};

static int do_xfer(struct ulnet *u, void *arg)
{
	struct xfer_args *a = arg;

	if (a->is_get)
		return ul_node_get(u->node, a->self, a->md, a->target,
				   a->portal, a->match_bits, a->offset);
	return ul_node_put(u->node, a->self, a->md, a->ack, a->target,
			   a->portal, a->match_bits, a->offset, a->hdr_data);
}

int ulnet_put(struct ulnet *u, const struct ulnet_nid *self,
	      struct ulnet_handle md, enum ulnet_ack_req ack,
	      const struct ulnet_process_id *target, uint32_t portal,
	      uint64_t match_bits, uint32_t offset, uint64_t hdr_data)
{
	struct xfer_args a = { self,	   md,	   ack,	     target, portal,
			       match_bits, offset, hdr_data, false };

	return run_on_loop(u, do_xfer, &a);
}

int ulnet_get(struct ulnet *u, const struct ulnet_nid *self,
	      struct ulnet_handle md, const struct ulnet_process_id *target,
	      uint32_t portal, uint64_t match_bits, uint32_t offset)
{
	struct xfer_args a = { self,   md,     ULNET_NOACK_REQ,
			       target, portal, match_bits,
			       offset, 0,      true };

	return run_on_loop(u, do_xfer, &a);
}

/* ---- ping ---- */

struct ping_wait {
	struct ulnet *u;
	const struct ulnet_nid *self;
	const struct ulnet_process_id *target;
	uint32_t timeout_ms;
	struct ulnet_ping_result *res;
	int status;
	bool done; /* under u->lock */
};

static void ping_done(void *arg, int status,
		      const struct ulnet_ping_result *res)
{
	struct ping_wait *pw = arg;

	if (status == 0)
		*pw->res = *res;
	pthread_mutex_lock(&pw->u->lock);
	pw->status = status;
	pw->done = true;
	pthread_cond_broadcast(&pw->u->cond);
	pthread_mutex_unlock(&pw->u->lock);
}

static int do_ping(struct ulnet *u, void *arg)
{
	struct ping_wait *pw = arg;

	return ul_node_ping(u->node, pw->self, pw->target, pw->timeout_ms,
			    ping_done, pw);
}

int ulnet_ping_sync(struct ulnet *u, const struct ulnet_nid *self,
		    const struct ulnet_process_id *target, int timeout_ms,
		    struct ulnet_ping_result *res)
{
	struct ulnet_ping_result tmp;
	struct ping_wait pw = { u, self, target, 0, &tmp, 0, false };
	bool is_loop;
	int rc;

	if (state_of(u, &is_loop) != INST_RUNNING)
		return -ESHUTDOWN;
	if (is_loop)
		return -EDEADLK;
	pw.timeout_ms = timeout_ms > 0 ? (uint32_t)timeout_ms : 1000;
	rc = run_on_loop(u, do_ping, &pw);
	if (rc < 0)
		return rc;
	/* The node guarantees the callback: on reply, timeout or shutdown. */
	pthread_mutex_lock(&u->lock);
	while (!pw.done)
		pthread_cond_wait(&u->cond, &u->lock);
	pthread_mutex_unlock(&u->lock);
	if (pw.status == 0)
		*res = tmp;
	return pw.status;
}

/* ---- statistics ---- */

struct ni_info_args {
	struct ulnet_ni_info *out;
	size_t cap;
	size_t n;
};

static int do_ni_info(struct ulnet *u, void *arg)
{
	struct ni_info_args *a = arg;

	return ul_node_ni_info(u->node, a->out, a->cap, &a->n);
}

int ulnet_ni_info(struct ulnet *u, struct ulnet_ni_info *out, size_t cap,
		  size_t *n)
{
	struct ni_info_args a = { out, cap, 0 };
	int rc = run_on_loop(u, do_ni_info, &a);

	if (rc == 0)
		*n = a.n;
	return rc;
}

/* ---- module parameters (runtime/params.h) ---- */

struct param_args {
	int index;
	int64_t value;
	struct ul_err err;
};

static void param_env(struct ulnet *u, struct ul_params_env *env)
{
	env->node = u->node;
	env->socklnd = u->socklnd;
	env->loop = u->loop;
}

static int do_param_set(struct ulnet *u, void *arg)
{
	struct param_args *a = arg;
	struct ul_params_env env;
	bool is_running;

	pthread_mutex_lock(&u->lock);
	is_running = u->state == INST_RUNNING;
	pthread_mutex_unlock(&u->lock);
	param_env(u, &env);
	return ul_params_set(&env, (size_t)a->index, a->value, is_running,
			     &a->err);
}

int ulnet_param_set(struct ulnet *u, const char *name, int64_t value, char *err,
		    size_t err_size)
{
	struct param_args a = { .value = value };
	int rc;

	a.index = ul_params_find(name ? name : "");
	if (a.index < 0) {
		ul_err_set(&a.err, -ENOENT, "%s: no such parameter",
			   name ? name : "(null)");
		rc = -ENOENT;
	} else {
		rc = run_on_loop(u, do_param_set, &a);
	}
	if (rc)
		copy_err(err, err_size, &a.err);
	return rc;
}

static int do_param_get(struct ulnet *u, void *arg)
{
	struct param_args *a = arg;
	struct ul_params_env env;

	param_env(u, &env);
	return ul_params_get(&env, (size_t)a->index, &a->value);
}

int ulnet_param_get(struct ulnet *u, const char *name, int64_t *value)
{
	struct param_args a = { 0 };
	int rc;

	a.index = ul_params_find(name ? name : "");
	if (a.index < 0)
		return -ENOENT;
	rc = run_on_loop(u, do_param_get, &a);
	if (rc == 0)
		*value = a.value;
	return rc;
}

/* ---- for the daemon: the pieces its control server needs ---- */

struct ul_loop *ul_instance_loop(struct ulnet *u)
{
	return u->loop;
}

struct ul_node *ul_instance_node(struct ulnet *u)
{
	return u->node;
}

const struct ul_log *ul_instance_log(struct ulnet *u)
{
	return &u->log;
}

struct ul_udsp_set *ul_instance_udsp(struct ulnet *u)
{
	return u->udsp;
}

struct ul_socklnd *ul_instance_socklnd(struct ulnet *u)
{
	return u->socklnd;
}
