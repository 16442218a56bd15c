/*
 * Numeric range expression lists, as LNet writes them in nidlists, UDSP
 * descriptors and ip2nets (reference/udsp.md §2.1):
 *
 *	expr  := number | '*' | '[' range { ',' range } ']'
 *	range := number | '*' | number '-' number [ '/' stride ]
 *
 * Numbers are C-style: decimal, 0x hex, or octal with a leading 0; blanks
 * around a number are allowed. '*' is the whole context range [min-max].
 * A value v matches a range when lo <= v <= hi and (v - lo) % stride == 0.
 *
 * Departures from LNet's cfs_expr_list_parse(), each fixing a defect:
 * stride 0 is refused (LNet stores it and later divides by zero), a
 * malformed stride ("[1-5/x]", "[1-5/]", "[1-5/2/3]") is refused (LNet
 * silently stores stride 0), signs are refused and numbers that do not fit
 * 32 bits are refused (LNet truncates "-4294967295" to 1), and a list holds
 * at most UL_EXPR_MAX_RANGES ranges.
 */
#ifndef UL_NID_EXPR_H
#define UL_NID_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nid/num.h"
#include "util/err.h"

struct ul_strbuf;

/* Most ranges one expression list may hold. */
#define UL_EXPR_MAX_RANGES 1024
/* Context limits: an IPv4 octet, and a numeric address or net number. */
#define UL_EXPR_OCTET_MAX 255u
#define UL_EXPR_NUM_MAX 0xffffffffu

struct ul_range {
	uint32_t lo;	 /* first value */
	uint32_t hi;	 /* last value, >= lo */
	uint32_t stride; /* >= 1 */
};

struct ul_expr {
	unsigned int nr;     /* number of ranges, 1..UL_EXPR_MAX_RANGES */
	struct ul_range r[]; /* in the order written */
};

/*
 * Parse an expression list s[0..len) whose values lie in [min, max].
 * Returns 0 and sets *out (caller frees with ul_expr_free()), or -EINVAL
 * / -ENOMEM with the reason in err; *out is set only on success.
 */
int ul_expr_parse(const char *s, size_t len, uint32_t min, uint32_t max,
		  struct ul_expr **out, struct ul_err *err);
/* Build a one-range list; returns NULL when out of memory. */
struct ul_expr *ul_expr_create(uint32_t lo, uint32_t hi, uint32_t stride);
bool ul_expr_match(const struct ul_expr *e, uint32_t v);
/* Same ranges in the same order (how LNet compares UDSP rules). */
bool ul_expr_same(const struct ul_expr *a, const struct ul_expr *b);
/*
 * Canonical text, as LNet's cfs_expr_list_print(): one range prints as
 * "N", "[lo-hi]" or "[lo-hi/stride]"; several as "[a,b-c,d-e/s]".
 * snprintf-like: returns the length needed without the NUL and always
 * NUL-terminates when len > 0.
 */
int ul_expr_format(const struct ul_expr *e, char *buf, size_t len);
/* The same text appended to a string buffer. */
void ul_expr_print(struct ul_strbuf *sb, const struct ul_expr *e);
/* Accepts NULL. */
void ul_expr_free(struct ul_expr *e);

/*
 * An IPv4 address written as four octet expressions "e.e.e.e" (blanks
 * around each allowed, as LNet's cfs_ip_addr_parse()). Returns 0 and fills
 * oct[0..3] (most significant first; free each with ul_expr_free()), or
 * -EINVAL / -ENOMEM with the reason in err, leaving oct untouched.
 */
int ul_expr_parse_octets(const char *s, size_t len, struct ul_expr *oct[4],
			 struct ul_err *err);
/* True when every octet of addr (host order) matches its expression. */
bool ul_expr_match_octets(struct ul_expr *const oct[4], uint32_t addr);
/* "e.e.e.e", each octet as ul_expr_print() writes it. */
void ul_expr_print_octets(struct ul_strbuf *sb, struct ul_expr *const oct[4]);

#endif /* UL_NID_EXPR_H */
