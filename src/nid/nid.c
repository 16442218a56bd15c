/*
 * NIDs and nets: strings <-> struct ulnet_nid, and the LND name table.
 *
 * Behaviour follows LNet's libcfs_strnid(), libcfs_str2net() and
 * libcfs_nidstr_r() (reference/lnetctl.md §4.1, §4.2; wire.md §3), with
 * these deliberate departures, each a defect in LNet:
 *  - Host names are never resolved: a NID must carry an address.
 *  - A net number above 65535 is refused. LNet folds it into the LND type
 *    ("1.2.3.4@tcp65536" becomes a NID of type 3).
 *  - A number that does not fit 32 bits is refused. LNet truncates it
 *    ("4294967296@gni" reads as 0@gni, "4294967297.0.0.1@o2ib" as 1.0.0.1).
 *  - A minus sign is refused ("-1@gni" is 4294967295@gni in LNet).
 *  - "0@lo" is the only lo NID accepted; LNet takes any text before "@lo".
 *  - An IP-LND NID whose nid_size is neither 0 nor 12 prints in the hex
 *    form of an unknown LND; LNet leaves the buffer unwritten.
 *  - A 64-bit NID with a non-zero top byte (other than LNET_NID_ANY) is
 *    refused by ulnet_nid_from_nid4(); lnet_nid4_to_nid() drops the byte.
 *    A NID with nid_size 0 but address words 1..3 set has no 64-bit form;
 *    lnet_nid_to_nid4() drops the words.
 * Kept from LNet: whitespace before a net number ("tcp 1") and before each
 * decimal number of an o2ib/gip address or a numeric address; IPv4 octets
 * with leading zeros on o2ib/gip (decimal, never octal) but not on tcp/efa,
 * which use inet_pton; 127.0.0.1, ::1 and fe80::/10 refused on tcp/efa
 * (ul_nid_parse_lnet() takes 127.0.0.1, as LNet's kernel does); every NID
 * of type 0xff is ANY (LNET_NID_IS_ANY).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nid/lnd.h"
#include "nid/num.h"
#include "ulnet/nid.h"

/* LNet's netstrfns table, in its order (prefix lookups depend on it). */
static const struct ul_lnd_info lnd_table[] = {
	{ ULNET_LND_LO, "lo", UL_ADDR_KIND_LO },
	{ ULNET_LND_SOCK, "tcp", UL_ADDR_KIND_IP46 },
	{ ULNET_LND_O2IB, "o2ib", UL_ADDR_KIND_IP4 },
	{ ULNET_LND_GNI, "gni", UL_ADDR_KIND_NUM },
	{ ULNET_LND_GNIIP, "gip", UL_ADDR_KIND_IP4 },
	{ ULNET_LND_PTL4, "ptlf", UL_ADDR_KIND_NUM },
	{ ULNET_LND_KFI, "kfi", UL_ADDR_KIND_NUM },
	{ ULNET_LND_EFA, "efa", UL_ADDR_KIND_IP46 },
	{ ULNET_LND_BXI3, "bxi3f", UL_ADDR_KIND_NUM },
};

#define LND_COUNT (sizeof(lnd_table) / sizeof(lnd_table[0]))

const struct ul_lnd_info *ul_lnd_by_type(unsigned int type)
{
	size_t i;

	for (i = 0; i < LND_COUNT; i++)
		if (lnd_table[i].type == type)
			return &lnd_table[i];
	return NULL;
}

bool ul_nid_is_well_formed(const struct ulnet_nid *nid)
{
	const struct ul_lnd_info *lnd;
	unsigned int i, used;

	if (ulnet_nid_is_any(nid))
		return true;
	lnd = ul_lnd_by_type(nid->nid_type);
	if (!lnd)
		return false;
	if (nid->nid_size == 12)
		used = 4;
	else if (nid->nid_size == 0)
		used = 1;
	else
		return false;
	if (used == 4 && lnd->kind != UL_ADDR_KIND_IP46)
		return false;
	for (i = used; i < 4; i++)
		if (nid->nid_addr[i])
			return false;
	if (lnd->kind == UL_ADDR_KIND_LO)
		return nid->nid_num == 0 && nid->nid_addr[0] == 0;
	return true;
}

const struct ul_lnd_info *ul_lnd_by_prefix(const char *str, size_t len)
{
	size_t i, n;

	for (i = 0; i < LND_COUNT; i++) {
		n = strlen(lnd_table[i].name);
		if (n <= len && memcmp(str, lnd_table[i].name, n) == 0)
			return &lnd_table[i];
	}
	return NULL;
}

bool ul_lnd_is_ip(const struct ul_lnd_info *lnd)
{
	return lnd->kind == UL_ADDR_KIND_IP46 || lnd->kind == UL_ADDR_KIND_IP4;
}

const char *ulnet_lnd_name(unsigned int lnd_type)
{
	const struct ul_lnd_info *lnd = ul_lnd_by_type(lnd_type);

	return lnd ? lnd->name : NULL;
}

int ulnet_lnd_from_name(const char *name)
{
	size_t i;

	if (!name)
		return -EINVAL;
	for (i = 0; i < LND_COUNT; i++)
		if (strcmp(lnd_table[i].name, name) == 0)
			return (int)lnd_table[i].type;
	return -EINVAL;
}

static void errf(char *errbuf, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void errf(char *errbuf, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!errbuf || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(errbuf, errlen, fmt, ap);
	va_end(ap);
}

/*
 * Read a decimal number from s[*pos..len) after optional blanks, as
 * sscanf("%u") does but without a sign and refusing overflow past max.
 */
static bool scan_dec(const char *s, size_t len, size_t *pos, uint32_t max,
		     uint32_t *out)
{
	size_t i = *pos;

	while (i < len && isspace((unsigned char)s[i]))
		i++;
	if (ul_num_scan(s, len, &i, 10, max, out))
		return false;
	*pos = i;
	return true;
}

/* A numeric address: decimal (blanks before it allowed) or 0x hex. */
static bool scan_num_addr(const char *s, size_t len, uint32_t *out)
{
	size_t i = 2;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return ul_num_scan(s, len, &i, 16, UINT32_MAX, out) == 0 &&
		       i == len;
	i = 0;
	return scan_dec(s, len, &i, UINT32_MAX, out) && i == len;
}

/* o2ib/gip: four decimal octets, as LNet's sscanf("%u.%u.%u.%u") reads. */
static bool scan_ip4_dec(const char *s, size_t len, uint32_t *out)
{
	uint32_t addr = 0, octet;
	size_t i = 0;
	int n;

	for (n = 0; n < 4; n++) {
		if (n > 0) {
			if (i >= len || s[i] != '.')
				return false;
			i++;
		}
		if (!scan_dec(s, len, &i, 255, &octet))
			return false;
		addr = (addr << 8) | octet;
	}
	if (i != len)
		return false;
	*out = addr;
	return true;
}

/*
 * ul_ip_pton(); is_lnet takes every address the kernel's rpc_pton() does:
 * 127.0.0.1, ::1 and link-local too (LNet's user-space parser refuses
 * them, its kernel does not).
 */
static int ip_pton(const char *str, size_t len, bool is_lnet, int *family,
		   uint8_t addr[16])
{
	char tmp[INET6_ADDRSTRLEN + 1];
	struct in6_addr a6;
	struct in_addr a4;

	if (len == 0 || len >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, str, len);
	tmp[len] = '\0';
	memset(addr, 0, 16);
	if (inet_pton(AF_INET, tmp, &a4) == 1) {
		/* LNet refuses the loopback address itself, not 127/8. */
		if (a4.s_addr == htonl(INADDR_LOOPBACK) && !is_lnet)
			return -EINVAL;
		memcpy(addr, &a4, 4);
		*family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, tmp, &a6) == 1) {
		/* Link-local cannot be routed, so LNet refuses it. */
		if (!is_lnet &&
		    (IN6_IS_ADDR_LOOPBACK(&a6) || IN6_IS_ADDR_LINKLOCAL(&a6)))
			return -EINVAL;
		memcpy(addr, &a6, 16);
		*family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

int ul_ip_pton(const char *str, size_t len, int *family, uint8_t addr[16])
{
	return ip_pton(str, len, false, family, addr);
}

/* ul_nid_addr_parse(); is_lnet as for ip_pton(). */
static int addr_parse(const struct ul_lnd_info *lnd, const char *str,
		      size_t len, bool is_lnet, struct ulnet_nid *nid,
		      char *errbuf, size_t errlen)
{
	uint8_t bytes[16];
	uint32_t v = 0;
	bool ok = false;
	int family, i;

	memset(nid->nid_addr, 0, sizeof(nid->nid_addr));
	nid->nid_size = 0;
	switch (lnd->kind) {
	case UL_ADDR_KIND_LO:
		ok = scan_num_addr(str, len, &v) && v == 0;
		break;
	case UL_ADDR_KIND_NUM:
		ok = scan_num_addr(str, len, &v);
		break;
	case UL_ADDR_KIND_IP4:
		ok = scan_ip4_dec(str, len, &v);
		break;
	case UL_ADDR_KIND_IP46:
		if (ip_pton(str, len, is_lnet, &family, bytes) != 0)
			break;
		for (i = 0; i < (family == AF_INET ? 1 : 4); i++) {
			uint32_t w;

			memcpy(&w, bytes + 4 * i, 4);
			nid->nid_addr[i] = ntohl(w);
		}
		nid->nid_size = family == AF_INET ? 0 : 12;
		return 0;
	}
	if (!ok) {
		errf(errbuf, errlen, "invalid address '%.*s' for net type %s",
		     (int)len, str, lnd->name);
		return -EINVAL;
	}
	nid->nid_addr[0] = v;
	return 0;
}

int ul_nid_addr_parse(const struct ul_lnd_info *lnd, const char *str,
		      size_t len, struct ulnet_nid *nid, char *errbuf,
		      size_t errlen)
{
	return addr_parse(lnd, str, len, false, nid, errbuf, errlen);
}

/*
 * Parse a net name str[0..len); whole is the full input, quoted in errors.
 */
static int net_parse(const char *str, size_t len, const char *whole,
		     const struct ul_lnd_info **lndp, uint32_t *net,
		     char *errbuf, size_t errlen)
{
	const struct ul_lnd_info *lnd = ul_lnd_by_prefix(str, len);
	size_t n, pos;
	uint32_t num = 0;

	if (!lnd) {
		errf(errbuf, errlen, "unknown net type '%.*s' in '%s'",
		     (int)len, str, whole);
		return -EINVAL;
	}
	n = strlen(lnd->name);
	if (len > n) {
		if (lnd->type == ULNET_LND_LO) {
			errf(errbuf, errlen,
			     "net lo takes no net number in '%s'", whole);
			return -EINVAL;
		}
		pos = n;
		if (!scan_dec(str, len, &pos, UL_NET_NUM_MAX, &num) ||
		    pos != len) {
			errf(errbuf, errlen,
			     "invalid net number '%.*s' in '%s' (0-%u)",
			     (int)(len - n), str + n, whole, UL_NET_NUM_MAX);
			return -EINVAL;
		}
	}
	*lndp = lnd;
	*net = ulnet_net_make(lnd->type, num);
	return 0;
}

int ulnet_net_parse(const char *str, uint32_t *net, char *errbuf, size_t errlen)
{
	const struct ul_lnd_info *lnd;

	if (!str) {
		errf(errbuf, errlen, "no net given");
		return -EINVAL;
	}
	return net_parse(str, strlen(str), str, &lnd, net, errbuf, errlen);
}

/* ulnet_nid_parse(); is_lnet as for ip_pton(). */
static int nid_parse(const char *str, bool is_lnet, struct ulnet_nid *nid,
		     char *errbuf, size_t errlen)
{
	const struct ul_lnd_info *lnd;
	struct ulnet_nid tmp;
	const char *at;
	size_t alen;
	uint32_t net;
	int rc;

	if (!str) {
		errf(errbuf, errlen, "no NID given");
		return -EINVAL;
	}
	at = strchr(str, '@');
	if (at) {
		rc = net_parse(at + 1, strlen(at + 1), str, &lnd, &net, errbuf,
			       errlen);
		if (rc)
			return rc;
		alen = (size_t)(at - str);
	} else {
		/* A bare address is a tcp0 NID, as in LNet. */
		lnd = ul_lnd_by_type(ULNET_LND_SOCK);
		net = ulnet_net_make(ULNET_LND_SOCK, 0);
		alen = strlen(str);
	}
	memset(&tmp, 0, sizeof(tmp));
	rc = addr_parse(lnd, str, alen, is_lnet, &tmp, errbuf, errlen);
	if (rc)
		return rc;
	tmp.nid_type = (uint8_t)ulnet_net_type(net);
	tmp.nid_num = (uint16_t)ulnet_net_num(net);
	*nid = tmp;
	return 0;
}

int ulnet_nid_parse(const char *str, struct ulnet_nid *nid, char *errbuf,
		    size_t errlen)
{
	return nid_parse(str, false, nid, errbuf, errlen);
}

int ul_nid_parse_lnet(const char *str, struct ulnet_nid *nid)
{
	/* libcfs_strnid(): "<?>" alone is the ANY NID. */
	if (str && strcmp(str, "<?>") == 0) {
		ulnet_nid_set_any(nid);
		return 0;
	}
	return nid_parse(str, true, nid, NULL, 0);
}

char *ulnet_net_format(uint32_t net, char *buf, size_t len)
{
	const struct ul_lnd_info *lnd = ul_lnd_by_type(ulnet_net_type(net));
	unsigned int num = ulnet_net_num(net);

	if (!buf || len == 0)
		return buf;
	if (!lnd)
		snprintf(buf, len, "<%u:%u>", ulnet_net_type(net), num);
	else if (num == 0)
		snprintf(buf, len, "%s", lnd->name);
	else
		snprintf(buf, len, "%s%u", lnd->name, num);
	return buf;
}

/* Unknown LND (or unprintable size): address words in hex, "@<type:num>". */
static void format_raw(const struct ulnet_nid *nid, char *buf, size_t len)
{
	size_t words = ((size_t)nid->nid_size + 4 + 3) / 4, i, off = 0;
	int n;

	if (words > 4)
		words = 4;
	buf[0] = '\0';
	for (i = 0; i < words && off < len; i++) {
		n = snprintf(buf + off, len - off, "%s%x", i ? ":" : "",
			     nid->nid_addr[i]);
		if (n < 0)
			return;
		off += (size_t)n;
	}
	if (off < len)
		snprintf(buf + off, len - off, "@<%u:%u>", nid->nid_type,
			 nid->nid_num);
}

char *ulnet_nid_format(const struct ulnet_nid *nid, char *buf, size_t len)
{
	const struct ul_lnd_info *lnd;
	char addr[INET6_ADDRSTRLEN];
	char net[ULNET_NIDSTR_SIZE];
	uint32_t be[4];
	int i;

	if (!buf || len == 0)
		return buf;
	if (ulnet_nid_is_any(nid)) {
		snprintf(buf, len, "<?>");
		return buf;
	}
	lnd = ul_lnd_by_type(nid->nid_type);
	if (!lnd || (ul_lnd_is_ip(lnd) && nid->nid_size != 0 &&
		     (nid->nid_size != 12 || lnd->kind != UL_ADDR_KIND_IP46))) {
		format_raw(nid, buf, len);
		return buf;
	}
	if (ul_lnd_is_ip(lnd)) {
		for (i = 0; i < 4; i++)
			be[i] = htonl(nid->nid_addr[i]);
		inet_ntop(nid->nid_size ? AF_INET6 : AF_INET, be, addr,
			  sizeof(addr));
	} else {
		snprintf(addr, sizeof(addr), "%u", nid->nid_addr[0]);
	}
	ulnet_net_format(ulnet_nid_net(nid), net, sizeof(net));
	snprintf(buf, len, "%s@%s", addr, net);
	return buf;
}

bool ulnet_nid_is_any(const struct ulnet_nid *nid)
{
	/*
	 * LNET_NID_IS_ANY (lnet-types.h) compares nid_type alone, and
	 * libcfs_nidstr_r() and lnet_nid_to_nid4() go by it: no LND has
	 * type 0xff, so a NID of that type is the wildcard whatever its
	 * other fields hold. LNET_ANY_NID itself is every byte 0xff.
	 */
	return nid->nid_type == ULNET_LND_ANY;
}

void ulnet_nid_set_any(struct ulnet_nid *nid)
{
	memset(nid, 0xff, sizeof(*nid));
}

bool ulnet_nid_same(const struct ulnet_nid *a, const struct ulnet_nid *b)
{
	return ulnet_nid_cmp(a, b) == 0;
}

#define CMP(x, y) ((x) < (y) ? -1 : (x) > (y) ? 1 : 0)

int ulnet_nid_cmp(const struct ulnet_nid *a, const struct ulnet_nid *b)
{
	int i, c;

	/* Field order and widths are the wire form's, so this is bytewise. */
	c = CMP(a->nid_size, b->nid_size);
	if (!c)
		c = CMP(a->nid_type, b->nid_type);
	if (!c)
		c = CMP(a->nid_num, b->nid_num);
	for (i = 0; !c && i < 4; i++)
		c = CMP(a->nid_addr[i], b->nid_addr[i]);
	return c;
}

int ulnet_nid_to_nid4(const struct ulnet_nid *nid, uint64_t *nid4)
{
	if (ulnet_nid_is_any(nid)) {
		*nid4 = ULNET_NID4_ANY;
		return 0;
	}
	/* Only a 4-byte address fits; words 1..3 set would be dropped. */
	if (nid->nid_size != 0 || nid->nid_addr[1] || nid->nid_addr[2] ||
	    nid->nid_addr[3])
		return -EOVERFLOW;
	*nid4 = ((uint64_t)nid->nid_type << 48) |
		((uint64_t)nid->nid_num << 32) | nid->nid_addr[0];
	return 0;
}

int ulnet_nid_from_nid4(uint64_t nid4, struct ulnet_nid *nid)
{
	if (nid4 == ULNET_NID4_ANY) {
		ulnet_nid_set_any(nid);
		return 0;
	}
	/*
	 * Bits 63..56 are always 0 (wire.md §3.1). LNet ignores them; a
	 * value we could not give back bit for bit is refused instead.
	 */
	if (nid4 >> 56)
		return -EINVAL;
	/*
	 * Type 0xff means ANY (LNET_NID_IS_ANY), and ANY has one 64-bit form:
	 * all ones. Any other value of that type could not be given back.
	 */
	if ((nid4 >> 48) == ULNET_LND_ANY)
		return -EINVAL;
	memset(nid, 0, sizeof(*nid));
	nid->nid_type = (uint8_t)(nid4 >> 48);
	nid->nid_num = (uint16_t)(nid4 >> 32);
	nid->nid_addr[0] = (uint32_t)nid4;
	return 0;
}
