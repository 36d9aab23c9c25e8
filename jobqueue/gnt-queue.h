#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "gnt-job-status.h"
#include "gnt-lu.h"
#include "gnt-opcode.h"

G_BEGIN_DECLS

/*
 * The job queue: takes jobs of opcodes, commits every state change to
 * queue.db before it is acknowledged or shown, and runs jobs on a worker
 * pool under shared/exclusive locks.
 *
 * Threads: every function here is called from the thread that owns the
 * GMainContext the queue was created in (masterd's main loop); callbacks
 * and watches run there too. Workers and the committer are internal.
 *
 * What a reader sees: jobs are read back from the store, so a status,
 * result or log entry is visible only once it is durable. The job records
 * are Ganeti's job-file JSON (id, ops[input,status,result,log,priority,
 * start_timestamp,exec_timestamp,end_timestamp], received_timestamp,
 * start_timestamp, end_timestamp) with private and secret values shown
 * as "<redacted>".
 */

#define GNT_TYPE_QUEUE (gnt_queue_get_type())
G_DECLARE_FINAL_TYPE(GntQueue, gnt_queue, GNT, QUEUE, GObject)

/* What logical units may reach; opaque here, owned by the caller. */
typedef struct _GntLuEnv GntLuEnv;

/*
 * Opens (creating if needed) the store at @queue_db_path and loads it: jobs
 * that were running when the master stopped end as error, jobs holding
 * secrets end as error (the secrets were lost), the other unfinished jobs
 * are queued again. Nothing runs until gnt_queue_start().
 */
GntQueue *
gnt_queue_new(const gchar *queue_db_path, GntLuEnv *env, GError **error);

/* The units jobs run: @units (not copied; terminated by an op_id NULL),
 * given before gnt_queue_start(). The engine links no unit: an opcode
 * without one here fails its job. */
void
gnt_queue_set_units(GntQueue *self, const GntLuUnit *units);

/* At most @max_running jobs run at once (Ganeti's max_running_jobs). */
void
gnt_queue_set_max_running(GntQueue *self, guint max_running);
void
gnt_queue_start(GntQueue *self);
/* Stops scheduling, waits up to @grace_ms for running jobs, stops the
 * workers and the committer. Jobs still running are left as they are in
 * the store (a restart fails them). */
void
gnt_queue_shutdown(GntQueue *self, guint grace_ms);

/* Submission. @jobs: GPtrArray (one per job) of GPtrArray of GntOpcode.
 * The callback runs once every job is durable; the result is a GArray of
 * guint64 job IDs, in order. Fails with GNT_ERROR_WRONG_STATE when the
 * queue is drained. (transfer full: @jobs) */
void
gnt_queue_submit_async(GntQueue *self, GPtrArray *jobs, gboolean ignore_drain,
		       GAsyncReadyCallback callback, gpointer user_data);
GArray *
gnt_queue_submit_finish(GntQueue *self, GAsyncResult *res, GError **error);

/* Cancel: queued jobs end canceled at once, waiting ones end canceled as
 * soon as their worker notices; running and finished ones cannot be.
 * @success and @message are Ganeti's [bool, "message"] answer. */
void
gnt_queue_cancel_async(GntQueue *self, guint64 job_id, GAsyncReadyCallback callback,
		       gpointer user_data);
gboolean
gnt_queue_cancel_finish(GntQueue *self, GAsyncResult *res, gboolean *success, gchar **message,
			GError **error);

/* Moves a finished job to the archive. @archived is FALSE when the job is
 * not found or not finished. */
void
gnt_queue_archive_async(GntQueue *self, guint64 job_id, GAsyncReadyCallback callback,
			gpointer user_data);
gboolean
gnt_queue_archive_finish(GntQueue *self, GAsyncResult *res, gboolean *archived, GError **error);

/* Archives finished jobs that ended at least @age_s seconds ago (-1: all),
 * working for at most @timeout_s seconds; @left counts jobs not checked. */
void
gnt_queue_auto_archive_async(GntQueue *self, gint64 age_s, gint64 timeout_s,
			     GAsyncReadyCallback callback, gpointer user_data);
gboolean
gnt_queue_auto_archive_finish(GntQueue *self, GAsyncResult *res, guint *archived, guint *left,
			      GError **error);

/* Archives, every few minutes, finished jobs that ended at least @age_s
 * seconds ago (what Ganeti's watcher does with AutoArchiveJobs); 0 turns
 * it off. */
void
gnt_queue_set_auto_archive(GntQueue *self, guint age_s);

/* The drain flag refuses new submissions; it is kept in the store. */
gboolean
gnt_queue_set_drained(GntQueue *self, gboolean drained, GError **error);
gboolean
gnt_queue_get_drained(GntQueue *self);

/* Reading jobs back. @job is the stored record (shown form); @archived
 * tells which table it came from. Return FALSE from the callback to stop. */
typedef gboolean (*GntQueueJobFunc)(JsonObject *job, gboolean archived, gpointer user_data);

/* Looks one job up, live first, then in the archive. Returns NULL with
 * GNT_ERROR_NOT_FOUND if it is in neither. (transfer full) */
JsonObject *
gnt_queue_lookup_job(GntQueue *self, guint64 job_id, gboolean *archived, GError **error);
/* Every live job in ascending ID order, then (with @include_archived) every
 * archived one. */
gboolean
gnt_queue_foreach_job(GntQueue *self, gboolean include_archived, GntQueueJobFunc func,
		      gpointer user_data, GError **error);

/* Watches: @func runs (in the main context) after every durable change of
 * job @job_id, and once more when it is archived. */
typedef void (*GntQueueWatchFunc)(GntQueue *self, guint64 job_id, gpointer user_data);
guint
gnt_queue_watch_job(GntQueue *self, guint64 job_id, GntQueueWatchFunc func, gpointer user_data);
void
gnt_queue_unwatch_job(GntQueue *self, guint watch_id);

/* Counts for status output and benchmarks. */
guint
gnt_queue_get_n_unfinished(GntQueue *self);

/* Parses a job ID given as a JSON integer or a decimal string (Ganeti's
 * clients send both). */
gboolean
gnt_job_id_from_json(JsonNode *node, guint64 *job_id, GError **error);

G_END_DECLS
