/*
 * The ping service (ping.h): ping and push targets on portal 0 and the
 * ping client. Each ping target MD owns its info buffer, freed with the
 * MD's last event, so a rebuild never changes bytes a REPLY in flight is
 * still reading.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/discovery_push.h"
#include "core/msg.h"
#include "core/ping.h"

#define NSEC_PER_MSEC UINT64_C(1000000)

struct ul_ping_client {
	struct ul_list link; /* ul_ping_state.clients */
	struct ul_node *node;
	struct ul_md *md; /* the sink, until its last event */
	struct ul_timer timer;
	ul_node_ping_cb cb;
	void *arg;
	bool is_done;	   /* cb has run (or must never run) */
	uint32_t *rlength; /* the REPLY's full length goes here */
	uint8_t buf[];	   /* the sink, size bytes */
};

struct ul_ping_state {
	struct ul_md *target; /* current ping target, live */
	struct ul_md *push;   /* push target, live (threshold 1) */
	uint32_t seq;	      /* of the current ping info */
	uint32_t push_size;   /* push target's bytes: 272 or the largest
			       * ping info a peer showed us (§2) */
	struct ul_list clients;
};

uint32_t ul_ping_seq(const struct ul_node *n)
{
	return n->ping ? n->ping->seq : 0;
}

static struct ul_ping_state *state(struct ul_node *n)
{
	if (!n->ping) {
		n->ping = calloc(1, sizeof(*n->ping));
		if (n->ping)
			ul_list_init(&n->ping->clients);
	}
	return n->ping;
}

/* Target MDs free their buffer (user_ptr) with their last event. */
static void target_event(struct ul_node *n, const struct ulnet_event *ev)
{
	(void)n;
	if (ev->unlinked)
		free(ev->md_user_ptr);
}

/* discovery.md §3: 0@lo with the sequence, then every NI in order. */
static int build_info(struct ul_node *n, uint32_t seq, void **out,
		      uint32_t *len)
{
	struct ul_core *c = n->core;
	struct ul_wire_ping_info pi = { 0 };
	struct ul_wire_ping_ni *nis;
	size_t count = 1, i = 1, size;
	struct ul_net *net;
	struct ul_ni *ni;
	void *buf;
	int rc;

	ul_list_for_each_entry(net, &c->nets, core_link)
		count += net->nnis;
	nis = calloc(count, sizeof(*nis));
	if (!nis)
		return -ENOMEM;
	nis[0].nid = c->lo_ni->nid;
	nis[0].status = seq;
	ul_list_for_each_entry(net, &c->nets, core_link) {
		ul_list_for_each_entry(ni, &net->nis, net_link) {
			if (ni == c->lo_ni || i == count)
				continue;
			nis[i].nid = ni->nid;
			nis[i].status = ni->status == UL_NI_STATUS_UP &&
							!ni->is_fatal
						? UL_WIRE_NI_STATUS_UP
						: UL_WIRE_NI_STATUS_DOWN;
			i++;
		}
	}
	/*
	 * DISCOVERY follows the tunable (§4, §10): a peer that reads it
	 * clear treats this node as non-MR.
	 */
	pi.features = UL_WIRE_PING_FEAT_NI_STATUS |
		      UL_WIRE_PING_FEAT_MULTI_RAIL;
	if (c->tun.discovery)
		pi.features |= UL_WIRE_PING_FEAT_DISCOVERY;
	/* Set from STOPPING until ENABLED again (routing.md §7.1). */
	if (c->routing.state != UL_ROUTING_ENABLED)
		pi.features |= UL_WIRE_PING_FEAT_RTE_DISABLED;
	pi.pid = n->opts.pid;
	size = ul_wire_ping_info_size(nis, i);
	buf = malloc(size);
	rc = -ENOMEM;
	if (buf) {
		rc = ul_wire_ping_info_encode(&pi, nis, i, buf, size, NULL);
		if (rc < 0) {
			free(buf);
		} else {
			*out = buf;
			*len = (uint32_t)rc;
			rc = 0;
		}
	}
	free(nis);
	return rc;
}

/*
 * A target on the reserved portal over buf (freed with its last event):
 * the ping target keeps its MD until a rebuild replaces it; the push
 * target takes one PUT (is_once) and a fresh one is posted at once.
 */
static int attach_internal(struct ul_node *n, void *buf, uint32_t len,
			   uint32_t options, bool is_once, ul_md_int_handler h,
			   struct ul_md **out)
{
	struct ulnet_process_id any = { .pid = ULNET_PID_ANY };
	struct ulnet_md umd = {
		.start = buf,
		.length = len,
		.threshold = is_once ? 1 : ULNET_MD_THRESH_INF,
		.options = options,
		.user_ptr = buf,
		.numa_node = -1,
	};
	struct ul_md *md;
	int rc;

	ulnet_nid_set_any(&any.nid);
	rc = ul_md_create(&n->mds, &umd, is_once ? ULNET_UNLINK : ULNET_RETAIN,
			  true, UL_WIRE_RESERVED_PORTAL, &any,
			  UL_WIRE_PING_MATCHBITS, 0, ULNET_INS_AFTER, &md);
	if (rc)
		return rc;
	md->int_handler = h;
	*out = md;
	return 0;
}

/* Publish the ping info, with the next sequence number if is_new_seq. */
static int post_target(struct ul_node *n, struct ul_ping_state *ps,
		       bool is_new_seq)
{
	uint32_t seq = is_new_seq ? ps->seq + 1 : ps->seq, len;
	struct ul_md *md;
	void *buf;
	int rc = build_info(n, seq, &buf, &len);

	if (rc)
		return rc;
	rc = attach_internal(n, buf, len,
			     ULNET_MD_OP_GET | ULNET_MD_TRUNCATE |
				     ULNET_MD_MANAGE_REMOTE,
			     false, target_event, &md);
	if (rc) {
		free(buf);
		return rc;
	}
	if (ps->target)
		ul_node_md_unlink_internal(n, ps->target, 0);
	ps->target = md;
	ps->seq = seq;
	return 0;
}

/*
 * The push target's events (discovery.md §8.2 passive): a PUT is handed
 * to discovery while its bytes are still in the buffer, which goes with
 * the MD's last event (the same one: the MD takes one PUT).
 */
static void push_target_event(struct ul_node *n, const struct ulnet_event *ev)
{
	if (ev->type == ULNET_EVENT_PUT && n->state == UL_NODE_STATE_RUNNING)
		ul_disc_on_push(n, ev,
				(const uint8_t *)ev->md_start + ev->offset);
	if (ev->unlinked)
		free(ev->md_user_ptr);
}

/* Post a fresh push target of ps->push_size bytes. */
static int post_push(struct ul_node *n, struct ul_ping_state *ps)
{
	void *buf = calloc(1, ps->push_size);
	int rc;

	if (!buf)
		return -ENOMEM;
	rc = attach_internal(n, buf, ps->push_size,
			     ULNET_MD_OP_PUT | ULNET_MD_TRUNCATE |
				     ULNET_MD_MANAGE_REMOTE,
			     true, push_target_event, &ps->push);
	if (rc) {
		free(buf);
		ps->push = NULL;
	}
	return rc;
}

int ul_ping_targets_post(struct ul_node *n)
{
	struct ul_ping_state *ps = state(n);
	int rc;

	if (!ps)
		return -ENOMEM;
	rc = post_target(n, ps, true);
	if (rc || ps->push)
		return rc;
	if (ps->push_size < UL_WIRE_PING_INFO_MIN_SIZE)
		ps->push_size = UL_WIRE_PING_INFO_MIN_SIZE;
	return post_push(n, ps);
}

static void refresh(struct ul_node *n, bool is_new_seq)
{
	int rc;

	if (!n->ping || !n->ping->target || n->state != UL_NODE_STATE_RUNNING)
		return;
	rc = post_target(n, n->ping, is_new_seq);
	if (rc)
		ul_node_log(n, UL_D_ERROR,
			    "cannot rebuild the ping info: %d; peers see the "
			    "old one",
			    rc);
}

void ul_ping_targets_refresh(struct ul_node *n)
{
	refresh(n, true);
}

void ul_ping_targets_republish(struct ul_node *n)
{
	refresh(n, false);
}

void ul_ping_on_put_matched(struct ul_node *n, const struct ul_md *md)
{
	struct ul_ping_state *ps = n->ping;
	int rc;

	if (!ps || md != ps->push || n->state != UL_NODE_STATE_RUNNING)
		return;
	/* Used up: the next push finds a fresh target at once. */
	rc = post_push(n, ps);
	if (rc)
		ul_node_log(n, UL_D_ERROR,
			    "cannot post the push target: %d; pushes to "
			    "this node are dropped",
			    rc);
}

void ul_ping_push_size_want(struct ul_node *n, uint32_t size)
{
	struct ul_ping_state *ps = n->ping;
	struct ul_md *old;

	if (!ps || size <= ps->push_size || n->state != UL_NODE_STATE_RUNNING)
		return;
	if (size > UL_PING_SINK_MAX)
		size = UL_PING_SINK_MAX;
	ps->push_size = size;
	/* §2: the target is made again at the new size. */
	old = ps->push;
	if (post_push(n, ps) == 0 && old)
		ul_node_md_unlink_internal(n, old, 0);
	else if (!ps->push)
		ps->push = old;
}

int ul_ping_info_copy(struct ul_node *n, void **buf, uint32_t *len,
		      uint32_t *seq)
{
	struct ul_ping_state *ps = n->ping;
	void *copy;

	if (!ps || !ps->target)
		return -ESHUTDOWN;
	copy = malloc(ps->target->length);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, ps->target->start, ps->target->length);
	*buf = copy;
	*len = ps->target->length;
	*seq = ps->seq;
	return 0;
}

static void client_complete(struct ul_ping_client *pc, int status,
			    const struct ulnet_ping_result *res)
{
	struct ul_node *n = pc->node;

	ul_timer_cancel(n->opts.timers, &pc->timer);
	if (!pc->is_done) {
		pc->is_done = true;
		pc->cb(pc->arg, status, res);
	}
	if (pc->md && !pc->md->is_zombie)
		ul_node_md_unlink_internal(n, pc->md, 0);
}

int ul_ping_info_parse(const uint8_t *buf, uint32_t len,
		       struct ulnet_ping_result *res, size_t *need)
{
	struct ul_wire_ping_info pi;
	struct ul_wire_ping_ni *nis;
	size_t count;
	int rc = ul_wire_ping_info_check(buf, len, &pi, NULL);

	*need = len;
	if (rc == -ENOMSG) {
		*need = ul_wire_ping_info_needed(buf, len);
		return *need > len ? -EMSGSIZE : -EPROTO;
	}
	if (rc < 0)
		return -EPROTO;
	count = (size_t)pi.nnis + pi.nlarge;
	nis = calloc(count, sizeof(*nis));
	if (!nis)
		return -ENOMEM;
	rc = ul_wire_ping_info_decode(buf, len, &pi, nis, count, NULL);
	if (rc < 0) {
		free(nis);
		return -EPROTO;
	}
	memset(res, 0, sizeof(*res));
	res->features = pi.features;
	res->seqno = nis[0].status; /* entry 0 carries it (§3) */
	res->primary.pid = pi.pid;
	if (count > 1)
		res->primary.nid = nis[1].nid;
	else
		ulnet_nid_set_any(&res->primary.nid);
	res->nnis_total = count - 1;
	for (size_t i = 1; i < count && res->nnis < 64; i++) {
		res->nis[res->nnis].nid = nis[i].nid;
		res->nis[res->nnis].status = nis[i].status;
		res->nnis++;
	}
	free(nis);
	return 0;
}

static void client_event(struct ul_node *n, const struct ulnet_event *ev)
{
	struct ul_ping_client *pc = ev->md_user_ptr;
	struct ulnet_ping_result *res;
	int rc;

	if (ev->type == ULNET_EVENT_SEND && ev->status)
		client_complete(pc, ev->status, NULL);
	if (ev->type == ULNET_EVENT_REPLY && !pc->is_done) {
		size_t need = ev->mlength;

		rc = ev->status;
		res = malloc(sizeof(*res));
		if (!rc)
			rc = res ? ul_ping_info_parse(pc->buf, ev->mlength, res,
						      &need)
				 : -ENOMEM;
		/* more than our sink took: cut, whatever the bytes say */
		if (!ev->status && ev->rlength > ev->mlength) {
			rc = -EMSGSIZE;
			need = need > ev->rlength ? need : ev->rlength;
		}
		if (pc->rlength && !ev->status)
			*pc->rlength = (uint32_t)need;
		client_complete(pc, rc, rc ? NULL : res);
		free(res);
	}
	if (!ev->unlinked)
		return;
	pc->md = NULL;
	/* An unlink with a reason (a response timeout) gives that reason. */
	rc = n->state != UL_NODE_STATE_RUNNING ? -ESHUTDOWN
	     : ev->status		       ? ev->status
					       : -EIO;
	client_complete(pc, rc, NULL);
	ul_list_del(&pc->link);
	free(pc);
}

static void client_timeout(struct ul_timer *t, uint64_t now_ns)
{
	struct ul_ping_client *pc =
		ul_container_of(t, struct ul_ping_client, timer);
	struct ul_node *n = pc->node;

	(void)now_ns;
	client_complete(pc, -ETIMEDOUT, NULL);
	ul_node_dispatch(n);
}

int ul_node_ping(struct ul_node *n, const struct ulnet_nid *self,
		 const struct ulnet_process_id *target, uint32_t timeout_ms,
		 ul_node_ping_cb cb, void *arg)
{
	return ul_ping_send(n, self, target, timeout_ms, UL_PING_KIND_USER, cb,
			    arg);
}

int ul_ping_send(struct ul_node *n, const struct ulnet_nid *self,
		 const struct ulnet_process_id *target, uint32_t timeout_ms,
		 enum ul_ping_kind kind, ul_node_ping_cb cb, void *arg)
{
	return ul_ping_send_sized(n, self, target, timeout_ms, kind,
				  UL_PING_SINK_SIZE, NULL, cb, arg);
}

int ul_ping_send_sized(struct ul_node *n, const struct ulnet_nid *self,
		       const struct ulnet_process_id *target,
		       uint32_t timeout_ms, enum ul_ping_kind kind,
		       uint32_t size, uint32_t *rlength, ul_node_ping_cb cb,
		       void *arg)
{
	struct ul_ping_state *ps;
	struct ul_ping_client *pc;
	struct ulnet_process_id to;
	struct ulnet_md umd = {
		.length = size,
		.threshold = 2,		      /* SEND and REPLY */
		.options = ULNET_MD_TRUNCATE, /* tracked as LNet's lnet_ping */
		.numa_node = -1,
	};
	struct ul_msg_send_args a = {
		.type = UL_MSG_GET,
		.target = &to,
		.portal = UL_WIRE_RESERVED_PORTAL,
		.match_bits = UL_WIRE_PING_MATCHBITS,
		.is_recovery = kind == UL_PING_KIND_RECOVERY,
	};
	int rc;

	/* LNet's own pings are tracked whatever response_tracking says. */
	if (kind != UL_PING_KIND_USER)
		umd.options |= ULNET_MD_TRACK_RESPONSE;
	if (n->state != UL_NODE_STATE_RUNNING)
		return -ESHUTDOWN;
	if (!cb || !target || ulnet_nid_is_any(&target->nid) || !size ||
	    size > UL_PING_SINK_MAX)
		return -EINVAL;
	if (self && !ulnet_nid_is_any(self)) {
		if (!ul_ni_find(n->core, self))
			return -EINVAL;
		a.self = self;
	}
	ps = state(n);
	pc = ps ? calloc(1, sizeof(*pc) + size) : NULL;
	if (!pc)
		return -ENOMEM;
	to = *target;
	if (to.pid == ULNET_PID_ANY)
		to.pid = ULNET_PID_LUSTRE; /* wire.md §8.1 */
	pc->node = n;
	pc->cb = cb;
	pc->arg = arg;
	pc->rlength = rlength;
	ul_timer_init(&pc->timer, client_timeout);
	umd.start = pc->buf;
	umd.user_ptr = pc;
	rc = ul_md_create(&n->mds, &umd, ULNET_UNLINK, false, 0, NULL, 0, 0,
			  ULNET_INS_AFTER, &pc->md);
	if (rc)
		goto err_free;
	pc->md->int_handler = client_event;
	ul_list_add_tail(&ps->clients, &pc->link);
	rc = ul_timer_arm(n->opts.timers, &pc->timer,
			  n->opts.timers->now_ns +
				  (uint64_t)timeout_ms * NSEC_PER_MSEC);
	if (rc)
		goto err_unlink;
	n->api_depth++;
	rc = ul_msg_send_md(n, pc->md, &a);
	n->api_depth--;
	if (rc)
		goto err_unlink;
	return 0;

err_unlink:
	/* No callback: the MD's UNLINK event only frees pc. */
	pc->is_done = true;
	n->api_depth++;
	client_complete(pc, rc, NULL);
	n->api_depth--;
	return rc;
err_free:
	free(pc);
	return rc;
}

void ul_ping_shutdown(struct ul_node *n)
{
	struct ul_ping_state *ps = n->ping;
	struct ul_ping_client *pc;

	if (!ps)
		return;
	if (ps->target)
		ul_node_md_unlink_internal(n, ps->target, 0);
	if (ps->push)
		ul_node_md_unlink_internal(n, ps->push, 0);
	ps->target = NULL;
	ps->push = NULL;
	/* Clients end with their MD's last event (-ESHUTDOWN). */
	ul_list_for_each_entry(pc, &ps->clients, link)
		ul_timer_cancel(n->opts.timers, &pc->timer);
}

void ul_ping_free(struct ul_node *n)
{
	free(n->ping);
	n->ping = NULL;
}
