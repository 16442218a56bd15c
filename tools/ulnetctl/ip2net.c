/*
 * `net add --ip2net RULES` (reference/lnetctl.md §6.1): LNet's legacy
 * ip2nets string, "tcp(eth0) 192.168.0.[2,4]; tcp1 10.0.*.*", evaluated
 * against this host's up IPv4 interfaces. Each rule names a net,
 * optionally the interfaces it may use, and address patterns; an
 * interface whose address matches a pattern joins that net, and the
 * first rule for a net wins. One net add is sent per net that matched.
 * The daemon runs on this host, so the host's interfaces are its.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/conf.h"
#include "ctl/conf_apply.h"
#include "nid/expr.h"
#include "util/err.h"

#include "cmd.h"
#include "ctl.h"

#define RULES_MAX 32
#define WORDS_MAX 16

struct rule {
	char net[UL_CTL_NET_NAME_MAX];
	char ifs[UL_CTL_ARGS_IFS_MAX][UL_CONF_IFNAME_SIZE];
	size_t nifs;
	struct ul_conf_ip_range ranges[WORDS_MAX];
	size_t nranges;
};

static void rule_fini(struct rule *r)
{
	size_t i;

	for (i = 0; i < r->nranges; i++)
		ul_conf_ip_range_fini(&r->ranges[i]);
}

/* "tcp1(eth0,eth1)" into the rule's net and interfaces. */
static int parse_spec(char *w, struct rule *r)
{
	char *open = strchr(w, '('), *save = NULL, *tok;

	if (open) {
		char *close = strchr(open, ')');

		if (!close || close[1])
			return -EINVAL;
		*close = '\0';
		*open = '\0';
		for (tok = strtok_r(open + 1, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			if (r->nifs == UL_CTL_ARGS_IFS_MAX ||
			    strlen(tok) >= UL_CONF_IFNAME_SIZE)
				return -EINVAL;
			snprintf(r->ifs[r->nifs++], UL_CONF_IFNAME_SIZE, "%s",
				 tok);
		}
	}
	if (!*w || strlen(w) >= sizeof(r->net))
		return -EINVAL;
	snprintf(r->net, sizeof(r->net), "%s", w);
	return 0;
}

static int parse_rule(char *text, struct rule *r)
{
	char *save = NULL, *w;
	int rc;

	memset(r, 0, sizeof(*r));
	w = strtok_r(text, " \t\n", &save);
	if (!w)
		return -ENOENT; /* an empty rule: skipped */
	rc = parse_spec(w, r);
	while (!rc && (w = strtok_r(NULL, " \t\n", &save))) {
		if (r->nranges == WORDS_MAX)
			return -EINVAL;
		rc = ul_conf_parse_ip_range(w, &r->ranges[r->nranges], NULL);
		if (!rc)
			r->nranges++;
	}
	return rc;
}

static bool rule_takes(const struct rule *r, const struct ul_conf_ifaddr *ifa)
{
	bool named = r->nifs == 0;
	size_t i;

	for (i = 0; i < r->nifs; i++)
		named |= strcmp(r->ifs[i], ifa->ifname) == 0;
	if (!named)
		return false;
	if (r->nranges == 0)
		return true;
	for (i = 0; i < r->nranges; i++)
		if (!r->ranges[i].is_ipv6 &&
		    ul_expr_match_octets(r->ranges[i].oct, ifa->ipv4))
			return true;
	return false;
}

/*
 * One matching net's add. LNet reports every refusal of an ip2nets rule
 * (the NI exists, the interface is down, ...) as "cannot setup ip2nets"
 * with its errno; a socket failure keeps its own words.
 */
static int ip2net_add(const struct ul_ctl_args *a)
{
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	int rc;

	rc = ulnetctl_call(UL_CTL_OP_NET_ADD, a, ULNETCTL_CTL_TIMEOUT_MS,
			   &reply, &err);
	if (rc)
		return ulnetctl_d1("add", "net", rc, err.msg);
	if (reply.rc)
		rc = ulnetctl_d1("add", "net", reply.rc,
				 "cannot setup ip2nets");
	ul_ctl_reply_fini(&reply);
	return rc;
}

int ulnetctl_net_add_ip2net(const char *rules, struct ul_ctl_args *a)
{
	struct ul_conf_ifaddr *ifs = NULL;
	char *copy = strdup(rules), *save = NULL, *text;
	struct rule *r = calloc(RULES_MAX, sizeof(*r));
	size_t nifs = 0, nr = 0, i, k, sent = 0;
	int rc;

	rc = (!copy || !r) ? -ENOMEM : ul_conf_host_ifaddrs(&ifs, &nifs);
	for (text = rc ? NULL : strtok_r(copy, ";", &save); text;
	     text = strtok_r(NULL, ";", &save)) {
		if (nr == RULES_MAX) {
			rc = -EINVAL;
			break;
		}
		rc = parse_rule(text, &r[nr]);
		if (rc == -ENOENT) {
			rc = 0;
			continue;
		}
		nr++;
		if (rc)
			break;
	}
	if (rc) {
		rc = ulnetctl_d1("add", "net", rc, "cannot setup ip2nets");
		goto out;
	}
	for (i = 0; i < nr && !rc; i++) {
		bool is_dup = false;

		for (k = 0; k < i; k++)
			is_dup |= strcmp(r[k].net, r[i].net) == 0;
		if (is_dup)
			continue; /* the first rule for a net wins */
		a->nifs = 0;
		for (k = 0; k < nifs && a->nifs < UL_CTL_ARGS_IFS_MAX; k++)
			if (rule_takes(&r[i], &ifs[k]))
				snprintf(a->ifs[a->nifs++], UL_CTL_IFNAME_MAX,
					 "%s", ifs[k].ifname);
		if (!a->nifs)
			continue;
		snprintf(a->net, sizeof(a->net), "%s", r[i].net);
		a->has |= UL_CTL_ARG_NET | UL_CTL_ARG_IFS;
		rc = ip2net_add(a);
		sent++;
	}
	if (!rc && !sent)
		rc = ulnetctl_d1("add", "net", -ENOENT, "cannot setup ip2nets");
out:
	for (i = 0; i < nr; i++)
		rule_fini(&r[i]);
	free(r);
	free(ifs);
	free(copy);
	return rc;
}
