/*
 * Nidlists (src/nid/nidlist.h): cfs_parse_nidlist()'s syntax, LNet's
 * canonical print (cfs_print_nidlist(), checked against LNet for every
 * row marked "LNet"), matching, and a randomized check against a naive
 * reference that expands every expression into an explicit set.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "nid/nidlist.h"

struct row {
	const char *in;
	const char *canon; /* NULL: parse fails */
};

static const struct row rows[] = {
	/* 0: LNet prints exactly this */
	{ "10.0.0.*@tcp", "10.0.0.[0-255]@tcp" },
	{ "*@tcp", "*@tcp" },
	{ "*@gni", "*@gni" },
	{ "*@lo", "*@lo" },
	{ "0@lo", "0@lo" },
	/* 5 */ { "5@lo", "5@lo" },
	{ "10.0.[1,3].5@o2ib", "10.0.[1,3].5@o2ib" },
	{ "192.168.0.[2-20/2]@tcp", "192.168.0.[2-20/2]@tcp" },
	{ "1.1.1.1@tcp 2.2.2.2@o2ib 3.3.3.3@tcp",
	  "1.1.1.1@tcp 3.3.3.3@tcp 2.2.2.2@o2ib" },
	{ "[1-5,7]@gni", "[1-5,7]@gni" },
	/* 10 */ { "0x10@kfi", "16@kfi" },
	{ "010.0.0.1@tcp", "8.0.0.1@tcp" },
	{ "1.2.3.4@tcp0x1", "1.2.3.4@tcp1" },
	{ "1.2.3.4@tcp0", "1.2.3.4@tcp" },
	{ "2001:db8::/32@tcp", "2001:db8::/32@tcp" },
	/* 15 */ { "2001:db8::1@tcp", "2001:db8::1@tcp" },
	{ "2001:0db8::0001/128@tcp", "2001:db8::1@tcp" },
	{ "1.2.3.0/24@tcp", "1.2.3.0/24@tcp" },
	{ "1.2.3.4/24@tcp", "1.2.3.4/24@tcp" },
	{ "5.5.5.5@tcp 1.2.3.0/24@tcp", "1.2.3.0/24@tcp 5.5.5.5@tcp" },
	/* 20 */ { "[*]@gni", "[0-4294967295]@gni" },
	{ "[1,*]@gni", "[1,0-4294967295]@gni" },
	{ "  1.2.3.4@tcp   5@gni  ", "1.2.3.4@tcp 5@gni" },
	{ "*@tcp *@tcp", "*@tcp" },
	{ "1.1.1.1@tcp 1.1.1.1@tcp", "1.1.1.1@tcp 1.1.1.1@tcp" },
	/* 25 */ { "*.*.*.*@tcp1", "[0-255].[0-255].[0-255].[0-255]@tcp1" },
	{ "1.2.3.4@o2ib", "1.2.3.4@o2ib" },
	{ "1.2.3.4@efa 1.2.3.0/24@efa", "1.2.3.0/24@efa 1.2.3.4@efa" },
	{ "[1-1]@gni", "1@gni" },
	{ "1.2.3.4@tcp\t", "1.2.3.4@tcp" }, /* LNet trims the net */
	/* 30: departures (see nidlist.h); LNet asserts / differs */
	{ "1.2.3.4@tcp *@tcp", "*@tcp" },
	{ "1.2.3.4/32@tcp", "1.2.3.4/32@tcp" },
	/* 32: LNet refuses these too */
	{ "", NULL },
	{ "   ", NULL },
	{ "1.2.3.4", NULL },
	/* 35 */ { "x@foo", NULL },
	{ "1.2.3@tcp", NULL },
	{ "*@tcp@tcp", NULL },
	{ "1.2.3.4@", NULL },
	{ "1.2.3.4@lo1", NULL },
	/* 40 */ { "1.2.3.0/24@o2ib", NULL },
	{ "::1@tcp", NULL },
	{ "fe80::1/64@tcp", NULL },
	{ "1.2.3.0/0@tcp", NULL },
	{ "1.2.3.0/33@tcp", NULL },
	/* 45 */ { "2001:db8::/129@tcp", NULL },
	{ "1.2.3.4@tcpx", NULL },
	{ "@tcp", NULL },
	{ "1.2.3.256@tcp", NULL },
	{ "1.2.3.[1-5@tcp", NULL },
	/* 50 */ { "1.2.3.1-5]@tcp", NULL },
	{ "1.2.3.4@tcp\t5.6.7.8@tcp", NULL }, /* a tab does not separate */
	{ "*.1.2.3@gni", NULL },
	{ "myhost@tcp", NULL },
	{ "127.0.0.1/8@tcp", NULL },
	/* 55: departures, LNet accepts */
	{ "[1-5/0]@gni", NULL },
	{ "1.2.3.[1-5/x]@tcp", NULL },
	{ "1.2.3.4@tcp65536", NULL },
	{ "-1@gni", NULL },
	{ "1.2.3.-0@tcp", NULL },
	/* 60: LNet: net numbers are C-style, "010" is 8 (NIDs say 10) */
	{ "1.2.3.4@tcp010", "1.2.3.4@tcp8" },
	{ "0@lo0", "0@lo" },
	{ "0@lo00", "0@lo" },
	/* departure: LNet keeps lo1, which no NID can be on */
	{ "0@lo1", NULL },
	{ "*@lo0x1", NULL },
};

static void nidlist_prints_lnet_canonical_form(void **state)
{
	struct ul_nidlist *nl, *nl2;
	char buf[256], again[256];
	struct ul_err err;
	size_t i;
	int rc;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		nl = (struct ul_nidlist *)0x1;
		ul_err_clear(&err);
		rc = ul_nidlist_parse(rows[i].in, &nl, &err);
		if (!rows[i].canon) {
			if (rc != -EINVAL || !err.msg[0])
				fail_msg("row %zu '%s' accepted", i,
					 rows[i].in);
			assert_ptr_equal(nl, (struct ul_nidlist *)0x1);
			continue;
		}
		if (rc)
			fail_msg("row %zu '%s': %s", i, rows[i].in, err.msg);
		assert_int_equal(ul_nidlist_format(nl, buf, sizeof(buf)),
				 strlen(rows[i].canon));
		if (strcmp(buf, rows[i].canon))
			fail_msg("row %zu '%s': '%s'", i, rows[i].in, buf);
		assert_int_equal(ul_nidlist_parse(buf, &nl2, NULL), 0);
		ul_nidlist_format(nl2, again, sizeof(again));
		assert_string_equal(buf, again);
		ul_nidlist_free(nl);
		ul_nidlist_free(nl2);
	}
}

static void nidlist_rejects_zero_stride(void **state)
{
	struct ul_nidlist *nl = NULL;
	struct ul_err err;

	(void)state;
	assert_int_equal(ul_nidlist_parse("10.0.0.[1-5/0]@tcp", &nl, &err),
			 -EINVAL);
	assert_null(nl);
	assert_non_null(strstr(err.msg, "stride 0"));
}

static void nidlist_parse_success_leaves_err_clear(void **state)
{
	struct ul_nidlist *nl = NULL;
	struct ul_err err;

	(void)state;
	ul_err_clear(&err);
	assert_int_equal(ul_nidlist_parse("1.2.3.4@tcp *@gni", &nl, &err), 0);
	assert_int_equal(err.code, 0);
	assert_string_equal(err.msg, "");
	ul_nidlist_free(nl);
}

static void nidlist_error_quotes_offending_part(void **state)
{
	static const struct {
		const char *in, *msg;
	} r[] = {
		{ "x@foo", "unknown net 'foo' in 'x@foo'" },
		{ "1.2.3.4", "'1.2.3.4' does not contain '@'" },
		{ "1.2.3.0/24@o2ib", "o2ib does not support netmasks" },
		{ "1.2.3.0/40@tcp", "invalid prefix length '40'" },
		{ "1.2.3@tcp", "'1.2.3' is not four octet expressions" },
		{ "1.2.3.4@tcp 1.2.3.999@tcp", "'999' (values 0-255)" },
		{ "0@lo1", "net lo takes no net number in '0@lo1'" },
	};
	struct ul_nidlist *nl;
	struct ul_err err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		assert_int_equal(ul_nidlist_parse(r[i].in, &nl, &err), -EINVAL);
		if (!strstr(err.msg, r[i].msg))
			fail_msg("row %zu '%s': '%s'", i, r[i].in, err.msg);
	}
}

static void nidlist_match_table(void **state)
{
	static const struct {
		const char *list, *nid;
		bool match;
	} m[] = {
		/* 0 */ { "10.0.0.*@tcp", "10.0.0.7@tcp", true },
		{ "10.0.0.*@tcp", "10.0.1.7@tcp", false },
		{ "10.0.0.*@tcp", "10.0.0.7@tcp1", false },
		{ "10.0.0.*@tcp", "10.0.0.7@o2ib", false },
		{ "*@tcp", "1.2.3.4@tcp", true },
		/* 5 */ { "*@tcp", "2001:db8::1@tcp", true },
		{ "*@tcp", "1.2.3.4@tcp1", false },
		{ "192.168.0.[2-20/2]@tcp", "192.168.0.4@tcp", true },
		{ "192.168.0.[2-20/2]@tcp", "192.168.0.5@tcp", false },
		{ "[1-5,7]@gni", "7@gni", true },
		/* 10 */ { "[1-5,7]@gni", "6@gni", false },
		{ "0@lo", "0@lo", true },
		{ "1.2.3.0/24@tcp", "1.2.3.200@tcp", true },
		{ "1.2.3.0/24@tcp", "1.2.4.0@tcp", false },
		{ "1.2.3.4/24@tcp", "1.2.3.9@tcp", true },
		/* 15 */ { "1.2.3.0/24@tcp", "::ffff:1.2.3.4@tcp", false },
		{ "2001:db8::/32@tcp", "2001:db8:1::5@tcp", true },
		{ "2001:db8::/32@tcp", "2001:db9::5@tcp", false },
		{ "2001:db8::/32@tcp", "32.1.13.184@tcp", false },
		{ "2001:db8::1@tcp", "2001:db8::1@tcp", true },
		/* 20 */ { "2001:db8::1@tcp", "2001:db8::2@tcp", false },
		/* departure: ranges ignore 16-byte NIDs */
		{ "32.1.13.184@tcp", "2001:db8::1@tcp", false },
		/* departure: efa netmasks match */
		{ "1.2.3.0/24@efa", "1.2.3.4@efa", true },
		{ "1.1.1.1@tcp 2.2.2.2@o2ib", "2.2.2.2@o2ib", true },
		{ "1.1.1.1@tcp0x1", "1.1.1.1@tcp1", true },
		/* 25 */ { "*@gni", "0@lo", false },
		{ "[0-4294967295]@kfi", "4294967295@kfi", true },
		{ "1.2.3.4@tcp *@tcp", "9.9.9.9@tcp", true },
		{ "*@tcp1", "1.2.3.4@tcp", false },
		/* 30: LNet: a nidlist's "tcp010" is tcp8, a NID's is tcp10 */
		{ "1.2.3.4@tcp010", "1.2.3.4@tcp8", true },
		{ "1.2.3.4@tcp010", "1.2.3.4@tcp010", false },
		{ "1.2.3.4@tcp010", "1.2.3.4@tcp10", false },
		{ "0@lo0", "0@lo", true },
	};
	struct ulnet_nid nid;
	struct ul_nidlist *nl;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		assert_int_equal(ul_nidlist_parse(m[i].list, &nl, NULL), 0);
		assert_int_equal(ulnet_nid_parse(m[i].nid, &nid, NULL, 0), 0);
		if (ul_nidlist_match(nl, &nid) != m[i].match)
			fail_msg("row %zu: %s ~ %s", i, m[i].nid, m[i].list);
		ul_nidlist_free(nl);
	}
	ulnet_nid_set_any(&nid);
	assert_int_equal(ul_nidlist_parse("*@tcp", &nl, NULL), 0);
	assert_false(ul_nidlist_match(nl, &nid));
	assert_false(ul_nidlist_match(NULL, &nid));
	ul_nidlist_free(nl);
}

static void nidlist_format_is_snprintf_like(void **state)
{
	struct ul_nidlist *nl;
	char buf[13];

	(void)state;
	assert_int_equal(ul_nidlist_parse("10.0.0.*@tcp", &nl, NULL), 0);
	/* lnetctl's strlen(input)+1 buffer would truncate; we report. */
	memset(buf, 'z', sizeof(buf));
	assert_int_equal(ul_nidlist_format(nl, buf, sizeof(buf)), 18);
	assert_string_equal(buf, "10.0.0.[0-25");
	assert_int_equal(ul_nidlist_format(nl, NULL, 0), 18);
	ul_nidlist_free(nl);
	ul_nidlist_free(NULL);
}

static void nidlist_refuses_malformed_input_without_crashing(void **state)
{
	static const char *const junk[] = {
		"[",
		"]",
		"[[",
		"]]",
		"@",
		"@@",
		"*",
		"*@",
		"@*",
		"*@*",
		"[1-2]@",
		"1.2.3.4@[tcp]",
		"1.2.3.[]@tcp",
		"1.2.3.[,]@tcp",
		"1.2.3.[1,]@tcp",
		"[1-5/2/3]@gni",
		"/@tcp",
		"/24@tcp",
		":@tcp",
		"1.2.3.4/@tcp",
		"1.2.3.4/24/8@tcp",
		"[1]:@tcp",
		"1.2.3.4@tcp 1",
		"99999999999999999999@gni",
		"0x@gni",
		"1.2.3.4@tcp99999999999",
		"\x01@tcp",
		"1.2.3.\xff@tcp",
	};
	struct ul_nidlist *nl;
	size_t i, n = UL_NIDLIST_MAX_LEN + 10;
	char *big;

	(void)state;
	for (i = 0; i < sizeof(junk) / sizeof(junk[0]); i++)
		if (ul_nidlist_parse(junk[i], &nl, NULL) != -EINVAL)
			fail_msg("row %zu '%s' accepted", i, junk[i]);
	assert_int_equal(ul_nidlist_parse(NULL, &nl, NULL), -EINVAL);

	big = malloc(n + 1);
	assert_non_null(big);
	memset(big, '[', n);
	big[n] = '\0';
	assert_int_equal(ul_nidlist_parse(big, &nl, NULL), -EINVAL);
	/* A long valid list just under the limit parses. */
	for (i = 0; i + 8 <= UL_NIDLIST_MAX_LEN; i += 8)
		memcpy(big + i, "1@gni   ", 8);
	big[i] = '\0';
	assert_int_equal(ul_nidlist_parse(big, &nl, NULL), 0);
	ul_nidlist_free(nl);
	free(big);
}

/*
 * Naive reference for the randomized check: every expression is expanded
 * into explicit member tables (one per range, over that range's values),
 * netmasks are compared bit by bit, and nothing is shared with the parser.
 * Numbers are written in decimal, hex and octal, octets span 0..255,
 * numeric addresses all of 0..0xffffffff (each range at most SPAN_MAX
 * wide, so its table stays small), and netmasks are IPv4 and IPv6 over
 * random bases with random prefix lengths.
 */
#define SPAN_MAX 1024
#define RANGES_MAX 3
#define ITEMS_MAX 3

struct ref_range {
	bool is_all;	       /* '*': every value of the context */
	uint32_t lo;	       /* first value written */
	uint32_t span;	       /* hi - lo + 1, 1..SPAN_MAX */
	bool member[SPAN_MAX]; /* member[v - lo]: v is in the range */
};

struct ref_expr {
	int nr;
	struct ref_range r[RANGES_MAX];
};

enum ref_kind { REF_ADDR, REF_MASK, REF_ALL };

struct ref_item {
	enum ref_kind kind;
	int net;	      /* index into nets[] */
	struct ref_expr e[4]; /* REF_ADDR: octets; numeric nets use e[0] */
	bool is_ip6;	      /* REF_MASK */
	uint8_t base[16];     /* REF_MASK: address as written, network order */
	unsigned int prefix;  /* REF_MASK */
};

enum ref_net_kind { NET_IP46, NET_IP4, NET_NUM };

/* Each net under three spellings of its number (nidlists read C-style). */
static const struct {
	const char *names[3];
	unsigned int type, num;
	enum ref_net_kind kind;
} nets[] = {
	{ { "tcp", "tcp0", "tcp00" }, 2, 0, NET_IP46 },
	{ { "tcp1", "tcp01", "tcp0x1" }, 2, 1, NET_IP46 },
	{ { "o2ib", "o2ib0", "o2ib0x0" }, 5, 0, NET_IP4 },
	{ { "efa10", "efa012", "efa0xa" }, 18, 10, NET_IP46 },
	{ { "gni", "gni0", "gni000" }, 13, 0, NET_NUM },
	{ { "kfi3", "kfi03", "kfi0X3" }, 16, 3, NET_NUM },
};

#define NR_NETS (sizeof(nets) / sizeof(nets[0]))

/* xorshift64*: the same sequence on every libc. */
static uint64_t rnd_state;

static uint32_t rnd32(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return (uint32_t)((rnd_state * UINT64_C(0x2545f4914f6cdd1d)) >> 32);
}

static uint32_t rnd(uint32_t n)
{
	return rnd32() % n;
}

/* Append v in decimal, 0x hex, 0X hex or octal. */
static char *put_num(char *p, uint32_t v)
{
	switch (rnd(6)) {
	case 3:
		return p + sprintf(p, "0x%x", v);
	case 4:
		return p + sprintf(p, "0X%X", v);
	case 5:
		return p + sprintf(p, "0%o", v);
	default:
		return p + sprintf(p, "%u", v);
	}
}

/* A value of the context 0..max, biased towards the edges. */
static uint32_t pick_value(uint32_t max)
{
	if (max == 255)
		return rnd(3) ? rnd(256) : 200 + rnd(56);
	switch (rnd(5)) {
	case 0:
		return rnd(SPAN_MAX);
	case 1:
		return 0xffffffffu - rnd(SPAN_MAX);
	case 2:
		return 0x7fffffffu - SPAN_MAX / 2 + rnd(SPAN_MAX);
	default:
		return rnd32();
	}
}

static void range_fill(struct ref_range *r, uint32_t lo, uint32_t span,
		       uint32_t stride)
{
	uint64_t v;

	r->is_all = false;
	r->lo = lo;
	r->span = span;
	memset(r->member, 0, span);
	for (v = 0; v < span; v += stride)
		r->member[v] = true;
}

static char *gen_range(char *p, struct ref_range *r, uint32_t max)
{
	uint32_t lo, room, span, stride;

	if (rnd(10) == 0) {
		r->is_all = true;
		return p + sprintf(p, "*");
	}
	lo = pick_value(max);
	room = max - lo + 1 == 0 || max - lo + 1 > SPAN_MAX ? SPAN_MAX
							    : max - lo + 1;
	span = rnd(3) == 0 ? 1 : 1 + rnd(room);
	/* A stride is a value of the context too (expr.h). */
	stride = 1 + rnd(rnd(2) ? 4 : max == 255 ? 255 : 300);
	range_fill(r, lo, span, span == 1 ? 1 : stride);
	p = put_num(p, lo);
	if (span == 1)
		return p;
	*p++ = '-';
	p = put_num(p, lo + span - 1);
	if (stride == 1 && rnd(2))
		return p;
	*p++ = '/';
	return put_num(p, stride);
}

static char *gen_expr(char *p, struct ref_expr *e, uint32_t max)
{
	uint32_t v;
	int i;

	switch (rnd(5)) {
	case 0:
	case 1:
		v = pick_value(max);
		e->nr = 1;
		range_fill(&e->r[0], v, 1, 1);
		return put_num(p, v);
	case 2:
		e->nr = 1;
		e->r[0].is_all = true;
		return p + sprintf(p, "*");
	default:
		break;
	}
	e->nr = 1 + (int)rnd(RANGES_MAX);
	*p++ = '[';
	for (i = 0; i < e->nr; i++) {
		if (i)
			*p++ = ',';
		p = gen_range(p, &e->r[i], max);
	}
	*p++ = ']';
	*p = '\0';
	return p;
}

static bool ref_expr_match(const struct ref_expr *e, uint32_t v)
{
	int i;

	for (i = 0; i < e->nr; i++) {
		const struct ref_range *r = &e->r[i];

		if (r->is_all ||
		    (v >= r->lo && v - r->lo < r->span && r->member[v - r->lo]))
			return true;
	}
	return false;
}

/* A random IPv6 base that LNet accepts (not ::1, not fe80::/10). */
static void gen_ip6(uint8_t b[16])
{
	int i;

	for (i = 0; i < 16; i++)
		b[i] = (uint8_t)rnd(256);
	if (rnd(4) == 0) /* ::ffff:a.b.c.d and friends */
		memset(b, 0, 10 + rnd(3));
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
		b[0] = 0x20;
	if (b[0] == 0 && rnd(8) == 0)
		b[15] |= 2; /* never ::1 */
}

static char *put_ip6(char *p, const uint8_t b[16])
{
	int i;

	if (rnd(2)) {
		inet_ntop(AF_INET6, b, p, INET6_ADDRSTRLEN);
		return p + strlen(p);
	}
	for (i = 0; i < 16; i += 2)
		p += sprintf(p, rnd(2) ? "%s%x" : "%s%04x", i ? ":" : "",
			     b[i] << 8 | b[i + 1]);
	return p;
}

/*
 * A netmask item. LNet refuses prefix length 0 (and past 32 or 128):
 * such an item is checked to be refused on its own, then redrawn.
 */
static char *gen_mask(char *p, struct ref_item *it)
{
	struct ul_nidlist *nl = NULL;
	unsigned int bits;
	char bad[128], *q;
	uint32_t a;

	it->kind = REF_MASK;
	it->is_ip6 = rnd(2);
	memset(it->base, 0, sizeof(it->base));
	if (it->is_ip6) {
		gen_ip6(it->base);
		bits = 128;
	} else {
		do
			a = rnd32();
		while (a == 0x7f000001);
		it->base[0] = (uint8_t)(a >> 24);
		it->base[1] = (uint8_t)(a >> 16);
		it->base[2] = (uint8_t)(a >> 8);
		it->base[3] = (uint8_t)a;
		bits = 32;
	}
	it->prefix = rnd(bits + 2);
	if (it->prefix == 0 || it->prefix > bits) {
		q = it->is_ip6 ? put_ip6(bad, it->base)
			       : bad + sprintf(bad, "%u.%u.%u.%u", it->base[0],
					       it->base[1], it->base[2],
					       it->base[3]);
		sprintf(q, "/%u@%s", it->prefix, nets[it->net].names[0]);
		if (ul_nidlist_parse(bad, &nl, NULL) != -EINVAL)
			fail_msg("'%s' accepted", bad);
		it->prefix = 1 + rnd(bits);
	}
	if (it->is_ip6)
		p = put_ip6(p, it->base);
	else
		p += sprintf(p, "%u.%u.%u.%u", it->base[0], it->base[1],
			     it->base[2], it->base[3]);
	/* An IPv6 address alone is a /128. */
	if (!it->is_ip6 || it->prefix < 128 || rnd(2))
		p += sprintf(p, "/%u", it->prefix);
	return p;
}

static void gen_item(char *s, struct ref_item *it)
{
	char *p = s + strlen(s);
	int i;

	it->net = (int)rnd(NR_NETS);
	if (rnd(10) == 0) {
		it->kind = REF_ALL;
		p += sprintf(p, "*");
	} else if (nets[it->net].kind == NET_IP46 && rnd(3) == 0) {
		p = gen_mask(p, it);
	} else {
		it->kind = REF_ADDR;
		for (i = 0; i < (nets[it->net].kind == NET_NUM ? 1 : 4); i++) {
			if (i)
				*p++ = '.';
			p = gen_expr(p, &it->e[i],
				     nets[it->net].kind == NET_NUM ? 0xffffffffu
								   : 255);
		}
	}
	sprintf(p, "@%s", nets[it->net].names[rnd(3)]);
}

static bool bit(const uint8_t *b, unsigned int i)
{
	return (b[i / 8] >> (7 - i % 8)) & 1;
}

static bool ref_match(const struct ref_item *items, int n,
		      const struct ulnet_nid *nid)
{
	uint8_t addr[16];
	unsigned int k;
	int i;

	for (k = 0; k < 16; k++)
		addr[k] = (uint8_t)(nid->nid_addr[k / 4] >> (24 - 8 * (k % 4)));
	for (i = 0; i < n; i++) {
		const struct ref_item *it = &items[i];

		if (nets[it->net].type != nid->nid_type ||
		    nets[it->net].num != nid->nid_num)
			continue;
		if (it->kind == REF_ALL)
			return true;
		if (nid->nid_size !=
		    (it->kind == REF_MASK && it->is_ip6 ? 12 : 0))
			continue;
		if (it->kind == REF_MASK) {
			for (k = 0; k < it->prefix; k++)
				if (bit(addr, k) != bit(it->base, k))
					break;
			if (k == it->prefix)
				return true;
			continue;
		}
		if (nets[it->net].kind == NET_NUM) {
			if (ref_expr_match(&it->e[0], nid->nid_addr[0]))
				return true;
			continue;
		}
		for (k = 0; k < 4; k++)
			if (!ref_expr_match(&it->e[k], addr[k]))
				break;
		if (k == 4)
			return true;
	}
	return false;
}

/* A value near what expression e holds: a member, a neighbour or noise. */
static uint32_t near_expr(const struct ref_expr *e, uint32_t max)
{
	const struct ref_range *r = &e->r[rnd((uint32_t)e->nr)];
	uint64_t v;

	if (r->is_all || rnd(8) == 0)
		return pick_value(max);
	v = (uint64_t)r->lo + rnd(r->span + 2);
	if (v > 0)
		v--;
	return v > max ? max : (uint32_t)v;
}

/* A NID on a random net, often close to one of the items. */
static void gen_nid(const struct ref_item *items, int n, struct ulnet_nid *nid)
{
	const struct ref_item *it = &items[rnd((uint32_t)n)];
	uint8_t b[16] = { 0 };
	unsigned int net = rnd(NR_NETS), k, flip;
	bool is_ip6;

	if (rnd(3))
		net = (unsigned int)it->net;
	memset(nid, 0, sizeof(*nid));
	nid->nid_type = (uint8_t)nets[net].type;
	nid->nid_num = (uint16_t)nets[net].num;
	if (nets[net].kind == NET_NUM) {
		nid->nid_addr[0] = it->kind == REF_ADDR && it->net == (int)net
					   ? near_expr(&it->e[0], 0xffffffffu)
					   : pick_value(0xffffffffu);
		return;
	}
	is_ip6 = nets[net].kind == NET_IP46 && rnd(4) == 0;
	if (it->kind == REF_MASK && (unsigned int)it->net == net) {
		is_ip6 = it->is_ip6;
		memcpy(b, it->base, 16);
		/* Flip host bits, and now and then one network bit. */
		for (k = 0; k < 4; k++) {
			flip = rnd(is_ip6 ? 128 : 32);
			if (flip >= it->prefix || rnd(4) == 0)
				b[flip / 8] ^= (uint8_t)(0x80 >> flip % 8);
		}
	} else if (is_ip6) {
		gen_ip6(b);
	} else {
		for (k = 0; k < 4; k++)
			b[k] = (uint8_t)(it->kind == REF_ADDR &&
							 nets[it->net].kind !=
								 NET_NUM
						 ? near_expr(&it->e[k], 255)
						 : pick_value(255));
	}
	nid->nid_size = is_ip6 ? 12 : 0;
	for (k = 0; k < (is_ip6 ? 16u : 4u); k++)
		nid->nid_addr[k / 4] |= (uint32_t)b[k] << (24 - 8 * (k % 4));
}

static void nidlist_match_agrees_with_naive_reference(void **state)
{
	static struct ref_item items[ITEMS_MAX];
	static char s[8192], printed[16384], again[16384];
	struct ul_nidlist *nl, *nl2;
	char nidstr[ULNET_NIDSTR_SIZE];
	struct ulnet_nid nid;
	struct ul_err err;
	int iter, n, i, j;

	(void)state;
	rnd_state = UINT64_C(20240601);
	for (iter = 0; iter < 20000; iter++) {
		n = 1 + (int)rnd(ITEMS_MAX);
		s[0] = '\0';
		for (i = 0; i < n; i++) {
			if (i)
				strcat(s, rnd(4) ? " " : "   ");
			gen_item(s, &items[i]);
		}
		if (ul_nidlist_parse(s, &nl, &err))
			fail_msg("iter %d '%s': %s", iter, s, err.msg);
		assert_true(ul_nidlist_format(nl, printed, sizeof(printed)) <
			    (int)sizeof(printed));
		assert_int_equal(ul_nidlist_parse(printed, &nl2, NULL), 0);
		ul_nidlist_format(nl2, again, sizeof(again));
		if (strcmp(printed, again))
			fail_msg("iter %d '%s': '%s' then '%s'", iter, s,
				 printed, again);
		for (j = 0; j < 16; j++) {
			gen_nid(items, n, &nid);
			if (ul_nidlist_match(nl, &nid) !=
			    ref_match(items, n, &nid))
				fail_msg("iter %d '%s' nid %s", iter, s,
					 ulnet_nid_format(&nid, nidstr,
							  sizeof(nidstr)));
			if (ul_nidlist_match(nl2, &nid) !=
			    ul_nidlist_match(nl, &nid))
				fail_msg("iter %d: '%s' matches differently",
					 iter, printed);
		}
		ul_nidlist_free(nl);
		ul_nidlist_free(nl2);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nidlist_prints_lnet_canonical_form),
		cmocka_unit_test(nidlist_rejects_zero_stride),
		cmocka_unit_test(nidlist_parse_success_leaves_err_clear),
		cmocka_unit_test(nidlist_error_quotes_offending_part),
		cmocka_unit_test(nidlist_match_table),
		cmocka_unit_test(nidlist_format_is_snprintf_like),
		cmocka_unit_test(
			nidlist_refuses_malformed_input_without_crashing),
		cmocka_unit_test(nidlist_match_agrees_with_naive_reference),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
