/*
 * ulnetctl command tables: nouns with verbs, one help text each, in the
 * shape of lnetctl's command_t tables so "help", "--list-commands" and the
 * error texts read the same.
 */
#ifndef ULNETCTL_CMD_H
#define ULNETCTL_CMD_H

#include <stdbool.h>

/* A handler gets argv from its own word on ("nidlist", args...). */
typedef int (*ulnetctl_fn)(int argc, char **argv);

struct ulnetctl_cmd {
	const char *name;
	ulnetctl_fn fn;			/* NULL for a noun */
	const struct ulnetctl_cmd *sub; /* verbs of a noun, NULL-ended */
	const char *help;		/* ends in "\n", like lnetctl's */
};

/* Status lnetctl gives a bad parameter: -EINVAL, printed as 234. */
#define ULNETCTL_RC_BAD_PARAM (-22)

extern const struct ulnetctl_cmd ulnetctl_debug_cmds[];

/*
 * Run a noun's verbs as lnetctl does: no verb prints every verb's help
 * (ULNETCTL_RC_BAD_PARAM); -h or --help alone prints it too (1); argv[0]
 * is the noun's word, argv[1] the verb.
 */
int ulnetctl_run_noun(const char *name, const struct ulnetctl_cmd *verbs,
		      int argc, char **argv);
/* -h, --help or a shortening of it ("--he"), as lnetctl's getopt reads it. */
bool ulnetctl_is_help(const char *arg);
/*
 * getopt's own diagnostics ("add: unrecognized option '--bogus'") as
 * lnetctl's check_cmd() leaves them for the verb's parsing: on for a
 * verb with a single argument, off when it has more. Every verb that
 * lnetctl runs through check_cmd() calls this before its getopt loop, so
 * no verb inherits what an earlier script line left.
 */
void ulnetctl_with_diagnostics(int argc);
/*
 * A number as lnetctl's parse_long() reads it: strtol base 0, nothing
 * after it, false on overflow; "" reads as 0.
 */
bool ulnetctl_parse_long(const char *s, long *out);

/* Print "<noun> <verb>: <help>" for one verb, or every verb when verb is NULL. */
void ulnetctl_print_help(const struct ulnetctl_cmd *verbs, const char *noun,
			 const char *verb);

#endif /* ULNETCTL_CMD_H */
