/* UDSP match descriptors; syntax and departures are in nid_descr.h. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nid/lnd.h"
#include "nid/nid_descr.h"
#include "nid/strbuf.h"

void ul_nid_descr_free(struct ul_nid_descr *d)
{
	unsigned int i;

	if (!d)
		return;
	ul_expr_free(d->net_num);
	for (i = 0; i < 4; i++)
		ul_expr_free(d->addr[i]);
	free(d);
}

static int net_part_parse(struct ul_nid_descr *d, const char *str,
			  const char *net, size_t len, struct ul_err *err)
{
	const struct ul_lnd_info *lnd = ul_lnd_by_prefix(net, len);
	const char *rest;
	size_t n, i;

	if (!lnd)
		return ul_err_set(err, -EINVAL,
				  "unknown net type '%.*s' in '%s'", (int)len,
				  net, str);
	d->net_type = lnd->type;
	n = strlen(lnd->name);
	rest = net + n;
	len -= n;
	if (len == 0)
		return 0;
	for (i = 0; i < len && isspace((unsigned char)rest[i]); i++)
		;
	if (memchr(rest, '[', len) && (i == len || rest[i] != '['))
		return ul_err_set(err, -EINVAL,
				  "unexpected text before '[' in '%s'", str);
	/*
	 * Several ranges ("o2ib[0,1]") parse, as in lnetctl; LNet refuses
	 * such a rule when it is added (core/udsp.c).
	 */
	return ul_expr_parse(rest, len, 0, UL_EXPR_NUM_MAX, &d->net_num, err);
}

static int addr_part_parse(struct ul_nid_descr *d, const char *addr, size_t len,
			   struct ul_err *err)
{
	const struct ul_lnd_info *lnd = ul_lnd_by_type(d->net_type);

	if (ul_lnd_is_ip(lnd)) {
		d->nr_addr = 4;
		return ul_expr_parse_octets(addr, len, d->addr, err);
	}
	d->nr_addr = 1;
	return ul_expr_parse(addr, len, 0, UL_EXPR_NUM_MAX, &d->addr[0], err);
}

int ul_nid_descr_parse(const char *str, struct ul_nid_descr **out,
		       struct ul_err *err)
{
	struct ul_nid_descr *d;
	const char *p, *at;
	size_t len, alen;
	int rc;

	if (!str)
		return ul_err_set(err, -EINVAL, "no descriptor given");
	len = strnlen(str, UL_NID_DESCR_MAX_LEN + 1);
	if (len > UL_NID_DESCR_MAX_LEN)
		return ul_err_set(err, -EINVAL,
				  "descriptor longer than %u characters",
				  UL_NID_DESCR_MAX_LEN);
	for (p = str; isspace((unsigned char)*p); p++)
		;
	if (*p == '\0' || *p == '@')
		return ul_err_set(err, -EINVAL, "invalid descriptor '%s'", str);
	d = calloc(1, sizeof(*d));
	if (!d)
		return ul_err_set(err, -ENOMEM, "out of memory");
	at = strchr(p, '@');
	if (!at) {
		/* Net only: blanks before the type are refused, as in LNet. */
		rc = net_part_parse(d, str, str, len, err);
	} else {
		rc = net_part_parse(d, str, at + 1, strlen(at + 1), err);
		if (rc == 0) {
			alen = (size_t)(at - p);
			rc = addr_part_parse(d, p, alen, err);
		}
	}
	if (rc) {
		ul_nid_descr_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

bool ul_nid_descr_match_net(const struct ul_nid_descr *d, uint32_t net)
{
	if (!d || ulnet_net_type(net) != d->net_type)
		return false;
	if (!d->net_num)
		return ulnet_net_num(net) == 0;
	return ul_expr_match(d->net_num, ulnet_net_num(net));
}

bool ul_nid_descr_match_nid(const struct ul_nid_descr *d,
			    const struct ulnet_nid *nid)
{
	if (!d || !nid || d->nr_addr == 0 || nid->nid_size != 0 ||
	    !ul_nid_descr_match_net(d, ulnet_nid_net(nid)))
		return false;
	if (d->nr_addr == 4)
		return ul_expr_match_octets(d->addr, nid->nid_addr[0]);
	return ul_expr_match(d->addr[0], nid->nid_addr[0]);
}

bool ul_nid_descr_same(const struct ul_nid_descr *a,
		       const struct ul_nid_descr *b)
{
	unsigned int i;

	if (!a || !b)
		return a == b;
	if (a->net_type != b->net_type || a->nr_addr != b->nr_addr ||
	    !ul_expr_same(a->net_num, b->net_num))
		return false;
	for (i = 0; i < a->nr_addr; i++)
		if (!ul_expr_same(a->addr[i], b->addr[i]))
			return false;
	return true;
}

int ul_nid_descr_format(const struct ul_nid_descr *d, char *buf, size_t len)
{
	const char *name = ulnet_lnd_name(d->net_type);
	struct ul_strbuf sb;

	ul_strbuf_init(&sb, buf, len);
	if (d->nr_addr == 4)
		ul_expr_print_octets(&sb, d->addr);
	else if (d->nr_addr == 1)
		ul_expr_print(&sb, d->addr[0]);
	if (d->nr_addr)
		ul_strbuf_add(&sb, "@");
	if (name)
		ul_strbuf_add(&sb, "%s", name);
	else
		ul_strbuf_add(&sb, "<%u>", d->net_type);
	if (d->net_num)
		ul_expr_print(&sb, d->net_num);
	return ul_strbuf_result(&sb);
}
