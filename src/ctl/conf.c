/*
 * The lnet.conf model (conf.h): setting up and freeing it, reading a
 * file, and the value checks shared by the YAML parser and the CLI.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "ctl/conf.h"
#include "ctl/conf_walk.h"

void ul_conf_init(struct ul_conf *conf)
{
	memset(conf, 0, sizeof(*conf));
}

static void lnd_tunables_fini(struct ul_conf_lnd_tunables *t)
{
	size_t i;

	for (i = 0; i < t->nr_other; i++)
		free(t->other[i].key);
	free(t->other);
}

static void nis_free(struct ul_conf_ni *nis, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		ul_expr_free(nis[i].cpt);
	free(nis);
}

void ul_conf_ip_range_fini(struct ul_conf_ip_range *r)
{
	int i;

	for (i = 0; i < 4; i++)
		ul_expr_free(r->oct[i]);
	free(r->text);
	memset(r, 0, sizeof(*r));
}

void ul_conf_net_fini(struct ul_conf_net *net)
{
	struct ul_conf_ni_group *g;
	size_t i;

	for (i = 0; i < net->nr_groups; i++) {
		g = &net->groups[i];
		nis_free(g->nis, g->nr_nis);
		lnd_tunables_fini(&g->lnd_tunables);
		ul_expr_free(g->cpt);
	}
	free(net->groups);
	nis_free(net->nis, net->nr_nis);
	for (i = 0; i < net->nr_ranges; i++)
		ul_conf_ip_range_fini(&net->ranges[i]);
	free(net->ranges);
	lnd_tunables_fini(&net->lnd_tunables);
	ul_expr_free(net->cpt);
	memset(net, 0, sizeof(*net));
}

void ul_conf_route_fini(struct ul_conf_route *r)
{
	free(r->net_text);
	free(r->gateway_text);
	memset(r, 0, sizeof(*r));
}

void ul_conf_peer_fini(struct ul_conf_peer *p)
{
	free(p->nis);
	memset(p, 0, sizeof(*p));
}

void ul_conf_udsp_fini(struct ul_conf_udsp *u)
{
	free(u->src);
	free(u->dst);
	free(u->rte);
	memset(u, 0, sizeof(*u));
}

void ul_conf_fini(struct ul_conf *conf)
{
	size_t i;

	for (i = 0; i < conf->nr_nets; i++)
		ul_conf_net_fini(&conf->nets[i]);
	free(conf->nets);
	for (i = 0; i < conf->nr_ip2nets; i++)
		ul_conf_net_fini(&conf->ip2nets[i]);
	free(conf->ip2nets);
	for (i = 0; i < conf->nr_routes; i++)
		ul_conf_route_fini(&conf->routes[i]);
	free(conf->routes);
	for (i = 0; i < conf->nr_peers; i++)
		ul_conf_peer_fini(&conf->peers[i]);
	free(conf->peers);
	for (i = 0; i < conf->nr_udsps; i++)
		ul_conf_udsp_fini(&conf->udsps[i]);
	free(conf->udsps);
	free(conf->steps);
	free(conf->warnings);
	memset(conf, 0, sizeof(*conf));
}

int ul_conf_load_file(const char *path, char **text, size_t *len,
		      struct ul_err *err)
{
	struct stat st;
	size_t got;
	char *buf;
	FILE *f;
	int rc;

	*text = NULL;
	*len = 0;
	f = fopen(path, "rb");
	if (!f) {
		rc = errno ? -errno : -EIO;
		return ul_err_set(err, rc, "cannot open '%s': %s", path,
				  strerror(-rc));
	}
	rc = -EINVAL;
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size > UL_CONF_MAX_BYTES) {
		ul_err_fmt(err, rc, "'%s' is larger than %d bytes", path,
			   UL_CONF_MAX_BYTES);
		goto close_file;
	}
	/* One byte more than allowed tells a file that is too long. */
	rc = -ENOMEM;
	buf = malloc(UL_CONF_MAX_BYTES + 2);
	if (!buf) {
		ul_err_fmt(err, rc, "out of memory");
		goto close_file;
	}
	errno = 0;
	got = fread(buf, 1, UL_CONF_MAX_BYTES + 1, f);
	if (ferror(f)) {
		/* a directory opens, and reading it fails (EISDIR) */
		rc = errno ? -errno : -EIO;
		ul_err_fmt(err, rc, "cannot read '%s': %s", path,
			   strerror(-rc));
		goto free_buf;
	}
	if (got > UL_CONF_MAX_BYTES) {
		rc = -EINVAL;
		ul_err_fmt(err, rc, "'%s' is larger than %d bytes", path,
			   UL_CONF_MAX_BYTES);
		goto free_buf;
	}
	buf[got] = '\0';
	*text = buf;
	*len = got;
	fclose(f);
	return 0;

free_buf:
	free(buf);
close_file:
	fclose(f);
	return rc;
}

int ul_conf_parse_file(const char *path, struct ul_conf *conf,
		       struct ul_err *err)
{
	size_t len = 0;
	char *text;
	int rc;

	rc = ul_conf_load_file(path, &text, &len, err);
	if (rc)
		return rc;
	rc = ul_conf_parse(text, len, conf, err);
	free(text);
	return rc;
}

int ul_conf_parse(const char *text, size_t len, struct ul_conf *conf,
		  struct ul_err *err)
{
	struct ul_conf tmp;
	int rc;

	ul_conf_init(&tmp);
	rc = ul_conf_read(text, len, UL_CONF_NETLINK, &tmp, err);
	if (rc == 0 && tmp.refusal.is_set)
		rc = ul_err_set(err, -EINVAL, "%s", tmp.refusal.where);
	if (rc) {
		ul_conf_fini(&tmp);
		return rc;
	}
	ul_conf_fini(conf);
	*conf = tmp;
	return 0;
}

int ul_conf_parse_int(const char *s, long long min, long long max,
		      long long *out, struct ul_err *err)
{
	const char *p = s;
	long long v;
	char *end;

	if (*p == '-' || *p == '+')
		p++;
	if (!isdigit((unsigned char)*p))
		return ul_err_set(err, -EINVAL, "'%.64s' is not an integer", s);
	errno = 0;
	v = strtoll(s, &end, 0);
	if (*end != '\0')
		return ul_err_set(err, -EINVAL, "'%.64s' is not an integer", s);
	if (errno == ERANGE || v < min || v > max)
		return ul_err_set(err, -EINVAL,
				  "'%.64s' is out of range %lld..%lld", s, min,
				  max);
	*out = v;
	return 0;
}

int ul_conf_parse_bool(const char *s, bool *out, struct ul_err *err)
{
	static const char *const yes[] = { "yes", "true", "on", "y" };
	static const char *const no[] = { "no", "false", "off", "n" };
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return ul_err_set(err, -EINVAL, "'%.64s': invalid MR flag param", s);
}

int ul_conf_parse_cpt(const char *s, struct ul_expr **out, struct ul_err *err)
{
	struct ul_err why;
	int rc;

	rc = ul_expr_parse(s, strlen(s), 0, UL_CONF_CPT_MAX, out, &why);
	if (rc == -EINVAL)
		return ul_err_set(err, rc, "Unable to parse CPT '%.64s': %s", s,
				  why.msg);
	if (rc)
		return ul_err_set(err, rc, "%s", why.msg);
	return 0;
}

int ul_conf_parse_ifname(const char *s, char ifname[UL_CONF_IFNAME_SIZE],
			 struct ul_expr **cpt, struct ul_err *err)
{
	const char *open = strchr(s, '[');
	size_t n = open ? (size_t)(open - s) : strlen(s);
	struct ul_expr *e = NULL;
	size_t i;
	int rc;

	if (n == 0)
		return ul_err_set(err, -EINVAL,
				  "'%.64s' does not start with an interface "
				  "name",
				  s);
	if (n >= UL_CONF_IFNAME_SIZE)
		return ul_err_set(err, -EINVAL,
				  "interface name '%.64s' is longer than %d "
				  "characters",
				  s, UL_CONF_IFNAME_SIZE - 1);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (isspace(c) || c == '/' || c == ']' || !isprint(c))
			return ul_err_set(err, -EINVAL,
					  "'%.64s' is not a valid interface "
					  "name",
					  s);
	}
	if (open) {
		rc = ul_conf_parse_cpt(open, &e, err);
		if (rc)
			return rc;
	}
	memcpy(ifname, s, n);
	ifname[n] = '\0';
	*cpt = e;
	return 0;
}

static int parse_ipv6_range(const char *s, struct ul_conf_ip_range *out,
			    struct ul_err *err)
{
	const char *slash = strchr(s, '/');
	size_t n = slash ? (size_t)(slash - s) : strlen(s);
	char addr[INET6_ADDRSTRLEN];
	unsigned char bytes[16];
	long long prefix = 128;
	struct ul_err why;
	int i;

	if (n >= sizeof(addr))
		return ul_err_set(err, -EINVAL,
				  "'%.64s' is not an IPv6 address", s);
	memcpy(addr, s, n);
	addr[n] = '\0';
	if (inet_pton(AF_INET6, addr, bytes) != 1)
		return ul_err_set(err, -EINVAL,
				  "'%.64s' is not an IPv6 address", s);
	if (slash) {
		/* Decimal only, as LNet reads a prefix length. */
		for (i = 1; slash[i]; i++)
			if (!isdigit((unsigned char)slash[i]))
				break;
		if (slash[i] || i == 1 ||
		    ul_conf_parse_int(slash + 1, 1, 128, &prefix, &why))
			return ul_err_set(err, -EINVAL,
					  "prefix length of '%.64s' is not "
					  "1..128",
					  s);
	}
	out->is_ipv6 = true;
	for (i = 0; i < 4; i++)
		out->addr6[i] = (uint32_t)bytes[4 * i] << 24 |
				(uint32_t)bytes[4 * i + 1] << 16 |
				(uint32_t)bytes[4 * i + 2] << 8 |
				bytes[4 * i + 3];
	out->prefix_len = (unsigned int)prefix;
	return 0;
}

int ul_conf_parse_ip_range(const char *s, struct ul_conf_ip_range *out,
			   struct ul_err *err)
{
	struct ul_conf_ip_range r;
	int rc;

	memset(&r, 0, sizeof(r));
	if (strchr(s, ':'))
		rc = parse_ipv6_range(s, &r, err);
	else
		rc = ul_expr_parse_octets(s, strlen(s), r.oct, err);
	if (rc)
		return rc;
	r.text = strdup(s);
	if (!r.text) {
		ul_conf_ip_range_fini(&r);
		return ul_err_set(err, -ENOMEM, "out of memory");
	}
	*out = r;
	return 0;
}

static const char *const global_names[UL_CONF_GLOBAL_NR] = {
	[UL_CONF_GLOBAL_NUMA_RANGE] = "numa_range",
	[UL_CONF_GLOBAL_MAX_INTERFACES] = "max_interfaces",
	[UL_CONF_GLOBAL_DISCOVERY] = "discovery",
	[UL_CONF_GLOBAL_DROP_ASYM_ROUTE] = "drop_asym_route",
	[UL_CONF_GLOBAL_RETRY_COUNT] = "retry_count",
	[UL_CONF_GLOBAL_TRANSACTION_TIMEOUT] = "transaction_timeout",
	[UL_CONF_GLOBAL_HEALTH_SENSITIVITY] = "health_sensitivity",
	[UL_CONF_GLOBAL_RECOVERY_INTERVAL] = "recovery_interval",
	[UL_CONF_GLOBAL_ROUTER_SENSITIVITY] = "router_sensitivity",
	[UL_CONF_GLOBAL_RESPONSE_TRACKING] = "response_tracking",
	[UL_CONF_GLOBAL_RECOVERY_LIMIT] = "recovery_limit",
	[UL_CONF_GLOBAL_MAX_RECOVERY_PING_INTERVAL] =
		"max_recovery_ping_interval",
};

int ul_conf_global_lookup(const char *name)
{
	int i;

	if (strcmp(name, "max_intf") == 0)
		return UL_CONF_GLOBAL_MAX_INTERFACES;
	for (i = 0; i < UL_CONF_GLOBAL_NR; i++)
		if (strcmp(name, global_names[i]) == 0)
			return i;
	return -EINVAL;
}

const char *ul_conf_global_name(enum ul_conf_global_key key)
{
	if ((unsigned int)key >= UL_CONF_GLOBAL_NR)
		return NULL;
	return global_names[key];
}

const char *ul_conf_section_name(enum ul_conf_section sec)
{
	static const char *const names[UL_CONF_SEC_NR] = {
		[UL_CONF_SEC_NET] = "net",
		[UL_CONF_SEC_IP2NETS] = "ip2nets",
		[UL_CONF_SEC_ROUTE] = "route",
		[UL_CONF_SEC_PEER] = "peer",
		[UL_CONF_SEC_ROUTING] = "routing",
		[UL_CONF_SEC_BUFFERS] = "buffers",
		[UL_CONF_SEC_NUMA] = "numa",
		[UL_CONF_SEC_GLOBAL] = "global",
		[UL_CONF_SEC_UDSP] = "udsp",
	};

	if ((unsigned int)sec >= UL_CONF_SEC_NR)
		return NULL;
	return names[sec];
}
