/*
 * lnetctl's D1 error document (indent 6, "---"/"...", descr tagged "!"
 * and double-quoted), as reference/lnetctl.md §2 and §11.1 give it, used
 * by ulnetctl. (net show and peer show are reply documents now, printed
 * by doc_yaml.h like every other show.)
 */
#ifndef UL_CTL_SHOW_YAML_H
#define UL_CTL_SHOW_YAML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The D1 error document:
 *	---
 *	<op>:
 *	-     <object>:
 *	      errno: <errnum>
 *	      descr: ! "<descr>"
 *	...
 */
int ul_show_yaml_err(FILE *out, const char *op, const char *object, int errnum,
		     const char *descr);

#endif /* UL_CTL_SHOW_YAML_H */
