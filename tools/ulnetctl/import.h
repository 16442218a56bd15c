/*
 * ulnetctl import's parts: import.c (options, the file, --add and
 * --del through ctl/conf_import.h) and import_show.c (--show, --exec).
 */
#ifndef ULNETCTL_IMPORT_H
#define ULNETCTL_IMPORT_H

#include <stdbool.h>
#include <stddef.h>

struct ul_conf;

/* What the options asked for. */
struct ulnetctl_import {
	bool is_del, is_show, is_exec;
	bool is_old_api;
};

/* A text that is not YAML (msg says why): lnetctl's error; its status. */
int ulnetctl_import_unreadable(const struct ulnetctl_import *im, int rc,
			       const char *msg);
/* --show: each net, route and peer of the file asked for (§16). */
int ulnetctl_import_show(const struct ul_conf *conf);
/* --exec: the file's ping and discover sections (§16). */
int ulnetctl_import_exec(const char *text, size_t len);

#endif /* ULNETCTL_IMPORT_H */
