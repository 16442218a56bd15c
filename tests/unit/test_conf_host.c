/*
 * Resolving a net block's or an ip2nets rule's interfaces on a host
 * (src/ctl/conf_host.h, reference/lnetctl.md §17.2): one host drawn
 * below, one numbered row per case, with lnetctl's outcome and words.
 *
 *	lo    up    127.0.0.1, ::1
 *	eth0  up    (link only: no address)
 *	eth1  up    192.168.1.2
 *	eth2  down  192.168.2.2
 *	eth3  up    10.20.3.1, 2001:db8:1::1
 *	eth4  up    2001:db8:2::1 (no IPv4)
 *	eth5  up    10.20.5.1
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ctl/conf.h"
#include "ctl/conf_host.h"

#define V4(n, up, a)                                                           \
	{                                                                      \
		.ifname = n, .is_up = up, .family = UL_CONF_ADDR_IPV4,         \
		.ipv4 = a                                                      \
	}
#define V6(n, up, w0, w1, w3)                                                  \
	{                                                                      \
		.ifname = n, .is_up = up, .family = UL_CONF_ADDR_IPV6,         \
		.ipv6 = {                                                      \
			w0,                                                    \
			w1,                                                    \
			0,                                                     \
			w3                                                     \
		}                                                              \
	}
#define LINK(n, up)                                                            \
	{                                                                      \
		.ifname = n, .is_up = up, .family = UL_CONF_ADDR_LINK          \
	}

/* getifaddrs() order: link entries first, then addresses. */
static const struct ul_conf_hostaddr host[] = {
	LINK("lo", true),
	LINK("eth0", true),
	LINK("eth1", true),
	LINK("eth2", false),
	LINK("eth3", true),
	LINK("eth4", true),
	LINK("eth5", true),
	V4("lo", true, 0x7f000001),
	V4("eth1", true, 0xc0a80102),
	V4("eth2", false, 0xc0a80202),
	V4("eth3", true, 0x0a140301),
	V4("eth5", true, 0x0a140501),
	V6("lo", true, 0, 0, 1),
	V6("eth3", true, 0x20010db8, 0x00010000, 1),
	V6("eth4", true, 0x20010db8, 0x00020000, 1),
};

struct row {
	const char *ifs;    /* "eth1 eth3", or "" */
	const char *ranges; /* "10.20.*.* 2001:db8:1::/48", or "" */
	int rc;
	const char *want; /* the interfaces, or the message */
};

static const struct row rows[] = {
	/* 0: nothing named: the first up IPv4 interface but lo */
	{ "", "", 0, "eth1" },
	{ "eth1 eth5", "", 0, "eth1 eth5" },
	{ "eth9", "", -ENOMSG, "No interface matching 'eth9'" },
	{ "eth2", "", -ENOMSG, "Matched interface 'eth2' is not UP" },
	/* an up interface without IPv4 address: lnetctl cannot query it */
	{ "eth4", "", -EINVAL, "\"couldn't query intf eth4\"" },
	/* 5 */
	{ "eth0", "", -EINVAL, "\"couldn't query intf eth0\"" },
	{ "eth1", "10.*.*.*", -ENOMSG,
	  "Interface 'eth1' doesn't match an IP pattern" },
	{ "eth3", "10.20.*.*", 0, "eth3" },
	/* ranges alone: every up interface with an address in one */
	{ "", "10.20.*.*", 0, "eth3 eth5" },
	{ "", "172.16.*.*", -ENOMSG,
	  "IP pattern(s) do not match available interfaces" },
	/* 10: an IPv6 range picks the interface; its NI is on IPv4 */
	{ "", "2001:db8:1::/48", 0, "eth3" },
	{ "eth3", "2001:db8:1::1", 0, "eth3" },
	{ "", "2001:db8:2::/48", -EINVAL, "\"couldn't query intf eth4\"" },
	/* a down interface's address is not in any range */
	{ "", "192.168.*.*", 0, "eth1" },
	/* lo is taken when named or matched, only never by default */
	{ "lo", "", 0, "lo" },
	/* 15: each interface once, whatever matched it */
	{ "", "10.20.*.* 2001:db8:1::/48", 0, "eth3 eth5" },
};

/* Split "a b c" into the caller's buffers. */
static size_t split(const char *s, char out[][48], size_t max)
{
	size_t n = 0;
	const char *p = s;
	int len;

	while (*p && n < max) {
		len = (int)strcspn(p, " ");
		snprintf(out[n++], 48, "%.*s", len, p);
		p += len;
		p += strspn(p, " ");
	}
	return n;
}

static void every_row_resolves_as_lnetctl(void **state)
{
	struct ul_conf_resolved out[8];
	struct ul_conf_ip_range ranges[4];
	struct ul_conf_ni nis[4];
	char words[8][48], got[256];
	struct ul_err err;
	size_t i, k, n, nr, nranges, off;
	int rc;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		memset(nis, 0, sizeof(nis));
		memset(ranges, 0, sizeof(ranges));
		memset(&err, 0, sizeof(err));
		n = split(rows[i].ifs, words, 4);
		for (k = 0; k < n; k++)
			snprintf(nis[k].ifname, sizeof(nis[k].ifname), "%.15s",
				 words[k]);
		nranges = split(rows[i].ranges, words, 4);
		for (k = 0; k < nranges; k++)
			assert_int_equal(ul_conf_parse_ip_range(
						 words[k], &ranges[k], NULL),
					 0);
		nr = 0;
		rc = ul_conf_resolve(host, sizeof(host) / sizeof(host[0]), nis,
				     n, ranges, nranges, out, 8, &nr, &err);
		got[0] = '\0';
		for (k = 0, off = 0; !rc && k < nr; k++)
			off += (size_t)snprintf(got + off, sizeof(got) - off,
						"%s%s", k ? " " : "",
						out[k].ifname);
		if (rc != rows[i].rc ||
		    strcmp(rc ? err.msg : got, rows[i].want) != 0)
			fail_msg("row %zu: rc %d, '%s'", i, rc,
				 rc ? err.msg : got);
		for (k = 0; k < nranges; k++)
			ul_conf_ip_range_fini(&ranges[k]);
	}
}

static void no_interface_up_but_lo(void **state)
{
	static const struct ul_conf_hostaddr lo_only[] = {
		LINK("lo", true),
		V4("lo", true, 0x7f000001),
		LINK("eth0", false),
		V4("eth0", false, 0xc0a80102),
	};
	struct ul_conf_resolved out[2];
	struct ul_err err = { 0 };
	size_t nr = 0;

	(void)state;
	assert_int_equal(ul_conf_resolve(lo_only, 4, NULL, 0, NULL, 0, out, 2,
					 &nr, &err),
			 -ENOMSG);
	assert_string_equal(err.msg, "No UP interfaces were found");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_row_resolves_as_lnetctl),
		cmocka_unit_test(no_interface_up_but_lo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
