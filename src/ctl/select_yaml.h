/*
 * One pathway selection as YAML, for "ulnetctl debug select": the result
 * (local NI, peer NI, gateway, final destination, send case) and, when an
 * explanation was recorded, every step with its candidates, the value of
 * each criterion, the verdict against the best of that moment and the
 * criterion that decided it. Priorities print as lnetctl shows them: the
 * unset value (UINT32_MAX) as -1.
 */
#ifndef UL_CTL_SELECT_YAML_H
#define UL_CTL_SELECT_YAML_H

#include "core/explain.h"
#include "core/select.h"
#include "ctl/yemit.h"

/*
 * Emit one item of an open sequence: send number n, the outcome rc of
 * ul_select() with res (read only when rc is 0), and ex (may be NULL).
 */
void ul_select_yaml(struct ul_yemit *y, unsigned int n, int rc,
		    const struct ul_select_res *res,
		    const struct ul_explain *ex);

#endif /* UL_CTL_SELECT_YAML_H */
