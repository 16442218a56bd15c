/*
 * Fuzz target: the UDSP rule block decoder (src/wire/udsp_block.h) on
 * untrusted bytes. Whatever decodes must encode to a block that decodes
 * to the same rule (same descriptors, action, priority, idx and text),
 * and that block must encode to itself byte for byte. A decoded rule is
 * then added to and deleted from a small instance, so application runs
 * on every rule shape the decoder lets through.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/udsp.h"
#include "wire/udsp_block.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t *encode(const struct ul_udsp_rule *r, size_t *len)
{
	uint8_t *buf;

	*len = ul_udsp_rule_block_size(r);
	buf = malloc(*len);
	if (!buf || ul_udsp_rule_encode(r, buf, *len, NULL))
		abort();
	return buf;
}

static char *text(const struct ul_udsp_rule *r)
{
	int n = ul_udsp_rule_format(r, NULL, 0);
	char *s = malloc((size_t)n + 1);

	if (!s || ul_udsp_rule_format(r, s, (size_t)n + 1) != n)
		abort();
	return s;
}

static void add_ni(struct ul_core *c, const char *s)
{
	struct ulnet_nid n;

	if (ulnet_nid_parse(s, &n, NULL, 0) ||
	    ul_ni_add(c, &n, NULL, UL_NUMA_ANY, NULL, NULL, NULL))
		abort();
}

/* A few objects of every kind rules reach, then add and delete r. */
static void apply(const struct ul_udsp_rule *r)
{
	struct ulnet_nid n, gw;
	struct ul_udsp_set *set;
	struct ul_route *route;
	struct ul_peer *peer;
	struct ul_core *c;

	if (ul_core_create(&c) || ul_udsp_attach(c, &set))
		abort();
	add_ni(c, "10.1.0.1@o2ib");
	add_ni(c, "10.1.0.2@o2ib");
	add_ni(c, "192.168.1.1@tcp");
	if (ulnet_nid_parse("10.1.0.10@o2ib", &n, NULL, 0) ||
	    ul_peer_add(c, &n, true, false, &peer, NULL) ||
	    ulnet_nid_parse("192.168.1.10@tcp", &n, NULL, 0) ||
	    ul_peer_ni_add(c, peer, &n, NULL, NULL) ||
	    ulnet_nid_parse("10.1.0.100@o2ib", &gw, NULL, 0) ||
	    ul_route_add(c, ulnet_net_make(ULNET_LND_O2IB, 2), &gw, 1, 0,
			 &route, NULL))
		abort();
	ul_udsp_on_route_add(set, route);
	if (ul_udsp_add(set, r, NULL) || ul_udsp_count(set) != 1)
		abort();
	add_ni(c, "10.1.0.3@o2ib");
	if (ulnet_nid_parse("10.1.0.11@o2ib", &n, NULL, 0) ||
	    ul_peer_ni_add(c, peer, &n, NULL, NULL))
		abort();
	if (ul_udsp_del(set, 0, NULL) || ul_udsp_count(set) != 0)
		abort();
	ul_udsp_detach(set);
	ul_core_destroy(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ul_udsp_rule *a, *b, *c;
	uint8_t *buf, *buf2;
	size_t len, len2;
	char *ta, *tb;

	if (ul_udsp_rule_decode(data, size, &a, NULL))
		return 0;
	buf = encode(a, &len);
	if (ul_udsp_rule_decode(buf, len, &b, NULL))
		abort();
	if (!ul_udsp_rule_same(a, b) || a->idx != b->idx ||
	    a->priority != b->priority)
		abort();
	ta = text(a);
	tb = text(b);
	if (strcmp(ta, tb) != 0)
		abort();
	buf2 = encode(b, &len2);
	if (len != len2 || memcmp(buf, buf2, len) != 0)
		abort();
	if (ul_udsp_rule_dup(a, &c) || !ul_udsp_rule_same(a, c))
		abort();
	apply(a);
	ul_udsp_rule_free(c);
	free(buf2);
	free(buf);
	free(ta);
	free(tb);
	ul_udsp_rule_free(b);
	ul_udsp_rule_free(a);
	return 0;
}
