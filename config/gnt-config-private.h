#pragma once

/* What gnt-config.c and gnt-config-objects.c share; not for other modules. */

#include <sqlite3.h>

#include "gnt-config.h"

G_BEGIN_DECLS

typedef struct _GntObjectCache GntObjectCache;

struct _GntConfig {
	GObject parent_instance;
	GMutex mutex; /* guards db, cluster and objects */
	sqlite3 *db;
	GntCluster *cluster;
	GntObjectCache *objects[GNT_OBJECT_LAST];
	GntConfigChangedFunc changed_func; /* guarded by mutex */
	gpointer changed_data;
};

/* After a committed change, with the mutex held. */
void
gnt_config_notify_changed_locked(GntConfig *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(sqlite3_stmt, sqlite3_finalize)

typedef gboolean (*GntConfigDbFunc)(sqlite3 *db, gpointer data, GError **error);

void
gnt_config_db_set_error(GError **error, sqlite3 *db, const gchar *what);
gboolean
gnt_config_db_exec(sqlite3 *db, const gchar *sql, GError **error);
sqlite3_stmt *
gnt_config_db_prepare(sqlite3 *db, const gchar *sql, GError **error);
/* Runs @func in one write transaction, committed or rolled back. */
gboolean
gnt_config_db_transaction(sqlite3 *db, GntConfigDbFunc func, gpointer data, GError **error);

/* gnt-config-objects.c: reads every node and instance into the cache. */
gboolean
gnt_config_objects_load(GntConfig *self, GError **error);
void
gnt_config_objects_clear(GntConfig *self);

G_END_DECLS
