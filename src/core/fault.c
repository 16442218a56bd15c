/* Fault injection rules: store and matching (fault.h). */
#include <errno.h>
#include <stdlib.h>

#include "core/fault.h"

void ul_fault_set_init(struct ul_fault_set *set)
{
	ul_list_init(&set->rules);
}

void ul_fault_set_clear(struct ul_fault_set *set)
{
	struct ul_fault_rule *r, *tmp;

	ul_list_for_each_entry_safe(r, tmp, &set->rules, link) {
		ul_list_del(&r->link);
		free(r);
	}
}

int ul_fault_add(struct ul_fault_set *set, const struct ul_fault_rule *r)
{
	struct ul_fault_rule *copy = malloc(sizeof(*copy));

	if (!copy)
		return -ENOMEM;
	*copy = *r;
	ul_list_add_tail(&set->rules, &copy->link);
	return 0;
}

int ul_fault_del(struct ul_fault_set *set, bool is_delay,
		 const struct ulnet_nid *src, const struct ulnet_nid *dst,
		 bool all)
{
	struct ul_fault_rule *r, *tmp;
	int n = 0;

	ul_list_for_each_entry_safe(r, tmp, &set->rules, link) {
		if (r->is_delay != is_delay)
			continue;
		if (!all && (!ulnet_nid_same(&r->src, src) ||
			     !ulnet_nid_same(&r->dst, dst)))
			continue;
		ul_list_del(&r->link);
		free(r);
		n++;
	}
	return n ? n : -ENOENT;
}

void ul_fault_reset(struct ul_fault_set *set, bool is_delay)
{
	struct ul_fault_rule *r;

	ul_list_for_each_entry(r, &set->rules, link)
		if (r->is_delay == is_delay)
			r->count = r->put = r->ack = r->get = r->reply =
				r->acted = 0;
}

bool ul_fault_nid_match(const struct ulnet_nid *pattern,
			const struct ulnet_nid *nid)
{
	if (ulnet_nid_is_any(pattern))
		return true;
	if (ulnet_nid_net(pattern) != ulnet_nid_net(nid))
		return false;
	/* "*@net": every address of the net */
	if (pattern->nid_addr[0] == 0xffffffffu)
		return true;
	return ulnet_nid_same(pattern, nid);
}

bool ul_fault_match(struct ul_fault_rule *r, const struct ulnet_nid *src,
		    const struct ulnet_nid *dst, uint32_t msg, uint32_t portal)
{
	if (!ul_fault_nid_match(&r->src, src) ||
	    !ul_fault_nid_match(&r->dst, dst))
		return false;
	if (r->msg_mask && !(r->msg_mask & msg))
		return false;
	if (r->ptl_mask && (portal >= 64 || !(r->ptl_mask & (1ULL << portal))))
		return false;
	r->count++;
	if (msg == UL_FAULT_MSG_PUT)
		r->put++;
	else if (msg == UL_FAULT_MSG_ACK)
		r->ack++;
	else if (msg == UL_FAULT_MSG_GET)
		r->get++;
	else if (msg == UL_FAULT_MSG_REPLY)
		r->reply++;
	return true;
}
