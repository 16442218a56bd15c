/*
 * ulnetd: hosts one ulnet instance (one LNet node) and its control socket.
 *
 *   ulnetd [--config FILE.yaml] [--ctl SOCKET] [--ctl-group G]
 *          [--foreground] [--port N] [--accept secure|all|none]
 *          [--src-port auto|priv|any] [--cpts N] [--param NAME=V]...
 *          [--debug MASK] [--metrics ADDR:PORT]
 *
 * With no --config it brings up tcp on the first non-loopback interface,
 * as LNet does by default. It logs one line per event to stderr and shuts
 * down cleanly on SIGTERM or SIGINT: every message in flight ends with its
 * event, connections close, the control socket file is removed.
 *
 * Under systemd (Type=notify, dist/ulnetd.service) it tells the service
 * manager READY=1 once the node runs and its control socket takes
 * commands, and STOPPING=1 when it begins to shut down (libsystemd's
 * sd_notify; without libsystemd at build time, nothing is sent).
 *
 * Threads: main() blocks the signals it handles before any thread exists,
 * so they reach only its sigwait(); the instance has its own loop thread,
 * on which the control server runs too.
 */
#include <errno.h>
#include <grp.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/core.h"
#include "core/node.h"
#include "runtime/ctlsrv.h"
#include "metrics.h"
#ifdef ULNET_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif
#include "runtime/instance.h"
#include "runtime/params.h"
#include "runtime/perf.h"
#include "ulnet/ulnet.h"
#include "util/err.h"
#include "util/log.h"

#define DEFAULT_CTL "/run/ulnet/ulnetd.ctl"

/* A state change for the service manager, if one listens (sd_notify). */
static void notify(const char *state)
{
#ifdef ULNET_HAVE_SYSTEMD
	(void)sd_notify(0, state);
#else
	(void)state;
#endif
}

static void log_line(void *ctx, const char *line)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_REALTIME, &ts);
	fprintf(stderr, "ulnetd[%d] %lld.%06ld %s\n", (int)getpid(),
		(long long)ts.tv_sec, ts.tv_nsec / 1000, line);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ulnetd [--config FILE.yaml] [--ctl SOCKET] "
		"[--ctl-group G] [--foreground]\n"
		"              [--port N] [--accept secure|all|none] "
		"[--src-port auto|priv|any]\n"
		"              [--cpts N] [--param NAME=V]... [--debug MASK] "
		"[--help]\n"
		"  --config FILE    lnet.conf (YAML) to import at start; "
		"without it, tcp on\n"
		"                   the first non-loopback interface\n"
		"  --ctl SOCKET     control socket path (default %s,\n"
		"                   or $ULNET_CTL)\n"
		"  --ctl-group G    members of group G (name or number) may "
		"use the\n"
		"                   control socket too (mode 0660)\n"
		"  --foreground     do not detach\n"
		"  --port N         acceptor port (default 988)\n"
		"  --accept MODE    who may connect: secure (source port "
		"< 1024, default),\n"
		"                   all, or none (no listener)\n"
		"  --src-port P     source ports of outgoing connections: "
		"auto (privileged\n"
		"                   when root, default), priv, any\n"
		"  --cpts N         CPU partitions to report (default: online "
		"CPUs,\n"
		"                   at most 64)\n"
		"  --param NAME=V   a module parameter, as modprobe takes it "
		"(repeatable):\n"
		"                   lnet.NAME or ksocklnd.NAME with the "
		"kernel's names, or\n"
		"                   ulnet.NAME (ulnet's own socklnd limits); a "
		"bare lnet\n"
		"                   NAME is taken too. `ulnetctl param get` "
		"lists them;\n"
		"                   e.g. ksocklnd.sock_timeout=100, "
		"lnet.router_ping_timeout=10\n"
		"  --debug MASK     what to log, as lctl's debug=: net, "
		"neterror, console,\n"
		"                   warning, error, info, all; +net adds "
		"per-message lines\n"
		"                   to the default (all but net), -info "
		"takes lines away\n"
		"  --metrics A:P    serve Prometheus metrics at "
		"http://A:P/metrics (off\n"
		"                   by default), e.g. 127.0.0.1:9469\n"
		"  --help           this text\n",
		DEFAULT_CTL);
}

#define MAX_PARAMS 32

struct daemon_args {
	const char *ctl;
	const char *metrics; /* --metrics ADDR:PORT, NULL: none */
	bool is_fg;
	const char *group; /* --ctl-group, NULL if not given */
	unsigned int ncpt;
	unsigned int nparams;
	struct {
		size_t id; /* runtime/params.h */
		long long value;
	} params[MAX_PARAMS];
};

/* --param NAME=VALUE: one module parameter, as modprobe would take it. */
static int parse_param(const char *s, struct daemon_args *d)
{
	const char *eq = strchr(s, '=');
	struct ul_err e = { 0 };
	char name[96], *end;
	long long v;
	int id;

	if (!eq || (size_t)(eq - s) >= sizeof(name)) {
		fprintf(stderr, "ulnetd: bad --param '%s': NAME=VALUE\n", s);
		return -EINVAL;
	}
	memcpy(name, s, (size_t)(eq - s));
	name[eq - s] = '\0';
	id = ul_params_find(name);
	if (id < 0) {
		fprintf(stderr,
			"ulnetd: --param '%s': not a module parameter ulnet "
			"models (see --help)\n",
			name);
		return -EINVAL;
	}
	errno = 0;
	v = strtoll(eq + 1, &end, 0);
	if (errno || *end || end == eq + 1) {
		fprintf(stderr, "ulnetd: --param %s: bad value '%s'\n", name,
			eq + 1);
		return -EINVAL;
	}
	/* Checked now, before ulnetd detaches and its status is lost. */
	if (ul_params_check((size_t)id, v, &e) < 0) {
		fprintf(stderr, "ulnetd: --param %s\n", e.msg);
		return -EINVAL;
	}
	if (d->nparams == MAX_PARAMS) {
		fprintf(stderr, "ulnetd: more than %d --param\n", MAX_PARAMS);
		return -EINVAL;
	}
	d->params[d->nparams].id = (size_t)id;
	d->params[d->nparams].value = v;
	d->nparams++;
	return 0;
}

/* Apply the --param values in order, before any NI starts. */
static int apply_params(struct ulnet *u, const struct daemon_args *d)
{
	struct ul_params_env env = { ul_instance_node(u),
				     ul_instance_socklnd(u),
				     ul_instance_loop(u) };
	struct ul_err e = { 0 };
	unsigned int i;

	for (i = 0; i < d->nparams; i++) {
		if (ul_params_set(&env, d->params[i].id, d->params[i].value,
				  false, &e) < 0) {
			fprintf(stderr, "ulnetd: --param: %s\n", e.msg);
			return -EINVAL;
		}
	}
	return 0;
}

static int parse_cpts(const char *s, unsigned int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 1 || v > 64) {
		fprintf(stderr, "ulnetd: bad --cpts '%s': 1 to 64\n", s);
		return -EINVAL;
	}
	*out = (unsigned int)v;
	return 0;
}

static int parse_args(int argc, char **argv, struct ulnet_opts *o,
		      struct daemon_args *d)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "ctl", required_argument, NULL, 's' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "port", required_argument, NULL, 'p' },
		{ "accept", required_argument, NULL, 'a' },
		{ "src-port", required_argument, NULL, 'P' },
		{ "ctl-group", required_argument, NULL, 'g' },
		{ "cpts", required_argument, NULL, 'C' },
		{ "param", required_argument, NULL, 'o' },
		{ "debug", required_argument, NULL, 'd' },
		{ "metrics", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end, bad[32];
	long v;
	int ch;

	while ((ch = getopt_long(argc, argv, "c:s:fp:a:P:g:C:o:d:m:h", longopts,
				 NULL)) != -1) {
		switch (ch) {
		case 'c':
			o->conf_path = optarg;
			break;
		case 's':
			d->ctl = optarg;
			break;
		case 'f':
			d->is_fg = true;
			break;
		case 'g':
			d->group = optarg;
			break;
		case 'm':
			d->metrics = optarg;
			break;
		case 'C':
			if (parse_cpts(optarg, &d->ncpt))
				return -EINVAL;
			break;
		case 'o':
			if (parse_param(optarg, d))
				return -EINVAL;
			break;
		case 'd':
			if (ul_log_mask_parse(optarg, UL_LOG_DEFAULT_MASK,
					      &o->log_mask, bad,
					      sizeof(bad)) < 0) {
				fprintf(stderr,
					"ulnetd: bad --debug '%s': unknown "
					"mask '%s' (net, neterror, console, "
					"warning, error, info, all)\n",
					optarg, bad);
				return -EINVAL;
			}
			if (!o->log_mask) {
				fprintf(stderr,
					"ulnetd: --debug '%s' leaves nothing "
					"to log\n",
					optarg);
				return -EINVAL;
			}
			break;
		case 'p':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || v < 1 || v > 65535) {
				fprintf(stderr, "ulnetd: bad port '%s'\n",
					optarg);
				return -EINVAL;
			}
			o->accept_port = (uint16_t)v;
			break;
		case 'a':
			if (strcmp(optarg, "secure") == 0)
				o->accept = ULNET_ACCEPT_SECURE;
			else if (strcmp(optarg, "all") == 0)
				o->accept = ULNET_ACCEPT_ALL;
			else if (strcmp(optarg, "none") == 0)
				o->accept = ULNET_ACCEPT_NONE;
			else {
				fprintf(stderr,
					"ulnetd: bad --accept '%s': secure, "
					"all or none\n",
					optarg);
				return -EINVAL;
			}
			break;
		case 'P':
			if (strcmp(optarg, "auto") == 0)
				o->src_port = ULNET_SRC_PORT_AUTO;
			else if (strcmp(optarg, "priv") == 0)
				o->src_port = ULNET_SRC_PORT_PRIVILEGED;
			else if (strcmp(optarg, "any") == 0)
				o->src_port = ULNET_SRC_PORT_ANY;
			else {
				fprintf(stderr,
					"ulnetd: bad --src-port '%s': auto, "
					"priv or any\n",
					optarg);
				return -EINVAL;
			}
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ulnetd: unexpected argument '%s'\n",
			argv[optind]);
		return -EINVAL;
	}
	return 0;
}

/*
 * Detach from the terminal: the parent exits once the child has set up
 * its session. stderr stays where the caller pointed it (the log).
 */
static int daemonize(void)
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid > 0)
		_exit(0);
	if (setsid() < 0)
		return -errno;
	if (!freopen("/dev/null", "r", stdin) ||
	    !freopen("/dev/null", "w", stdout))
		return -errno;
	return 0;
}

/* --ctl-group: a group name, or a number. */
static int parse_group(const char *s, gid_t *out)
{
	struct group gr, *grp = NULL;
	char buf[4096], *end;
	long v;

	if (getgrnam_r(s, &gr, buf, sizeof(buf), &grp) == 0 && grp) {
		*out = grp->gr_gid;
		return 0;
	}
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 0) {
		fprintf(stderr, "ulnetd: --ctl-group '%s': no such group\n", s);
		return -EINVAL;
	}
	*out = (gid_t)v;
	return 0;
}

int main(int argc, char **argv)
{
	struct ulnet_opts opts;
	struct ul_ctlsrv *srv = NULL;
	struct ul_metrics *metrics = NULL;
	struct ul_perf_sink *sink = NULL;
	bool is_started = false;
	struct ulnet *u = NULL;
	struct daemon_args d = { .ctl = getenv("ULNET_CTL") };
	const char *conf_path;
	struct ul_err e = { 0 };
	char err[256] = "";
	gid_t gid = 0;
	sigset_t sigs;
	int rc, sig;

	ulnet_opts_init(&opts);
	opts.log = log_line;
	if (!d.ctl || !*d.ctl)
		d.ctl = DEFAULT_CTL;
	if (parse_args(argc, argv, &opts, &d) < 0)
		return 2;
	if (d.group && parse_group(d.group, &gid) < 0)
		return 2;
	if (!d.ncpt) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		d.ncpt = n < 1 ? 1 : n > 64 ? 64 : (unsigned int)n;
	}
	/*
	 * The file goes through the control server, as `ulnetctl import`
	 * sends it (ul_ctlsrv_apply_conf()); the instance starts bare.
	 */
	conf_path = opts.conf_path;
	opts.conf_path = NULL;
	opts.is_default_net = !conf_path;
	if (!d.is_fg && daemonize() < 0) {
		fprintf(stderr, "ulnetd: cannot detach: %s\n", strerror(errno));
		return 1;
	}

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	rc = ulnet_create(&opts, &u, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "ulnetd: cannot configure: %s\n", err);
		return 1;
	}
	rc = apply_params(u, &d);
	if (rc < 0)
		goto out;
	rc = ul_ctlsrv_create(ul_instance_loop(u), ul_instance_node(u), d.ctl,
			      ul_instance_log(u), &srv);
	if (rc < 0) {
		fprintf(stderr, "ulnetd: control socket %s: %s\n", d.ctl,
			ulnet_strerror(rc));
		goto out;
	}
	ul_ctlsrv_set_udsp(srv, ul_instance_udsp(u));
	ul_ctlsrv_set_socklnd(srv, ul_instance_socklnd(u));
	ul_ctlsrv_set_ncpt(srv, d.ncpt);
	ul_ctlsrv_set_default_net(srv, !conf_path);
	rc = ul_ctlsrv_set_conf_path(srv, conf_path);
	if (rc == 0 && d.group)
		rc = ul_ctlsrv_set_group(srv, gid);
	if (rc < 0) {
		fprintf(stderr, "ulnetd: control socket %s: %s\n", d.ctl,
			ulnet_strerror(rc));
		goto out;
	}
	rc = ul_ctlsrv_apply_conf(srv, &e);
	if (rc < 0) {
		fprintf(stderr, "ulnetd: cannot configure: %s\n", e.msg);
		goto out;
	}
	/* Every ulnetd serves `ulnetctl selftest` and `perf put` streams. */
	rc = ul_perf_sink_create(ul_instance_node(u), &sink);
	if (rc < 0) {
		fprintf(stderr, "ulnetd: perf sink: %s\n", ulnet_strerror(rc));
		goto out;
	}
	ul_ctlsrv_set_perf_sink(srv, sink);
	if (d.metrics) {
		rc = ul_metrics_create(ul_instance_loop(u), srv, d.metrics,
				       &metrics, &e);
		if (rc < 0) {
			fprintf(stderr, "ulnetd: %s\n", e.msg);
			goto out;
		}
	}
	rc = ulnet_start(u);
	if (rc < 0) {
		fprintf(stderr, "ulnetd: cannot start: %s\n",
			ulnet_strerror(rc));
		goto out;
	}
	is_started = true;
	log_line(NULL, "console: ulnetd running; control socket ready");
	notify("READY=1\nSTATUS=running; control socket ready");

	do {
		if (sigwait(&sigs, &sig) != 0)
			break;
		if (sig == SIGHUP)
			log_line(NULL, "console: SIGHUP ignored");
	} while (sig == SIGHUP);
	log_line(NULL, "console: shutting down");
	notify("STOPPING=1");
	rc = 0;
out:
	/*
	 * A running node's stop unlinks the sink's MDs, whose last events
	 * free it; a node that never ran has no loop to deliver those
	 * events: unlink and deliver them here, as no loop thread runs.
	 */
	if (!is_started && sink) {
		ul_perf_sink_destroy(sink);
		(void)ul_node_flush(ul_instance_node(u));
	}
	ulnet_stop(u);
	ul_metrics_destroy(metrics);
	if (srv)
		ul_ctlsrv_destroy(srv);
	ulnet_destroy(u);
	if (rc == 0)
		log_line(NULL, "console: stopped");
	return rc < 0 ? 1 : 0;
}
