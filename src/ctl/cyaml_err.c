/* lnetctl's cYAML error tree; see cyaml_err.h. */
#include <ctype.h>
#include <string.h>

#include "ctl/cyaml_err.h"

void ul_cyaml_errs_init(struct ul_cyaml_errs *t, FILE *out)
{
	memset(t, 0, sizeof(*t));
	t->out = out;
}

void ul_cyaml_err_add(struct ul_cyaml_errs *t, const char *op,
		      const char *entity, int errnum, const char *descr)
{
	ul_cyaml_err_add_seq(t, op, entity, -1, errnum, descr);
}

void ul_cyaml_err_add_seq(struct ul_cyaml_errs *t, const char *op,
			  const char *entity, int seq_no, int errnum,
			  const char *descr)
{
	const char *p;

	if (strcmp(t->last_op, op) != 0) {
		fprintf(t->out, "%s:\n", op);
		snprintf(t->last_op, sizeof(t->last_op), "%s", op);
	}
	fprintf(t->out, "    - %s:\n", entity);
	if (seq_no >= 0)
		fprintf(t->out, "          seq_no: %d\n", seq_no);
	fprintf(t->out, "          errno: %d\n          descr: ", errnum);
	for (p = descr; *p; p++)
		fputc(iscntrl((unsigned char)*p) ? ' ' : *p, t->out);
	fputc('\n', t->out);
	fflush(t->out);
	t->count++;
}
