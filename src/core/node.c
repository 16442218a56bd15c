/*
 * The node (node.h): creation, the LNDs it serves, starting and stopping
 * NIs, run-time NI changes and link state, the API entry points for MDs,
 * PUT and GET, NI snapshots, and the event queue's delivery.
 *
 * Every API entry point raises api_depth, so whatever finishes inside it
 * only queues its event; ul_node_dispatch() delivers the queue when no
 * API call is on the stack (end of an LND upcall or node timer, or
 * ul_node_flush()). A handler may call the API again: the MD it runs for
 * is held by the queued event's reference until the handler returns.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/discovery_push.h"
#include "core/discovery_send.h"
#include "core/health.h"
#include "core/msg.h"
#include "core/ping.h"
#include "core/rtrchk.h"
#include "util/err.h"

#define API_ENTER(n) ((n)->api_depth++)
#define API_LEAVE(n) ((n)->api_depth--)

/*
 * Our NI list or an NI's link changed (discovery.md §9): the ping info
 * gets a new sequence number and the peers that need it are pushed it.
 */
static void local_nis_changed(struct ul_node *n)
{
	if (n->state != UL_NODE_STATE_RUNNING)
		return;
	ul_ping_targets_refresh(n);
	ul_disc_push_update(n, false);
}

void ul_node_lnet_unconfigure(struct ul_node *n)
{
	struct ul_core *c = n->core;
	struct ul_net *net, *tmp;

	ul_route_del_all(c);
	ul_list_for_each_entry_safe(net, tmp, &c->nets, core_link)
		if (ulnet_net_type(net->net_id) != ULNET_LND_LO)
			ul_node_net_del(n, net->net_id, NULL);
	ul_peer_del_all(c);
	ul_node_fault_clear(n);
	ul_node_routing_reset(n);
	n->is_unconfigured = true;
}

void ul_node_lnet_configure(struct ul_node *n)
{
	n->is_unconfigured = false;
}

bool ul_node_lnet_is_configured(const struct ul_node *n)
{
	return !n->is_unconfigured;
}

void ul_node_routing_changed(struct ul_node *n)
{
	struct ul_core *c = n->core;
	uint64_t when = ul_routing_deadline(&c->routing);

	c->tun.routing = ul_routing_is_on(&c->routing);
	ul_ping_targets_refresh(n);
	if (when)
		ul_node_tick_arm(n, when);
	/* A router's NI statuses are watched from now on (rtrchk.h). */
	if (c->tun.routing && n->state == UL_NODE_STATE_RUNNING)
		ul_node_tick_arm(n, n->opts.timers->now_ns);
}

void ul_node_routing_reset(struct ul_node *n)
{
	ul_fwd_drop_waiting(n, -ECANCELED);
	ul_routing_reset(&n->core->routing);
	n->core->tun.routing = 0;
	ul_ping_targets_refresh(n);
}

/* The end of a STARTING or STOPPING wait (routing.md §7.1). */
static uint64_t routing_tick(struct ul_node *n, uint64_t now_ns)
{
	struct ul_routing *r = &n->core->routing;
	uint64_t when = ul_routing_deadline(r);

	if (when && ul_routing_tick(r, now_ns)) {
		ul_node_log(n, UL_D_CONSOLE, "Message forwarding %s",
			    r->state == UL_ROUTING_ENABLED ? "enabled"
							   : "disabled");
		/* routing.md §7.1: what waits for router credits is dropped. */
		if (r->state == UL_ROUTING_DISABLED)
			ul_fwd_drop_waiting(n, -ECANCELED);
		ul_node_routing_changed(n);
		/* RTE_DISABLED cleared: every MR peer is told at once. */
		if (r->state == UL_ROUTING_ENABLED)
			ul_disc_push_update(n, true);
	}
	when = ul_routing_deadline(r);
	return when ? when : UINT64_MAX;
}

/*
 * The node tick (node.h): LNet's monitor thread as a function. Each
 * part returns when it next needs to run; the timer is armed for the
 * earliest, so an idle node has no timer armed.
 */
void ul_node_tick(struct ul_node *n, uint64_t now_ns)
{
	uint64_t next, t;

	if (n->state != UL_NODE_STATE_RUNNING)
		return;
	API_ENTER(n);
	ul_resend_run(n);
	next = ul_fault_tick(n, now_ns);
	t = ul_rspt_tick(n, now_ns);
	next = t < next ? t : next;
	t = ul_health_tick(n, now_ns);
	next = t < next ? t : next;
	t = routing_tick(n, now_ns);
	next = t < next ? t : next;
	t = ul_disc_tick(n, now_ns);
	next = t < next ? t : next;
	t = ul_rtrchk_tick(n, now_ns);
	next = t < next ? t : next;
	API_LEAVE(n);
	if (next != UINT64_MAX)
		ul_node_tick_arm(n, next);
	ul_msg_drain_ready(n);
	ul_node_dispatch(n);
}

static void tick_timer_fired(struct ul_timer *t, uint64_t now_ns)
{
	ul_node_tick(ul_container_of(t, struct ul_node, tick_timer), now_ns);
}

void ul_node_tick_arm(struct ul_node *n, uint64_t when_ns)
{
	if (ul_timer_is_armed(&n->tick_timer) &&
	    n->tick_timer.when_ns <= when_ns)
		return;
	/* On ENOMEM the next arming (or shutdown) covers it. */
	(void)ul_timer_arm(n->opts.timers, &n->tick_timer, when_ns);
}

int ul_node_create(struct ul_core *core, const struct ul_node_opts *opts,
		   struct ul_node **out)
{
	struct ul_node *n = calloc(1, sizeof(*n));

	if (!n || !opts || !opts->timers || ul_md_table_init(&n->mds)) {
		free(n);
		ul_core_destroy(core);
		return !opts || !opts->timers ? -EINVAL : -ENOMEM;
	}
	n->core = core;
	n->opts = *opts;
	core->log = opts->log;
	n->state = UL_NODE_STATE_NEW;
	ul_list_init(&n->nis);
	ul_list_init(&n->msgs);
	ul_list_init(&n->ready);
	ul_list_init(&n->events);
	ul_list_init(&n->lpni_msgs);
	ul_list_init(&n->rspt);
	ul_list_init(&n->resendq);
	ul_list_init(&n->delayq);
	ul_list_init(&n->ni_recq);
	ul_list_init(&n->lpni_recq);
	ul_list_init(&n->disc_queue);
	ul_list_init(&n->disc_parked);
	ul_list_init(&n->fwd_ready);
	ul_fault_set_init(&n->faults, opts->fault_seed);
	ul_timer_init(&n->tick_timer, tick_timer_fired);
	*out = n;
	return 0;
}

void ul_node_destroy(struct ul_node *n)
{
	if (!n)
		return;
	ul_node_shutdown(n);
	/* A node never started may still have its tick armed (routing). */
	ul_timer_cancel(n->opts.timers, &n->tick_timer);
	ul_ping_free(n);
	ul_msg_free_lpni_msgs(n);
	ul_msg_pool_drain(n);
	ul_fault_set_clear(&n->faults);
	ul_md_table_fini(&n->mds);
	ul_core_destroy(n->core);
	free(n);
}

struct ul_core *ul_node_core(struct ul_node *n)
{
	return n->core;
}

int ul_node_register_lnd(struct ul_node *n, const struct ul_lnd *lnd)
{
	for (uint32_t i = 0; i < n->nlnds; i++)
		if (n->lnds[i].lnd_type == lnd->lnd_type)
			return -EEXIST;
	if (n->nlnds == UL_NODE_MAX_LNDS)
		return -ENOMEM;
	n->lnds[n->nlnds++] = *lnd;
	return 0;
}

static const struct ul_lnd *find_lnd(const struct ul_node *n, uint32_t type)
{
	for (uint32_t i = 0; i < n->nlnds; i++)
		if (n->lnds[i].lnd_type == type)
			return &n->lnds[i];
	return NULL;
}

int ul_node_lnd_set_timeout(struct ul_node *n, uint32_t lnd_type, uint32_t sec)
{
	const struct ul_lnd *lnd = find_lnd(n, lnd_type);

	if (!lnd || !lnd->ops->set_timeout)
		return -EOPNOTSUPP;
	lnd->ops->set_timeout(lnd->ctx, sec);
	return 0;
}

int ul_node_lnd_timeout(struct ul_node *n, uint32_t lnd_type)
{
	const struct ul_lnd *lnd = find_lnd(n, lnd_type);

	if (!lnd || !lnd->ops->get_timeout)
		return -EOPNOTSUPP;
	return (int)lnd->ops->get_timeout(lnd->ctx);
}

uint32_t ul_node_lnd_timeout_param(const struct ul_node *n)
{
	return n->lnd_timeout_param;
}

uint32_t ul_node_sock_timeout(const struct ul_node *n)
{
	return n->lnd_timeout_param ? n->lnd_timeout_param
				    : ul_tunables_lnd_timeout(&n->core->tun);
}

static void lnd_timeout_apply(struct ul_node *n)
{
	(void)ul_node_lnd_set_timeout(n, ULNET_LND_SOCK,
				      ul_node_sock_timeout(n));
}

void ul_node_lnd_timeout_param_set(struct ul_node *n, uint32_t sec)
{
	n->lnd_timeout_param = sec;
	lnd_timeout_apply(n);
}

int ul_node_tunable_set(struct ul_node *n, int id, int64_t value,
			struct ul_err *err)
{
	int rc =
		ul_tunables_set(&n->core->tun, (enum ul_tunable)id, value, err);

	if (rc)
		return rc;
	/*
	 * The ping info publishes discovery (discovery.md §5, §10), in place;
	 * turning it off pushes that to every MR peer, forced.
	 */
	if (id == UL_TUNABLE_DISCOVERY && n->state == UL_NODE_STATE_RUNNING) {
		ul_ping_targets_republish(n);
		if (!n->core->tun.discovery)
			ul_disc_push_update(n, true);
	}
	/* lnd_timeout follows transaction_timeout and retry_count. */
	lnd_timeout_apply(n);
	return 0;
}

/* Start one NI with its LND. */
static int ni_start(struct ul_node *n, struct ul_ni *ni, struct ul_err *err)
{
	const struct ul_lnd *lnd = find_lnd(n, ni->nid.nid_type);
	struct ul_node_ni *nni;
	char buf[64];
	int rc;

	ulnet_nid_format(&ni->nid, buf, sizeof(buf));
	if (!lnd)
		return ul_err_set(err, -EPROTONOSUPPORT, "no LND serves NI %s",
				  buf);
	nni = calloc(1, sizeof(*nni));
	if (!nni)
		return ul_err_set(err, -ENOMEM, "out of memory for NI %s", buf);
	ul_list_init(&nni->txq);
	ul_ni_get(ni);
	nni->ni = ni;
	nni->lni.ni = ni;
	nni->lni.node = n;
	nni->lni.up = &ul_node_lnd_upcalls;
	nni->lni.lnd = lnd;
	nni->lni.timers = n->opts.timers;
	nni->lni.pid = n->opts.pid;
	rc = lnd->ops->startup(&nni->lni, err);
	if (rc) {
		ul_ni_put(ni);
		free(nni);
		return rc;
	}
	ni->node_ni = nni;
	ul_list_add_tail(&n->nis, &nni->link);
	if (ni == ul_core_lo_ni(n->core))
		n->lo = nni;
	ul_node_log(n, UL_D_INFO, "NI %s up (%s)", buf, lnd->ops->name);
	return 0;
}

/*
 * Stop one NI: queued messages fail, then the LND completes what it
 * holds (tx_done/rx_done during its shutdown).
 */
static void ni_stop(struct ul_node *n, struct ul_node_ni *nni)
{
	char buf[64];

	nni->is_stopping = true;
	ul_health_nni_forget(n, nni);
	ul_msg_fail_ni_queue(n, nni, -ESHUTDOWN);
	nni->lni.lnd->ops->shutdown(&nni->lni);
	ul_msg_fail_ni_queue(n, nni, -ESHUTDOWN);
	ul_list_del(&nni->link);
	nni->ni->node_ni = NULL;
	if (n->lo == nni)
		n->lo = NULL;
	ul_node_log(n, UL_D_INFO, "NI %s down",
		    ulnet_nid_format(&nni->ni->nid, buf, sizeof(buf)));
	ul_ni_put(nni->ni);
	free(nni);
}

static void stop_all_nis(struct ul_node *n)
{
	/* Newest first, 0@lo (the first) last. */
	while (!ul_list_empty(&n->nis))
		ni_stop(n, ul_list_entry(n->nis.prev, struct ul_node_ni, link));
}

int ul_node_startup(struct ul_node *n, struct ul_err *err)
{
	struct ul_net *net;
	struct ul_ni *ni;
	int rc = 0;

	if (n->state != UL_NODE_STATE_NEW)
		return ul_err_set(err, -EALREADY, "node already started");
	API_ENTER(n);
	n->state = UL_NODE_STATE_RUNNING;
	lnd_timeout_apply(n);
	ul_list_for_each_entry(net, &n->core->nets, core_link) {
		ul_list_for_each_entry(ni, &net->nis, net_link) {
			rc = ni_start(n, ni, err);
			if (rc)
				goto err_stop;
		}
	}
	rc = ul_ping_targets_post(n);
	if (rc) {
		ul_err_set(err, rc, "cannot post the ping target");
		goto err_stop;
	}
	/* Gateways configured before the start are checked now (§5). */
	ul_node_tick_arm(n, n->opts.timers->now_ns);
	API_LEAVE(n);
	return 0;

err_stop:
	n->state = UL_NODE_STATE_STOPPING;
	ul_ping_shutdown(n);
	stop_all_nis(n);
	n->state = UL_NODE_STATE_NEW;
	API_LEAVE(n);
	ul_node_dispatch(n);
	return rc;
}

void ul_node_shutdown(struct ul_node *n)
{
	struct ul_md *md, *tmp;

	if (n->state != UL_NODE_STATE_RUNNING)
		return;
	API_ENTER(n);
	n->state = UL_NODE_STATE_STOPPING;
	ul_timer_cancel(n->opts.timers, &n->tick_timer);
	ul_resend_fail_all(n, -ESHUTDOWN);
	ul_fault_release_all(n, true);
	ul_msg_fail_all_queued(n, -ESHUTDOWN);
	ul_disc_shutdown(n, -ESHUTDOWN);
	ul_ping_shutdown(n);
	stop_all_nis(n);
	ul_msg_rspt_clear(n);
	/* Every MD gets its last event (UNLINK when idle). */
	ul_list_for_each_entry_safe(md, tmp, &n->mds.all, all_link) {
		if (!md->is_zombie)
			ul_node_md_unlink_internal(n, md, -ESHUTDOWN);
	}
	n->state = UL_NODE_STATE_STOPPED;
	API_LEAVE(n);
	/* All of them: nothing can send now, so this ends. */
	do
		ul_node_dispatch(n);
	while (!ul_list_empty(&n->events) && !n->is_dispatching);
}

int ul_node_ni_add(struct ul_node *n, const struct ulnet_nid *nid,
		   const char *ifname, int numa_node,
		   const struct ul_net_tunables *tun, struct ul_err *err)
{
	struct ul_net *net = ul_net_find(n->core, ulnet_nid_net(nid));
	bool is_odd = net && !ul_net_tunables_match(net, tun);
	struct ul_ni *ni;
	int rc;

	API_ENTER(n);
	rc = ul_ni_add(n->core, nid, ifname, numa_node, tun, &ni, err);
	if (rc)
		goto out;
	if (n->state == UL_NODE_STATE_RUNNING) {
		rc = ni_start(n, ni, err);
		if (rc) {
			ul_ni_add_undo(n->core, nid);
			goto out;
		}
		local_nis_changed(n);
	}
	/* The net keeps its own; LNet says so once the NI is up. */
	if (is_odd)
		ul_node_log(n, UL_D_WARNING,
			    "All tunables of NIs of a net should be the same");
out:
	API_LEAVE(n);
	return rc;
}

int ul_node_ni_del(struct ul_node *n, const struct ulnet_nid *nid,
		   struct ul_err *err)
{
	struct ul_ni *ni = ul_ni_find(n->core, nid);
	int rc;

	if (!ni)
		return ul_err_set(err, -ENOENT, "no such NI");
	if (ni == ul_core_lo_ni(n->core))
		return ul_err_set(err, -ENODEV, "0@lo cannot be deleted");
	API_ENTER(n);
	if (ni->node_ni)
		ni_stop(n, ni->node_ni);
	rc = ul_ni_del(n->core, nid, err);
	local_nis_changed(n);
	API_LEAVE(n);
	return rc;
}

int ul_node_net_del(struct ul_node *n, uint32_t net_id, struct ul_err *err)
{
	struct ul_net *net = ul_net_find(n->core, net_id);
	struct ul_ni *ni;
	int rc;

	if (!net)
		return ul_err_set(err, -EINVAL, "no such net");
	if (ulnet_net_type(net_id) == ULNET_LND_LO)
		return ul_err_set(err, -ENODEV, "the lo net cannot be deleted");
	API_ENTER(n);
	ul_list_for_each_entry(ni, &net->nis, net_link) {
		if (ni->node_ni)
			ni_stop(n, ni->node_ni);
	}
	rc = ul_net_del(n->core, net_id, err);
	local_nis_changed(n);
	API_LEAVE(n);
	return rc;
}

void ul_node_link_change(struct ul_node *n, const char *ifname, bool is_up)
{
	struct ul_net *net;
	struct ul_ni *ni;
	bool is_changed = false;
	char buf[64];

	if (!ifname || !ifname[0])
		return;
	API_ENTER(n);
	ul_list_for_each_entry(net, &n->core->nets, core_link) {
		ul_list_for_each_entry(ni, &net->nis, net_link) {
			struct ul_node_ni *nni = ni->node_ni;

			if (strcmp(ni->ifname, ifname) != 0 ||
			    ni->is_fatal == !is_up)
				continue;
			ni->is_fatal = !is_up;
			ni->status = is_up ? UL_NI_STATUS_UP
					   : UL_NI_STATUS_DOWN;
			is_changed = true;
			ul_node_log(n, UL_D_CONSOLE, "NI %s link %s (%s)",
				    ulnet_nid_format(&ni->nid, buf,
						     sizeof(buf)),
				    is_up ? "up" : "down", ifname);
			if (nni && nni->lni.lnd->ops->link_change)
				nni->lni.lnd->ops->link_change(&nni->lni,
							       is_up);
		}
	}
	if (is_changed)
		local_nis_changed(n);
	API_LEAVE(n);
}

int ul_node_md_bind(struct ul_node *n, const struct ulnet_md *md,
		    enum ulnet_unlink unlink, struct ulnet_handle *out)
{
	struct ul_md *m;
	int rc;

	if (n->state != UL_NODE_STATE_RUNNING && n->state != UL_NODE_STATE_NEW)
		return -ESHUTDOWN;
	rc = ul_md_create(&n->mds, md, unlink, false, 0, NULL, 0, 0,
			  ULNET_INS_AFTER, &m);
	if (rc)
		return rc;
	out->cookie = m->cookie;
	return 0;
}

int ul_node_md_attach(struct ul_node *n, uint32_t portal,
		      const struct ulnet_process_id *match_id,
		      uint64_t match_bits, uint64_t ignore_bits,
		      enum ulnet_ins_pos pos, const struct ulnet_md *md,
		      enum ulnet_unlink unlink, struct ulnet_handle *out)
{
	struct ul_md *m;
	int rc;

	if (n->state != UL_NODE_STATE_RUNNING && n->state != UL_NODE_STATE_NEW)
		return -ESHUTDOWN;
	rc = ul_md_create(&n->mds, md, unlink, true, portal, match_id,
			  match_bits, ignore_bits, pos, &m);
	if (rc)
		return rc;
	out->cookie = m->cookie;
	return 0;
}

int ul_node_md_unlink(struct ul_node *n, struct ulnet_handle md)
{
	struct ul_md *m = ul_md_lookup(&n->mds, md.cookie);

	if (!m || m->int_handler)
		return -ENOENT;
	API_ENTER(n);
	ul_node_md_unlink_internal(n, m, 0);
	API_LEAVE(n);
	return 0;
}

/*
 * The checks ulnet_put() and ulnet_get() share; -errno or 0. An
 * operation with an answer (ACK, REPLY) takes two of the MD's threshold,
 * SEND and the answer (ulnet.h): with less left, the answer would find
 * the MD used up and be dropped, and the operation would wait for it
 * until its response timeout, or for ever untracked.
 */
static int send_check(struct ul_node *n, const struct ulnet_nid *self,
		      struct ulnet_handle md, const struct ulnet_process_id *t,
		      uint32_t portal, bool has_answer, struct ul_md **out)
{
	struct ul_md *m;

	if (n->state != UL_NODE_STATE_RUNNING)
		return -ESHUTDOWN;
	m = ul_md_lookup(&n->mds, md.cookie);
	if (!m || m->threshold == 0 || m->is_attached || m->int_handler)
		return -ENOENT;
	if (has_answer && m->threshold != ULNET_MD_THRESH_INF &&
	    m->threshold < 2)
		return -EINVAL;
	if (portal >= ULNET_PORTALS || !t || ulnet_nid_is_any(&t->nid))
		return -EINVAL;
	if (self && !ulnet_nid_is_any(self) && !ul_ni_find(n->core, self))
		return -EINVAL;
	*out = m;
	return 0;
}

int ul_node_put(struct ul_node *n, const struct ulnet_nid *self,
		struct ulnet_handle md, enum ulnet_ack_req ack,
		const struct ulnet_process_id *target, uint32_t portal,
		uint64_t match_bits, uint32_t offset, uint64_t hdr_data)
{
	struct ul_msg_send_args a = {
		.self = self && !ulnet_nid_is_any(self) ? self : NULL,
		.type = UL_MSG_PUT,
		.want_ack = ack == ULNET_ACK_REQ,
		.target = target,
		.portal = portal,
		.match_bits = match_bits,
		.offset = offset,
		.hdr_data = hdr_data,
	};
	struct ul_md *m;
	int rc = send_check(n, self, md, target, portal, a.want_ack, &m);

	if (rc)
		return rc;
	API_ENTER(n);
	rc = ul_msg_send_md(n, m, &a);
	API_LEAVE(n);
	return rc;
}

int ul_node_get(struct ul_node *n, const struct ulnet_nid *self,
		struct ulnet_handle md, const struct ulnet_process_id *target,
		uint32_t portal, uint64_t match_bits, uint32_t offset)
{
	struct ul_msg_send_args a = {
		.self = self && !ulnet_nid_is_any(self) ? self : NULL,
		.type = UL_MSG_GET,
		.target = target,
		.portal = portal,
		.match_bits = match_bits,
		.offset = offset,
	};
	struct ul_md *m;
	int rc = send_check(n, self, md, target, portal, true, &m);

	if (rc)
		return rc;
	API_ENTER(n);
	rc = ul_msg_send_md(n, m, &a);
	API_LEAVE(n);
	return rc;
}

int ul_node_ni_info(struct ul_node *n, struct ulnet_ni_info *out, size_t cap,
		    size_t *count)
{
	struct ul_net *net;
	struct ul_ni *ni;
	size_t i = 0;

	if (n->state == UL_NODE_STATE_STOPPED)
		return -ESHUTDOWN;
	ul_list_for_each_entry(net, &n->core->nets, core_link) {
		ul_list_for_each_entry(ni, &net->nis, net_link) {
			struct ulnet_ni_info *o;

			if (ni == ul_core_lo_ni(n->core))
				continue;
			if (i < cap) {
				o = &out[i];
				memset(o, 0, sizeof(*o));
				o->nid = ni->nid;
				memcpy(o->ifname, ni->ifname,
				       sizeof(o->ifname) - 1);
				o->is_up = ni->status == UL_NI_STATUS_UP &&
					   !ni->is_fatal;
				o->healthv = ni->healthv;
				o->tx_credits = ni->tx_credits;
				o->peer_tx_credits = net->tun.peer_tx_credits;
				o->stats = ni->stats;
			}
			i++;
		}
	}
	*count = i;
	return 0;
}

void ul_node_dispatch(struct ul_node *n)
{
	struct ul_list batch;

	if (n->api_depth || n->is_dispatching)
		return;
	n->is_dispatching = true;
	/*
	 * Only the events queued so far: those the handlers cause wait for
	 * the next flush, so a handler that sends again at once (a PUT
	 * stream over 0@lo completes inside the call) cannot hold the loop
	 * thread, its clock and its other clients (STYLE: bounded phases).
	 */
	ul_list_take(&n->events, &batch);
	while (!ul_list_empty(&batch)) {
		struct ul_md_event *e =
			ul_list_first_entry(&batch, struct ul_md_event, link);
		struct ul_md *md = e->md;
		struct ul_msg *owner = e->owner_msg;

		assert(md);
		ul_list_del(&e->link);
		if (md->int_handler)
			md->int_handler(n, &e->ev);
		else if (md->handler)
			md->handler(n->opts.api, &e->ev);
		/* e may live in md (UNLINK): done with it before the put. */
		e->md = NULL;
		if (owner)
			ul_msg_free(n, owner);
		ul_md_put(md);
	}
	n->is_dispatching = false;
}

bool ul_node_flush(struct ul_node *n)
{
	if (n->state == UL_NODE_STATE_RUNNING) {
		API_ENTER(n);
		ul_resend_run(n);
		API_LEAVE(n);
	}
	ul_msg_drain_ready(n);
	ul_node_dispatch(n);
	return !ul_list_empty(&n->events) || !ul_list_empty(&n->ready) ||
	       !ul_list_empty(&n->fwd_ready) || !ul_list_empty(&n->resendq);
}

static int64_t node_sec(const struct ul_node *n)
{
	return (int64_t)(n->opts.timers->now_ns / UINT64_C(1000000000));
}

/* fault.md §6: what deleted delay rules held goes on at once. */
static void release_delayed(struct ul_node *n)
{
	if (n->state != UL_NODE_STATE_RUNNING)
		return;
	API_ENTER(n);
	ul_fault_release_all(n, false);
	API_LEAVE(n);
	ul_node_dispatch(n);
}

int ul_node_fault_add(struct ul_node *n, const struct ul_fault_attr *a,
		      const char **why)
{
	return ul_fault_add(&n->faults, a, node_sec(n), why);
}

int ul_node_fault_del(struct ul_node *n, bool is_delay,
		      const struct ulnet_nid *src, const struct ulnet_nid *dst)
{
	int rc = ul_fault_del(&n->faults, is_delay, src, dst);

	if (rc > 0 && is_delay)
		release_delayed(n);
	return rc;
}

void ul_node_fault_reset(struct ul_node *n, bool is_delay)
{
	ul_fault_reset(&n->faults, is_delay, node_sec(n));
}

const struct ul_list *ul_node_fault_rules(const struct ul_node *n,
					  bool is_delay)
{
	return is_delay ? &n->faults.delay : &n->faults.drop;
}

void ul_node_fault_clear(struct ul_node *n)
{
	bool had_delay = !ul_list_empty(&n->faults.delay);

	ul_fault_set_clear(&n->faults);
	if (had_delay)
		release_delayed(n);
}

/*
 * lnet_ni_set_healthv: exactly 0 takes the NI down and exactly full
 * health brings it up; other values leave the status. 0@lo takes the
 * value too, its status stays up.
 */
void ul_node_ni_set_healthv(struct ul_node *n, struct ul_ni *ni, int healthv)
{
	ni->healthv = healthv;
	if (ni->nid.nid_type != ULNET_LND_LO) {
		if (healthv == 0)
			ni->status = UL_NI_STATUS_DOWN;
		else if (healthv == UL_HEALTH_MAX && !ni->is_fatal)
			ni->status = UL_NI_STATUS_UP;
	}
	ul_health_ni_queue(n, ni);
}

void ul_node_lpni_set_healthv(struct ul_node *n, struct ul_peer_ni *lpni,
			      int healthv)
{
	ul_peer_ni_set_healthv(lpni, healthv);
	ul_health_lpni_queue(n, lpni);
}
