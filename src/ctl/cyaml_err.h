/*
 * lnetctl's "cYAML" error tree (reference/lnetctl.md §2.5), the form most
 * lnetctl commands print their errors in on stderr:
 *
 *	<operation>:
 *	    - <entity>:
 *	          [seq_no: <int>]
 *	          errno: <int>
 *	          descr: <text>
 *
 * Errors of the same operation in a row share one key; a new operation
 * opens a new key. The tree is printed as errors are added, so it
 * interleaves correctly with whatever the command prints on stdout.
 */
#ifndef UL_CTL_CYAML_ERR_H
#define UL_CTL_CYAML_ERR_H

#include <stdio.h>

struct ul_cyaml_errs {
	FILE *out;	    /* usually stderr; not owned */
	char last_op[64];   /* operation key printed last, "" if none */
	unsigned int count; /* errors printed */
};

void ul_cyaml_errs_init(struct ul_cyaml_errs *t, FILE *out);
/*
 * Print one error. descr is printed as lnetctl prints it (raw, quotes
 * kept), except that control characters become spaces so one error stays
 * one YAML scalar on one line.
 */
void ul_cyaml_err_add(struct ul_cyaml_errs *t, const char *op,
		      const char *entity, int errnum, const char *descr);
/* The same with "seq_no: N" before errno (seq_no < 0: none). */
void ul_cyaml_err_add_seq(struct ul_cyaml_errs *t, const char *op,
			  const char *entity, int seq_no, int errnum,
			  const char *descr);

#endif /* UL_CTL_CYAML_ERR_H */
