#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "gnt-job-status.h"

G_BEGIN_DECLS

/*
 * Where jobs are kept: one small interface, so a later high-availability
 * mode can put the queue on a replicated engine while SQLite
 * (gnt-sqlite-job-store.c) stays the embedded default.
 *
 * Threads: gnt_job_store_write() is called from one thread only (the
 * committer); the readers from one other thread (the main loop).
 */

typedef enum {
	GNT_JOB_STORE_PUT,	   /* insert or replace a live job */
	GNT_JOB_STORE_ARCHIVE,	   /* move a finished job to the archive */
	GNT_JOB_STORE_SET_LAST_ID, /* the highest job ID ever handed out */
	GNT_JOB_STORE_SET_DRAINED, /* the drain flag (id: 0 or 1) */
} GntJobStoreChangeKind;

typedef struct {
	GntJobStoreChangeKind kind;
	guint64 id;
	GntJobStatus status;
	gint64 end_usec;
	gchar *record;	       /* PUT: the shown job record, JSON text */
	gchar *private_values; /* PUT: JSON text, or NULL */
} GntJobStoreChange;

GntJobStoreChange *
gnt_job_store_change_new(GntJobStoreChangeKind kind, guint64 id);
void
gnt_job_store_change_free(GntJobStoreChange *change);

#define GNT_TYPE_JOB_STORE (gnt_job_store_get_type())
G_DECLARE_INTERFACE(GntJobStore, gnt_job_store, GNT, JOB_STORE, GObject)

/* Called for each unfinished job at load. */
typedef gboolean (*GntJobStoreLoadFunc)(JsonObject *record, JsonArray *private_values,
					gpointer user_data, GError **error);
/* Called for each job read back; return FALSE to stop. */
typedef gboolean (*GntJobStoreReadFunc)(JsonObject *record, gboolean archived, gpointer user_data);

struct _GntJobStoreInterface {
	GTypeInterface parent_iface;

	gboolean (*load)(GntJobStore *self, guint64 *last_id, gboolean *drained,
			 GntJobStoreLoadFunc func, gpointer user_data, GError **error);
	gboolean (*write)(GntJobStore *self, GPtrArray *changes, GError **error);
	JsonObject *(*lookup)(GntJobStore *self, guint64 id, gboolean *archived, GError **error);
	gboolean (*lookup_status)(GntJobStore *self, guint64 id, GntJobStatus *status,
				  GError **error);
	gboolean (*foreach)(GntJobStore *self, gboolean archived, GntJobStoreReadFunc func,
			    gpointer user_data, GError **error);
	GArray *(*list_finished)(GntJobStore *self, gint64 ended_before_usec, guint limit,
				 GError **error);
};

/* Reads the queue's state: the last job ID, the drain flag, and every
 * unfinished job (in ID order). */
gboolean
gnt_job_store_load(GntJobStore *self, guint64 *last_id, gboolean *drained, GntJobStoreLoadFunc func,
		   gpointer user_data, GError **error);
/* Applies @changes (GntJobStoreChange) in order, as one durable
 * transaction: when this returns TRUE they survive a crash. */
gboolean
gnt_job_store_write(GntJobStore *self, GPtrArray *changes, GError **error);
/* One job's record, live or archived; GNT_ERROR_NOT_FOUND if neither. */
JsonObject *
gnt_job_store_lookup(GntJobStore *self, guint64 id, gboolean *archived, GError **error);
/* One job's status without parsing its record. */
gboolean
gnt_job_store_lookup_status(GntJobStore *self, guint64 id, GntJobStatus *status, GError **error);
/* Every live (or archived) job, ascending ID. */
gboolean
gnt_job_store_foreach(GntJobStore *self, gboolean archived, GntJobStoreReadFunc func,
		      gpointer user_data, GError **error);
/* IDs (guint64) of up to @limit finished live jobs that ended before
 * @ended_before_usec (G_MAXINT64: all finished ones). */
GArray *
gnt_job_store_list_finished(GntJobStore *self, gint64 ended_before_usec, guint limit,
			    GError **error);

/* The SQLite store: queue.db in WAL mode, synchronous=FULL. */
#define GNT_TYPE_SQLITE_JOB_STORE (gnt_sqlite_job_store_get_type())
G_DECLARE_FINAL_TYPE(GntSqliteJobStore, gnt_sqlite_job_store, GNT, SQLITE_JOB_STORE, GObject)

GntJobStore *
gnt_sqlite_job_store_new(const gchar *path, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntJobStoreChange, gnt_job_store_change_free)

G_END_DECLS
