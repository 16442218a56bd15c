/*
 * Reader for tests/vectors/frames.txt (grammar at the top of that file and
 * in reference/wire.md §13), and the group fixtures the wire tests share
 * to load it. Self-contained: no cmocka, no libulnet, no main, because
 * every unit test program links every helper.
 */
#ifndef HELPER_VECTORS_H
#define HELPER_VECTORS_H

#include <stddef.h>
#include <stdint.h>

#define HV_MAX_BLOCKS 64
#define HV_MAX_BYTES 4096 /* per block */
#define HV_MAX_FIELDS 96  /* per block */
#define HV_NAME_SIZE 64

/* One "fields:" line: <offset> <size> <kind> <name> <value>. */
struct hv_field {
	size_t offset;
	size_t size;
	char kind[8]; /* u8, u16le, u32le, u64le or bytes */
	char name[HV_NAME_SIZE];
	uint64_t value;	      /* integer kinds */
	const uint8_t *bytes; /* the field's bytes inside its block */
};

struct hv_block {
	int index;
	char label[HV_NAME_SIZE];
	int conn;    /* 1 or 2 */
	char dir[8]; /* "A>B" or "B>A" */
	size_t length;
	uint8_t bytes[HV_MAX_BYTES];
	struct hv_field fields[HV_MAX_FIELDS];
	size_t nfields;
};

struct hv_set {
	struct hv_block *blocks; /* nblocks, allocated by hv_load() */
	size_t nblocks;
};

/*
 * Group fixtures shared by the wire tests: hv_setup() loads
 * ULNET_VECTORS_DIR/frames.txt into hv_vectors (printing the reason to
 * stderr and returning -1 if it cannot), hv_teardown() frees it. Their
 * shape is cmocka's group setup/teardown; state is not used.
 */
extern struct hv_set hv_vectors;
int hv_setup(void **state);
int hv_teardown(void **state);
/*
 * A malloc'd copy of the first len bytes of vector index, so ASan sees
 * any read past its end; abort()s if the vector is missing, shorter than
 * len, or memory runs out. len 0 still gives a (1-byte) allocation.
 */
uint8_t *hv_copy(int index, size_t len);

/*
 * Parse the file at path into *set. The file is checked as it is read:
 * the hex must have "length" bytes, the fields must tile them exactly in
 * order, and every value must equal the bytes it describes. Returns 0, or
 * -1 with a reason (file:line) in errbuf.
 */
int hv_load(const char *path, struct hv_set *set, char *errbuf, size_t errlen);
void hv_free(struct hv_set *set);
/* The block with that index, or NULL. */
const struct hv_block *hv_find(const struct hv_set *set, int index);
/* The first field with that name in a block, or NULL. */
const struct hv_field *hv_field(const struct hv_block *b, const char *name);

#endif /* HELPER_VECTORS_H */
