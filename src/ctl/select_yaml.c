/* Selections and their explanations as YAML; see select_yaml.h. */
#include <stdint.h>
#include <string.h>

#include "core/ni.h"
#include "core/peer.h"
#include "core/route.h"
#include "ctl/select_yaml.h"

static void kv_nid(struct ul_yemit *y, const char *key,
		   const struct ulnet_nid *nid)
{
	char buf[ULNET_NIDSTR_SIZE];

	ul_yemit_kv(y, key, "%s", ulnet_nid_format(nid, buf, sizeof(buf)));
}

static void kv_net(struct ul_yemit *y, const char *key, uint32_t net)
{
	char buf[ULNET_NIDSTR_SIZE];

	ul_yemit_kv(y, key, "%s", ulnet_net_format(net, buf, sizeof(buf)));
}

/* Priorities are unsigned with UINT32_MAX "unset", shown as -1. */
static bool is_priority(enum ul_crit crit)
{
	return crit == UL_CRIT_PRIORITY || crit == UL_CRIT_PEER_NET_PRIORITY ||
	       crit == UL_CRIT_NET_PRIORITY || crit == UL_CRIT_DEV_PRIORITY ||
	       crit == UL_CRIT_ROUTE_PRIORITY;
}

static void emit_value(struct ul_yemit *y, enum ul_crit crit, int64_t v)
{
	if (is_priority(crit) && v == (int64_t)UINT32_MAX)
		v = -1;
	if (crit == UL_CRIT_HOPS && v == (int64_t)UL_HOPS_UNDEFINED)
		v = -1;
	if (crit == UL_CRIT_FATAL || crit == UL_CRIT_PREFERRED ||
	    crit == UL_CRIT_ROUTE_PREFERRED)
		ul_yemit_kv(y, ul_crit_name(crit), "%s", v ? "true" : "false");
	else
		ul_yemit_kv(y, ul_crit_name(crit), "%lld", (long long)v);
}

/* What a candidate is, by the kind of step that ranked it. */
static void emit_cand_id(struct ul_yemit *y, enum ul_step_kind kind,
			 const struct ul_explain_cand *c)
{
	switch (kind) {
	case UL_STEP_NET_PAIR:
		kv_net(y, "peer net", c->peer_net_id);
		kv_net(y, "local net", c->net_id);
		break;
	case UL_STEP_PEER_NET:
		kv_net(y, "peer net", c->net_id);
		break;
	case UL_STEP_ROUTE:
		kv_nid(y, "gateway", &c->nid);
		kv_nid(y, "gateway ni", &c->gw_nid);
		kv_net(y, "local net", c->net_id);
		break;
	default:
		kv_nid(y, "nid", &c->nid);
		break;
	}
}

static void emit_cand(struct ul_yemit *y, enum ul_step_kind kind,
		      const struct ul_explain_cand *c)
{
	const enum ul_crit *crits;
	unsigned int i, n;

	ul_yemit_map_start(y);
	emit_cand_id(y, kind, c);
	if (c->verdict == UL_VERDICT_SKIPPED) {
		ul_yemit_kv(y, "verdict", "skipped: %s", ul_skip_name(c->skip));
		ul_yemit_map_end(y);
		return;
	}
	crits = ul_step_crits(kind, &n);
	for (i = 0; i < n && i < UL_EXPLAIN_MAX_VALUES; i++)
		emit_value(y, crits[i], c->value[i]);
	switch (c->verdict) {
	case UL_VERDICT_BETTER:
	case UL_VERDICT_WORSE:
		ul_yemit_kv(y, "verdict", "%s by %s",
			    ul_verdict_name(c->verdict),
			    ul_crit_name(c->decided_by));
		break;
	default:
		ul_yemit_kv(y, "verdict", "%s", ul_verdict_name(c->verdict));
		break;
	}
	ul_yemit_map_end(y);
}

static void emit_step(struct ul_yemit *y, const struct ul_explain *ex,
		      const struct ul_explain_step *st)
{
	uint32_t i;

	ul_yemit_map_start(y);
	ul_yemit_kv(y, "step", "%s", ul_step_kind_name(st->kind));
	if (st->net_id != ULNET_NET_ANY && st->kind != UL_STEP_CLASSIFY &&
	    st->kind != UL_STEP_FIXED)
		kv_net(y, "net", st->net_id);
	if (st->note != UL_NOTE_NONE) {
		ul_yemit_kv(y, "note", "%s", ul_note_name(st->note));
		if (!ulnet_nid_is_any(&st->nid) || st->kind == UL_STEP_FIXED)
			kv_nid(y, "nid", &st->nid);
	}
	if (st->ncands) {
		ul_yemit_str(y, "candidates");
		ul_yemit_seq_start(y);
		for (i = 0; i < st->ncands; i++)
			emit_cand(y, st->kind, &ex->cands[st->first_cand + i]);
		ul_yemit_seq_end(y);
	}
	if (st->ncands_dropped)
		ul_yemit_kv(y, "candidates not shown", "%u",
			    st->ncands_dropped);
	if (st->winner >= 0 && (uint32_t)st->winner < st->ncands) {
		ul_yemit_str(y, "winner");
		ul_yemit_map_start(y);
		emit_cand_id(y, st->kind,
			     &ex->cands[st->first_cand + (uint32_t)st->winner]);
		ul_yemit_map_end(y);
	}
	ul_yemit_map_end(y);
}

static void emit_explain(struct ul_yemit *y, const struct ul_explain *ex)
{
	uint32_t i;

	ul_yemit_str(y, "explain");
	ul_yemit_seq_start(y);
	for (i = 0; i < ex->nsteps; i++)
		emit_step(y, ex, &ex->steps[i]);
	ul_yemit_seq_end(y);
	if (ex->nsteps_dropped)
		ul_yemit_kv(y, "steps not shown", "%u", ex->nsteps_dropped);
}

static void emit_send_case(struct ul_yemit *y, uint32_t flags)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} bits[] = {
		{ UL_SEND_SRC_ANY, "SRC_ANY" },
		{ UL_SEND_SRC_SPEC, "SRC_SPEC" },
		{ UL_SEND_LOCAL, "LOCAL" },
		{ UL_SEND_REMOTE, "REMOTE" },
		{ UL_SEND_MR, "MR" },
		{ UL_SEND_NMR, "NMR" },
		{ UL_SEND_RESP, "RESP" },
	};
	char buf[64] = "";
	size_t i, len = 0;

	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		int n;

		if (!(flags & bits[i].bit))
			continue;
		n = snprintf(buf + len, sizeof(buf) - len, "%s%s",
			     len ? " " : "", bits[i].name);
		if (n < 0 || (size_t)n >= sizeof(buf) - len)
			break;
		len += (size_t)n;
	}
	ul_yemit_kv(y, "send case", "%s", buf);
}

void ul_select_yaml(struct ul_yemit *y, unsigned int n, int rc,
		    const struct ul_select_res *res,
		    const struct ul_explain *ex)
{
	ul_yemit_map_start(y);
	ul_yemit_kv(y, "send", "%u", n);
	if (rc < 0) {
		ul_yemit_kv(y, "errno", "%d", rc);
		ul_yemit_kv(y, "descr", "%s", strerror(-rc));
	} else {
		emit_send_case(y, res->send_case);
		ul_yemit_kv(y, "handler", "%s",
			    ul_select_case_name(res->scase));
		kv_nid(y, "local ni", &res->ni->nid);
		if (res->is_loopback) {
			ul_yemit_kv(y, "peer ni", "0@lo");
		} else if (res->is_routed) {
			kv_nid(y, "gateway ni", &res->lpni->nid);
			kv_nid(y, "peer ni", &res->final_lpni->nid);
			ul_yemit_kv(y, "route mode", "%s",
				    ul_route_mode_name(res->route_mode));
		} else {
			kv_nid(y, "peer ni", &res->lpni->nid);
		}
		kv_nid(y, "header src nid", &res->hdr_src_nid);
		kv_nid(y, "header dst nid", &res->hdr_dst_nid);
	}
	if (ex)
		emit_explain(y, ex);
	ul_yemit_map_end(y);
}
