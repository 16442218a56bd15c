/*
 * Logging: one line per event, naming the object by NID or NI (STYLE.md).
 * Each instance has its own sink (no process-wide state); a line goes out
 * only when its mask bit is on, and the check is one AND, so a disabled
 * debug line costs no formatting. Mask names follow LNet's debug masks.
 */
#ifndef UL_UTIL_LOG_H
#define UL_UTIL_LOG_H

#include <stddef.h>
#include <stdint.h>

enum ul_log_mask {
	UL_D_NET = 1u << 0,	 /* per-message detail: off by default */
	UL_D_NETERROR = 1u << 1, /* network errors: conn failures, drops */
	UL_D_CONSOLE = 1u << 2,	 /* what an operator should see */
	UL_D_WARNING = 1u << 3,
	UL_D_ERROR = 1u << 4,
	UL_D_INFO = 1u << 5, /* lifecycle: NI up/down, connections */
};

#define UL_LOG_ALL_MASK 0x3fu

/* Default: everything but per-message detail. */
#define UL_LOG_DEFAULT_MASK                                                    \
	(UL_D_NETERROR | UL_D_CONSOLE | UL_D_WARNING | UL_D_ERROR | UL_D_INFO)

typedef void (*ul_log_fn)(void *ctx, const char *line);

struct ul_log_limits;

struct ul_log {
	ul_log_fn fn; /* NULL: discard everything */
	void *ctx;
	uint32_t mask;
	/* ul_log_limit()'s state; NULL: those lines are never held back */
	struct ul_log_limits *limits;
};

/*
 * Console rate limiting as libcfs does it for CDEBUG_LIMIT (lustre-release
 * lnet/libcfs/tracefile.c, libcfs_debug_msg): each call site of
 * ul_log_limit() prints, then holds back its lines for a delay that
 * starts at half a second and doubles with each line printed, up to 600
 * s, and shrinks eightfold after a quiet spell (the delay plus 600 s plus
 * 10 s); the first line printed after lines were held back is followed by
 * "Skipped N previous similar message(s)". For every line a remote host
 * can trigger, so that a flood of bad connections cannot flood the log.
 */
#define UL_LOG_LIMIT_MIN_NS 500000000ull
#define UL_LOG_LIMIT_MAX_NS 600000000000ull
#define UL_LOG_LIMIT_BACKOFF 2u
/* Call sites one sink tracks; lines of further ones are not held back. */
#define UL_LOG_LIMIT_SITES 64

/* A new limiter for one sink (NULL on ENOMEM); free it with _free. */
struct ul_log_limits *ul_log_limits_new(void);
void ul_log_limits_free(struct ul_log_limits *l);
/* Tests: the limiter's clock (ns, monotonic); NULL: the real one. */
void ul_log_limits_set_clock(struct ul_log_limits *l,
			     uint64_t (*now_ns)(void *ctx), void *ctx);

void ul_log_emit_limited(const struct ul_log *lg, const void *site,
			 uint32_t mask, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define ul_log_limit(lg, m, ...)                                               \
	do {                                                                   \
		static const char ul_log_site_;                                \
		const struct ul_log *ul_log_lg_ = (lg);                        \
		if (ul_log_lg_ && ul_log_lg_->fn && (ul_log_lg_->mask & (m)))  \
			ul_log_emit_limited(ul_log_lg_, &ul_log_site_, (m),    \
					    __VA_ARGS__);                      \
	} while (0)

/*
 * A debug mask as lctl's `debug=` takes one: names (net, neterror,
 * console, warning, error, info, all) separated by spaces or commas.
 * Without a sign the first name starts from nothing; +name adds to and
 * -name takes from what came before, starting from base. 0, or -EINVAL
 * with the offending name in bad (cap bytes).
 */
int ul_log_mask_parse(const char *s, uint32_t base, uint32_t *out, char *bad,
		      size_t cap);

/* Format one line ("<mask name>: <text>") and hand it to the sink. */
void ul_log_emit(const struct ul_log *lg, uint32_t mask, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define ul_log(lg, m, ...)                                                     \
	do {                                                                   \
		const struct ul_log *ul_log_lg_ = (lg);                        \
		if (ul_log_lg_ && ul_log_lg_->fn && (ul_log_lg_->mask & (m)))  \
			ul_log_emit(ul_log_lg_, (m), __VA_ARGS__);             \
	} while (0)

#endif /* UL_UTIL_LOG_H */
