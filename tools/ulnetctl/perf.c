/*
 * ulnetctl perf put: a stream of bulk PUTs from the instance to a peer's
 * perf sink (runtime/perf.h), then what moved and how each local NI
 * ("rail") took part. A ulnet extension with no lnetctl counterpart: the
 * simplest case of `ulnetctl selftest` (brw write, one node to one NID,
 * selftest.c), kept for scripts that parse its YAML; both ask ulnetd for
 * the same stream. Output is YAML in lnetctl's style (indent 4):
 *
 *	perf:
 *	    size, seconds (first PUT to the last one's end),
 *	    started, completed (= puts, ACKed), puts, failed,
 *	    failures: { -ETIMEDOUT: n, ... } (when failed > 0),
 *	    bytes (ACKed), send_seconds (the rate's window), MiB/s,
 *	    rails: [ { nid, puts, bytes, share, MiB/s } ]
 *
 * Each PUT started ends once: started = completed + failed. The rate is
 * what was ACKed within the sending time (runtime/perf.h): waiting for
 * lost PUTs to time out never lowers it. Exit status 0 when a PUT
 * completed, else the first failure's (the report is printed all the
 * same).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/show_yaml.h"
#include "ctl/yemit.h"
#include "ulnet/ulnet.h"
#include "util/err.h"

#include "cmd.h"
#include "ctl.h"

static int bad(const char *what, const char *val)
{
	char msg[128];

	snprintf(msg, sizeof(msg), "bad %s '%s'", what, val);
	ul_show_yaml_err(stderr, "perf", "put", -EINVAL, msg);
	return ULNETCTL_RC_BAD_PARAM;
}

int ulnetctl_parse_size(const char *s, unsigned long max, uint32_t *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || s[0] == '-')
		return -EINVAL;
	if (*end == 'K' || *end == 'k') {
		v *= 1024;
		end++;
	} else if (*end == 'M' || *end == 'm') {
		v *= 1024 * 1024;
		end++;
	}
	if (*end || v == 0 || v > max)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

double ulnetctl_mib_per_s(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes / (1024.0 * 1024.0) / ((double)ns / 1e9)
		  : 0.0;
}

const char *ulnetctl_status_name(int status, char *buf, size_t size)
{
	const char *name = ulnet_err_name(status);

	if (strcmp(name, "UNKNOWN") == 0)
		snprintf(buf, size, "%d", status);
	else
		snprintf(buf, size, "-%s", name);
	return buf;
}

static int print_perf(const struct ul_ctl_reply *r, uint32_t size)
{
	const uint64_t ns = r->perf.elapsed_ns;
	const uint64_t send_ns = r->perf.send_ns;
	char nid[ULNET_NIDSTR_SIZE], name[32];
	struct ul_yemit y;
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < r->perf.nrails; i++)
		total += r->perf.rails[i].bytes;
	if (ul_yemit_open(&y, stdout, 4, false))
		return -EIO;
	ul_yemit_map_start(&y);
	ul_yemit_str(&y, "perf");
	ul_yemit_map_start(&y);
	ul_yemit_kv(&y, "size", "%u", size);
	ul_yemit_kv(&y, "seconds", "%.2f", (double)ns / 1e9);
	ul_yemit_kv(&y, "started", "%llu", (unsigned long long)r->perf.started);
	ul_yemit_kv(&y, "completed", "%llu", (unsigned long long)r->perf.puts);
	ul_yemit_kv(&y, "puts", "%llu", (unsigned long long)r->perf.puts);
	ul_yemit_kv(&y, "failed", "%llu", (unsigned long long)r->perf.failed);
	if (r->perf.nfails) {
		ul_yemit_str(&y, "failures");
		ul_yemit_map_start(&y);
		for (i = 0; i < r->perf.nfails; i++)
			ul_yemit_kv(
				&y,
				ulnetctl_status_name(r->perf.fails[i].status,
						     name, sizeof(name)),
				"%llu",
				(unsigned long long)r->perf.fails[i].count);
		ul_yemit_map_end(&y);
	}
	ul_yemit_kv(&y, "bytes", "%llu", (unsigned long long)r->perf.bytes);
	ul_yemit_kv(&y, "send_seconds", "%.2f", (double)send_ns / 1e9);
	ul_yemit_kv(&y, "MiB/s", "%.1f",
		    ulnetctl_mib_per_s(r->perf.send_bytes, send_ns));
	ul_yemit_str(&y, "rails");
	ul_yemit_seq_start(&y);
	for (i = 0; i < r->perf.nrails; i++) {
		const struct ul_ctl_perf_rail *rail = &r->perf.rails[i];

		ul_yemit_map_start(&y);
		ul_yemit_kv(&y, "nid", "%s",
			    ulnet_nid_format(&rail->nid, nid, sizeof(nid)));
		ul_yemit_kv(&y, "puts", "%llu", (unsigned long long)rail->puts);
		ul_yemit_kv(&y, "bytes", "%llu",
			    (unsigned long long)rail->bytes);
		ul_yemit_kv(&y, "share", "%.1f%%",
			    total ? 100.0 * (double)rail->bytes / (double)total
				  : 0.0);
		/* What it sent (ACKed or not) over the sending time. */
		ul_yemit_kv(&y, "MiB/s", "%.1f",
			    ulnetctl_mib_per_s(rail->bytes, send_ns));
		ul_yemit_map_end(&y);
	}
	ul_yemit_seq_end(&y);
	ul_yemit_map_end(&y);
	ul_yemit_map_end(&y);
	return ul_yemit_close(&y) ? -EIO : 0;
}

static int perf_put(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "seconds", required_argument, NULL, 't' },
		{ "inflight", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ul_err err = { 0 };
	struct ul_ctl_reply reply;
	struct ul_ctl_req req;
	uint32_t secs = 5;
	int opt, rc;

	memset(&req, 0, sizeof(req));
	req.op = UL_CTL_OP_PERF_PUT;
	req.perf.size = 1u << 20;
	req.perf.inflight = 8;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "s:t:i:h", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			if (ulnetctl_parse_size(optarg, ULNET_MTU,
						&req.perf.size))
				return bad("size", optarg);
			break;
		case 't':
			if (ulnetctl_parse_size(optarg, 3600, &secs))
				return bad("seconds", optarg);
			break;
		case 'i':
			if (ulnetctl_parse_size(optarg, 256,
						&req.perf.inflight))
				return bad("inflight", optarg);
			break;
		default:
			ulnetctl_print_help(ulnetctl_perf_cmds, "perf", "put");
			return 0;
		}
	}
	if (optind != argc - 1) {
		ul_show_yaml_err(stderr, "perf", "put", -EINVAL,
				 "one target NID is required");
		return ULNETCTL_RC_BAD_PARAM;
	}
	if (ulnet_nid_parse(argv[optind], &req.perf.targets[0], NULL, 0))
		return bad("NID", argv[optind]);
	req.perf.ntargets = 1;
	req.perf.duration_ms = secs * 1000u;
	/* The reply comes when the stream ends; give it time to drain. */
	rc = ulnetctl_ctl_call(&req, req.perf.duration_ms + 200000u, &reply,
			       &err);
	if (rc) {
		ul_show_yaml_err(stderr, "perf", "put", rc, err.msg);
		return ULNETCTL_RC_BAD_PARAM;
	}
	if (reply.rc) {
		ul_show_yaml_err(stderr, "perf", "put", reply.rc,
				 reply.err_msg);
		rc = ULNETCTL_RC_BAD_PARAM;
	} else {
		rc = print_perf(&reply, req.perf.size);
		/* Nothing completed: say so, and exit as the first failure. */
		if (rc == 0 && !reply.perf.puts && reply.perf.nfails) {
			ul_show_yaml_err(stderr, "perf", "put",
					 reply.perf.fails[0].status,
					 "no PUT completed");
			rc = ULNETCTL_RC_BAD_PARAM;
		}
	}
	ul_ctl_reply_fini(&reply);
	return rc;
}

const struct ulnetctl_cmd ulnetctl_perf_cmds[] = {
	{ "put", perf_put, NULL,
	  "stream PUTs to a peer's perf sink and show each rail's share\n"
	  "\tNID: the target\n"
	  "\t--size: bytes per PUT, 1..1M (K and M suffixes; default 1M)\n"
	  "\t--seconds: how long to stream (default 5)\n"
	  "\t--inflight: PUTs outstanding at once, 1..256 (default 8)\n" },
	{ NULL, NULL, NULL, NULL },
};
