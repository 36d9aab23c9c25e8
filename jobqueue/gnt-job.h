#pragma once

#include <json-glib/json-glib.h>

#include "gnt-job-status.h"
#include "gnt-opcode.h"

G_BEGIN_DECLS

/*
 * A job in memory: its opcodes with their status, result, log and
 * timestamps. Only unfinished jobs live in memory; the queue guards every
 * job with its own mutex, so nothing here locks.
 */

typedef struct {
	GntOpcode *input;
	GntJobStatus status;
	JsonNode *result;
	JsonArray *log; /* [serial, [sec, usec], type, message] */
	gint priority;
	gint64 start_usec, exec_usec, end_usec;
	/* where a restarted master takes the running opcode up again
	 * (gnt_lu_set_resume()); NULL: it cannot, and the job fails then.
	 * Stored as the op's "resume" member; dropped when the op ends */
	JsonObject *resume;
} GntJobOp;

#define GNT_TYPE_JOB (gnt_job_get_type())
G_DECLARE_FINAL_TYPE(GntJob, gnt_job, GNT, JOB, GObject)

/* (transfer full: @ops, a GPtrArray of GntOpcode) */
GntJob *
gnt_job_new(guint64 id, GPtrArray *ops, gint64 received_usec);
/* Rebuilds a job from its stored record and private values (may be NULL:
 * a JSON array with one object or null per opcode). */
GntJob *
gnt_job_new_from_store(JsonObject *record, JsonArray *private_values, GError **error);

guint64
gnt_job_get_id(GntJob *self);
guint
gnt_job_get_n_ops(GntJob *self);
GntJobOp *
gnt_job_get_op(GntJob *self, guint index);
GntJobStatus
gnt_job_get_status(GntJob *self);
/* The minimum priority of unfinished opcodes, 0 when all are finished. */
gint
gnt_job_get_priority(GntJob *self);
gint64
gnt_job_get_end_usec(GntJob *self);
void
gnt_job_set_start_usec(GntJob *self, gint64 usec);
void
gnt_job_set_end_usec(GntJob *self, gint64 usec);
gboolean
gnt_job_has_secrets(GntJob *self);
gboolean
gnt_job_lost_secrets(GntJob *self);
void
gnt_job_forget_secrets(GntJob *self);

/* Appends a log entry to opcode @op_index; serials count across opcodes. */
void
gnt_job_add_log(GntJob *self, guint op_index, const gchar *type, const gchar *message);

/* Sets the status and result (NULL: null) of opcode @index, unless it has
 * finished already. (transfer none: @result) */
void
gnt_job_finish_op(GntJob *self, guint index, GntJobStatus status, JsonNode *result);
/* The same for every opcode from @from on. */
void
gnt_job_finish_ops(GntJob *self, guint from, GntJobStatus status, JsonNode *result);

/* The stored record: Ganeti's job-file JSON, private and secret values
 * redacted. (transfer full) */
JsonObject *
gnt_job_to_json(GntJob *self);
/* The private values, one object (or null) per opcode, or NULL if the job
 * has none. (transfer full) */
JsonArray *
gnt_job_dup_private(GntJob *self);

G_END_DECLS
