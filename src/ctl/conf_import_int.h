/*
 * Inside the import engine (conf_import.h): its state and the helpers the
 * two halves share. conf_import.c runs the steps and imports net blocks
 * and ip2nets rules; conf_import_items.c routes, peers, the settings and
 * UDSP rules.
 */
#ifndef UL_CTL_CONF_IMPORT_INT_H
#define UL_CTL_CONF_IMPORT_INT_H

#include "ctl/conf_import.h"

struct imp {
	const struct ul_conf *conf;
	const struct ul_conf_import_opts *o;
	struct ul_ctl_args *a;	  /* the request being built */
	bool is_old;		  /* --old-api: go on after a failure */
	int status;		  /* --old-api: the last failure's status */
	enum ul_conf_section sec; /* the step being imported */
	/*
	 * A request got no answer: that was reported, every later
	 * request fails at once with lost_rc and reports nothing more.
	 */
	bool is_lost;
	int lost_rc;
	bool is_unbatched; /* the daemon does not take our batches */
};

/* "add" or "del": the operation of the import's D1 documents. */
const char *ul_imp_op(const struct imp *im);
/* Start a new request in im->a. */
void ul_imp_reset(struct imp *im);
/*
 * Send im->a as op: 0, or the failure with the server's text in err. A
 * request that got no answer is reported here (conf_import.h) and marks
 * the import lost.
 */
int ul_imp_call(struct imp *im, uint16_t op, struct ul_err *err);
/*
 * Batches (ops.batch_add): ul_imp_can_batch() says whether to try (the
 * ops have them and the daemon did not refuse one); ul_imp_queue() adds
 * im->a to the batch (0, or -ENOSPC: send first); ul_imp_send() sends
 * the batch: 0, or the failure of the first request not applied (*done
 * before it) with the server's text in err. A lost batch is reported as
 * ul_imp_call() reports; one the daemon does not know is -EOPNOTSUPP
 * with nothing applied, and ul_imp_can_batch() false from then on.
 */
bool ul_imp_can_batch(const struct imp *im);
int ul_imp_queue(struct imp *im, uint16_t op);
int ul_imp_send(struct imp *im, size_t *done, struct ul_err *err);
/*
 * A D1 document (op "add"/"del"); returns status. Nothing is reported
 * once the import is lost: its error was the report.
 */
int ul_imp_d1(struct imp *im, const char *object, int errnum, const char *descr,
	      unsigned int line, int status);
/* A D2 entry; records status as the --old-api import's. */
void ul_imp_d2(struct imp *im, const char *op, const char *entity, int seq_no,
	       int errnum, const char *descr, unsigned int line, int status);
/*
 * A failure lnetctl reports without a word (conf_import.h is_silent):
 * for whoever logs it; is_ignored: the import goes on.
 */
void ul_imp_silent(struct imp *im, const char *object, int errnum,
		   const char *descr, unsigned int line, bool is_ignored);

/* The steps of conf_import_items.c; each 0 or the import's status. */
int ul_imp_routes(struct imp *im, const struct ul_conf_step *st);
int ul_imp_peers(struct imp *im, const struct ul_conf_step *st);
int ul_imp_setting(struct imp *im, const struct ul_conf_step *st);
int ul_imp_udsp(struct imp *im, const struct ul_conf_step *st);

#endif /* UL_CTL_CONF_IMPORT_INT_H */
