/* Nidlists: parse, match, print. Syntax and departures are in nidlist.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nid/expr.h"
#include "nid/lnd.h"
#include "nid/nidlist.h"
#include "nid/strbuf.h"

/* "addr/prefixlen@net": an IPv4 or IPv6 netmask. */
struct nl_mask {
	int family;		 /* AF_INET or AF_INET6 */
	unsigned int prefix_len; /* 1..32 or 1..128 */
	uint8_t addr[16];	 /* as written, network order; printed back */
	uint8_t net[16];	 /* addr & mask */
	uint8_t mask[16];
};

/* One address range: four octet expressions, or one for numeric nets. */
struct nl_addr {
	struct ul_expr *e[4]; /* e[1..3] NULL on numeric nets */
};

/* Everything written for one net, in the order written. */
struct nl_net {
	const struct ul_lnd_info *lnd;
	uint16_t num;
	bool is_all; /* "*@net" was given: every address matches */
	struct nl_mask *masks;
	size_t nr_masks, cap_masks; /* used and allocated entries */
	struct nl_addr *addrs;
	size_t nr_addrs, cap_addrs;
};

struct ul_nidlist {
	struct nl_net *nets; /* in order of first appearance */
	size_t nr_nets, cap_nets;
};

/*
 * Append one zeroed element of size sz to *arr (*nr used, *cap allocated)
 * and return it. The array doubles when full, so a list of n items costs
 * O(n) copying, not O(n^2). Counts stay far below overflow: the input is
 * at most UL_NIDLIST_MAX_LEN characters.
 */
static void *grow(void **arr, size_t *nr, size_t *cap, size_t sz)
{
	size_t ncap = *cap ? *cap * 2 : 4;
	char *p = *arr;

	if (*nr == *cap) {
		p = realloc(*arr, ncap * sz);
		if (!p)
			return NULL;
		*arr = p;
		*cap = ncap;
	}
	memset(p + *nr * sz, 0, sz);
	return p + (*nr)++ * sz;
}

static void addr_free(struct nl_addr *a)
{
	int i;

	for (i = 0; i < 4; i++)
		ul_expr_free(a->e[i]);
}

void ul_nidlist_free(struct ul_nidlist *nl)
{
	size_t i, j;

	if (!nl)
		return;
	for (i = 0; i < nl->nr_nets; i++) {
		for (j = 0; j < nl->nets[i].nr_addrs; j++)
			addr_free(&nl->nets[i].addrs[j]);
		free(nl->nets[i].addrs);
		free(nl->nets[i].masks);
	}
	free(nl->nets);
	free(nl);
}

static int net_find_or_add(struct ul_nidlist *nl, const char *tok,
			   const char *net, size_t len, struct nl_net **out,
			   struct ul_err *err)
{
	const struct ul_lnd_info *lnd = ul_lnd_by_prefix(net, len);
	size_t n, i;
	uint32_t num = 0;
	struct nl_net *nn;

	if (!lnd)
		return ul_err_set(err, -EINVAL, "unknown net '%.*s' in '%s'",
				  (int)len, net, tok);
	n = strlen(lnd->name);
	if (len > n && ul_num_parse(net + n, len - n, 0, UL_NET_NUM_MAX, &num))
		return ul_err_set(err, -EINVAL,
				  "invalid net number '%.*s' in '%s' (0-%u)",
				  (int)(len - n), net + n, tok, UL_NET_NUM_MAX);
	/* The only lo NID is 0@lo, so "lo1" could never match (nidlist.h). */
	if (lnd->type == ULNET_LND_LO && num != 0)
		return ul_err_set(err, -EINVAL,
				  "net lo takes no net number in '%s'", tok);
	for (i = 0; i < nl->nr_nets; i++) {
		if (nl->nets[i].lnd == lnd && nl->nets[i].num == num) {
			*out = &nl->nets[i];
			return 0;
		}
	}
	nn = grow((void **)&nl->nets, &nl->nr_nets, &nl->cap_nets, sizeof(*nn));
	if (!nn)
		return ul_err_set(err, -ENOMEM, "out of memory");
	nn->lnd = lnd;
	nn->num = (uint16_t)num;
	*out = nn;
	return 0;
}

static void mask_init(struct nl_mask *m)
{
	unsigned int bits = m->prefix_len, i;

	for (i = 0; i < 16; i++) {
		if (bits >= 8)
			m->mask[i] = 0xff;
		else
			m->mask[i] = (uint8_t)(0xff00u >> bits);
		bits = bits >= 8 ? bits - 8 : 0;
		m->net[i] = m->addr[i] & m->mask[i];
	}
}

static int mask_parse(struct nl_net *nn, const char *tok, const char *s,
		      size_t len, struct ul_err *err)
{
	const char *slash = memchr(s, '/', len);
	bool has_colon = memchr(s, ':', len) != NULL;
	size_t alen = slash ? (size_t)(slash - s) : len;
	struct nl_mask m = { 0 };
	struct nl_mask *slot;
	uint32_t prefix = 128;

	if (nn->lnd->kind != UL_ADDR_KIND_IP46)
		return ul_err_set(err, -EINVAL,
				  "net type %s does not support netmasks: '%s'",
				  nn->lnd->name, tok);
	/* An IPv6 address without a length is a /128. */
	if (slash && ul_num_parse(slash + 1, len - alen - 1, 1,
				  has_colon ? 128 : 32, &prefix))
		return ul_err_set(err, -EINVAL,
				  "invalid prefix length '%.*s' in '%s'",
				  (int)(len - alen - 1), slash + 1, tok);
	if (ul_ip_pton(s, alen, &m.family, m.addr))
		return ul_err_set(err, -EINVAL,
				  "invalid address '%.*s' in '%s'", (int)alen,
				  s, tok);
	m.prefix_len = prefix;
	mask_init(&m);
	slot = grow((void **)&nn->masks, &nn->nr_masks, &nn->cap_masks,
		    sizeof(*slot));
	if (!slot)
		return ul_err_set(err, -ENOMEM, "out of memory");
	*slot = m;
	return 0;
}

static int addr_parse(struct nl_net *nn, const char *s, size_t len,
		      struct ul_err *err)
{
	struct nl_addr a = { { NULL } };
	struct nl_addr *slot;
	int rc;

	if (ul_lnd_is_ip(nn->lnd))
		rc = ul_expr_parse_octets(s, len, a.e, err);
	else
		rc = ul_expr_parse(s, len, 0, UL_EXPR_NUM_MAX, &a.e[0], err);
	if (rc)
		return rc;
	slot = grow((void **)&nn->addrs, &nn->nr_addrs, &nn->cap_addrs,
		    sizeof(*slot));
	if (!slot) {
		addr_free(&a);
		return ul_err_set(err, -ENOMEM, "out of memory");
	}
	*slot = a;
	return 0;
}

/* One "addrrange@net" item; tok is NUL-terminated and has no spaces. */
static int nidrange_parse(struct ul_nidlist *nl, const char *tok,
			  struct ul_err *err)
{
	const char *at = strchr(tok, '@'), *net, *slash;
	struct nl_net *nn;
	size_t alen, nlen;
	int rc;

	if (!at)
		return ul_err_set(err, -EINVAL,
				  "nidrange '%s' does not contain '@'", tok);
	alen = (size_t)(at - tok);
	nlen = strlen(at + 1);
	net = ul_str_trim(at + 1, &nlen);
	if (nlen == 0 || memchr(net, '@', nlen))
		return ul_err_set(err, -EINVAL, "malformed net in '%s'", tok);
	rc = net_find_or_add(nl, tok, net, nlen, &nn, err);
	if (rc)
		return rc;
	/* A '/' outside brackets, or any ':', makes a netmask. */
	slash = memchr(tok, '/', alen);
	if (memchr(tok, ':', alen) ||
	    (slash && !memchr(slash, ']', (size_t)(at - slash))))
		return mask_parse(nn, tok, tok, alen, err);
	if (alen == 1 && tok[0] == '*') {
		nn->is_all = true;
		return 0;
	}
	if (alen == 0)
		return ul_err_set(err, -EINVAL, "no address in '%s'", tok);
	return addr_parse(nn, tok, alen, err);
}

int ul_nidlist_parse(const char *str, struct ul_nidlist **out,
		     struct ul_err *err)
{
	struct ul_nidlist *nl;
	char *copy, *p, *tok;
	size_t len;
	int rc;

	if (!str)
		return ul_err_set(err, -EINVAL, "no nidlist given");
	len = strnlen(str, UL_NIDLIST_MAX_LEN + 1);
	if (len > UL_NIDLIST_MAX_LEN)
		return ul_err_set(err, -EINVAL,
				  "nidlist longer than %u characters",
				  UL_NIDLIST_MAX_LEN);
	nl = calloc(1, sizeof(*nl));
	copy = strndup(str, len);
	if (!nl || !copy) {
		rc = ul_err_set(err, -ENOMEM, "out of memory");
		goto free_all;
	}
	/* Only ' ' separates items, as in LNet (a tab does not). */
	rc = 0;
	for (p = copy; rc == 0 && (tok = strsep(&p, " ")) != NULL;)
		if (*tok)
			rc = nidrange_parse(nl, tok, err);
	if (rc)
		goto free_all;
	if (nl->nr_nets == 0) {
		rc = ul_err_set(err, -EINVAL, "empty nidlist");
		goto free_all;
	}
	free(copy);
	*out = nl;
	return 0;

free_all:
	free(copy);
	ul_nidlist_free(nl);
	return rc;
}

static bool mask_match(const struct nl_mask *m, const struct ulnet_nid *nid)
{
	uint8_t bytes[16];
	uint32_t be;
	int i, n;

	if (m->family == AF_INET ? nid->nid_size != 0 : nid->nid_size != 12)
		return false;
	n = m->family == AF_INET ? 4 : 16;
	for (i = 0; i < n / 4; i++) {
		be = htonl(nid->nid_addr[i]);
		memcpy(bytes + 4 * i, &be, 4);
	}
	for (i = 0; i < n; i++)
		if ((bytes[i] & m->mask[i]) != m->net[i])
			return false;
	return true;
}

static bool net_match(const struct nl_net *nn, const struct ulnet_nid *nid)
{
	size_t i;

	if (nn->is_all)
		return true;
	for (i = 0; i < nn->nr_masks; i++)
		if (mask_match(&nn->masks[i], nid))
			return true;
	if (nid->nid_size != 0)
		return false;
	for (i = 0; i < nn->nr_addrs; i++) {
		if (ul_lnd_is_ip(nn->lnd)
			    ? ul_expr_match_octets(nn->addrs[i].e,
						   nid->nid_addr[0])
			    : ul_expr_match(nn->addrs[i].e[0],
					    nid->nid_addr[0]))
			return true;
	}
	return false;
}

bool ul_nidlist_match(const struct ul_nidlist *nl, const struct ulnet_nid *nid)
{
	size_t i;

	if (!nl || !nid)
		return false;
	for (i = 0; i < nl->nr_nets; i++) {
		const struct nl_net *nn = &nl->nets[i];

		if (nn->lnd->type == nid->nid_type && nn->num == nid->nid_num &&
		    net_match(nn, nid))
			return true;
	}
	return false;
}

static void net_print(struct ul_strbuf *sb, const struct nl_net *nn)
{
	if (nn->num == 0)
		ul_strbuf_add(sb, "@%s", nn->lnd->name);
	else
		ul_strbuf_add(sb, "@%s%u", nn->lnd->name, nn->num);
}

static void mask_print(struct ul_strbuf *sb, const struct nl_mask *m)
{
	char text[INET6_ADDRSTRLEN];

	inet_ntop(m->family, m->addr, text, sizeof(text));
	ul_strbuf_add(sb, "%s", text);
	/* A /128 is implied by an IPv6 address; a /32 is printed (nidlist.h). */
	if (m->family == AF_INET || m->prefix_len < 128)
		ul_strbuf_add(sb, "/%u", m->prefix_len);
}

int ul_nidlist_format(const struct ul_nidlist *nl, char *buf, size_t len)
{
	struct ul_strbuf sb;
	bool first = true;
	size_t i, j;

	ul_strbuf_init(&sb, buf, len);
	for (i = 0; nl && i < nl->nr_nets; i++) {
		const struct nl_net *nn = &nl->nets[i];

		if (nn->is_all) {
			ul_strbuf_add(&sb, "%s*", first ? "" : " ");
			net_print(&sb, nn);
			first = false;
			continue;
		}
		for (j = 0; j < nn->nr_masks; j++) {
			ul_strbuf_add(&sb, "%s", first ? "" : " ");
			mask_print(&sb, &nn->masks[j]);
			net_print(&sb, nn);
			first = false;
		}
		for (j = 0; j < nn->nr_addrs; j++) {
			ul_strbuf_add(&sb, "%s", first ? "" : " ");
			if (ul_lnd_is_ip(nn->lnd))
				ul_expr_print_octets(&sb, nn->addrs[j].e);
			else
				ul_expr_print(&sb, nn->addrs[j].e[0]);
			net_print(&sb, nn);
			first = false;
		}
	}
	return ul_strbuf_result(&sb);
}
