/*
 * LNet Health (health.h): the completion funnel's health check, the
 * health arithmetic and the recovery queues with their pings.
 *
 * Timers: none of its own. ul_health_tick() runs from the node tick and
 * says when it is next due (the earliest next_ping of a queued NI).
 *
 * Recovery pings go through the ping client (ping.c, is_recovery): to
 * the exact NID being recovered (a local NI pings its own NID),
 * response-tracked, never resent, the source NI chosen freely. Each has
 * a struct rec_ping that names its NI by NID, so an NI deleted while its
 * ping is out is simply not found when the ping ends.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/health.h"
#include "core/msg.h"
#include "core/ping.h"

#define NSEC_PER_SEC UINT64_C(1000000000)

/* One recovery ping out, for the ping client's callback. */
struct rec_ping {
	struct ul_node *node;
	struct ulnet_nid nid; /* the NI being recovered */
	bool is_local;
};

static void ni_set_status(struct ul_node *n, struct ul_ni *ni,
			  enum ul_ni_status st)
{
	char buf[64];

	if (ni->status == st)
		return;
	ni->status = st;
	ul_node_log(n, UL_D_INFO, "NI %s is %s (health %d)",
		    ulnet_nid_format(&ni->nid, buf, sizeof(buf)),
		    st == UL_NI_STATUS_UP ? "up" : "down", ni->healthv);
	ul_ping_targets_refresh(n);
}

/* health.md §1: decrement by S, never below 0; DOWN on reaching 0. */
void ul_health_ni_dec(struct ul_node *n, struct ul_ni *ni)
{
	uint32_t s = n->core->tun.health_sensitivity;

	if (!s || ni == ul_core_lo_ni(n->core))
		return;
	ni->healthv = ni->healthv < (int)s ? 0 : ni->healthv - (int)s;
	if (ni->healthv == 0)
		ni_set_status(n, ni, UL_NI_STATUS_DOWN);
	ul_health_ni_queue(n, ni);
}

void ul_health_ni_inc(struct ul_node *n, struct ul_ni *ni)
{
	uint32_t s = n->core->tun.health_sensitivity;
	int was = ni->healthv;

	if (!s || ni == ul_core_lo_ni(n->core))
		return;
	ni->healthv = was + (int)s > UL_HEALTH_MAX ? UL_HEALTH_MAX
						   : was + (int)s;
	if (ni->healthv == UL_HEALTH_MAX && was < UL_HEALTH_MAX)
		ni_set_status(n, ni, UL_NI_STATUS_UP);
}

void ul_health_lpni_fail(struct ul_node *n, struct ul_peer_ni *lpni)
{
	int s = (int)n->core->tun.health_sensitivity;

	if (!s)
		return;
	ul_peer_ni_set_healthv(lpni, lpni->healthv < s ? 0 : lpni->healthv - s);
	ul_health_lpni_queue(n, lpni);
}

/* §5.3: the next ping after count pings, capped by the tunable. */
static uint64_t next_ping_ns(const struct ul_node *n, uint32_t count,
			     uint64_t now_ns)
{
	uint32_t cap = n->core->tun.max_recovery_ping_interval;
	uint32_t max_count = 0;

	while (max_count < 31 && (UINT32_C(2) << max_count) <= cap)
		max_count++;
	if (count > max_count)
		return now_ns + (uint64_t)cap * NSEC_PER_SEC;
	return now_ns + (UINT64_C(1) << count) * NSEC_PER_SEC;
}

static void rec_enqueue(struct ul_node *n, struct ul_recovery *r,
			struct ul_list *q)
{
	uint64_t now = n->opts.timers->now_ns;

	if (r->is_queued)
		return;
	r->is_queued = true;
	r->next_ping_ns = next_ping_ns(n, r->ping_count, now);
	ul_list_add_tail(q, &r->link);
	ul_node_tick_arm(n, r->next_ping_ns);
}

static void rec_dequeue(struct ul_recovery *r)
{
	if (!r->is_queued)
		return;
	r->is_queued = false;
	ul_list_del(&r->link);
}

void ul_health_ni_queue(struct ul_node *n, struct ul_ni *ni)
{
	struct ul_node_ni *nni = ni->node_ni;

	/* At full health it leaves now, not at the next pass. */
	if (nni && ni->healthv >= UL_HEALTH_MAX)
		rec_dequeue(&nni->rec);
	if (!nni || nni->is_stopping || ni->healthv >= UL_HEALTH_MAX ||
	    n->state != UL_NODE_STATE_RUNNING)
		return;
	rec_enqueue(n, &nni->rec, &n->ni_recq);
}

/* §5.2 admission. */
void ul_health_lpni_queue(struct ul_node *n, struct ul_peer_ni *lpni)
{
	struct ul_peer_ni_msgs *pm = lpni->msgs;
	uint32_t limit = n->core->tun.recovery_limit;
	uint64_t now = n->opts.timers->now_ns;

	if (pm && lpni->healthv >= UL_HEALTH_MAX)
		rec_dequeue(&pm->rec);
	if (!pm || pm->rec.is_queued || lpni->is_dead ||
	    lpni->healthv >= UL_HEALTH_MAX ||
	    n->state != UL_NODE_STATE_RUNNING || !pm->last_alive_ns)
		return;
	if (limit && now > pm->last_alive_ns + (uint64_t)limit * NSEC_PER_SEC) {
		pm->rec.ping_count = 0; /* aged out */
		return;
	}
	rec_enqueue(n, &pm->rec, &n->lpni_recq);
}

void ul_health_nni_forget(struct ul_node *n, struct ul_node_ni *nni)
{
	(void)n;
	rec_dequeue(&nni->rec);
}

/*
 * §4.1 OK extras, §5.3: a message came in from lpni on ni, so both ping
 * back-offs start again (lpni's last_alive is set when it is parsed).
 */
static void restart_pings(struct ul_ni *ni, struct ul_peer_ni *lpni)
{
	if (lpni->msgs)
		lpni->msgs->rec.ping_count = 0;
	if (ni->node_ni)
		ni->node_ni->rec.ping_count = 0;
}

/* health.md §4.2: one counter per failed attempt and status. */
static void count_hstatus(struct ul_node *n, struct ul_msg *m,
			  enum ul_hstatus hs)
{
	struct ul_counters *g = &n->core->counters;
	struct ul_ni_hstats *l = &m->ni->hstats;
	struct ul_peer_ni_msgs *r = m->lpni->msgs;

	switch (hs) {
	case UL_HSTATUS_OK:
		if (m->retry_count)
			g->successful_resends++;
		break;
	case UL_HSTATUS_LOCAL_INTERRUPT:
		l->interrupts++;
		g->local_interrupt_count++;
		break;
	case UL_HSTATUS_LOCAL_DROPPED:
		l->dropped++;
		g->local_dropped_count++;
		break;
	case UL_HSTATUS_LOCAL_ABORTED:
		l->aborted++;
		g->local_aborted_count++;
		break;
	case UL_HSTATUS_LOCAL_NO_ROUTE:
		l->no_route++;
		g->local_no_route_count++;
		break;
	case UL_HSTATUS_LOCAL_ERROR:
		l->error++;
		g->local_error_count++;
		break;
	case UL_HSTATUS_LOCAL_TIMEOUT:
		l->timeouts++;
		g->local_timeout_count++;
		break;
	case UL_HSTATUS_REMOTE_ERROR:
		r->hs_error++;
		g->remote_error_count++;
		break;
	case UL_HSTATUS_REMOTE_DROPPED:
		r->hs_dropped++;
		g->remote_dropped_count++;
		break;
	case UL_HSTATUS_REMOTE_TIMEOUT:
		r->hs_timeout++;
		g->remote_timeout_count++;
		break;
	case UL_HSTATUS_NETWORK_TIMEOUT:
		r->hs_network_timeout++;
		g->network_timeout_count++;
		break;
	}
}

/* This node's non-loopback NIs, up to 2 (enough for "at most one"). */
static unsigned int count_nis(const struct ul_node *n)
{
	const struct ul_node_ni *nni;
	unsigned int k = 0;

	ul_list_for_each_entry(nni, &n->nis, link) {
		if (nni != n->lo && ++k == 2)
			break;
	}
	return k;
}

static void ok_path(struct ul_node *n, struct ul_msg *m, bool is_gw_or_router)
{
	struct ul_core *c = n->core;

	ul_health_ni_inc(n, m->ni);
	if (m->is_tx)
		return;
	restart_pings(m->ni, m->lpni);
	if (is_gw_or_router) {
		ul_peer_ni_set_healthv(m->lpni, UL_HEALTH_MAX);
		return;
	}
	if (c->tun.health_sensitivity)
		ul_peer_ni_inc_healthv(m->lpni, (int)c->tun.health_sensitivity);
	ul_health_lpni_queue(n, m->lpni);
}

enum ul_health_verdict ul_health_check(struct ul_node *n, struct ul_msg *m,
				       int status, enum ul_hstatus hs)
{
	struct ul_core *c = n->core;
	struct ul_peer *peer;
	bool is_gw_or_router, remote_health = true;
	bool may_resend_local, may_resend_remote;

	if (!m->is_committed || !m->lpni || !m->ni)
		return UL_HEALTH_FINALIZE;
	/* Stopping an NI or the node fails messages; no one's health. */
	if (n->state != UL_NODE_STATE_RUNNING || m->nni->is_stopping)
		return UL_HEALTH_FINALIZE;
	if ((status == 0) != (hs == UL_HSTATUS_OK))
		return UL_HEALTH_FINALIZE; /* inconsistent: no health */
	if (n->opts.timers->now_ns > m->deadline_ns) {
		c->counters.late_count++;
		if (hs != UL_HSTATUS_OK)
			return UL_HEALTH_FINALIZE;
	}
	count_hstatus(n, m, hs);
	peer = ul_peer_ni_peer(m->lpni);
	is_gw_or_router = peer->rtr_refcount > 0 || c->tun.routing;
	may_resend_local = may_resend_remote = m->is_tx;
	if (hs != UL_HSTATUS_OK) {
		if (count_nis(n) <= 1)
			may_resend_local = false;
		if (peer->nnis <= 1) {
			may_resend_remote = false;
			if (!is_gw_or_router)
				remote_health = false;
		}
		if (ul_ni_find(c, &m->lpni->nid))
			remote_health = false;
	}
	switch (hs) {
	case UL_HSTATUS_OK:
		ok_path(n, m, is_gw_or_router);
		return UL_HEALTH_FINALIZE;
	case UL_HSTATUS_LOCAL_INTERRUPT:
	case UL_HSTATUS_LOCAL_DROPPED:
	case UL_HSTATUS_LOCAL_ABORTED:
	case UL_HSTATUS_LOCAL_NO_ROUTE:
	case UL_HSTATUS_LOCAL_TIMEOUT:
		ul_health_ni_dec(n, m->ni);
		return may_resend_local ? UL_HEALTH_RESEND : UL_HEALTH_FINALIZE;
	case UL_HSTATUS_LOCAL_ERROR:
		ul_health_ni_dec(n, m->ni);
		return UL_HEALTH_FINALIZE;
	case UL_HSTATUS_REMOTE_DROPPED:
		if (remote_health)
			ul_health_lpni_fail(n, m->lpni);
		return may_resend_remote ? UL_HEALTH_RESEND
					 : UL_HEALTH_FINALIZE;
	case UL_HSTATUS_REMOTE_ERROR:
	case UL_HSTATUS_REMOTE_TIMEOUT:
		if (remote_health)
			ul_health_lpni_fail(n, m->lpni);
		return UL_HEALTH_FINALIZE;
	case UL_HSTATUS_NETWORK_TIMEOUT:
		ul_health_ni_dec(n, m->ni);
		if (remote_health)
			ul_health_lpni_fail(n, m->lpni);
		/*
		 * Never resent in LNet, as the peer may have taken it. When
		 * the LND knows it cannot have (its connection timed out
		 * with the bytes unacknowledged), ulnet resends it over
		 * another pathway, now that both ends' health dropped.
		 */
		if (m->is_tx && m->tx.is_undelivered &&
		    (may_resend_local || may_resend_remote))
			return UL_HEALTH_RESEND;
		return UL_HEALTH_FINALIZE;
	}
	return UL_HEALTH_FINALIZE;
}

/* The queue entry of the NI a recovery ping is for, if it is still there. */
static struct ul_recovery *rec_of(struct ul_node *n, const struct rec_ping *rp)
{
	struct ul_peer_ni *lpni;
	struct ul_ni *ni;

	if (rp->is_local) {
		ni = ul_ni_find(n->core, &rp->nid);
		return ni && ni->node_ni ? &ni->node_ni->rec : NULL;
	}
	lpni = ul_peer_ni_find(n->core, &rp->nid);
	return lpni && lpni->msgs ? &lpni->msgs->rec : NULL;
}

/*
 * The end of a recovery ping (§5.1): a REPLY adds one step to the NI
 * being recovered; a failure or a timeout only clears the pending mark.
 */
static void rec_ping_done(void *arg, int status,
			  const struct ulnet_ping_result *res)
{
	struct rec_ping *rp = arg;
	struct ul_node *n = rp->node;
	struct ul_recovery *r = rec_of(n, rp);
	int s = (int)n->core->tun.health_sensitivity;

	(void)res;
	if (r) {
		r->is_ping_pending = false;
		if (!status && rp->is_local)
			ul_health_ni_inc(
				n,
				ul_container_of(r, struct ul_node_ni, rec)->ni);
		else if (!status && s)
			ul_peer_ni_inc_healthv(
				ul_container_of(r, struct ul_peer_ni_msgs, rec)
					->lpni,
				s);
	}
	free(rp);
}

static int send_rec_ping(struct ul_node *n, const struct ulnet_nid *nid,
			 bool is_local)
{
	struct ulnet_process_id to = { *nid, ULNET_PID_LUSTRE };
	struct rec_ping *rp = calloc(1, sizeof(*rp));
	uint32_t tt = n->core->tun.transaction_timeout;
	int rc;

	if (!rp)
		return -ENOMEM;
	rp->node = n;
	rp->nid = *nid;
	rp->is_local = is_local;
	/* lost like any tracked request: after transaction_timeout */
	rc = ul_ping_send(n, NULL, &to,
			  tt > UINT32_MAX / 1000 ? UINT32_MAX : tt * 1000,
			  UL_PING_KIND_RECOVERY, rec_ping_done, rp);
	if (rc)
		free(rp);
	return rc;
}

/* One queue's pass; objects that left or healed are dropped. */
static uint64_t tick_queue(struct ul_node *n, bool is_local, uint64_t now)
{
	struct ul_list *q = is_local ? &n->ni_recq : &n->lpni_recq;
	uint64_t next = UINT64_MAX;
	struct ul_recovery *r, *tmp;
	char buf[64];

	ul_list_for_each_entry_safe(r, tmp, q, link) {
		const struct ulnet_nid *nid;
		int healthv;

		if (is_local) {
			struct ul_node_ni *nni =
				ul_container_of(r, struct ul_node_ni, rec);

			nid = &nni->ni->nid;
			healthv = nni->ni->healthv;
			if (nni->is_stopping)
				healthv = UL_HEALTH_MAX;
		} else {
			struct ul_peer_ni_msgs *pm =
				ul_container_of(r, struct ul_peer_ni_msgs, rec);

			nid = &pm->lpni->nid;
			healthv = pm->lpni->is_dead ? UL_HEALTH_MAX
						    : pm->lpni->healthv;
		}
		if (healthv >= UL_HEALTH_MAX) {
			rec_dequeue(r);
			continue;
		}
		if (r->is_ping_pending || now < r->next_ping_ns) {
			if (!r->is_ping_pending && r->next_ping_ns < next)
				next = r->next_ping_ns;
			continue;
		}
		ul_node_log(n, UL_D_NET, "recovery ping to %s %s (count %u)",
			    is_local ? "local NI" : "peer NI",
			    ulnet_nid_format(nid, buf, sizeof(buf)),
			    r->ping_count + 1);
		r->ping_count++;
		r->next_ping_ns = next_ping_ns(n, r->ping_count, now);
		if (!send_rec_ping(n, nid, is_local))
			r->is_ping_pending = true;
		if (r->next_ping_ns < next)
			next = r->next_ping_ns;
		if (!is_local) {
			/* §5.2: re-queued through admission (aging out). */
			struct ul_peer_ni_msgs *pm =
				ul_container_of(r, struct ul_peer_ni_msgs, rec);

			rec_dequeue(r);
			ul_health_lpni_queue(n, pm->lpni);
		}
	}
	return next;
}

/*
 * §5.4: while NIs are queued, say how many and list up to 20, at once and
 * then 60, 120, ... up to 300 s apart; past 20, point at `debug recovery`
 * once. Returns when it is due next.
 */
static uint64_t console_summary(struct ul_node *n, bool is_local,
				uint64_t now_ns)
{
	const char *what = is_local ? "local" : "peer";
	struct ul_list *q = is_local ? &n->ni_recq : &n->lpni_recq;
	struct ul_rec_console *c = &n->rec_console[is_local ? 0 : 1];
	struct ul_recovery *r;
	char line[20 * 48 + 64], buf[64];
	size_t len = 0, count = ul_list_count(q);
	unsigned int k = 0;

	if (!count) {
		c->next_ns = 0;
		c->gap_sec = 0;
		return UINT64_MAX;
	}
	if (now_ns < c->next_ns)
		return c->next_ns;
	line[0] = '\0';
	ul_list_for_each_entry(r, q, link) {
		const struct ulnet_nid *nid;
		int w;

		if (k++ == 20)
			break;
		if (is_local)
			nid = &ul_container_of(r, struct ul_node_ni, rec)
				       ->ni->nid;
		else
			nid = &ul_container_of(r, struct ul_peer_ni_msgs, rec)
				       ->lpni->nid;
		w = snprintf(line + len, sizeof(line) - len, " %s",
			     ulnet_nid_format(nid, buf, sizeof(buf)));
		if (w < 0 || (size_t)w >= sizeof(line) - len)
			break;
		len += (size_t)w;
	}
	ul_node_log(n, UL_D_CONSOLE, "%zu %s NI(s) in recovery:%s%s", count,
		    what, line, count > 20 ? " ..." : "");
	if (count > 20 && !c->is_hinted) {
		c->is_hinted = true;
		ul_node_log(n, UL_D_CONSOLE,
			    "see them all with 'ulnetctl debug recovery --%s'",
			    what);
	}
	c->gap_sec = c->gap_sec ? c->gap_sec + 60 : 60;
	if (c->gap_sec > 300)
		c->gap_sec = 300;
	c->next_ns = now_ns + (uint64_t)c->gap_sec * NSEC_PER_SEC;
	return c->next_ns;
}

static uint64_t min_ns(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

uint64_t ul_health_tick(struct ul_node *n, uint64_t now_ns)
{
	uint64_t next;

	if (n->state != UL_NODE_STATE_RUNNING)
		return UINT64_MAX;
	next = tick_queue(n, true, now_ns);
	next = min_ns(next, tick_queue(n, false, now_ns));
	next = min_ns(next, console_summary(n, true, now_ns));
	return min_ns(next, console_summary(n, false, now_ns));
}

void ul_health_recovery_list(struct ul_node *n, bool is_local,
			     ul_health_nid_fn fn, void *arg)
{
	struct ul_recovery *r;

	if (is_local) {
		ul_list_for_each_entry(r, &n->ni_recq, link)
			fn(arg,
			   &ul_container_of(r, struct ul_node_ni, rec)->ni->nid);
		return;
	}
	ul_list_for_each_entry(r, &n->lpni_recq, link)
		fn(arg,
		   &ul_container_of(r, struct ul_peer_ni_msgs, rec)->lpni->nid);
}

static int64_t to_sec(uint64_t ns)
{
	return (int64_t)(ns / NSEC_PER_SEC);
}

void ul_health_ni_ping_state(const struct ul_ni *ni, uint32_t *count,
			     int64_t *next)
{
	const struct ul_node_ni *nni = ni->node_ni;

	*count = nni ? nni->rec.ping_count : 0;
	*next = nni && nni->rec.is_queued ? to_sec(nni->rec.next_ping_ns) : 0;
}

void ul_health_lpni_ping_state(const struct ul_peer_ni *lpni, uint32_t *count,
			       int64_t *next)
{
	const struct ul_peer_ni_msgs *pm = lpni->msgs;

	*count = pm ? pm->rec.ping_count : 0;
	*next = pm && pm->rec.is_queued ? to_sec(pm->rec.next_ping_ns) : 0;
}
