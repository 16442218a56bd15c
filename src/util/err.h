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

/* Record code and a printf-style message; returns code (negative errno). */
int ul_err_set(struct ul_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Forget any recorded failure. */
void ul_err_clear(struct ul_err *err);

#endif /* UL_UTIL_ERR_H */
