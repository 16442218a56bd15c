/* ping and discover output, streamed; see ping_yaml.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/doc_yaml.h"
#include "ctl/ping_yaml.h"
#include "ctl/yemit.h"
#include "ctl/ytree.h"
#include "ulnet/nid.h"

/* lnetctl's default libyaml indentation (engine B). */
#define INDENT_B 2

struct ping_fail {
	int rc;
	char *msg;
};

struct ul_ping_yaml {
	FILE *out;
	const char *object;
	struct ul_yemit y;
	bool is_open;	  /* the stream is started (y is live) */
	bool has_answers; /* "<object>:" and its sequence are started */
	struct ping_fail *fails;
	size_t nfails, cap;
	int rc; /* the first allocation failure */
};

int ul_ping_yaml_open(struct ul_ping_yaml **p, FILE *out, const char *object)
{
	struct ul_ping_yaml *py = calloc(1, sizeof(*py));

	if (!py)
		return -ENOMEM;
	py->out = out;
	py->object = object;
	*p = py;
	return 0;
}

/* The stream and its top mapping, started on the first thing to print. */
static void start(struct ul_ping_yaml *p)
{
	if (p->is_open)
		return;
	if (ul_yemit_open(&p->y, p->out, INDENT_B, false)) {
		p->rc = -ENOMEM;
		return;
	}
	p->is_open = true;
	ul_yemit_map_start(&p->y);
}

static bool start_answers(struct ul_ping_yaml *p)
{
	start(p);
	if (!p->is_open)
		return false;
	if (!p->has_answers) {
		ul_yemit_str(&p->y, p->object);
		ul_yemit_seq_start(&p->y);
		p->has_answers = true;
	}
	return true;
}

void ul_ping_yaml_ping(struct ul_ping_yaml *p, const struct ul_ctl_reply *r)
{
	char s[ULNET_NIDSTR_SIZE];
	size_t i;

	if (!start_answers(p))
		return;
	ul_yemit_map_start(&p->y);
	ul_yemit_kv(&p->y, "primary nid", "%s",
		    ulnet_nid_format(&r->ping.primary, s, sizeof(s)));
	ul_yemit_kv(&p->y, "Multi-Rail", "%s",
		    r->ping.is_mr ? "true" : "false");
	ul_yemit_str(&p->y, "peer_ni");
	ul_yemit_seq_start(&p->y);
	for (i = 0; i < r->ping.nnis; i++) {
		ul_yemit_map_start(&p->y);
		ul_yemit_kv(&p->y, "nid", "%s",
			    ulnet_nid_format(&r->ping.nis[i].nid, s,
					     sizeof(s)));
		ul_yemit_map_end(&p->y);
	}
	ul_yemit_seq_end(&p->y);
	ul_yemit_map_end(&p->y);
}

void ul_ping_yaml_doc(struct ul_ping_yaml *p, const struct ul_ynode *items)
{
	size_t i;

	if (!items || !start_answers(p))
		return;
	for (i = 0; i < items->nr; i++)
		ul_doc_emit(&p->y, items->kids[i]);
}

int ul_ping_yaml_fail(struct ul_ping_yaml *p, int rc, const char *msg)
{
	struct ping_fail *f;
	char *copy;

	if (p->nfails == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;

		f = realloc(p->fails, cap * sizeof(*f));
		if (!f)
			return p->rc = -ENOMEM;
		p->fails = f;
		p->cap = cap;
	}
	copy = strdup(msg);
	if (!copy)
		return p->rc = -ENOMEM;
	p->fails[p->nfails].rc = rc;
	p->fails[p->nfails].msg = copy;
	p->nfails++;
	return 0;
}

static void free_fails(struct ul_ping_yaml *p)
{
	size_t i;

	for (i = 0; i < p->nfails; i++)
		free(p->fails[i].msg);
	free(p->fails);
}

int ul_ping_yaml_close(struct ul_ping_yaml *p)
{
	char descr[UL_CTL_STR_MAX + 128];
	size_t i;
	int rc;

	if (p->nfails)
		start(p);
	if (p->has_answers)
		ul_yemit_seq_end(&p->y);
	if (p->nfails && p->is_open) {
		ul_yemit_str(&p->y, "manage");
		ul_yemit_seq_start(&p->y);
		for (i = 0; i < p->nfails; i++) {
			/* lnetctl appends the errno's text to the server's */
			snprintf(descr, sizeof(descr), "%s: %s",
				 p->fails[i].msg, strerror(-p->fails[i].rc));
			ul_yemit_map_start(&p->y);
			ul_yemit_str(&p->y, p->object);
			ul_yemit_str(&p->y, "");
			ul_yemit_kv(&p->y, "errno", "%d", p->fails[i].rc);
			ul_yemit_str(&p->y, "descr");
			ul_yemit_quoted(&p->y, descr, true,
					YAML_SINGLE_QUOTED_SCALAR_STYLE);
			ul_yemit_map_end(&p->y);
		}
		ul_yemit_seq_end(&p->y);
	}
	rc = p->rc;
	if (p->is_open) {
		ul_yemit_map_end(&p->y);
		if (ul_yemit_close(&p->y) && !rc)
			rc = -EIO;
	}
	free_fails(p);
	free(p);
	return rc;
}

void ul_ping_yaml_abort(struct ul_ping_yaml *p)
{
	if (!p)
		return;
	if (p->is_open)
		ul_yemit_abort(&p->y);
	free_fails(p);
	free(p);
}
