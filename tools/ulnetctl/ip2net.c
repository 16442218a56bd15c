/*
 * `net add --ip2net RULES` (reference/lnetctl.md §6.1): LNet's legacy
 * ip2nets string, "tcp(eth0,eth1) 192.168.0.[2,4]; tcp1 10.0.*.*",
 * evaluated as LNet's config.c does it (lnet_match_networks, then
 * lnet_parse_networks):
 *
 *  - entries are split at ';' and line ends, '#' starts a comment;
 *  - an entry is a net spec and address patterns; it matches when one of
 *    its patterns matches one local address (every IPv4 address of an up
 *    interface that is not a loopback one); an entry without patterns
 *    matches nothing;
 *  - a net spec names one or more nets, "tcp(eth0[1],eth1)[0],tcp2",
 *    each with the interfaces LNet starts NIs on once the entry matched
 *    (all of them, whatever their own addresses), in that order; a net
 *    without interfaces gets one NI on the first local interface; a net
 *    that two matching entries name gets the NIs of both;
 *  - a bad pattern or spec anywhere refuses the whole string (-EINVAL),
 *    no match at all is -ENOENT;
 *  - then each net is added with all its NIs or none, in order, until
 *    one fails; the nets before it stay.
 *
 * The interfaces are those of ulnetctl's network namespace: LNet looks
 * at the kernel's, and ulnetd is expected to run beside ulnetctl.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/conf.h"
#include "ctl/conf_host.h"
#include "nid/expr.h"
#include "util/err.h"

#include "cmd.h"
#include "ctl.h"

#define NETS_MAX 32

/* A net LNet would add, with its NIs as "eth0[1]" in rule order. */
struct ip2net_net {
	char name[UL_CTL_NET_NAME_MAX];
	uint32_t id;
	char ifs[UL_CTL_ARGS_IFS_MAX][UL_CTL_IFNAME_MAX];
	size_t nifs;
};

struct ip2net {
	struct ul_conf_ifaddr *addrs; /* the local addresses LNet matches */
	size_t naddrs;
	struct ip2net_net nets[NETS_MAX];
	size_t nnets;
	unsigned int nmatched; /* entries that matched */
};

/* One address pattern, "192.168.*.[1-9/2]": -EINVAL unless IPv4 octets. */
static int match_pattern(const struct ip2net *x, const char *w, bool *matched)
{
	struct ul_conf_ip_range r;
	size_t i;
	int rc;

	rc = ul_conf_parse_ip_range(w, &r, NULL);
	if (rc)
		return -EINVAL;
	for (i = 0; !r.is_ipv6 && i < x->naddrs; i++)
		*matched |= ul_expr_match_octets(r.oct, x->addrs[i].ipv4);
	rc = r.is_ipv6 ? -EINVAL : 0;
	ul_conf_ip_range_fini(&r);
	return rc;
}

/* The net named at the start of spec ("tcp1(eth0)[2]"); ANY if none. */
static uint32_t spec_net(const char *spec, size_t len)
{
	char name[UL_CTL_NET_NAME_MAX];
	size_t n = strcspn(spec, " \t\v\r\n:()[],");
	uint32_t net;

	if (n > len || n >= sizeof(name))
		return ULNET_NET_ANY;
	memcpy(name, spec, n);
	name[n] = '\0';
	if (ulnet_net_parse(name, &net, NULL, 0))
		return ULNET_NET_ANY;
	return net;
}

static struct ip2net_net *net_get(struct ip2net *x, const char *name,
				  uint32_t id)
{
	size_t i;

	for (i = 0; i < x->nnets; i++)
		if (x->nets[i].id == id)
			return &x->nets[i];
	if (x->nnets == NETS_MAX || strlen(name) >= sizeof(x->nets[0].name))
		return NULL;
	snprintf(x->nets[x->nnets].name, sizeof(x->nets[0].name), "%s", name);
	x->nets[x->nnets].id = id;
	return &x->nets[x->nnets++];
}

static int ni_add(struct ip2net_net *net, const char *ifname, const char *cpt)
{
	int n;

	if (!*ifname || net->nifs == UL_CTL_ARGS_IFS_MAX)
		return -EINVAL;
	n = snprintf(net->ifs[net->nifs], UL_CTL_IFNAME_MAX, "%s%s", ifname,
		     cpt);
	if (n < 0 || n >= UL_CTL_IFNAME_MAX)
		return -EINVAL;
	net->nifs++;
	return 0;
}

/* A "[...]" at *p: copied to cpt (empty when absent); -EINVAL if open. */
static int take_cpt(char **p, char *cpt, size_t size)
{
	char *close;
	struct ul_expr *e = NULL;

	cpt[0] = '\0';
	if (**p != '[')
		return 0;
	close = strchr(*p, ']');
	if (!close || (size_t)(close + 1 - *p) >= size)
		return -EINVAL;
	memcpy(cpt, *p, (size_t)(close + 1 - *p));
	cpt[close + 1 - *p] = '\0';
	if (ul_conf_parse_cpt(cpt, &e, NULL))
		return -EINVAL;
	ul_expr_free(e);
	*p = close + 1;
	return 0;
}

/*
 * One net of a matched spec, "<name>[(<if>[<cpt>],...)][<cpt>]", as
 * lnet_parse_networks reads it: its NIs join the net's list.
 */
static int parse_net(struct ip2net *x, char *spec)
{
	char cpt[UL_CTL_IFNAME_MAX], ifcpt[UL_CTL_IFNAME_MAX];
	char *p, *list = NULL, *name_end, *if_end;
	struct ip2net_net *net;
	bool is_last;
	uint32_t id;

	p = spec + strcspn(spec, " \t\v\r\n:()[],");
	name_end = p;
	if (*p == '(') {
		list = p + 1;
		p = strchr(list, ')');
		if (!p)
			return -EINVAL;
		*p++ = '\0';
	}
	if (take_cpt(&p, cpt, sizeof(cpt)) || *p)
		return -EINVAL;
	*name_end = '\0';
	if (ulnet_net_parse(spec, &id, NULL, 0) || id == ULNET_NET_ANY)
		return -EINVAL;
	if (ulnet_net_type(id) == ULNET_LND_LO)
		return 0; /* LNet: loopback is implicit, there is one */
	net = net_get(x, spec, id);
	if (!net)
		return -EINVAL;
	if (!list) /* LNet's NI without interface: the first one it has */
		return ni_add(net, x->addrs[0].ifname, cpt);
	for (;;) {
		p = list + strcspn(list, " \t\v\r\n[],");
		if_end = p;
		if (take_cpt(&p, ifcpt, sizeof(ifcpt)) ||
		    (*p != ',' && *p != '\0'))
			return -EINVAL;
		is_last = *p == '\0';
		*if_end = '\0';
		if (ni_add(net, list, ifcpt[0] ? ifcpt : cpt))
			return -EINVAL;
		if (is_last)
			return 0;
		list = p + 1;
	}
}

/*
 * A matched entry's net spec, split into nets at the commas outside
 * parentheses (lnet_splitnets): a net named twice in it is refused.
 */
static int parse_spec(struct ip2net *x, char *spec)
{
	uint32_t seen[NETS_MAX];
	size_t nseen = 0, i;
	char *p = spec, *next;
	int depth = 0, rc;

	for (;;) {
		for (next = p; *next && (*next != ',' || depth); next++)
			depth += *next == '(' ? 1 : *next == ')' ? -1 : 0;
		seen[nseen] = spec_net(p, (size_t)(next - p));
		if (seen[nseen] == ULNET_NET_ANY)
			return -EINVAL;
		for (i = 0; i < nseen; i++)
			if (seen[i] == seen[nseen])
				return -EINVAL;
		if (++nseen == NETS_MAX)
			return -EINVAL;
		if (*next)
			*next++ = '\0';
		else
			next = NULL;
		rc = parse_net(x, p);
		if (rc || !next)
			return rc;
		p = next;
	}
}

/* One entry: its net spec and address patterns (whitespace between). */
static int do_entry(struct ip2net *x, char *text)
{
	char *save = NULL, *spec, *w;
	bool matched = false;
	int rc = 0;

	spec = strtok_r(text, " \t\v\r\n\f", &save);
	if (!spec)
		return 0;
	while (!rc && (w = strtok_r(NULL, " \t\v\r\n\f", &save)))
		rc = match_pattern(x, w, &matched);
	if (rc || !matched)
		return rc;
	x->nmatched++;
	return parse_spec(x, spec);
}

static int match_all(struct ip2net *x, const char *rules)
{
	const char *p = rules, *sep;
	char *text;
	int rc = 0;

	while (!rc && *p) {
		sep = p + strcspn(p, ";\r\n#");
		text = strndup(p, (size_t)(sep - p));
		rc = text ? do_entry(x, text) : -ENOMEM;
		free(text);
		if (*sep == '#')
			sep += strcspn(sep, ";\r\n");
		p = *sep ? sep + 1 : sep;
	}
	if (!rc && !x->nmatched)
		rc = -ENOENT;
	return rc;
}

/*
 * One net's add, all its NIs or none. LNet reports every refusal (the NI
 * exists, the interface is down, ...) as "cannot setup ip2nets" with its
 * errno; a socket failure keeps its own words.
 */
static int add_net(const struct ip2net_net *net)
{
	struct ul_ctl_args *a = calloc(1, sizeof(*a));
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	int rc;

	if (!a)
		return ulnetctl_d1("add", "net", -ENOMEM, NULL);
	snprintf(a->net, sizeof(a->net), "%s", net->name);
	memcpy(a->ifs, net->ifs, sizeof(a->ifs));
	a->nifs = net->nifs;
	a->has = UL_CTL_ARG_NET | UL_CTL_ARG_IFS;
	a->flags = UL_CTL_ARGF_IP2NET;
	rc = ulnetctl_call(UL_CTL_OP_NET_ADD, a, ULNETCTL_CTL_TIMEOUT_MS,
			   &reply, &err);
	free(a);
	if (rc)
		return ulnetctl_d1("add", "net", rc, err.msg);
	if (reply.rc)
		rc = ulnetctl_d1("add", "net", reply.rc,
				 "cannot setup ip2nets");
	ul_ctl_reply_fini(&reply);
	return rc;
}

int ulnetctl_net_add_ip2net(const char *rules)
{
	struct ip2net *x = calloc(1, sizeof(*x));
	struct ul_conf_ifaddr *ifs = NULL;
	size_t nifs = 0, i;
	int rc;

	rc = x ? ul_conf_host_ifaddrs(&ifs, &nifs) : -ENOMEM;
	if (rc == 0) {
		x->addrs = ifs;
		for (i = 0; i < nifs; i++)
			if (!ifs[i].is_loopback)
				ifs[x->naddrs++] = ifs[i];
		/* LNet: no interface to match is "no match" (-ENOENT). */
		rc = x->naddrs ? match_all(x, rules) : -ENOENT;
	}
	if (rc) {
		rc = ulnetctl_d1("add", "net", rc, "cannot setup ip2nets");
		goto out;
	}
	for (i = 0; i < x->nnets && rc == 0; i++)
		rc = add_net(&x->nets[i]);
out:
	free(ifs);
	free(x);
	return rc;
}
