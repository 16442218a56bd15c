/*
 * Nidlists (src/nid/nidlist.h): cfs_parse_nidlist()'s syntax, LNet's
 * canonical print (cfs_print_nidlist(), checked against LNet for every
 * row marked "LNet"), matching, and a randomized check against a naive
 * reference that expands every expression into an explicit set.
 */
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
 * Naive reference: one item is a net plus, per address component, an
 * explicit 0..15 membership set (values are kept small so that random
 * NIDs hit often), or a netmask, or "all".
 */
#define VALS 16
enum ref_kind { REF_ADDR, REF_MASK, REF_ALL };

struct ref_item {
	enum ref_kind kind;
	int net;	   /* index into nets[] */
	bool set[4][VALS]; /* REF_ADDR; numeric nets use set[0] */
	uint32_t base;	   /* REF_MASK */
	unsigned int prefix;
};

static const struct {
	const char *name;
	unsigned int type, num;
	bool is_ip;
} nets[] = {
	{ "tcp", 2, 0, true },	  { "tcp1", 2, 1, true },
	{ "o2ib", 5, 0, true },	  { "gni", 13, 0, false },
	{ "kfi3", 16, 3, false },
};

#define NR_NETS (sizeof(nets) / sizeof(nets[0]))

static unsigned int rnd(unsigned int n)
{
	return (unsigned int)(rand() % (int)n);
}

/* Append a random expression over 0..VALS-1 to s and fill set. */
static void gen_expr(char *s, bool set[VALS])
{
	unsigned int nr, i, lo, hi, stride, v;
	char *p = s + strlen(s);

	memset(set, 0, VALS * sizeof(set[0]));
	switch (rnd(4)) {
	case 0:
		v = rnd(VALS);
		sprintf(p, rnd(2) ? "%u" : "%#x", v);
		if (v == 0)
			sprintf(p, "0");
		set[v] = true;
		return;
	case 1:
		/* '*' spans the whole context; the reference sees 0..15 */
		strcpy(p, "*");
		memset(set, 1, VALS * sizeof(set[0]));
		return;
	default:
		break;
	}
	nr = 1 + rnd(3);
	p += sprintf(p, "[");
	for (i = 0; i < nr; i++) {
		lo = rnd(VALS);
		hi = lo + rnd(VALS - lo);
		stride = 1 + rnd(4);
		if (i)
			p += sprintf(p, ",");
		if (rnd(3) == 0)
			hi = lo;
		if (lo == hi)
			p += sprintf(p, "%u", lo);
		else if (stride == 1)
			p += sprintf(p, "%u-%u", lo, hi);
		else
			p += sprintf(p, "%u-%u/%u", lo, hi, stride);
		for (v = lo; v <= hi; v += stride)
			set[v] = true;
	}
	sprintf(p, "]");
}

static void gen_item(char *s, struct ref_item *it)
{
	int i;

	it->net = (int)rnd(NR_NETS);
	if (rnd(8) == 0) {
		it->kind = REF_ALL;
		sprintf(s + strlen(s), "*@%s", nets[it->net].name);
		return;
	}
	if (nets[it->net].name[0] == 't' && rnd(4) == 0) {
		it->kind = REF_MASK;
		it->base = rnd(VALS) << 24 | rnd(VALS) << 16 | rnd(VALS) << 8 |
			   rnd(VALS);
		it->prefix = 1 + rnd(32);
		sprintf(s + strlen(s), "%u.%u.%u.%u/%u@%s", it->base >> 24,
			(it->base >> 16) & 255, (it->base >> 8) & 255,
			it->base & 255, it->prefix, nets[it->net].name);
		return;
	}
	it->kind = REF_ADDR;
	for (i = 0; i < (nets[it->net].is_ip ? 4 : 1); i++) {
		if (i)
			strcat(s, ".");
		gen_expr(s, it->set[i]);
	}
	sprintf(s + strlen(s), "@%s", nets[it->net].name);
}

static bool ref_match(const struct ref_item *items, int n, unsigned int net,
		      const uint32_t v[4])
{
	uint32_t addr = v[0] << 24 | v[1] << 16 | v[2] << 8 | v[3];
	uint32_t mask;
	int i, k;

	for (i = 0; i < n; i++) {
		const struct ref_item *it = &items[i];

		if ((unsigned int)it->net != net)
			continue;
		if (it->kind == REF_ALL)
			return true;
		if (it->kind == REF_MASK) {
			mask = it->prefix == 32 ? 0xffffffff
						: ~(0xffffffffu >> it->prefix);
			if ((addr & mask) == (it->base & mask))
				return true;
			continue;
		}
		for (k = 0; k < (nets[net].is_ip ? 4 : 1); k++)
			if (!it->set[k][v[k]])
				break;
		if (k == (nets[net].is_ip ? 4 : 1))
			return true;
	}
	return false;
}

static void nidlist_match_agrees_with_naive_reference(void **state)
{
	struct ref_item items[4];
	struct ul_nidlist *nl, *nl2;
	char s[1024], printed[1024], again[1024];
	struct ulnet_nid nid;
	struct ul_err err;
	uint32_t v[4];
	unsigned int net;
	int iter, n, i, j;

	(void)state;
	srand(20240601);
	for (iter = 0; iter < 20000; iter++) {
		n = 1 + (int)rnd(3);
		s[0] = '\0';
		for (i = 0; i < n; i++) {
			if (i)
				strcat(s, rnd(4) ? " " : "   ");
			gen_item(s, &items[i]);
		}
		if (ul_nidlist_parse(s, &nl, &err))
			fail_msg("iter %d '%s': %s", iter, s, err.msg);
		ul_nidlist_format(nl, printed, sizeof(printed));
		assert_int_equal(ul_nidlist_parse(printed, &nl2, NULL), 0);
		ul_nidlist_format(nl2, again, sizeof(again));
		if (strcmp(printed, again))
			fail_msg("iter %d '%s': '%s' then '%s'", iter, s,
				 printed, again);
		for (j = 0; j < 8; j++) {
			net = rnd(NR_NETS);
			memset(&nid, 0, sizeof(nid));
			nid.nid_type = (uint8_t)nets[net].type;
			nid.nid_num = (uint16_t)nets[net].num;
			for (i = 0; i < 4; i++)
				v[i] = nets[net].is_ip || i == 0 ? rnd(VALS)
								 : 0;
			nid.nid_addr[0] = nets[net].is_ip
						  ? v[0] << 24 | v[1] << 16 |
							    v[2] << 8 | v[3]
						  : v[0];
			if (!nets[net].is_ip)
				v[1] = v[2] = v[3] = 0;
			if (ul_nidlist_match(nl, &nid) !=
			    ref_match(items, n, net, v))
				fail_msg("iter %d '%s' nid %u:%u.%u.%u.%u",
					 iter, s, net, v[0], v[1], v[2], v[3]);
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
