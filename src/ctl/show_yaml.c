/* lnetctl's YAML for control replies; see show_yaml.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "ctl/show_yaml.h"
#include "ctl/yemit.h"
#include "ulnet/nid.h"

#define INDENT_A 6

static void quoted(struct ul_yemit *y, const char *s, bool is_bang,
		   yaml_scalar_style_t style)
{
	ul_yemit_quoted(y, s, is_bang, style);
}

static void kv_nid(struct ul_yemit *y, const char *key,
		   const struct ulnet_nid *nid)
{
	char s[ULNET_NIDSTR_SIZE];

	ul_yemit_kv(y, key, "%s", ulnet_nid_format(nid, s, sizeof(s)));
}

static void kv_u64(struct ul_yemit *y, const char *key, uint64_t v)
{
	ul_yemit_kv(y, key, "%" PRIu64, v);
}

static void kv_s64(struct ul_yemit *y, const char *key, int64_t v)
{
	ul_yemit_kv(y, key, "%" PRId64, v);
}

static void lat(struct ul_yemit *y, const char *name,
		const struct ul_ctl_lat *l)
{
	char key[64];

	snprintf(key, sizeof(key), "%s_samples", name);
	kv_u64(y, key, l->samples);
	snprintf(key, sizeof(key), "%s_min_nsec", name);
	kv_u64(y, key, l->min_nsec);
	snprintf(key, sizeof(key), "%s_max_nsec", name);
	kv_u64(y, key, l->max_nsec);
	snprintf(key, sizeof(key), "%s_avg_nsec", name);
	kv_u64(y, key, l->avg_nsec);
}

static void statistics(struct ul_yemit *y, const struct ul_ctl_stats *s)
{
	ul_yemit_str(y, "statistics");
	ul_yemit_map_start(y);
	kv_u64(y, "send_count", s->send_count);
	kv_u64(y, "recv_count", s->recv_count);
	kv_u64(y, "drop_count", s->drop_count);
	lat(y, "put_egress", &s->put_egress);
	lat(y, "get_rtt", &s->get_rtt);
	lat(y, "put_ack", &s->put_ack);
	ul_yemit_map_end(y);
}

/*
 * "udsp info", with a peer NI's preferred gateways when it has some
 * (udsp.md §6: lnet_udsp_info_send sends them, numbered NID-0, NID-1...;
 * the preferred source NIDs travel only on the ioctl path).
 */
static void udsp_info(struct ul_yemit *y, const struct ul_ctl_ni_blocks *b,
		      const struct ulnet_nid *rtrs, size_t nrtrs)
{
	char key[32];
	size_t i;

	ul_yemit_str(y, "udsp info");
	ul_yemit_map_start(y);
	kv_s64(y, "net priority", b->net_prio);
	kv_s64(y, "nid priority", b->nid_prio);
	if (nrtrs) {
		ul_yemit_str(y, "Preferred gateway NIDs");
		ul_yemit_map_start(y);
		for (i = 0; i < nrtrs; i++) {
			snprintf(key, sizeof(key), "NID-%zu", i);
			kv_nid(y, key, &rtrs[i]);
		}
		ul_yemit_map_end(y);
	}
	ul_yemit_map_end(y);
}

static void counts(struct ul_yemit *y, const char *key,
		   const struct ul_ctl_msg_counts *c)
{
	ul_yemit_str(y, key);
	ul_yemit_map_start(y);
	kv_u64(y, "put", c->put);
	kv_u64(y, "get", c->get);
	kv_u64(y, "reply", c->reply);
	kv_u64(y, "ack", c->ack);
	kv_u64(y, "hello", c->hello);
	ul_yemit_map_end(y);
}

static void msg_stats(struct ul_yemit *y, const struct ul_ctl_ni_blocks *b)
{
	counts(y, "sent_stats", &b->sent);
	counts(y, "received_stats", &b->received);
	counts(y, "dropped_stats", &b->dropped);
}

/* One local NI, fields and levels of lnetctl.md §6.3. */
/* What export --backup keeps of an NI (UL_SHOW_YAML_BACKUP). */
static void backup_ni(struct ul_yemit *y, const struct ul_ctl_ni *ni)
{
	if (ni->ifname[0]) {
		ul_yemit_str(y, "interfaces");
		ul_yemit_map_start(y);
		ul_yemit_kv(y, "0", "%s", ni->ifname);
		ul_yemit_map_end(y);
	} else {
		kv_nid(y, "nid", &ni->nid);
	}
	ul_yemit_str(y, "tunables");
	ul_yemit_map_start(y);
	kv_s64(y, "peer_timeout", ni->peer_timeout);
	kv_s64(y, "peer_credits", ni->peer_credits);
	kv_s64(y, "peer_buffer_credits", ni->peer_buffer_credits);
	kv_s64(y, "credits", ni->credits);
	ul_yemit_map_end(y);
	if (ni->has_lnd_tunables) {
		ul_yemit_str(y, "lnd tunables");
		ul_yemit_map_start(y);
		kv_s64(y, "conns_per_peer", ni->conns_per_peer);
		kv_s64(y, "tos", ni->tos);
		ul_yemit_map_end(y);
	}
	ul_yemit_str(y, "CPT");
	quoted(y, ni->cpt, false, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

static void net_ni(struct ul_yemit *y, const struct ul_ctl_ni *ni,
		   uint32_t level)
{
	const struct ul_ctl_health *h = &ni->b.health;

	ul_yemit_map_start(y);
	if (level == UL_SHOW_YAML_BACKUP) {
		backup_ni(y, ni);
		ul_yemit_map_end(y);
		return;
	}
	kv_nid(y, "nid", &ni->nid);
	ul_yemit_kv(y, "status", "%s",
		    ni->status == UL_CTL_NI_STATUS_UP ? "up" : "down");
	if (ni->ifname[0]) {
		ul_yemit_str(y, "interfaces");
		ul_yemit_map_start(y);
		ul_yemit_kv(y, "0", "%s", ni->ifname);
		ul_yemit_map_end(y);
	}
	if (level >= 1)
		statistics(y, &ni->b.stats);
	if (level >= 4)
		udsp_info(y, &ni->b, NULL, 0);
	if (level >= 2) {
		msg_stats(y, &ni->b);
		ul_yemit_str(y, "health stats");
		ul_yemit_map_start(y);
		kv_u64(y, "fatal_error", h->fatal_error);
		kv_s64(y, "health value", h->healthv);
		kv_u64(y, "interrupts", h->interrupts);
		kv_u64(y, "dropped", h->dropped);
		kv_u64(y, "aborted", h->aborted);
		kv_u64(y, "no route", h->no_route);
		kv_u64(y, "timeouts", h->timeouts);
		kv_u64(y, "error", h->error);
		kv_u64(y, "ping_count", h->ping_count);
		kv_s64(y, "next_ping", h->next_ping);
		ul_yemit_map_end(y);
	}
	if (level >= 1) {
		ul_yemit_str(y, "tunables");
		ul_yemit_map_start(y);
		kv_s64(y, "peer_timeout", ni->peer_timeout);
		kv_s64(y, "peer_credits", ni->peer_credits);
		kv_s64(y, "peer_buffer_credits", ni->peer_buffer_credits);
		kv_s64(y, "credits", ni->credits);
		ul_yemit_map_end(y);
		if (ni->has_lnd_tunables) {
			ul_yemit_str(y, "lnd tunables");
			ul_yemit_map_start(y);
			kv_s64(y, "conns_per_peer", ni->conns_per_peer);
			kv_s64(y, "timeout", ni->lnd_timeout);
			kv_s64(y, "tos", ni->tos);
			ul_yemit_map_end(y);
		}
		kv_s64(y, "dev cpt", ni->dev_cpt);
		ul_yemit_str(y, "CPT");
		quoted(y, ni->cpt, false, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
	}
	ul_yemit_map_end(y);
}

/* export --backup leaves the lo net out (lnetctl.md §15). */
static bool skip_net(const struct ul_ctl_net *net, uint32_t level)
{
	return level == UL_SHOW_YAML_BACKUP &&
	       ulnet_net_type(net->net_id) == ULNET_LND_LO;
}

int ul_show_yaml_net(FILE *out, const struct ul_ctl_reply *r, uint32_t level)
{
	struct ul_yemit y;
	char name[32];
	size_t i, j;
	int rc;

	for (i = 0, j = 0; i < r->net_show.nnets; i++)
		if (!skip_net(&r->net_show.nets[i], level))
			j++;
	if (j == 0)
		return 0;
	rc = ul_yemit_open(&y, out, INDENT_A, false);
	if (rc)
		return rc;
	ul_yemit_map_start(&y);
	ul_yemit_str(&y, "net");
	ul_yemit_seq_start(&y);
	for (i = 0; i < r->net_show.nnets; i++) {
		const struct ul_ctl_net *net = &r->net_show.nets[i];

		if (skip_net(net, level))
			continue;
		ul_yemit_map_start(&y);
		ul_yemit_kv(&y, "net type", "%s",
			    ulnet_net_format(net->net_id, name, sizeof(name)));
		ul_yemit_str(&y, "local NI(s)");
		ul_yemit_seq_start(&y);
		for (j = 0; j < net->nnis; j++)
			net_ni(&y, &net->nis[j], level);
		ul_yemit_seq_end(&y);
		ul_yemit_map_end(&y);
	}
	ul_yemit_seq_end(&y);
	ul_yemit_map_end(&y);
	return ul_yemit_close(&y);
}

/* One peer NI, fields and levels of lnetctl.md §7.3. */
static void peer_ni(struct ul_yemit *y, const struct ul_ctl_peer_ni *p,
		    uint32_t level)
{
	static const char *const states[] = { "NA", "up", "down" };
	const struct ul_ctl_health *h = &p->b.health;

	ul_yemit_map_start(y);
	kv_nid(y, "nid", &p->nid);
	if (level == UL_SHOW_YAML_BACKUP) {
		ul_yemit_map_end(y);
		return;
	}
	if (level >= 4)
		udsp_info(y, &p->b, p->pref_rtrs, p->npref_rtrs);
	ul_yemit_kv(y, "state", "%s", p->state < 3 ? states[p->state] : "NA");
	if (level >= 1) {
		kv_s64(y, "max_ni_tx_credits", p->max_tx_credits);
		kv_s64(y, "available_tx_credits", p->tx_credits);
		kv_s64(y, "min_tx_credits", p->min_tx_credits);
		kv_u64(y, "tx_q_num_of_buf", p->tx_q_nob);
		kv_s64(y, "available_rtr_credits", p->rtr_credits);
		kv_s64(y, "min_rtr_credits", p->min_rtr_credits);
		kv_s64(y, "refcount", p->refcount);
		statistics(y, &p->b.stats);
	}
	if (level >= 2) {
		msg_stats(y, &p->b);
		ul_yemit_str(y, "health stats");
		ul_yemit_map_start(y);
		kv_s64(y, "health value", h->healthv);
		kv_u64(y, "dropped", h->dropped);
		kv_u64(y, "timeout", h->timeouts);
		kv_u64(y, "error", h->error);
		kv_u64(y, "network timeout", h->network_timeout);
		kv_u64(y, "ping_count", h->ping_count);
		kv_s64(y, "next_ping", h->next_ping);
		ul_yemit_map_end(y);
	}
	ul_yemit_map_end(y);
}

int ul_show_yaml_peer(FILE *out, const struct ul_ctl_reply *r, uint32_t level)
{
	struct ul_yemit y;
	size_t i, j;
	int rc;

	if (r->peer_show.npeers == 0)
		return 0;
	rc = ul_yemit_open(&y, out, INDENT_A, false);
	if (rc)
		return rc;
	ul_yemit_map_start(&y);
	ul_yemit_str(&y, "peer");
	ul_yemit_seq_start(&y);
	for (i = 0; i < r->peer_show.npeers; i++) {
		const struct ul_ctl_peer *p = &r->peer_show.peers[i];

		ul_yemit_map_start(&y);
		kv_nid(&y, "primary nid", &p->primary);
		ul_yemit_kv(&y, "Multi-Rail", "%s",
			    p->is_mr ? "true" : "false");
		if (level >= 3 && level != UL_SHOW_YAML_BACKUP)
			kv_u64(&y, "peer state", p->state);
		ul_yemit_str(&y, "peer ni");
		ul_yemit_seq_start(&y);
		for (j = 0; j < p->npnis; j++)
			peer_ni(&y, &p->pnis[j], level);
		ul_yemit_seq_end(&y);
		ul_yemit_map_end(&y);
	}
	ul_yemit_seq_end(&y);
	ul_yemit_map_end(&y);
	return ul_yemit_close(&y);
}

int ul_show_yaml_err(FILE *out, const char *op, const char *object, int errnum,
		     const char *descr)
{
	struct ul_yemit y;
	int rc;

	rc = ul_yemit_open(&y, out, INDENT_A, true);
	if (rc)
		return rc;
	ul_yemit_map_start(&y);
	ul_yemit_str(&y, op);
	ul_yemit_seq_start(&y);
	ul_yemit_map_start(&y);
	ul_yemit_str(&y, object);
	ul_yemit_str(&y, "");
	ul_yemit_kv(&y, "errno", "%d", errnum);
	ul_yemit_str(&y, "descr");
	quoted(&y, descr, true, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
	ul_yemit_map_end(&y);
	ul_yemit_seq_end(&y);
	ul_yemit_map_end(&y);
	return ul_yemit_close(&y);
}
