/* lnetctl's D1 error document; see show_yaml.h. */
#include <errno.h>
#include <stdbool.h>

#include "ctl/show_yaml.h"
#include "ctl/yemit.h"

#define INDENT_A 6

int ul_show_yaml_err(FILE *out, const char *op, const char *object, int errnum,
		     const char *descr)
{
	struct ul_yemit y;
	int rc;

	rc = ul_yemit_open(&y, out, INDENT_A, true);
	if (rc)
		return rc;
	ul_yemit_map_start(&y);
	ul_yemit_str(&y, op);
	ul_yemit_seq_start(&y);
	ul_yemit_map_start(&y);
	ul_yemit_str(&y, object);
	ul_yemit_str(&y, "");
	ul_yemit_kv(&y, "errno", "%d", errnum);
	ul_yemit_str(&y, "descr");
	ul_yemit_quoted(&y, descr, true, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
	ul_yemit_map_end(&y);
	ul_yemit_seq_end(&y);
	ul_yemit_map_end(&y);
	return ul_yemit_close(&y);
}
