/*
 * The instance-wide sections of lnet.conf: "routing", "buffers", "numa"
 * and "global", and the global parameters written at the top level. Each
 * is a step; values are kept as written, for LNet to check (lnetctl.md
 * §8.4, §9). Keys lnetctl's netlink import skips are skipped with a note.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/conf_walk.h"

static void step_init(struct ul_conf_step *s, enum ul_conf_section sec,
		      const struct ul_ynode *key, const struct ul_ynode *m)
{
	memset(s, 0, sizeof(*s));
	s->sec = sec;
	s->key = -1;
	s->seq_no = ul_conf_walk_seq_no(m);
	s->line = key->line;
}

/*
 * The integer values of mapping m under the keys of table, into vals
 * (has: a bit per key found); other keys are skipped, and so is a value
 * that is no mapping (LNet and the legacy parser find no key in it).
 */
static int walk_values(struct ul_conf_walk *w, const struct ul_ynode *m,
		       const char *const *table, long long *vals,
		       unsigned int *has)
{
	size_t i, n, old;
	int rc, k;

	if (m->type != UL_YNODE_MAP)
		return 0;
	rc = ul_conf_walk_want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++) {
		const struct ul_ynode *key = m->kids[2 * i];

		old = ul_conf_walk_push_key(w, key->str);
		k = ul_conf_walk_key_index(table, key->str);
		if (k < 0) {
			if (strcmp(key->str, "seq_no") != 0)
				rc = ul_conf_walk_skip_key(
					w, key, table, "unknown key; skipped");
		} else {
			rc = ul_conf_walk_get_long(w, key, m->kids[2 * i + 1],
						   &vals[k]);
			*has |= 1U << k;
		}
		ul_conf_walk_pop(w, old);
	}
	return rc;
}

/* "routing: {enable: N}": LNet enables for 1 and disables otherwise. */
int ul_conf_walk_routing(struct ul_conf_walk *w, const struct ul_ynode *key,
			 const struct ul_ynode *m)
{
	static const char *const keys[] = { "enable", NULL };
	struct ul_conf *c = w->conf;
	struct ul_conf_step s;
	unsigned int has = 0;
	int rc;

	step_init(&s, UL_CONF_SEC_ROUTING, key, m);
	rc = walk_values(w, m, keys, &s.value, &has);
	if (rc)
		return rc;
	/* --old-api sets routing only when "enable" is there. */
	if (!has && w->dialect == UL_CONF_OLD_API)
		return 0;
	c->routing_enable = w->dialect == UL_CONF_OLD_API ? s.value != 0
							  : s.value == 1;
	c->flags |= UL_CONF_HAS_ROUTING;
	return ul_conf_walk_step(w, &s);
}

/*
 * "buffers": totals per pool. A pool the section leaves out is 0 (back
 * to its default) for the netlink import, -1 (unchanged) for --old-api.
 */
int ul_conf_walk_buffers(struct ul_conf_walk *w, const struct ul_ynode *key,
			 const struct ul_ynode *m)
{
	static const char *const keys[] = { "tiny", "small", "large", NULL };
	struct ul_conf *c = w->conf;
	int *const sums[] = { &c->tiny_buffers, &c->small_buffers,
			      &c->large_buffers };
	struct ul_conf_step s;
	int rc, i;

	step_init(&s, UL_CONF_SEC_BUFFERS, key, m);
	rc = walk_values(w, m, keys, s.buffers, &s.has_buffers);
	if (rc)
		return rc;
	/* the summary is the last section's */
	c->flags |= UL_CONF_HAS_BUFFERS;
	c->flags &= ~(UL_CONF_HAS_TINY_BUFFERS | UL_CONF_HAS_SMALL_BUFFERS |
		      UL_CONF_HAS_LARGE_BUFFERS);
	for (i = 0; i < 3; i++) {
		if (!(s.has_buffers & 1U << i))
			s.buffers[i] = w->dialect == UL_CONF_OLD_API ? -1 : 0;
		else
			c->flags |= UL_CONF_HAS_TINY_BUFFERS << i;
		if (s.buffers[i] >= 0 || w->dialect == UL_CONF_OLD_API)
			*sums[i] = s.buffers[i] > INT_MAX   ? INT_MAX
				   : s.buffers[i] < INT_MIN ? INT_MIN
							    : (int)s.buffers[i];
	}
	/* §8.4 Quirk: the server keeps them only while routing is on */
	rc = ul_conf_walk_note(w, key, UL_CONF_NOTE_NOT_APPLIED,
			       "counts are kept and shown only while "
			       "routing is on (LNet drops them while it is "
			       "off)");
	return rc ? rc : ul_conf_walk_step(w, &s);
}

static void set_global(struct ul_conf *c, enum ul_conf_global_key key,
		       long long value)
{
	c->global.value[key] = value;
	c->global.flags |= 1U << key;
}

/* "numa: {range: N}": lnetctl sets 0 (--old-api: -1) without a range. */
int ul_conf_walk_numa(struct ul_conf_walk *w, const struct ul_ynode *key,
		      const struct ul_ynode *m)
{
	static const char *const keys[] = { "range", NULL };
	struct ul_conf_step s;
	unsigned int has = 0;
	int rc;

	step_init(&s, UL_CONF_SEC_NUMA, key, m);
	rc = walk_values(w, m, keys, &s.value, &has);
	if (rc)
		return rc;
	if (!has)
		s.value = w->dialect == UL_CONF_OLD_API ? -1 : 0;
	set_global(w->conf, UL_CONF_GLOBAL_NUMA_RANGE, s.value);
	return ul_conf_walk_step(w, &s);
}

int ul_conf_walk_global_param(struct ul_conf_walk *w,
			      const struct ul_ynode *key,
			      const struct ul_ynode *v, bool *known)
{
	struct ul_conf_step s;
	long long val;
	size_t old;
	int rc, k;

	k = ul_conf_global_lookup(key->str);
	*known = k >= 0 || !strcmp(key->str, "lnd_timeout");
	if (!*known)
		return 0;
	old = ul_conf_walk_push_key(w, key->str);
	/* lnetctl's words (lnetctl.md §16); scripts grep them */
	rc = ul_conf_walk_get_long(w, key, v, &val);
	if (!rc && k < 0) {
		/* read-only: lnetctl reads it and sets nothing */
		rc = ul_conf_walk_skip(w, key, "read-only; skipped");
		/* and it is not a step: nothing happens there */
	} else if (!rc) {
		step_init(&s, UL_CONF_SEC_GLOBAL, key, NULL);
		s.seq_no = w->seq_no; /* the "global" block's, if any */
		s.key = k;
		s.value = val;
		set_global(w->conf, k, val);
		rc = ul_conf_walk_step(w, &s);
	}
	ul_conf_walk_pop(w, old);
	return rc;
}

int ul_conf_walk_global(struct ul_conf_walk *w, const struct ul_ynode *key,
			const struct ul_ynode *m)
{
	size_t i, n, old;
	bool known;
	int rc;

	(void)key;
	/* the legacy setters each report the block's seq_no */
	w->seq_no = ul_conf_walk_seq_no(m);
	rc = ul_conf_walk_want_map(w, m, &n);
	for (i = 0; !rc && i < n; i++) {
		const struct ul_ynode *k = m->kids[2 * i];

		if (w->dialect == UL_CONF_OLD_API &&
		    (ul_conf_global_lookup(k->str) < 0 ||
		     !strcmp(k->str, "seq_no"))) {
			/* the legacy parser looks up the keys it knows */
			old = ul_conf_walk_push_key(w, k->str);
			rc = ul_conf_walk_skip(w, k, "unknown key; skipped");
			ul_conf_walk_pop(w, old);
			continue;
		}
		rc = ul_conf_walk_global_param(w, k, m->kids[2 * i + 1],
					       &known);
		if (!rc && !known)
			rc = ul_conf_walk_fail(w, k, "invalid key '%.64s'",
					       k->str);
	}
	return rc;
}
