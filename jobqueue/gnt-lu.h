#pragma once

#include <json-glib/json-glib.h>

#include "gnt-locks.h"
#include "gnt-lu-env.h"
#include "gnt-opcode.h"

G_BEGIN_DECLS

/*
 * A logical unit runs one opcode, in fixed phases: check_args (the opcode
 * alone), declare_locks, check_prereq (under the locks), exec (progress to
 * the job log through gnt_lu_feedback), and returns a JSON result. A failure
 * in check_args or check_prereq is reported as Ganeti's OpPrereqError, one
 * in exec as OpExecError; the GNT_ERROR code gives the error class.
 */

typedef struct _GntLu GntLu;

typedef struct {
	gboolean (*check_args)(GntLu *lu, GError **error);
	void (*declare_locks)(GntLu *lu, GntLockSet *locks);
	gboolean (*check_prereq)(GntLu *lu, GError **error);
	JsonNode *(*exec)(GntLu *lu, GError **error); /* (transfer full) */
	/* nullable: after a master restart, goes on from the point exec
	 * recorded with gnt_lu_set_resume() (gnt_lu_get_resume()), in place
	 * of check_prereq and exec, under the same locks. A unit without it,
	 * or an exec that recorded nothing, fails its job at the restart. */
	JsonNode *(*resume)(GntLu *lu, GError **error);
} GntLuClass;

/* Which unit runs an opcode, a row of the list a queue is given
 * (gnt_queue_set_units(); masterd gives cmdlib's gnt_cmdlib_units). The
 * opcode table names no unit, so clients read it without the units. */
typedef struct {
	const gchar *op_id;
	const GntLuClass *lu;
} GntLuUnit;

const GntOpcode *
gnt_lu_get_opcode(GntLu *self);
/* Gives the unit's later phases @opcode (a ref is taken; NULL: back to the
 * job's) in place of the one submitted, as Ganeti's units fill in self.op
 * (an import takes its values from the export); the job keeps and shows
 * the submitted one. Dropped when the opcode ends. */
void
gnt_lu_set_opcode(GntLu *self, GntOpcode *opcode);
GntLuEnv *
gnt_lu_get_env(GntLu *self);
guint64
gnt_lu_get_job_id(GntLu *self);

/* What a unit keeps from one phase to the next (what check_prereq
 * looked up, exec uses); freed with @free when the opcode ends. */
void
gnt_lu_set_data(GntLu *self, gpointer data, GDestroyNotify free_func);
gpointer
gnt_lu_get_data(GntLu *self);

/* Appends a "message" entry to the job log; the text must never hold a
 * private or secret value. */
void
gnt_lu_feedback(GntLu *self, const gchar *format, ...) G_GNUC_PRINTF(2, 3);

/*
 * Ganeti's ResultWithJobs: submits @jobs (one GPtrArray of GntOpcode per
 * job; transfer full) to the unit's queue, waits until they are durable,
 * and returns Ganeti's "jobs" list: [true, id] per job, or [false, reason]
 * for each when they could not be submitted (queue drained, master
 * stopping). A relative dependency (-1) counts within @jobs. For exec.
 * (transfer full)
 */
JsonArray *
gnt_lu_submit_jobs(GntLu *self, GPtrArray *jobs);

/*
 * A unit about to wait long on a node (an install session, doc/jobqueue.md
 * "Waiting jobs") lends its worker back: until gnt_lu_reclaim_worker() the
 * job does not count against max_running_jobs, so other jobs run meanwhile.
 * Its thread only sleeps in the wait. The reclaim waits for a free worker
 * (not when the master is stopping: the job then ends as it can). For
 * exec.
 */
void
gnt_lu_release_worker(GntLu *self);
void
gnt_lu_reclaim_worker(GntLu *self);

/*
 * Where a restarted master may take this opcode up again (doc/jobqueue.md
 * "Resuming"): @resume (copied; NULL: nowhere) is stored with the job
 * before this returns (FALSE when the store cannot say so: the master is
 * stopping). Only for a job without secret values: those are never stored,
 * so such a job fails at a restart whatever it recorded. For exec.
 */
gboolean
gnt_lu_set_resume(GntLu *self, JsonObject *resume);
/* In the unit's resume: what exec recorded. (transfer none) */
JsonObject *
gnt_lu_get_resume(GntLu *self);

/* Sleeps @seconds, or less when the master is stopping; FALSE then. */
gboolean
gnt_lu_sleep(GntLu *self, gdouble seconds);

G_END_DECLS
