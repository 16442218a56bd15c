/*
 * `routing show`, `set routing` and `set tiny|small|large_buffers`
 * (reference/lnetctl.md §8.4, routing.md §7.1, §7.2) on the instance's
 * side, over core/routing.h: decode, the node's routing state, reply. The
 * node tick ends the STARTING and STOPPING waits (ul_node_tick). Nothing
 * is forwarded yet: the pools are counts (see routing.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"
#include "core/node.h"
#include "ctl/proto_doc.h"
#include "runtime/ctlsrv_int.h"
#include "util/err.h"
#include "util/log.h"

#define NSEC_PER_SEC UINT64_C(1000000000)

static const char *const pool_names[UL_RTRPOOL_NR] = { "tiny", "small",
						       "large" };

/* The STARTING/STOPPING wait (routing.md §7.1): 110 s by default. */
static int wait_sec(const struct ul_core *core)
{
	int64_t s = (int64_t)core->tun.alive_router_check_interval +
		    core->tun.router_ping_timeout;

	return s > 0 ? (int)(s > INT32_MAX ? INT32_MAX : s) : 0;
}

static uint64_t now_ns(struct ul_ctlsrv *srv)
{
	return ul_loop_timers(srv->loop)->now_ns;
}

/* LNet's warning for each pool sized from a small configured total. */
static void warn_small(struct ul_ctlsrv *srv, unsigned int warn)
{
	const struct ul_routing *r = &ul_node_core(srv->node)->routing;
	int kind;

	for (kind = 0; kind < UL_RTRPOOL_NR; kind++)
		if (warn & (1u << kind))
			ul_log(srv->log, UL_D_WARNING,
			       "%s_router_buffers=%d less than recommended "
			       "minimum %d",
			       pool_names[kind], r->nbufs[kind],
			       ul_routing_min_nbufs(
				       (enum ul_rtrpool_kind)kind));
}

static int set_routing(struct ul_ctlsrv *srv, int64_t value, struct ul_err *err)
{
	struct ul_core *core = ul_node_core(srv->node);
	struct ul_routing *r = &core->routing;
	uint64_t wait = (uint64_t)wait_sec(core) * NSEC_PER_SEC;
	enum ul_routing_state was = r->state;
	unsigned int warn;
	int rc;

	if (value != 0 && value != 1)
		return ul_err_set(err, -EINVAL, "routing must be 0 or 1");
	if (!value) {
		if (ul_routing_disable(r, now_ns(srv), wait)) {
			ul_log(srv->log, UL_D_CONSOLE,
			       "Message forwarding will stop in %ds to %ds",
			       wait_sec(core), 3 * wait_sec(core));
			ul_node_routing_changed(srv->node);
		}
		return 0;
	}
	rc = ul_routing_enable(r, srv->ncpt, now_ns(srv), wait, &warn);
	warn_small(srv, warn);
	if (rc == -EBUSY)
		ul_log(srv->log, UL_D_ERROR,
		       "Cannot enable routing while it is being stopped");
	if (rc)
		return ul_err_set(err, rc, "%s", "");
	if (was != UL_ROUTING_DISABLED)
		return 0;
	ul_log(srv->log, UL_D_CONSOLE,
	       "Message forwarding will be enabled in %ds", wait_sec(core));
	if (!core->tun.discovery)
		ul_log(srv->log, UL_D_WARNING,
		       "Consider turning discovery on to enable full "
		       "Multi-Rail routing functionality");
	ul_node_routing_changed(srv->node);
	return 0;
}

int ul_ctlsrv_routing_set(struct ul_ctlsrv *srv, const char *name,
			  int64_t value, struct ul_err *err)
{
	struct ul_routing *r = &ul_node_core(srv->node)->routing;
	unsigned int warn;
	int kind, rc;

	/* The ioctls LNet answers -ENETDOWN while it is down (§5). */
	if (!ul_node_lnet_is_configured(srv->node))
		return ul_err_set(err, -ENETDOWN, "%s", "");
	if (strcmp(name, "routing") == 0)
		return set_routing(srv, value, err);
	/* "tiny_buffers", "small_buffers", "large_buffers" */
	for (kind = 0; kind < UL_RTRPOOL_NR; kind++) {
		size_t n = strlen(pool_names[kind]);

		if (strncmp(name, pool_names[kind], n) == 0 &&
		    strcmp(name + n, "_buffers") == 0)
			break;
	}
	if (kind == UL_RTRPOOL_NR)
		return ul_err_set(err, -ENOENT, "no such parameter '%s'", name);
	rc = ul_routing_set_buffers(r, (enum ul_rtrpool_kind)kind, value,
				    &warn);
	if (rc)
		return ul_err_set(err, rc,
				  "tiny, small and large must be >= 0");
	warn_small(srv, warn);
	return 0;
}

static int pool_pages(int kind)
{
	long page = sysconf(_SC_PAGESIZE);

	if (kind == UL_RTRPOOL_TINY)
		return 0;
	if (kind == UL_RTRPOOL_SMALL)
		return 1;
	/* LNET_MTU (1 MiB) in pages */
	return (int)((1L << 20) / (page > 0 ? page : 4096));
}

int ul_ctlsrv_routing_show(struct ul_ctlsrv *srv, const struct ul_ctl_args *a,
			   struct ul_ctl_msg *doc, struct ul_err *err)
{
	const struct ul_routing *r = &ul_node_core(srv->node)->routing;
	unsigned int cpt;
	char key[32];
	int kind;

	(void)err;
	if (!r->ncpt)
		return 0; /* routing never enabled: no pools, no output */
	if (a->flags & UL_CTL_ARGF_BACKUP) {
		ul_ctl_doc_map(doc, "routing");
		ul_ctl_doc_uint(doc, "enable", r->state);
		ul_ctl_doc_end(doc);
	} else {
		ul_ctl_doc_seq(doc, "routing");
		for (cpt = 0; cpt < r->ncpt; cpt++) {
			ul_ctl_doc_map(doc, NULL);
			snprintf(key, sizeof(key), "cpt[%u]", cpt);
			ul_ctl_doc_map(doc, key);
			for (kind = 0; kind < UL_RTRPOOL_NR; kind++) {
				const struct ul_rtrpool *p =
					&r->pools[cpt][kind];

				ul_ctl_doc_map(doc, pool_names[kind]);
				ul_ctl_doc_int(doc, "npages", pool_pages(kind));
				ul_ctl_doc_int(doc, "nbuffers", p->nbuffers);
				ul_ctl_doc_int(doc, "credits", p->credits);
				ul_ctl_doc_int(doc, "mincredits",
					       p->mincredits);
				ul_ctl_doc_end(doc);
			}
			ul_ctl_doc_end(doc);
			ul_ctl_doc_end(doc);
		}
		ul_ctl_doc_map(doc, NULL);
		ul_ctl_doc_uint(doc, "enable", r->state);
		ul_ctl_doc_end(doc);
		ul_ctl_doc_end(doc);
	}
	/* Totals over CPTs, as lnetctl adds them up (§8.4). */
	ul_ctl_doc_map(doc, "buffers");
	for (kind = 0; kind < UL_RTRPOOL_NR; kind++)
		ul_ctl_doc_int(doc, pool_names[kind],
			       ul_routing_total(r, (enum ul_rtrpool_kind)kind));
	ul_ctl_doc_end(doc);
	return 0;
}
