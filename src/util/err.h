/*
 * Error context: the code of a failure plus its human detail, written where
 * the failure is understood and carried to the edge (the CLI renders it as
 * lnetctl's error YAML). Every function that takes one accepts NULL.
 */
#ifndef UL_UTIL_ERR_H
#define UL_UTIL_ERR_H

#define UL_ERR_MSG_SIZE 256

struct ul_err {
	int code;		   /* negative errno, 0 when nothing failed */
	char msg[UL_ERR_MSG_SIZE]; /* NUL-terminated, may be truncated */
};

/* Record code and a printf-style message in err (which may be NULL). */
void ul_err_fmt(struct ul_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Record a failure and evaluate to its code, for "return ul_err_set(...)".
 * A macro (a GNU statement expression) so that callers and static
 * analysers see the code come back, and so that it may also stand alone
 * as a statement; code is evaluated twice: pass a constant or a variable.
 */
#define ul_err_set(err, code, ...)                                             \
	({                                                                     \
		ul_err_fmt((err), (code), __VA_ARGS__);                        \
		(code);                                                        \
	})
/* Forget any recorded failure. */
void ul_err_clear(struct ul_err *err);

#endif /* UL_UTIL_ERR_H */
