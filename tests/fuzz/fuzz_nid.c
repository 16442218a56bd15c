/*
 * Fuzz target: the NID, net, nidlist, UDSP descriptor and NID range
 * parsers on untrusted strings.
 * Whatever parses must print in a form that parses back to the same value
 * and prints the same again (canonical form is a fixed point).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ulnet/nid.h"
#include "nid/nid_descr.h"
#include "nid/nidlist.h"
#include "nid/nidrange.h"

#define STR_MAX 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_nid(const char *s)
{
	struct ulnet_nid a, b;
	char buf[ULNET_NIDSTR_SIZE], buf2[ULNET_NIDSTR_SIZE];

	if (ulnet_nid_parse(s, &a, buf, sizeof(buf)) < 0)
		return;
	ulnet_nid_format(&a, buf, sizeof(buf));
	if (ulnet_nid_is_any(&a))
		return; /* "<?>" is printed, never parsed */
	if (ulnet_nid_parse(buf, &b, NULL, 0) < 0 || !ulnet_nid_same(&a, &b))
		abort();
	if (strcmp(ulnet_nid_format(&b, buf2, sizeof(buf2)), buf) != 0)
		abort();
}

static void check_net(const char *s)
{
	char buf[ULNET_NIDSTR_SIZE];
	uint32_t a, b;

	if (ulnet_net_parse(s, &a, NULL, 0) < 0)
		return;
	ulnet_net_format(a, buf, sizeof(buf));
	if (ulnet_net_parse(buf, &b, NULL, 0) < 0 || a != b)
		abort();
}

static char *print_list(const struct ul_nidlist *nl)
{
	int n = ul_nidlist_format(nl, NULL, 0);
	char *s;

	if (n < 0)
		abort();
	s = malloc((size_t)n + 1);
	if (!s)
		abort();
	if (ul_nidlist_format(nl, s, (size_t)n + 1) != n)
		abort();
	return s;
}

static void check_nidlist(const char *s, const char *nidstr)
{
	struct ul_nidlist *a = NULL, *b = NULL;
	struct ulnet_nid nid;
	char *pa, *pb;

	if (ul_nidlist_parse(s, &a, NULL) < 0)
		return;
	pa = print_list(a);
	if (ul_nidlist_parse(pa, &b, NULL) < 0)
		abort();
	pb = print_list(b);
	if (strcmp(pa, pb) != 0)
		abort();
	if (ulnet_nid_parse(nidstr, &nid, NULL, 0) == 0 &&
	    ul_nidlist_match(a, &nid) != ul_nidlist_match(b, &nid))
		abort();
	free(pa);
	free(pb);
	ul_nidlist_free(a);
	ul_nidlist_free(b);
}

static void check_descr(const char *s, const char *nidstr)
{
	struct ul_nid_descr *a = NULL, *b = NULL;
	struct ulnet_nid nid;
	char pa[8192], pb[8192];
	int n;

	if (ul_nid_descr_parse(s, &a, NULL) < 0)
		return;
	n = ul_nid_descr_format(a, pa, sizeof(pa));
	if (n < 0 || (size_t)n >= sizeof(pa))
		goto out;
	/* Printing normalises ([4-4/2] is 4), so compare prints, not trees. */
	if (ul_nid_descr_parse(pa, &b, NULL) < 0)
		abort();
	ul_nid_descr_format(b, pb, sizeof(pb));
	if (strcmp(pa, pb) != 0)
		abort();
	if (ulnet_nid_parse(nidstr, &nid, NULL, 0) == 0 &&
	    (ul_nid_descr_match_nid(a, &nid) !=
		     ul_nid_descr_match_nid(b, &nid) ||
	     ul_nid_descr_match_net(a, ulnet_nid_net(&nid)) !=
		     ul_nid_descr_match_net(b, ulnet_nid_net(&nid))))
		abort();
out:
	ul_nid_descr_free(a);
	ul_nid_descr_free(b);
}

/* Every NID a range expands to is a valid NID that prints and reparses. */
static void check_nidrange(const char *s)
{
	struct ulnet_nid out[UL_NIDRANGE_MAX_PER_PEER];
	size_t i, count = 0;

	if (ul_nidrange_expand(s, out, UL_NIDRANGE_MAX_PER_PEER, &count, NULL) <
	    0)
		return;
	if (count > UL_NIDRANGE_MAX_PER_PEER)
		abort();
	for (i = 0; i < count; i++) {
		char buf[ULNET_NIDSTR_SIZE];
		struct ulnet_nid back;

		ulnet_nid_format(&out[i], buf, sizeof(buf));
		if (ulnet_nid_parse(buf, &back, NULL, 0) < 0 ||
		    !ulnet_nid_same(&back, &out[i]))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[STR_MAX + 1];
	const char *nidstr;
	size_t n = size < STR_MAX ? size : STR_MAX;

	memcpy(s, data, n);
	s[n] = '\0';
	/* A second string after the first NUL, if any, is a NID to match. */
	nidstr = memchr(s, '\0', n) ? s + strlen(s) + 1 : "192.168.1.1@tcp";
	check_nid(s);
	check_net(s);
	check_nidlist(s, nidstr);
	check_descr(s, nidstr);
	check_nidrange(s);
	return 0;
}
