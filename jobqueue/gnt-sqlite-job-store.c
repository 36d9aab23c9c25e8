/*
 * queue.db: the job queue in SQLite. WAL journal with synchronous=FULL, so
 * a transaction that returned is on disk; the committer thread writes
 * through its own connection while the main loop reads through another
 * (WAL readers never block the writer).
 */
#include <sqlite3.h>

#include "gnt-error.h"
#include "gnt-job-store.h"
#include "gnt-json.h"

#define SCHEMA_VERSION 1

struct _GntSqliteJobStore {
	GObject parent_instance;
	gchar *path;
	sqlite3 *wdb; /* the committer's */
	sqlite3 *rdb; /* the main loop's */
	/* private values were written since the WAL was last emptied */
	gboolean private_in_wal;
};

static void
gnt_sqlite_job_store_iface_init(GntJobStoreInterface *iface);

G_DEFINE_TYPE_WITH_CODE(GntSqliteJobStore, gnt_sqlite_job_store, G_TYPE_OBJECT,
			G_IMPLEMENT_INTERFACE(GNT_TYPE_JOB_STORE, gnt_sqlite_job_store_iface_init))

static const gchar schema_sql[] =
	"CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);"
	"CREATE TABLE IF NOT EXISTS jobs (id INTEGER PRIMARY KEY, status TEXT NOT NULL,"
	"  end_usec INTEGER NOT NULL DEFAULT 0, record TEXT NOT NULL, private TEXT);"
	"CREATE INDEX IF NOT EXISTS jobs_by_status ON jobs (status, end_usec);"
	"CREATE TABLE IF NOT EXISTS archive (id INTEGER PRIMARY KEY, status TEXT NOT NULL,"
	"  end_usec INTEGER NOT NULL, record TEXT NOT NULL);"
	"INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', 1), ('last_job_id', 0),"
	"  ('drained', 0);";

#define FINALIZED_SQL "('canceled', 'success', 'error')"

/* A full disk is named as such: it is the operator's to fix, and the
 * queue takes jobs again by itself once there is space. */
static gboolean
sql_fail(sqlite3 *db, GError **error, const gchar *what)
{
	if (sqlite3_errcode(db) == SQLITE_FULL)
		g_set_error(error, GNT_ERROR, GNT_ERROR_TEMP_NO_RESOURCES,
			    "the job queue's disk is full ('%s': %s)",
			    sqlite3_db_filename(db, "main"), what);
	else
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "job queue: %s: %s", what,
			    sqlite3_errmsg(db));
	return FALSE;
}

static gboolean
sql_exec(sqlite3 *db, const gchar *sql, GError **error)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return sql_fail(db, error, sql);
	return TRUE;
}

/* Statements are prepared per call: a few microseconds, against a commit's
 * fsync or a JSON parse per row. */
static sqlite3_stmt *
sql_prepare(sqlite3 *db, const gchar *sql, GError **error)
{
	sqlite3_stmt *stmt = NULL;

	if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, NULL) != SQLITE_OK) {
		sql_fail(db, error, "preparing a statement");
		return NULL;
	}
	return stmt;
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(sqlite3_stmt, sqlite3_finalize)

static sqlite3 *
db_open(const gchar *path, GError **error)
{
	sqlite3 *db = NULL;

	if (sqlite3_open_v2(path, &db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "opening job queue '%s': %s",
			    path, db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, 10000);
	/* the archive may hold many jobs: keep the page cache small;
	 * secure_delete zeroes what a job's private values leave behind
	 * when they are dropped (the WAL: sqlite_forget_private()) */
	if (!sql_exec(db,
		      "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
		      "PRAGMA cache_size=-512; PRAGMA foreign_keys=OFF;"
		      "PRAGMA secure_delete=ON;",
		      error)) {
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

GntJobStore *
gnt_sqlite_job_store_new(const gchar *path, GError **error)
{
	g_autoptr(GntSqliteJobStore) self = g_object_new(GNT_TYPE_SQLITE_JOB_STORE, NULL);
	gint64 schema = 0;

	self->path = g_strdup(path);
	self->wdb = db_open(path, error);
	if (self->wdb == NULL)
		return NULL;
	if (!sql_exec(self->wdb, schema_sql, error))
		return NULL;
	self->rdb = db_open(path, error);
	if (self->rdb == NULL)
		return NULL;
	{
		g_autoptr(sqlite3_stmt) stmt = sql_prepare(
			self->rdb, "SELECT value FROM meta WHERE key = 'schema'", error);
		if (stmt == NULL)
			return NULL;
		if (sqlite3_step(stmt) == SQLITE_ROW)
			schema = sqlite3_column_int64(stmt, 0);
	}
	if (schema != SCHEMA_VERSION) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "job queue '%s' has schema %" G_GINT64_FORMAT ", expected %d", path,
			    schema, SCHEMA_VERSION);
		return NULL;
	}
	return GNT_JOB_STORE(g_steal_pointer(&self));
}

static void
gnt_sqlite_job_store_finalize(GObject *object)
{
	GntSqliteJobStore *self = GNT_SQLITE_JOB_STORE(object);

	sqlite3_close_v2(self->rdb);
	sqlite3_close_v2(self->wdb);
	g_free(self->path);
	G_OBJECT_CLASS(gnt_sqlite_job_store_parent_class)->finalize(object);
}

static void
gnt_sqlite_job_store_class_init(GntSqliteJobStoreClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = gnt_sqlite_job_store_finalize;
}

static void
gnt_sqlite_job_store_init(GntSqliteJobStore *self)
{
}

static JsonNode *
column_json(sqlite3_stmt *stmt, int col, GError **error)
{
	const gchar *text = (const gchar *)sqlite3_column_text(stmt, col);

	if (text == NULL) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    "job queue: a stored value is missing");
		return NULL;
	}
	return gnt_json_parse(text, sqlite3_column_bytes(stmt, col), error);
}

static JsonObject *
column_record(sqlite3_stmt *stmt, int col, GError **error)
{
	g_autoptr(JsonNode) node = column_json(stmt, col, error);

	if (node == NULL)
		return NULL;
	if (!JSON_NODE_HOLDS_OBJECT(node)) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    "job queue: a stored job is not a JSON object");
		return NULL;
	}
	return json_object_ref(json_node_get_object(node));
}

static gboolean
meta_get(sqlite3 *db, const gchar *key, gint64 *value, GError **error)
{
	g_autoptr(sqlite3_stmt)
		stmt = sql_prepare(db, "SELECT value FROM meta WHERE key = ?", error);

	if (stmt == NULL)
		return FALSE;
	sqlite3_bind_text(stmt, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(stmt) != SQLITE_ROW)
		return sql_fail(db, error, key);
	*value = sqlite3_column_int64(stmt, 0);
	return TRUE;
}

static gboolean
sqlite_load(GntJobStore *store, guint64 *last_id, gboolean *drained, GntJobStoreLoadFunc func,
	    gpointer user_data, GError **error)
{
	GntSqliteJobStore *self = GNT_SQLITE_JOB_STORE(store);
	g_autoptr(sqlite3_stmt) stmt = NULL;
	gint64 last = 0, drain = 0;
	int rc;

	if (!meta_get(self->rdb, "last_job_id", &last, error) ||
	    !meta_get(self->rdb, "drained", &drain, error))
		return FALSE;
	*last_id = (guint64)last;
	*drained = drain != 0;
	stmt = sql_prepare(self->rdb,
			   "SELECT record, private FROM jobs WHERE status NOT IN " FINALIZED_SQL
			   " ORDER BY id",
			   error);
	if (stmt == NULL)
		return FALSE;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		g_autoptr(JsonObject) record = column_record(stmt, 0, error);
		g_autoptr(JsonNode) priv = NULL;
		if (record == NULL)
			return FALSE;
		if (sqlite3_column_type(stmt, 1) != SQLITE_NULL) {
			priv = column_json(stmt, 1, error);
			if (priv == NULL)
				return FALSE;
		}
		if (!func(record,
			  priv != NULL && JSON_NODE_HOLDS_ARRAY(priv) ? json_node_get_array(priv)
								      : NULL,
			  user_data, error))
			return FALSE;
	}
	if (rc != SQLITE_DONE)
		return sql_fail(self->rdb, error, "loading jobs");
	return TRUE;
}

typedef struct {
	sqlite3_stmt *put, *archive_copy, *archive_delete, *meta_set;
} WriteStmts;

static gboolean
write_one(sqlite3 *db, WriteStmts *st, GntJobStoreChange *change, GError **error)
{
	sqlite3_stmt *stmt;

	switch (change->kind) {
	case GNT_JOB_STORE_PUT:
		stmt = st->put;
		sqlite3_bind_int64(stmt, 1, (sqlite3_int64)change->id);
		sqlite3_bind_text(stmt, 2, gnt_job_status_to_string(change->status), -1,
				  SQLITE_STATIC);
		sqlite3_bind_int64(stmt, 3, change->end_usec);
		sqlite3_bind_text(stmt, 4, change->record, -1, SQLITE_STATIC);
		if (change->private_values != NULL)
			sqlite3_bind_text(stmt, 5, change->private_values, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(stmt, 5);
		break;
	case GNT_JOB_STORE_ARCHIVE:
		sqlite3_bind_int64(st->archive_copy, 1, (sqlite3_int64)change->id);
		if (sqlite3_step(st->archive_copy) != SQLITE_DONE) {
			sqlite3_reset(st->archive_copy);
			return sql_fail(db, error, "archiving a job");
		}
		sqlite3_reset(st->archive_copy);
		stmt = st->archive_delete;
		sqlite3_bind_int64(stmt, 1, (sqlite3_int64)change->id);
		break;
	case GNT_JOB_STORE_SET_LAST_ID:
	case GNT_JOB_STORE_SET_DRAINED:
		stmt = st->meta_set;
		sqlite3_bind_text(stmt, 1,
				  change->kind == GNT_JOB_STORE_SET_LAST_ID ? "last_job_id"
									    : "drained",
				  -1, SQLITE_STATIC);
		sqlite3_bind_int64(stmt, 2, (sqlite3_int64)change->id);
		break;
	default:
		g_return_val_if_reached(FALSE);
	}
	if (sqlite3_step(stmt) != SQLITE_DONE) {
		sqlite3_reset(stmt);
		return sql_fail(db, error, "writing a job");
	}
	sqlite3_reset(stmt);
	sqlite3_clear_bindings(stmt);
	return TRUE;
}

/*
 * A job's private values are stored while it runs and dropped when it
 * ends (doc/secrets.md); secure_delete zeroes them in the database, but
 * the WAL keeps every page written until it is checkpointed and emptied.
 * So once a job ended after private values were written, the WAL is
 * checkpointed and truncated. Busy readers may make that wait for a later
 * commit; it is retried then.
 */
static void
sqlite_forget_private(GntSqliteJobStore *self, GPtrArray *changes)
{
	gboolean wrote_private = FALSE;
	gboolean ended = FALSE;
	int rc;

	for (guint i = 0; i < changes->len; i++) {
		GntJobStoreChange *change = g_ptr_array_index(changes, i);

		if (change->kind != GNT_JOB_STORE_PUT)
			continue;
		if (change->private_values != NULL)
			wrote_private = TRUE;
		else if (gnt_job_status_is_finalized(change->status))
			ended = TRUE;
	}
	self->private_in_wal |= wrote_private;
	if (!self->private_in_wal || !ended)
		return;
	rc = sqlite3_wal_checkpoint_v2(self->wdb, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	if (rc == SQLITE_OK)
		self->private_in_wal = wrote_private;
	else if (rc != SQLITE_BUSY)
		g_warning("job queue: emptying the WAL: %s", sqlite3_errmsg(self->wdb));
}

static gboolean
sqlite_write(GntJobStore *store, GPtrArray *changes, GError **error)
{
	GntSqliteJobStore *self = GNT_SQLITE_JOB_STORE(store);
	g_autoptr(sqlite3_stmt) put = NULL;
	g_autoptr(sqlite3_stmt) archive_copy = NULL;
	g_autoptr(sqlite3_stmt) archive_delete = NULL;
	g_autoptr(sqlite3_stmt) meta_set = NULL;
	WriteStmts st;

	put = sql_prepare(self->wdb,
			  "INSERT OR REPLACE INTO jobs (id, status, end_usec, record, private)"
			  " VALUES (?, ?, ?, ?, ?)",
			  error);
	archive_copy = sql_prepare(self->wdb,
				   "INSERT OR REPLACE INTO archive (id, status, end_usec, record)"
				   " SELECT id, status, end_usec, record FROM jobs WHERE id = ?"
				   " AND status IN " FINALIZED_SQL,
				   error);
	archive_delete = sql_prepare(
		self->wdb, "DELETE FROM jobs WHERE id = ? AND status IN " FINALIZED_SQL, error);
	meta_set = sql_prepare(self->wdb, "UPDATE meta SET value = ?2 WHERE key = ?1", error);
	if (put == NULL || archive_copy == NULL || archive_delete == NULL || meta_set == NULL)
		return FALSE;
	st = (WriteStmts){put, archive_copy, archive_delete, meta_set};

	if (!sql_exec(self->wdb, "BEGIN IMMEDIATE", error))
		return FALSE;
	for (guint i = 0; i < changes->len; i++) {
		if (!write_one(self->wdb, &st, g_ptr_array_index(changes, i), error)) {
			sqlite3_exec(self->wdb, "ROLLBACK", NULL, NULL, NULL);
			return FALSE;
		}
	}
	if (!sql_exec(self->wdb, "COMMIT", error)) {
		sqlite3_exec(self->wdb, "ROLLBACK", NULL, NULL, NULL);
		return FALSE;
	}
	sqlite_forget_private(self, changes);
	return TRUE;
}

static JsonObject *
sqlite_lookup(GntJobStore *store, guint64 id, gboolean *archived, GError **error)
{
	GntSqliteJobStore *self = GNT_SQLITE_JOB_STORE(store);
	const gchar *const queries[] = {"SELECT record FROM jobs WHERE id = ?",
					"SELECT record FROM archive WHERE id = ?"};

	for (guint i = 0; i < G_N_ELEMENTS(queries); i++) {
		g_autoptr(sqlite3_stmt) stmt = sql_prepare(self->rdb, queries[i], error);
		int rc;
		if (stmt == NULL)
			return NULL;
		sqlite3_bind_int64(stmt, 1, (sqlite3_int64)id);
		rc = sqlite3_step(stmt);
		if (rc == SQLITE_ROW) {
			if (archived != NULL)
				*archived = i == 1;
			return column_record(stmt, 0, error);
		}
		if (rc != SQLITE_DONE) {
			sql_fail(self->rdb, error, "looking a job up");
			return NULL;
		}
	}
	g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND, "job %" G_GUINT64_FORMAT " not found",
		    id);
	return NULL;
}

static gboolean
sqlite_lookup_status(GntJobStore *store, guint64 id, GntJobStatus *status, GError **error)
{
	GntSqliteJobStore *self = GNT_SQLITE_JOB_STORE(store);
	g_autoptr(sqlite3_stmt)
		stmt = sql_prepare(self->rdb,
				   "SELECT status FROM jobs WHERE id = ?1 UNION ALL "
				   "SELECT status FROM archive WHERE id = ?1",
				   error);
	int rc;

	if (stmt == NULL)
		return FALSE;
	sqlite3_bind_int64(stmt, 1, (sqlite3_int64)id);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_DONE) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND,
			    "job %" G_GUINT64_FORMAT " not found", id);
		return FALSE;
	}
	if (rc != SQLITE_ROW)
		return sql_fail(self->rdb, error, "looking a job up");
	if (!gnt_job_status_from_string((const gchar *)sqlite3_column_text(stmt, 0), status)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "job %" G_GUINT64_FORMAT " has an unknown status", id);
		return FALSE;
	}
	return TRUE;
}

static gboolean
sqlite_foreach(GntJobStore *store, gboolean archived, GntJobStoreReadFunc func, gpointer user_data,
	       GError **error)
{
	GntSqliteJobStore *self = GNT_SQLITE_JOB_STORE(store);
	g_autoptr(sqlite3_stmt)
		stmt = sql_prepare(self->rdb,
				   archived ? "SELECT record FROM archive ORDER BY id"
					    : "SELECT record FROM jobs ORDER BY id",
				   error);
	int rc;

	if (stmt == NULL)
		return FALSE;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		g_autoptr(JsonObject) record = column_record(stmt, 0, error);
		if (record == NULL)
			return FALSE;
		if (!func(record, archived, user_data))
			return TRUE;
	}
	if (rc != SQLITE_DONE)
		return sql_fail(self->rdb, error, "reading jobs");
	return TRUE;
}

static GArray *
sqlite_list_finished(GntJobStore *store, gint64 ended_before_usec, guint limit, GError **error)
{
	GntSqliteJobStore *self = GNT_SQLITE_JOB_STORE(store);
	g_autoptr(GArray) ids = g_array_new(FALSE, FALSE, sizeof(guint64));
	g_autoptr(sqlite3_stmt)
		stmt = sql_prepare(self->rdb,
				   "SELECT id FROM jobs WHERE status IN " FINALIZED_SQL
				   " AND end_usec < ? ORDER BY id LIMIT ?",
				   error);
	int rc;

	if (stmt == NULL)
		return NULL;
	sqlite3_bind_int64(stmt, 1, ended_before_usec);
	sqlite3_bind_int64(stmt, 2, limit);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		guint64 id = (guint64)sqlite3_column_int64(stmt, 0);
		g_array_append_val(ids, id);
	}
	if (rc != SQLITE_DONE) {
		sql_fail(self->rdb, error, "listing finished jobs");
		return NULL;
	}
	return g_steal_pointer(&ids);
}

static void
gnt_sqlite_job_store_iface_init(GntJobStoreInterface *iface)
{
	iface->load = sqlite_load;
	iface->write = sqlite_write;
	iface->lookup = sqlite_lookup;
	iface->lookup_status = sqlite_lookup_status;
	iface->foreach = sqlite_foreach;
	iface->list_finished = sqlite_list_finished;
}
