/*
 * Memory descriptors and match entries: creation and validation, the
 * handle table, matching at the target (reference/wire.md §7.4) and the
 * two-counter lifetime described in md.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/md.h"

#define KNOWN_OPTIONS                                                          \
	(ULNET_MD_OP_PUT | ULNET_MD_OP_GET | ULNET_MD_MANAGE_REMOTE |          \
	 ULNET_MD_TRUNCATE | ULNET_MD_ACK_DISABLE | ULNET_MD_IOVEC |           \
	 ULNET_MD_MAX_SIZE | ULNET_MD_TRACK_RESPONSE |                         \
	 ULNET_MD_NO_TRACK_RESPONSE)

static uint32_t cookie_hash(uint64_t cookie)
{
	uint64_t x = cookie * UINT64_C(0x9e3779b97f4a7c15);

	return (uint32_t)(x >> 32);
}

int ul_md_table_init(struct ul_md_table *t)
{
	int rc = ul_hash_init(&t->handles, 6);

	if (rc)
		return rc;
	for (size_t i = 0; i < ULNET_PORTALS; i++)
		ul_list_init(&t->portals[i]);
	ul_list_init(&t->all);
	t->next_cookie = 1; /* the all-zero handle is invalid */
	return 0;
}

static void md_free(struct ul_md *md)
{
	ul_list_del(&md->all_link);
	if (md->iov != &md->iov_one)
		free(md->iov);
	free(md);
}

void ul_md_table_fini(struct ul_md_table *t)
{
	struct ul_md *md, *tmp;

	ul_list_for_each_entry_safe(md, tmp, &t->all, all_link) {
		if (!md->is_zombie)
			ul_md_unlink(t, md);
		md_free(md);
	}
	ul_hash_fini(&t->handles);
}

/* Copy the buffer description; -EINVAL for what LNet refuses. */
static int md_set_buffer(struct ul_md *md, const struct ulnet_md *umd)
{
	uint64_t total = 0;

	if (umd->options & ULNET_MD_IOVEC) {
		const struct iovec *src = umd->start;

		if (!src || umd->length == 0 || umd->length > ULNET_MAX_IOV)
			return -EINVAL;
		for (size_t i = 0; i < umd->length; i++) {
			if (!src[i].iov_base && src[i].iov_len)
				return -EINVAL;
			total += src[i].iov_len;
		}
		if (total > UINT32_MAX)
			return -EINVAL;
		if (umd->length == 1) {
			md->iov = &md->iov_one;
		} else {
			md->iov = calloc(umd->length, sizeof(*md->iov));
			if (!md->iov)
				return -ENOMEM;
		}
		memcpy(md->iov, src, umd->length * sizeof(*src));
		md->niov = (uint32_t)umd->length;
		md->start = src[0].iov_base;
	} else {
		if (umd->length > UINT32_MAX || (!umd->start && umd->length))
			return -EINVAL;
		total = umd->length;
		md->iov = &md->iov_one;
		md->iov_one.iov_base = umd->start;
		md->iov_one.iov_len = umd->length;
		md->niov = 1;
		md->start = umd->start;
	}
	md->length = (uint32_t)total;
	return 0;
}

int ul_md_create(struct ul_md_table *t, const struct ulnet_md *umd,
		 enum ulnet_unlink unlink, bool is_attach, uint32_t portal,
		 const struct ulnet_process_id *match_id, uint64_t match_bits,
		 uint64_t ignore_bits, enum ulnet_ins_pos pos,
		 struct ul_md **out)
{
	struct ul_md *md;
	int rc;

	if (!umd || (umd->options & ~KNOWN_OPTIONS) ||
	    umd->threshold < ULNET_MD_THRESH_INF)
		return -EINVAL;
	/* LNet: GET|PUT are illegal on an MD that is not attached. */
	if (!is_attach && (umd->options & (ULNET_MD_OP_PUT | ULNET_MD_OP_GET)))
		return -EINVAL;
	if (is_attach && (portal >= ULNET_PORTALS || !match_id))
		return -EINVAL;
	md = calloc(1, sizeof(*md));
	if (!md)
		return -ENOMEM;
	rc = md_set_buffer(md, umd);
	if (rc)
		goto err_free;
	rc = -EINVAL;
	if ((umd->options & ULNET_MD_MAX_SIZE) && umd->max_size > md->length)
		goto err_iov;
	md->threshold = umd->threshold;
	md->max_size = umd->max_size;
	md->options = umd->options;
	md->user_ptr = umd->user_ptr;
	md->handler = umd->handler;
	md->numa_node = umd->numa_node;
	md->is_auto_unlink = unlink == ULNET_UNLINK;
	md->refcount = 1; /* the live reference */
	ul_list_init(&md->rspt_link);
	ul_list_init(&md->me_link);
	md->cookie = t->next_cookie++;
	ul_hash_add(&t->handles, &md->hnode, cookie_hash(md->cookie));
	ul_list_add_tail(&t->all, &md->all_link);
	if (is_attach) {
		md->is_attached = true;
		md->portal = portal;
		md->match_id = *match_id;
		md->match_bits = match_bits;
		md->ignore_bits = ignore_bits;
		if (pos == ULNET_INS_BEFORE)
			ul_list_add_head(&t->portals[portal], &md->me_link);
		else
			ul_list_add_tail(&t->portals[portal], &md->me_link);
	}
	*out = md;
	return 0;

err_iov:
	if (md->iov != &md->iov_one)
		free(md->iov);
err_free:
	free(md);
	return rc;
}

struct ul_md *ul_md_lookup(const struct ul_md_table *t, uint64_t cookie)
{
	uint32_t hv = cookie_hash(cookie);

	for (struct ul_hnode *h = ul_hash_bucket(&t->handles, hv); h;
	     h = h->next) {
		struct ul_md *md = ul_container_of(h, struct ul_md, hnode);

		if (h->hash == hv && md->cookie == cookie)
			return md;
	}
	return NULL;
}

bool ul_md_is_exhausted(const struct ul_md *md)
{
	if (md->threshold == 0)
		return true;
	return (md->options & ULNET_MD_MAX_SIZE) &&
	       (uint64_t)md->offset + md->max_size > md->length;
}

bool ul_md_is_unlinkable(const struct ul_md *md)
{
	if (md->nmsgs)
		return false;
	return md->is_zombie || (md->is_auto_unlink && ul_md_is_exhausted(md));
}

void ul_md_unlink(struct ul_md_table *t, struct ul_md *md)
{
	if (md->is_zombie)
		return;
	md->is_zombie = true;
	ul_hash_del(&t->handles, &md->hnode);
	ul_list_del(&md->me_link);
}

void ul_md_attach_msg(struct ul_md *md)
{
	if (md->threshold != ULNET_MD_THRESH_INF && md->threshold > 0)
		md->threshold--;
	md->nmsgs++;
}

bool ul_md_detach_msg(struct ul_md *md)
{
	md->nmsgs--;
	return ul_md_is_unlinkable(md);
}

void ul_md_get(struct ul_md *md)
{
	md->refcount++;
}

void ul_md_put(struct ul_md *md)
{
	if (--md->refcount == 0)
		md_free(md);
}

/* LNet's lnet_try_match_md for one entry. */
static enum ul_md_match_result try_match(struct ul_md *md,
					 const struct ul_md_match_req *req,
					 uint32_t *offset, uint32_t *mlength)
{
	uint32_t off, room;

	if (ul_md_is_exhausted(md) || !(md->options & req->opc))
		return UL_MD_MATCH_NONE;
	if (!ulnet_nid_is_any(&md->match_id.nid) &&
	    !ulnet_nid_same(&md->match_id.nid, &req->initiator.nid))
		return UL_MD_MATCH_NONE;
	if (md->match_id.pid != ULNET_PID_ANY &&
	    md->match_id.pid != req->initiator.pid)
		return UL_MD_MATCH_NONE;
	if ((md->match_bits ^ req->match_bits) & ~md->ignore_bits)
		return UL_MD_MATCH_NONE;
	off = (md->options & ULNET_MD_MANAGE_REMOTE) ? req->roffset
						     : md->offset;
	/* A remote offset past the end leaves no room (LNet would wrap). */
	room = off <= md->length ? md->length - off : 0;
	if ((md->options & ULNET_MD_MAX_SIZE) && md->max_size < room)
		room = md->max_size;
	if (req->rlength <= room)
		room = req->rlength;
	else if (!(md->options & ULNET_MD_TRUNCATE))
		return UL_MD_MATCH_DROP;
	*offset = room ? off : (off <= md->length ? off : md->length);
	*mlength = room;
	return UL_MD_MATCH_OK;
}

enum ul_md_match_result ul_md_match(struct ul_md_table *t, uint32_t portal,
				    const struct ul_md_match_req *req,
				    struct ul_md **out, uint32_t *offset,
				    uint32_t *mlength)
{
	struct ul_md *md;

	if (portal >= ULNET_PORTALS)
		return UL_MD_MATCH_NONE;
	ul_list_for_each_entry(md, &t->portals[portal], me_link) {
		uint32_t off = 0, len = 0;
		enum ul_md_match_result r = try_match(md, req, &off, &len);

		if (r == UL_MD_MATCH_NONE)
			continue;
		if (r == UL_MD_MATCH_DROP)
			return r;
		ul_md_attach_msg(md);
		md->offset = off + len;
		if (md->is_auto_unlink && ul_md_is_exhausted(md))
			ul_md_unlink(t, md);
		*out = md;
		*offset = off;
		*mlength = len;
		return UL_MD_MATCH_OK;
	}
	return UL_MD_MATCH_NONE;
}

int ul_md_slice(const struct ul_md *md, uint32_t offset, uint32_t length,
		struct iovec *one, struct iovec **iov, uint32_t *niov,
		struct iovec **alloc)
{
	uint32_t first = 0, n = 0;
	size_t skip = offset, left = length;
	struct iovec *v;

	if (length == 0) {
		*iov = NULL;
		*niov = 0;
		*alloc = NULL;
		return 0;
	}
	while (first < md->niov && skip >= md->iov[first].iov_len) {
		skip -= md->iov[first].iov_len;
		first++;
	}
	for (uint32_t i = first; i < md->niov && left; i++) {
		size_t avail = md->iov[i].iov_len - (i == first ? skip : 0);

		left -= avail < left ? avail : left;
		n++;
	}
	if (n == 0) {
		/* Only empty fragments remain: nothing to describe. */
		*iov = NULL;
		*niov = 0;
		*alloc = NULL;
		return 0;
	}
	if (n == 1) {
		v = one;
		*alloc = NULL;
	} else {
		v = calloc(n, sizeof(*v));
		if (!v)
			return -ENOMEM;
		*alloc = v;
	}
	left = length;
	for (uint32_t i = 0; i < n; i++) {
		const struct iovec *src = &md->iov[first + i];
		size_t from = i == 0 ? skip : 0;
		size_t take = src->iov_len - from;

		if (take > left)
			take = left;
		v[i].iov_base = (char *)src->iov_base + from;
		v[i].iov_len = take;
		left -= take;
	}
	*iov = v;
	*niov = n;
	return 0;
}
