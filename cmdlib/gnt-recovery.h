#pragma once
/*
 * What an interrupted operation left half done is finished here. An
 * instance's create marks its record until it has ended well, and a remove
 * marks it before it removes the disks; a record still marked by a job
 * that has ended is an instance neither whole nor gone (the master was
 * killed while the job ran, or the node could not be reached to undo or
 * finish it). It is removed, disks and all, by an OP_INSTANCE_REMOVE job
 * that says why in its log: a create is undone as if it had failed
 * cleanly, a remove finished as asked. masterd runs the pass at start-up
 * and again every few minutes until nothing is left, so a node that was
 * down is cleaned once it answers again (doc/daemons.md).
 */
#include "gnt-config.h"
#include "gnt-queue.h"

G_BEGIN_DECLS

typedef enum {
	GNT_RECOVERY_CREATE,
	GNT_RECOVERY_REMOVE,
} GntRecoveryOp;

/* Marks @record as being made (or removed) by job @job_id: the caller
 * stores it before it changes anything on the node. */
void
gnt_recovery_mark(JsonObject *record, GntRecoveryOp op, guint64 job_id);
/* The create ended well: the mark goes. */
void
gnt_recovery_unmark(JsonObject *record);
/* Whether @record is marked, and by what. */
gboolean
gnt_recovery_get_mark(JsonObject *record, GntRecoveryOp *op, guint64 *job_id);
/* "created" or "removed", for messages: "left half created by job N". */
const gchar *
gnt_recovery_op_to_participle(GntRecoveryOp op);

typedef struct _GntRecovery GntRecovery;

GntRecovery *
gnt_recovery_new(GntQueue *queue, GntConfig *config);
void
gnt_recovery_free(GntRecovery *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntRecovery, gnt_recovery_free)

/* One pass: submits a removal for each half-created instance that has
 * none running yet. Returns how many it submitted. */
guint
gnt_recovery_run(GntRecovery *self);

G_END_DECLS
