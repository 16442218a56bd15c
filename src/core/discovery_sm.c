/*
 * The discovery state table and the peer state word derived from it
 * (discovery_sm.h).
 */
#include "core/discovery_sm.h"
#include "util/log.h"

/* Bit t of allowed[f] says f -> t is legal (discovery_sm.h). */
#define ST(x) (1u << UL_DISC_STATE_##x)
static const uint32_t allowed[UL_DISC_STATE_NR] = {
	[UL_DISC_STATE_IDLE] = ST(QUEUED) | ST(UP_TO_DATE),
	[UL_DISC_STATE_QUEUED] = ST(PING_SENT) | ST(FAILED),
	[UL_DISC_STATE_PING_SENT] = ST(UP_TO_DATE) | ST(QUEUED) | ST(FAILED) |
				    ST(PUSH_QUEUED),
	[UL_DISC_STATE_UP_TO_DATE] = ST(IDLE) | ST(QUEUED) | ST(PUSH_QUEUED),
	[UL_DISC_STATE_FAILED] = ST(QUEUED) | ST(UP_TO_DATE) | ST(IDLE),
	[UL_DISC_STATE_PUSH_QUEUED] = ST(PUSH_SENT) | ST(FAILED),
	[UL_DISC_STATE_PUSH_SENT] = ST(UP_TO_DATE) | ST(PUSH_QUEUED) |
				    ST(FAILED),
};
#undef ST

static const char *const state_names[UL_DISC_STATE_NR] = {
	"idle",	  "queued",	 "ping_sent", "up_to_date",
	"failed", "push_queued", "push_sent",
};

const char *ul_disc_state_name(enum ul_disc_state s)
{
	return (unsigned int)s < UL_DISC_STATE_NR ? state_names[s] : "?";
}

bool ul_disc_is_allowed(enum ul_disc_state from, enum ul_disc_state to)
{
	if ((unsigned int)from >= UL_DISC_STATE_NR ||
	    (unsigned int)to >= UL_DISC_STATE_NR)
		return false;
	return from == to || (allowed[from] & (1u << to));
}

bool ul_disc_set_state(const struct ul_log *log, struct ul_peer *p,
		       enum ul_disc_state to)
{
	char a[64];

	if (ul_disc_is_allowed(p->disc_state, to)) {
		p->disc_state = to;
		return true;
	}
	ul_log(log, UL_D_ERROR, "peer %s: discovery %s -> %s refused",
	       ulnet_nid_format(&p->primary_nid, a, sizeof(a)),
	       ul_disc_state_name(p->disc_state), ul_disc_state_name(to));
	return false;
}

bool ul_disc_is_busy(const struct ul_peer *p)
{
	return p->disc_state == UL_DISC_STATE_QUEUED ||
	       p->disc_state == UL_DISC_STATE_PING_SENT ||
	       p->disc_state == UL_DISC_STATE_PUSH_QUEUED ||
	       p->disc_state == UL_DISC_STATE_PUSH_SENT;
}

bool ul_disc_needs_push(const struct ul_peer *p, uint32_t my_seq,
			bool is_disc_on)
{
	if (!p->is_mr || p->disc_state == UL_DISC_STATE_PUSH_SENT)
		return false;
	if (p->is_push_forced)
		return true;
	if (p->has_no_discovery || !is_disc_on)
		return false;
	return p->node_seqno < my_seq;
}

/* Its NIDs were merged and no ping is owed (NIDS_UPTODATE). */
static bool has_current_nids(const struct ul_peer *p)
{
	return p->disc_state == UL_DISC_STATE_UP_TO_DATE ||
	       p->disc_state == UL_DISC_STATE_PUSH_QUEUED ||
	       p->disc_state == UL_DISC_STATE_PUSH_SENT;
}

bool ul_disc_push_is_stale(const struct ul_peer *p, uint32_t seq,
			   bool is_from_primary)
{
	if (is_from_primary && seq < p->peer_seqno)
		return true;
	return seq <= p->peer_seqno && has_current_nids(p);
}

bool ul_disc_is_uptodate(const struct ul_peer *p)
{
	return p->disc_state == UL_DISC_STATE_UP_TO_DATE;
}

void ul_disc_invalidate(struct ul_peer *p)
{
	if (!ul_disc_is_busy(p))
		(void)ul_disc_set_state(NULL, p, UL_DISC_STATE_IDLE);
}

void ul_disc_on_merged(struct ul_peer *p)
{
	if (!ul_disc_is_busy(p))
		(void)ul_disc_set_state(NULL, p, UL_DISC_STATE_UP_TO_DATE);
}

void ul_disc_set_stage_bits(struct ul_peer *p, uint32_t state)
{
	if (ul_disc_is_busy(p))
		return;
	if (state & UL_PEER_STATE_NIDS_UPTODATE)
		(void)ul_disc_set_state(NULL, p, UL_DISC_STATE_UP_TO_DATE);
	else
		(void)ul_disc_set_state(NULL, p, UL_DISC_STATE_IDLE);
}

uint32_t ul_disc_state_bits(const struct ul_peer *p)
{
	uint32_t s = 0;

	if (p->is_mr)
		s |= UL_PEER_STATE_MULTI_RAIL;
	if (p->has_no_discovery)
		s |= UL_PEER_STATE_NO_DISCOVERY;
	/* Only what a discover reply said makes it a router here. */
	if (p->rtr == UL_PEER_RTR_ENABLED)
		s |= UL_PEER_STATE_ROUTER_ENABLED;
	if (p->is_configured)
		s |= UL_PEER_STATE_CONFIGURED;
	if (p->is_discovered)
		s |= UL_PEER_STATE_DISCOVERED;
	if (p->is_lock_prim)
		s |= UL_PEER_STATE_LOCK_PRIMARY;
	if (p->is_push_forced)
		s |= UL_PEER_STATE_FORCE_PUSH;
	/* The router checker's round (routing.md §5) on a gateway. */
	if (p->is_rtr_checking)
		s |= UL_PEER_STATE_RTR_DISCOVERY;
	if (p->is_rtr_checked)
		s |= UL_PEER_STATE_RTR_DISCOVERED;
	switch (p->disc_state) {
	case UL_DISC_STATE_QUEUED:
		s |= UL_PEER_STATE_DISCOVERING;
		break;
	case UL_DISC_STATE_PING_SENT:
		s |= UL_PEER_STATE_DISCOVERING | UL_PEER_STATE_PING_SENT;
		break;
	case UL_DISC_STATE_UP_TO_DATE:
		s |= UL_PEER_STATE_NIDS_UPTODATE;
		break;
	case UL_DISC_STATE_FAILED:
		s |= UL_PEER_STATE_REDISCOVER;
		break;
	case UL_DISC_STATE_PUSH_QUEUED:
		s |= UL_PEER_STATE_DISCOVERING | UL_PEER_STATE_NIDS_UPTODATE;
		break;
	case UL_DISC_STATE_PUSH_SENT:
		s |= UL_PEER_STATE_DISCOVERING | UL_PEER_STATE_NIDS_UPTODATE |
		     UL_PEER_STATE_PUSH_SENT;
		break;
	case UL_DISC_STATE_IDLE:
	case UL_DISC_STATE_NR:
		break;
	}
	return s;
}
