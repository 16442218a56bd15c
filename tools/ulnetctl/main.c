/*
 * ulnetctl: the lnetctl-compatible command line of ulnet.
 *
 * Dispatch follows lnetctl: "ulnetctl <noun> <verb> [options]"; a noun
 * without a verb prints every verb's help and exits 234 (-EINVAL); a noun or
 * verb with -h/--help as its only argument prints help and exits 1; an
 * unknown word prints "'<word>' is not a valid command" and exits 255. With
 * no arguments commands are read from stdin, one per line; when stdin is
 * not a terminal the first failing command stops the run and gives the exit
 * status, unless "ignore_errors" was given. The status of a command is its
 * int result truncated to 8 bits, as lnetctl's is.
 *
 * "--ctl SOCKET" (or "--ctl=SOCKET") before the command names the
 * instance's control socket; without it $ULNET_CTL, else
 * /run/ulnet/ulnetd.ctl (ctl.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "ctl.h"

#define ULNETCTL_VERSION "0.1.0"
#define MAX_LINE_WORDS 64

static const char *prog = "ulnetctl";
static bool ignore_errors;

static int dispatch(int argc, char **argv);

static const struct ulnetctl_cmd top_cmds[] = {
	{ "lnet", NULL, ulnetctl_lnet_cmds, "lnet configuration commands\n" },
	{ "route", NULL, ulnetctl_route_cmds,
	  "route configuration commands\n" },
	{ "net", NULL, ulnetctl_net_cmds, "net configuration commands\n" },
	{ "routing", NULL, ulnetctl_routing_cmds,
	  "routing configuration commands\n" },
	{ "set", NULL, ulnetctl_set_cmds, "set configuration commands\n" },
	{ "import", ulnetctl_import, NULL,
	  "import FILE.yaml\n"
	  "\t--add: add configuration\n"
	  "\t--del: delete configuration\n"
	  "\t--show: show configuration\n"
	  "\t--exec: execute command\n"
	  "\t--help: display this help\n" },
	{ "export", ulnetctl_export, NULL,
	  "export FILE.yaml\n"
	  "\t--backup: export only what's necessary for reconfig\n"
	  "\t--help: display this help\n" },
	{ "stats", NULL, ulnetctl_stats_cmds, "statistics commands\n" },
	{ "global", NULL, ulnetctl_global_cmds, "global settings commands\n" },
	{ "peer", NULL, ulnetctl_peer_cmds, "peer commands\n" },
	{ "discover", ulnetctl_discover, NULL,
	  "discover NID[,NID,...]\n"
	  "\t--force: force discovery\n"
	  "\t--help: display this help\n" },
	{ "udsp", NULL, ulnetctl_udsp_cmds, "UDSP commands\n" },
	{ "fault", NULL, ulnetctl_fault_cmds, "fault injection commands\n" },
	{ "cpt-of-nid", ulnetctl_cpt_of_nid, NULL,
	  "Calculate the CPTs associated with NIDs\n"
	  " usage:\n\tlnetctl cpt-of-nid nid[ nid ...]\n" },
	{ "perf", NULL, ulnetctl_perf_cmds,
	  "bulk transfer test (ulnet extension)\n" },
	{ "ping", ulnetctl_ping, NULL,
	  "check for the presence of a NID\n"
	  "\t--source: source NID\n"
	  "\t--timeout: ping timeout in seconds\n" },
	{ "debug", NULL, ulnetctl_debug_cmds,
	  "debug commands (nidlist parsing, frame decoding)\n" },
	{ NULL, NULL, NULL, NULL },
};

void ulnetctl_print_help(const struct ulnetctl_cmd *verbs, const char *noun,
			 const char *verb)
{
	const struct ulnetctl_cmd *c;

	for (c = verbs; c->name; c++) {
		if (verb && strcmp(c->name, verb) != 0)
			continue;
		printf("%s %s: %s\n", noun, c->name, c->help);
	}
}

static const struct ulnetctl_cmd *find(const struct ulnetctl_cmd *table,
				       const char *name)
{
	for (; table->name; table++)
		if (strcmp(table->name, name) == 0)
			return table;
	return NULL;
}

static int not_a_command(const char *word)
{
	fprintf(stderr,
		"%s: '%s' is not a valid command. See '%s --list-commands'.\n",
		prog, word, prog);
	return -1;
}

static bool is_help(const char *arg)
{
	return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

static void list_commands(void)
{
	const struct ulnetctl_cmd *c, *v;

	for (c = top_cmds; c->name; c++) {
		printf("%s\n", c->name);
		for (v = c->sub; v && v->name; v++)
			printf("    %s\n", v->name);
	}
	printf("help\nversion\nlist-commands\nignore_errors\nexit\nquit\n");
}

static void usage(void)
{
	printf("usage: %s [--ctl SOCKET] [COMMAND] [OPTIONS]... [ARGS]\n",
	       prog);
	printf("Without any parameters, interactive mode is invoked\n");
	printf("Try '%s help <COMMAND>', or '%s --list-commands' for a list of "
	       "commands.\n",
	       prog, prog);
}

/* "help" alone, or "help <noun>": the group's verbs. */
static int do_help(int argc, char **argv)
{
	const struct ulnetctl_cmd *c;

	if (argc < 2) {
		usage();
		return 0;
	}
	c = find(top_cmds, argv[1]);
	if (!c)
		return not_a_command(argv[1]);
	printf("%s: %s", c->name, c->help);
	if (c->sub)
		ulnetctl_print_help(c->sub, c->name, NULL);
	return 0;
}

static int run_noun(const struct ulnetctl_cmd *noun, int argc, char **argv)
{
	const struct ulnetctl_cmd *verb;

	if (argc < 2) {
		ulnetctl_print_help(noun->sub, noun->name, NULL);
		return ULNETCTL_RC_BAD_PARAM;
	}
	if (argc == 2 && is_help(argv[1])) {
		ulnetctl_print_help(noun->sub, noun->name, NULL);
		return 1;
	}
	verb = find(noun->sub, argv[1]);
	if (!verb)
		return not_a_command(argv[1]);
	if (argc == 3 && is_help(argv[2])) {
		ulnetctl_print_help(noun->sub, noun->name, verb->name);
		return 1;
	}
	return verb->fn(argc - 1, argv + 1);
}

static int dispatch(int argc, char **argv)
{
	const struct ulnetctl_cmd *c;
	const char *w = argv[0];

	if (strcmp(w, "help") == 0 || strcmp(w, "--help") == 0)
		return do_help(argc, argv);
	if (strcmp(w, "version") == 0 || strcmp(w, "--version") == 0) {
		printf("%s %s\n", prog, ULNETCTL_VERSION);
		return 0;
	}
	if (strcmp(w, "list-commands") == 0 ||
	    strcmp(w, "--list-commands") == 0) {
		list_commands();
		return 0;
	}
	if (strcmp(w, "ignore_errors") == 0 ||
	    strcmp(w, "--ignore_errors") == 0) {
		ignore_errors = true;
		return 0;
	}
	c = find(top_cmds, w);
	if (!c)
		return not_a_command(w);
	if (c->fn)
		return c->fn(argc, argv);
	return run_noun(c, argc, argv);
}

/* Script / interactive mode: one command per line, words split on blanks. */
static int run_lines(void)
{
	bool tty = isatty(STDIN_FILENO);
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;

	for (;;) {
		char *words[MAX_LINE_WORDS];
		char *save = NULL, *tok;
		int n = 0;

		if (tty) {
			printf("> ");
			fflush(stdout);
		}
		if (getline(&line, &cap, stdin) < 0)
			break;
		for (tok = strtok_r(line, " \t\r\n", &save); tok;
		     tok = strtok_r(NULL, " \t\r\n", &save)) {
			if (n == MAX_LINE_WORDS)
				break;
			words[n++] = tok;
		}
		if (n == 0)
			continue;
		if (tok) {
			fprintf(stderr,
				"%s: more than %d words in one command\n", prog,
				MAX_LINE_WORDS);
			rc = -E2BIG;
			if (!tty && !ignore_errors)
				break;
			continue;
		}
		if (strcmp(words[0], "quit") == 0 ||
		    strcmp(words[0], "exit") == 0)
			break;
		rc = dispatch(n, words);
		if (rc != 0 && !tty && !ignore_errors)
			break;
	}
	free(line);
	return rc;
}

int main(int argc, char **argv)
{
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Global options, before the command: the control socket. */
	while (argc >= 2 && strncmp(argv[1], "--ctl", 5) == 0) {
		if (argv[1][5] == '=') {
			ulnetctl_ctl_set_path(argv[1] + 6);
		} else if (argv[1][5] == '\0' && argc >= 3) {
			ulnetctl_ctl_set_path(argv[2]);
			argc--;
			argv++;
		} else {
			fprintf(stderr, "%s: --ctl needs a socket path\n",
				prog);
			return ULNETCTL_RC_BAD_PARAM & 0xff;
		}
		argc--;
		argv++;
	}
	if (argc < 2)
		rc = run_lines();
	else
		rc = dispatch(argc - 1, argv + 1);
	/* Output that never arrived (a full disk, a closed pipe) is a failure. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: cannot write output: %s\n", prog,
			strerror(errno));
		if (rc == 0)
			rc = -EIO;
	}
	return rc & 0xff;
}
