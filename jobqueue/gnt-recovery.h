#pragma once
/*
 * What an interrupted operation left half done is undone here. An
 * instance's create marks its record with the create's job
 * ("creating_job") until it has ended well; a record still marked by a job
 * that has ended is a create that never finished (the master was killed
 * while it ran, or its own undo could not reach the node), so it is
 * removed, disks and all, by an OP_INSTANCE_REMOVE job that says why in
 * its log, as if the create had failed cleanly. masterd runs the pass at
 * start-up and again every few minutes until nothing is left, so a node
 * that was down is cleaned once it answers again (doc/jobqueue.md).
 */
#include "gnt-config.h"
#include "gnt-queue.h"

G_BEGIN_DECLS

/* The record member naming the create's job, until the create ended well. */
#define GNT_RECOVERY_CREATING_JOB "creating_job"

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
