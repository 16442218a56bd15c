#include "util/log.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	uint32_t mask;
} mask_names[] = {
	{ "net", UL_D_NET },	     { "neterror", UL_D_NETERROR },
	{ "console", UL_D_CONSOLE }, { "warning", UL_D_WARNING },
	{ "error", UL_D_ERROR },     { "info", UL_D_INFO },
	{ "all", UL_LOG_ALL_MASK },
};

static int mask_of(const char *name, size_t len, uint32_t *out)
{
	for (size_t i = 0; i < sizeof(mask_names) / sizeof(mask_names[0]); i++)
		if (strlen(mask_names[i].name) == len &&
		    strncmp(mask_names[i].name, name, len) == 0) {
			*out = mask_names[i].mask;
			return 0;
		}
	return -EINVAL;
}

int ul_log_mask_parse(const char *s, uint32_t base, uint32_t *out, char *bad,
		      size_t cap)
{
	uint32_t mask = base, m;
	bool is_first = true;

	if (bad && cap)
		bad[0] = '\0';
	for (;;) {
		size_t len;
		char sign = 0;

		s += strspn(s, " ,");
		if (!*s)
			break;
		if (*s == '+' || *s == '-')
			sign = *s++;
		len = strcspn(s, " ,");
		if (!len || mask_of(s, len, &m) < 0) {
			if (bad && cap)
				snprintf(bad, cap, "%.*s", (int)len, s);
			return -EINVAL;
		}
		if (!sign && is_first)
			mask = 0;
		if (sign == '-')
			mask &= ~m;
		else
			mask |= m;
		is_first = false;
		s += len;
	}
	if (is_first) {
		if (bad && cap)
			snprintf(bad, cap, "(empty)");
		return -EINVAL;
	}
	*out = mask;
	return 0;
}

static const char *mask_name(uint32_t mask)
{
	if (mask & UL_D_ERROR)
		return "error";
	if (mask & UL_D_WARNING)
		return "warning";
	if (mask & UL_D_NETERROR)
		return "neterror";
	if (mask & UL_D_CONSOLE)
		return "console";
	if (mask & UL_D_INFO)
		return "info";
	return "net";
}

/* Format "<mask name>: <text>" and hand it to the sink. */
static void emit_v(const struct ul_log *lg, uint32_t mask, const char *fmt,
		   va_list ap) __attribute__((format(printf, 3, 0)));

static void emit_v(const struct ul_log *lg, uint32_t mask, const char *fmt,
		   va_list ap)
{
	char line[512];
	int n;

	n = snprintf(line, sizeof(line), "%s: ", mask_name(mask));
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	lg->fn(lg->ctx, line);
}

void ul_log_emit(const struct ul_log *lg, uint32_t mask, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit_v(lg, mask, fmt, ap);
	va_end(ap);
}

/* ---- Rate limiting (log.h ul_log_limit) ------------------------------ */

struct log_site {
	const void *key;   /* the call site's marker */
	uint64_t next_ns;  /* held back until then; 0: never printed */
	uint64_t delay_ns; /* the last delay */
	uint32_t skipped;  /* held back since the last line printed */
};

struct ul_log_limits {
	pthread_mutex_t lock; /* sinks may be used from several threads */
	uint64_t (*now_ns)(void *ctx);
	void *now_ctx;
	size_t n;
	struct log_site sites[UL_LOG_LIMIT_SITES];
};

static uint64_t real_now_ns(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct ul_log_limits *ul_log_limits_new(void)
{
	struct ul_log_limits *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	pthread_mutex_init(&l->lock, NULL);
	l->now_ns = real_now_ns;
	return l;
}

void ul_log_limits_free(struct ul_log_limits *l)
{
	if (!l)
		return;
	pthread_mutex_destroy(&l->lock);
	free(l);
}

void ul_log_limits_set_clock(struct ul_log_limits *l,
			     uint64_t (*now_ns)(void *ctx), void *ctx)
{
	l->now_ns = now_ns ? now_ns : real_now_ns;
	l->now_ctx = ctx;
}

static struct log_site *site_of(struct ul_log_limits *l, const void *key)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->sites[i].key == key)
			return &l->sites[i];
	if (l->n == UL_LOG_LIMIT_SITES)
		return NULL;
	l->sites[l->n].key = key;
	return &l->sites[l->n++];
}

/*
 * Whether the site prints now (libcfs_debug_msg's arithmetic); if it
 * does, *skipped is what it held back since its last line.
 */
static bool site_admit(struct log_site *st, uint64_t now, uint32_t *skipped)
{
	if (st->next_ns && now < st->next_ns) {
		st->skipped++;
		return false;
	}
	if (now > st->next_ns + UL_LOG_LIMIT_MAX_NS + 10000000000ull)
		st->delay_ns /= UL_LOG_LIMIT_BACKOFF * 4;
	else
		st->delay_ns *= UL_LOG_LIMIT_BACKOFF;
	if (st->delay_ns < UL_LOG_LIMIT_MIN_NS)
		st->delay_ns = UL_LOG_LIMIT_MIN_NS;
	else if (st->delay_ns > UL_LOG_LIMIT_MAX_NS)
		st->delay_ns = UL_LOG_LIMIT_MAX_NS;
	st->next_ns = (now + st->delay_ns) | 1;
	*skipped = st->skipped;
	st->skipped = 0;
	return true;
}

void ul_log_emit_limited(const struct ul_log *lg, const void *site,
			 uint32_t mask, const char *fmt, ...)
{
	struct ul_log_limits *l = lg->limits;
	uint32_t skipped = 0;
	struct log_site *st;
	bool is_out = true;
	va_list ap;

	if (l) {
		pthread_mutex_lock(&l->lock);
		st = site_of(l, site);
		if (st)
			is_out =
				site_admit(st, l->now_ns(l->now_ctx), &skipped);
		pthread_mutex_unlock(&l->lock);
	}
	if (!is_out)
		return;
	va_start(ap, fmt);
	emit_v(lg, mask, fmt, ap);
	va_end(ap);
	if (skipped)
		ul_log_emit(lg, mask, "Skipped %u previous similar message%s",
			    skipped, skipped > 1 ? "s" : "");
}
