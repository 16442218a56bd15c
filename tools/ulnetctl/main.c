/*
 * ulnetctl: the lnetctl-compatible command line of ulnet.
 *
 * Dispatch follows lnetctl and its command parser: "ulnetctl <noun> <verb>
 * [options]"; a noun without a verb prints every verb's help and exits 234
 * (-EINVAL); a noun or verb with -h or --help (or "--he", ...) as its only
 * argument prints help and exits 1; an unknown word prints "'<word>' is
 * not a valid command" and exits 255. The built-ins (quit, exit, help,
 * version, list-commands, ignore_errors) come before every table. With no
 * arguments commands are read from stdin, one per line, the first word of
 * a line possibly shortened; when stdin is not a terminal the first
 * failing command stops the run and gives the exit status, unless
 * "ignore_errors" was given, when the rest runs and the first failure is
 * still the status. The status of a command is its int result truncated
 * to 8 bits, as lnetctl's is.
 *
 * "--ctl SOCKET" (or "--ctl=SOCKET") before the command names the
 * instance's control socket; without it $ULNET_CTL, else
 * /run/ulnet/ulnetd.ctl (ctl.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "cmd.h"
#include "ctl.h"

#define ULNETCTL_VERSION "0.1.0"
/* Words of one script line, as lnetctl's parser (MAXARGS). */
#define MAX_LINE_WORDS 512

static const char *prog = "ulnetctl";
static bool ignore_errors;
static bool is_done; /* "quit" or "exit" was run */

/* Nouns and commands in lnetctl's order; help texts as its command_t's. */
static const struct ulnetctl_cmd top_cmds[] = {
	{ "lnet", NULL, ulnetctl_lnet_cmds,
	  "lnet {configure | unconfigure} [--all|--large]" },
	{ "route", NULL, ulnetctl_route_cmds,
	  "route {add | del | show | help}" },
	{ "net", NULL, ulnetctl_net_cmds,
	  "net {add | del | show | set | help}" },
	{ "routing", NULL, ulnetctl_routing_cmds, "routing {show | help}" },
	{ "set", NULL, ulnetctl_set_cmds,
	  "set {tiny_buffers | small_buffers | large_buffers | routing | "
	  "numa_range | max_interfaces | discovery | drop_asym_route | "
	  "retry_count | transaction_timeout | health_sensitivity | "
	  "recovery_interval | router_sensitivity | response_tracking | "
	  "recovery_limit}" },
	{ "import", ulnetctl_import, NULL, "import FILE.yaml" },
	{ "export", ulnetctl_export, NULL, "export FILE.yaml" },
	{ "stats", NULL, ulnetctl_stats_cmds, "stats {show | help}" },
	{ "debug", NULL, ulnetctl_debug_cmds,
	  "debug {recovery {local | peer} | peer | nidlist | decode | "
	  "select}" },
	{ "global", NULL, ulnetctl_global_cmds, "global {show | help}" },
	{ "peer", NULL, ulnetctl_peer_cmds,
	  "peer {add | del | show | list | set | help}" },
	{ "ping", ulnetctl_ping, NULL, "ping nid,[nid,...]" },
	{ "discover", ulnetctl_discover, NULL, "discover nid[,nid,...]" },
	{ "udsp", NULL, ulnetctl_udsp_cmds, "udsp {add | del | help}" },
	{ "fault", NULL, ulnetctl_fault_cmds, "{drop | delay | help}" },
	{ "cpt-of-nid", ulnetctl_cpt_of_nid, NULL,
	  "Calculate the CPTs associated with NIDs\n"
	  " usage:\n\tulnetctl cpt-of-nid nid[ nid ...]\n" },
	{ "perf", NULL, ulnetctl_perf_cmds, "perf {put} (a ulnet extension)" },
	{ "selftest", NULL, ulnetctl_selftest_cmds,
	  "selftest {run | stat} (lnet_selftest for ulnet, a ulnet "
	  "extension)" },
	{ "param", NULL, ulnetctl_param_cmds,
	  "param {get | set} (module parameters, a ulnet extension)" },
	{ NULL, NULL, NULL, NULL },
};

/*
 * The built-ins every command table has (lnetctl's parser puts them
 * before the table, at every level: "net help" is the usage too).
 */
enum builtin {
	BUILTIN_QUIT,
	BUILTIN_HELP,
	BUILTIN_VERSION,
	BUILTIN_LIST,
	BUILTIN_IGNORE_ERRORS,
};

static const struct {
	const char *name;
	enum builtin what;
	const char *help;
} builtins[] = {
	{ "quit", BUILTIN_QUIT, "quit" },
	{ "exit", BUILTIN_QUIT, "exit" },
	{ "help", BUILTIN_HELP, "provide useful information about a command" },
	{ "--help", BUILTIN_HELP,
	  "provide useful information about a command" },
	{ "version", BUILTIN_VERSION, "show program version" },
	{ "--version", BUILTIN_VERSION, "show program version" },
	{ "list-commands", BUILTIN_LIST, "list available commands" },
	{ "--list-commands", BUILTIN_LIST, "list available commands" },
	{ "--ignore_errors", BUILTIN_IGNORE_ERRORS,
	  "ignore errors that occur during script processing" },
	{ "ignore_errors", BUILTIN_IGNORE_ERRORS,
	  "ignore errors that occur during script processing" },
};
#define NBUILTINS (sizeof(builtins) / sizeof(builtins[0]))

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

/*
 * lnetctl's check_cmd(): a lone argument that getopt reads as -h or as
 * --help, which may be shortened to any prefix down to "--h".
 */
bool ulnetctl_is_help(const char *arg)
{
	size_t n = strlen(arg);

	if (strcmp(arg, "-h") == 0)
		return true;
	return n >= 3 && n <= 6 && strncmp(arg, "--help", n) == 0;
}

void ulnetctl_with_diagnostics(int argc)
{
	opterr = argc <= 2;
}

bool ulnetctl_parse_long(const char *s, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 0);
	return errno != ERANGE && !*end;
}

static int not_a_command(const char *word)
{
	fprintf(stderr,
		"%s: '%s' is not a valid command. See '%s --list-commands'.\n",
		prog, word, prog);
	return -1;
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

/*
 * A command word of a table (with the built-ins before it): one name and
 * its help. index < NBUILTINS is a built-in.
 */
static size_t nwords(const struct ulnetctl_cmd *table)
{
	size_t n = NBUILTINS;

	while (table[n - NBUILTINS].name)
		n++;
	return n;
}

static const char *word_name(const struct ulnetctl_cmd *table, size_t i)
{
	return i < NBUILTINS ? builtins[i].name : table[i - NBUILTINS].name;
}

static const char *word_help(const struct ulnetctl_cmd *table, size_t i)
{
	return i < NBUILTINS ? builtins[i].help : table[i - NBUILTINS].help;
}

enum lookup {
	LOOKUP_FOUND,
	LOOKUP_NONE,
	LOOKUP_AMBIGUOUS,
};

/*
 * lnetctl's commands in its order (its cmd_list), the words a shortened
 * top-level word is looked up among, so that it resolves, or is
 * ambiguous, as in lnetctl: service-id, setup-mrrouting and setup-sysctl
 * are among them though ulnet has no such command, and ulnet's own
 * "perf" is not (it must be written whole).
 */
static const char *const lnetctl_words[] = {
	"lnet",
	"route",
	"net",
	"routing",
	"set",
	"import",
	"export",
	"stats",
	"debug",
	"global",
	"peer",
	"ping",
	"discover",
	"service-id",
	"udsp",
	"fault",
	"setup-mrrouting",
	"setup-sysctl",
	"cpt-of-nid",
};
#define NLNETCTL_WORDS (sizeof(lnetctl_words) / sizeof(lnetctl_words[0]))

/* Word i of what a shortened word is looked up among (see nlookup). */
static const char *lookup_word(const struct ulnetctl_cmd *table, size_t i)
{
	if (i < NBUILTINS)
		return builtins[i].name;
	return table == top_cmds ? lnetctl_words[i - NBUILTINS]
				 : table[i - NBUILTINS].name;
}

/* The built-ins, then lnetctl's commands at the top or a noun's verbs. */
static size_t nlookup(const struct ulnetctl_cmd *table)
{
	return table == top_cmds ? NBUILTINS + NLNETCTL_WORDS : nwords(table);
}

/*
 * The word a script line or "help" names, as lnetctl's parser finds it:
 * the first entry the word is a case-insensitive prefix of, unless
 * another one is that word exactly; two prefixes and no exact name is
 * ambiguous. *out: the full name (it may be a command ulnet has not).
 */
static enum lookup lookup_prefix(const struct ulnetctl_cmd *table,
				 const char *word, const char **out)
{
	size_t len = strlen(word), n = nlookup(table), i, first = n;
	bool is_other = false;

	for (i = 0; i < n; i++) {
		const char *name = lookup_word(table, i);

		if (strncasecmp(word, name, len) != 0)
			continue;
		if (strlen(name) == len) {
			*out = name;
			return LOOKUP_FOUND;
		}
		if (first == n)
			first = i;
		else
			is_other = true;
	}
	if (first == n)
		return LOOKUP_NONE;
	if (is_other)
		return LOOKUP_AMBIGUOUS;
	*out = lookup_word(table, first);
	return LOOKUP_FOUND;
}

static void print_ambiguous(const struct ulnetctl_cmd *table, const char *line,
			    const char *word)
{
	size_t len = strlen(word), n = nlookup(table), i;

	fprintf(stderr, "Ambiguous command '%s'\nOptions: ", line);
	for (i = 0; i < n; i++)
		if (strncasecmp(word, lookup_word(table, i), len) == 0)
			fprintf(stderr, "%s ", lookup_word(table, i));
	fprintf(stderr, "\n");
}

/* Index of name (exact) among the built-ins and table, or -1. */
static ssize_t find_word(const struct ulnetctl_cmd *table, const char *name)
{
	size_t n = nwords(table), i;

	for (i = 0; i < n; i++)
		if (strcmp(word_name(table, i), name) == 0)
			return (ssize_t)i;
	return -1;
}

/* lnetctl's list: built-ins and commands, four 20-column names a row. */
static void list_commands(const struct ulnetctl_cmd *table)
{
	size_t n = nwords(table), i;

	for (i = 0; i < n; i++)
		printf("%-19s %s", word_name(table, i),
		       i % 4 == 3 || i + 1 == n ? "\n" : "");
}

/*
 * "help" alone: the usage. "help WORDS": the words joined without
 * blanks (lnetctl's quirk: "help net add" asks for "netadd"), looked up
 * in table; the answer and every failure go to stderr, status 0.
 */
static int do_help(const struct ulnetctl_cmd *table, int argc, char **argv)
{
	char line[1024] = "";
	const char *name;
	size_t len = 0;
	ssize_t i;
	int k;

	if (argc < 2) {
		usage();
		return 0;
	}
	for (k = 1; k < argc; k++) {
		size_t n = strlen(argv[k]);

		if (n >= sizeof(line) - len)
			return -E2BIG;
		memcpy(line + len, argv[k], n + 1);
		len += n;
	}
	switch (lookup_prefix(table, line, &name)) {
	case LOOKUP_FOUND:
		i = find_word(table, name);
		if (i < 0)
			not_a_command(name);
		else
			fprintf(stderr, "%s: %s\n", line,
				word_help(table, (size_t)i));
		break;
	case LOOKUP_NONE:
		not_a_command(line);
		break;
	case LOOKUP_AMBIGUOUS:
		print_ambiguous(table, line, line);
		break;
	}
	return 0;
}

static int run_builtin(const struct ulnetctl_cmd *table, enum builtin what,
		       int argc, char **argv)
{
	switch (what) {
	case BUILTIN_QUIT:
		is_done = true;
		return 0;
	case BUILTIN_HELP:
		return do_help(table, argc, argv);
	case BUILTIN_VERSION:
		printf("%s %s\n", prog, ULNETCTL_VERSION);
		return 0;
	case BUILTIN_LIST:
		list_commands(table);
		return 0;
	case BUILTIN_IGNORE_ERRORS:
		ignore_errors = true;
		return 0;
	}
	return 0;
}

static int run_noun(const struct ulnetctl_cmd *noun, int argc, char **argv);

/*
 * Run word i of table (looked up already) with argv from that word on.
 * noun: the table's noun, NULL at the top; a verb given -h or --help
 * alone prints its help and gives 1 (lnetctl's check_cmd).
 */
static int run_word(const struct ulnetctl_cmd *table,
		    const struct ulnetctl_cmd *noun, size_t i, int argc,
		    char **argv)
{
	const struct ulnetctl_cmd *c;

	if (i < NBUILTINS)
		return run_builtin(table, builtins[i].what, argc, argv);
	c = &table[i - NBUILTINS];
	if (!c->fn)
		return run_noun(c, argc, argv);
	if (noun && argc == 2 && ulnetctl_is_help(argv[1])) {
		ulnetctl_print_help(table, noun->name, c->name);
		return 1;
	}
	return c->fn(argc, argv);
}

/* A command given as arguments: its word must be exact. */
static int run_args(const struct ulnetctl_cmd *table,
		    const struct ulnetctl_cmd *noun, int argc, char **argv)
{
	ssize_t i = find_word(table, argv[0]);

	if (i < 0)
		return not_a_command(argv[0]);
	return run_word(table, noun, (size_t)i, argc, argv);
}

static int run_noun(const struct ulnetctl_cmd *noun, int argc, char **argv)
{
	return ulnetctl_run_noun(noun->name, noun->sub, argc, argv);
}

int ulnetctl_run_noun(const char *name, const struct ulnetctl_cmd *verbs,
		      int argc, char **argv)
{
	struct ulnetctl_cmd self = { name, NULL, verbs, NULL };

	if (argc < 2) {
		ulnetctl_print_help(verbs, name, NULL);
		return ULNETCTL_RC_BAD_PARAM;
	}
	if (argc == 2 && ulnetctl_is_help(argv[1])) {
		ulnetctl_print_help(verbs, name, NULL);
		return 1;
	}
	return run_args(verbs, &self, argc - 1, argv + 1);
}

/*
 * One script line (words split on blanks and tabs): its first word may
 * be shortened (lnetctl's parser); an unknown one prints the usage and
 * an ambiguous one the candidates, and neither is a failure. Words past
 * the first MAX_LINE_WORDS are dropped, as lnetctl's line2args() does.
 */
static int run_line(char *line)
{
	char *words[MAX_LINE_WORDS];
	char *save = NULL, *tok, *text;
	const char *name;
	ssize_t i;
	int n = 0;

	text = strdup(line);
	for (tok = strtok_r(line, " \t\r\n", &save); tok && n < MAX_LINE_WORDS;
	     tok = strtok_r(NULL, " \t\r\n", &save))
		words[n++] = tok;
	if (n == 0) {
		free(text);
		return 0;
	}
	/* A whole word (ulnet's own perf too) runs as it is. */
	i = find_word(top_cmds, words[0]);
	if (i < 0 && lookup_prefix(top_cmds, words[0], &name) == LOOKUP_FOUND) {
		i = find_word(top_cmds, name);
		if (i < 0) { /* lnetctl's, not ulnet's */
			free(text);
			return not_a_command(name);
		}
	}
	if (i >= 0) {
		free(text);
		return run_word(top_cmds, NULL, (size_t)i, n, words);
	}
	if (lookup_prefix(top_cmds, words[0], &name) == LOOKUP_AMBIGUOUS) {
		/* lnetctl names the line from its first word on */
		char *from = text ? text + strspn(text, " \t") : words[0];

		from[strcspn(from, "\r\n")] = '\0';
		print_ambiguous(top_cmds, from, words[0]);
	} else {
		usage();
	}
	free(text);
	return 0;
}

/*
 * Script / interactive mode: one command per line. When stdin is not a
 * terminal the first failure stops the run (or, after ignore_errors, the
 * rest still runs) and is the exit status.
 */
static int run_lines(void)
{
	bool tty = isatty(STDIN_FILENO);
	char *line = NULL;
	size_t cap = 0;
	int rc = 0, first_error = 0;

	while (!is_done) {
		if (tty) {
			printf("> ");
			fflush(stdout);
		}
		if (getline(&line, &cap, stdin) < 0)
			break;
		rc = run_line(line);
		if (rc != 0 && !tty) {
			if (!first_error)
				first_error = rc;
			if (!ignore_errors)
				break;
		}
	}
	free(line);
	return first_error ? first_error : rc;
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
		rc = run_args(top_cmds, NULL, argc - 1, argv + 1);
	/* Output that never arrived (a full disk, a closed pipe) is a failure. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: cannot write output: %s\n", prog,
			strerror(errno));
		if (rc == 0)
			rc = -EIO;
	}
	return rc & 0xff;
}
