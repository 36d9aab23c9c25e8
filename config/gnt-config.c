#include "gnt-records.h"
#include "gnt-config.h"
#include "gnt-config-private.h"

#include <sqlite3.h>
#include <string.h>
#include <sys/utsname.h>

#include "gnt-build-config.h"
#include "gnt-cluster-settings.h"
#include "gnt-config-groups.h"
#include "gnt-config-templates.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-paths.h"

/* 1: the cluster; 2: nodes and instances; 3: node groups; 4: the image catalog
 * and install templates */
#define SCHEMA_VERSION 4

/* ------------------------------------------------------------------ */
/* Cluster settings: one table, gnt-cluster-settings.c */

/* Keys of the record outside the settings; the first five are columns. */
static const gchar *const record_keys[] = {
	"uuid", "name", "serial_no", "ctime", "mtime", "master_node", "tags",
};
#define N_RECORD_COLUMNS 5

static gboolean
setting_check(const GntClusterSetting *setting, JsonNode *value, GError **error)
{
	g_autofree gchar *what = g_strdup_printf("'%s'", setting->key);
	const gchar *str = NULL;
	gint64 number = 0;

	switch (setting->type) {
	case GNT_SETTING_STRING_OR_NULL:
		if (JSON_NODE_HOLDS_NULL(value))
			return TRUE;
		return gnt_json_node_get_string(value, what, &str, error);
	case GNT_SETTING_STRING:
		return gnt_json_node_get_string(value, what, &str, error);
	case GNT_SETTING_INT:
		if (!gnt_json_node_get_int(value, what, &number, error))
			return FALSE;
		if (number < setting->min) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "'%s' must be at least %" G_GINT64_FORMAT
				    ", not %" G_GINT64_FORMAT,
				    setting->key, setting->min, number);
			return FALSE;
		}
		return TRUE;
	case GNT_SETTING_BOOL:
		if (JSON_NODE_HOLDS_VALUE(value) &&
		    json_node_get_value_type(value) == G_TYPE_BOOLEAN)
			return TRUE;
		break;
	case GNT_SETTING_STRING_LIST:
		if (!JSON_NODE_HOLDS_ARRAY(value))
			break;
		for (guint i = 0; i < json_array_get_length(json_node_get_array(value)); i++) {
			g_autofree gchar *elem =
				g_strdup_printf("element %u of '%s'", i, setting->key);
			JsonNode *node = json_array_get_element(json_node_get_array(value), i);
			if (!gnt_json_node_get_string(node, elem, &str, error))
				return FALSE;
		}
		return TRUE;
	case GNT_SETTING_LIST:
		if (JSON_NODE_HOLDS_ARRAY(value))
			return TRUE;
		break;
	case GNT_SETTING_OBJECT:
		if (JSON_NODE_HOLDS_OBJECT(value))
			return TRUE;
		break;
	default:
		g_assert_not_reached();
	}
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "'%s' must be a %s, not %s", setting->key,
		    setting->type == GNT_SETTING_BOOL	  ? "boolean"
		    : setting->type == GNT_SETTING_OBJECT ? "dictionary"
							  : "list",
		    gnt_json_node_type_name(value));
	return FALSE;
}

static JsonNode *
setting_default(const GntClusterSetting *setting, const gchar *root)
{
	g_autoptr(GntPaths) paths = NULL;
	g_autofree gchar *dir = NULL;
	JsonNode *node;

	if (setting->default_json == NULL) {
		paths = gnt_paths_new(root);
		dir = g_build_filename(setting->dir == GNT_SETTING_DIR_RUN
					       ? gnt_paths_get_run_dir(paths)
					       : gnt_paths_get_root(paths),
				       setting->path, NULL);
		return gnt_json_node_new_string(dir);
	}
	node = gnt_json_parse(setting->default_json, -1, NULL);
	g_assert(node != NULL); /* a constant of this file */
	return node;
}

/* ------------------------------------------------------------------ */
/* The cluster record */

GntCluster *
gnt_cluster_new(const gchar *name, const gchar *master_node, const gchar *root)
{
	GntCluster *self = g_new0(GntCluster, 1);

	self->uuid = g_uuid_string_random();
	self->name = g_strdup(name);
	self->master_node = g_strdup(master_node);
	self->serial_no = 1;
	self->ctime = self->mtime = (gdouble)g_get_real_time() / G_USEC_PER_SEC;
	self->tags = g_new0(gchar *, 1);
	self->settings = json_object_new();
	for (guint i = 0; gnt_cluster_settings[i].key != NULL; i++)
		json_object_set_member(self->settings, gnt_cluster_settings[i].key,
				       setting_default(&gnt_cluster_settings[i], root));
	return self;
}

void
gnt_cluster_free(GntCluster *self)
{
	if (self == NULL)
		return;
	g_free(self->uuid);
	g_free(self->name);
	g_free(self->master_node);
	g_strfreev(self->tags);
	g_clear_pointer(&self->settings, json_object_unref);
	g_free(self);
}

GntCluster *
gnt_cluster_copy(const GntCluster *self)
{
	GntCluster *copy = g_new0(GntCluster, 1);

	copy->uuid = g_strdup(self->uuid);
	copy->name = g_strdup(self->name);
	copy->master_node = g_strdup(self->master_node);
	copy->serial_no = self->serial_no;
	copy->ctime = self->ctime;
	copy->mtime = self->mtime;
	copy->tags = g_strdupv(self->tags);
	copy->settings = gnt_json_object_deep_copy(self->settings);
	return copy;
}

static gboolean
is_record_key(const gchar *key)
{
	for (guint i = 0; i < G_N_ELEMENTS(record_keys); i++) {
		if (g_strcmp0(record_keys[i], key) == 0)
			return TRUE;
	}
	return FALSE;
}

static gboolean
cluster_load_tags(GntCluster *self, JsonObject *obj, GError **error)
{
	g_autoptr(GStrvBuilder) builder = g_strv_builder_new();
	JsonArray *tags = NULL;

	if (json_object_has_member(obj, "tags")) {
		if (!gnt_json_get_array(obj, "tags", &tags, error))
			return FALSE;
		for (guint i = 0; i < json_array_get_length(tags); i++) {
			g_autofree gchar *what = g_strdup_printf("tag %u", i);
			const gchar *tag = NULL;
			if (!gnt_json_node_get_string(json_array_get_element(tags, i), what, &tag,
						      error))
				return FALSE;
			g_strv_builder_add(builder, tag);
		}
	}
	self->tags = g_strv_builder_end(builder);
	return TRUE;
}

static gboolean
cluster_load_settings(GntCluster *self, JsonObject *obj, GError **error)
{
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *member;

	json_object_iter_init_ordered(&iter, obj);
	while (json_object_iter_next_ordered(&iter, &key, &member)) {
		if (gnt_cluster_setting_lookup(key) == NULL && !is_record_key(key))
			g_debug("cluster record: skipping unknown key '%s'", key);
	}
	for (guint i = 0; gnt_cluster_settings[i].key != NULL; i++) {
		member = json_object_get_member(obj, gnt_cluster_settings[i].key);
		if (member == NULL) {
			json_object_set_member(self->settings, gnt_cluster_settings[i].key,
					       setting_default(&gnt_cluster_settings[i], NULL));
			continue;
		}
		if (!setting_check(&gnt_cluster_settings[i], member, error))
			return FALSE;
		json_object_set_member(self->settings, gnt_cluster_settings[i].key,
				       gnt_json_node_deep_copy(member));
	}
	return TRUE;
}

GntCluster *
gnt_cluster_from_json(JsonObject *obj, GError **error)
{
	g_autoptr(GntCluster) self = g_new0(GntCluster, 1);

	self->settings = json_object_new();
	if (!gnt_json_dup_string(obj, "uuid", &self->uuid, error) ||
	    !gnt_json_dup_string(obj, "name", &self->name, error) ||
	    !gnt_json_dup_string(obj, "master_node", &self->master_node, error) ||
	    !gnt_json_get_int(obj, "serial_no", &self->serial_no, error) ||
	    !gnt_json_get_double(obj, "ctime", &self->ctime, error) ||
	    !gnt_json_get_double(obj, "mtime", &self->mtime, error) ||
	    !cluster_load_tags(self, obj, error) || !cluster_load_settings(self, obj, error)) {
		g_prefix_error(error, "cluster record: ");
		return NULL;
	}
	if (!g_uuid_string_is_valid(self->uuid)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "cluster record: 'uuid' is not a UUID: '%s'", self->uuid);
		return NULL;
	}
	if (!gnt_config_check_name(self->name, "cluster name", error) ||
	    !gnt_config_check_name(self->master_node, "master node name", error)) {
		g_prefix_error(error, "cluster record: ");
		return NULL;
	}
	return g_steal_pointer(&self);
}

JsonObject *
gnt_cluster_to_json(const GntCluster *self)
{
	JsonObject *obj = json_object_new();
	JsonArray *tags = json_array_new();

	json_object_set_string_member(obj, "uuid", self->uuid);
	json_object_set_string_member(obj, "name", self->name);
	json_object_set_int_member(obj, "serial_no", self->serial_no);
	json_object_set_double_member(obj, "ctime", self->ctime);
	json_object_set_double_member(obj, "mtime", self->mtime);
	json_object_set_string_member(obj, "master_node", self->master_node);
	for (guint i = 0; self->tags[i] != NULL; i++)
		json_array_add_string_element(tags, self->tags[i]);
	json_object_set_array_member(obj, "tags", tags);
	for (guint i = 0; gnt_cluster_settings[i].key != NULL; i++) {
		JsonNode *value =
			json_object_get_member(self->settings, gnt_cluster_settings[i].key);
		json_object_set_member(obj, gnt_cluster_settings[i].key,
				       gnt_json_node_deep_copy(value));
	}
	return obj;
}

gboolean
gnt_config_check_name(const gchar *name, const gchar *what, GError **error)
{
	g_auto(GStrv) labels = NULL;
	gsize len = name != NULL ? strlen(name) : 0;

	if (len >= 1 && len <= 253) {
		labels = g_strsplit(name, ".", -1);
		for (guint i = 0; labels[i] != NULL; i++) {
			gsize label_len = strlen(labels[i]);
			if (label_len == 0 || label_len > 63 || labels[i][0] == '-' ||
			    labels[i][label_len - 1] == '-' ||
			    strspn(labels[i],
				   "abcdefghijklmnopqrstuvwxyz"
				   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != label_len) {
				len = 0;
				break;
			}
		}
	}
	if (len >= 1 && len <= 253)
		return TRUE;
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
		    "invalid %s '%s': expected a DNS name of 1 to 253 characters, with labels of "
		    "letters, digits, '-' and '_'",
		    what, name != NULL ? name : "");
	return FALSE;
}

/* ------------------------------------------------------------------ */
/* config.db */

void
gnt_config_db_set_error(GError **error, sqlite3 *db, const gchar *what)
{
	g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "config database '%s': %s: %s",
		    sqlite3_db_filename(db, "main"), what, sqlite3_errmsg(db));
}

gboolean
gnt_config_db_exec(sqlite3 *db, const gchar *sql, GError **error)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		gnt_config_db_set_error(error, db, sql);
		return FALSE;
	}
	return TRUE;
}

sqlite3_stmt *
gnt_config_db_prepare(sqlite3 *db, const gchar *sql, GError **error)
{
	sqlite3_stmt *stmt = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK) {
		gnt_config_db_set_error(error, db, sql);
		return NULL;
	}
	return stmt;
}

/* Runs @func in one write transaction, committed or rolled back. */
gboolean
gnt_config_db_transaction(sqlite3 *db, GntConfigDbFunc func, gpointer data, GError **error)
{
	if (!gnt_config_db_exec(db, "BEGIN IMMEDIATE", error))
		return FALSE;
	if (!func(db, data, error) || !gnt_config_db_exec(db, "COMMIT", error)) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return FALSE;
	}
	return TRUE;
}

static gboolean
db_create_schema(sqlite3 *db, GError **error)
{
	/* One table for the cluster and one per object kind, named as the
	 * kind; every statement is idempotent, so an older database gains the
	 * tables it lacks. */
	for (gint k = -1; k < GNT_OBJECT_LAST; k++) {
		g_autofree gchar *sql = g_strdup_printf(
			"CREATE TABLE IF NOT EXISTS %s (uuid TEXT PRIMARY KEY NOT NULL,"
			" name TEXT NOT NULL UNIQUE, serial_no INTEGER NOT NULL,"
			" ctime REAL NOT NULL, mtime REAL NOT NULL, data TEXT NOT NULL) STRICT",
			k < 0 ? "cluster" : gnt_object_kind_to_string((GntObjectKind)k));
		if (!gnt_config_db_exec(db, sql, error))
			return FALSE;
	}
	return gnt_config_db_exec(db, "PRAGMA user_version = " G_STRINGIFY(SCHEMA_VERSION), error);
}

static gboolean
db_check_schema(sqlite3 *db, gboolean *empty, gint *version_out, GError **error)
{
	g_autoptr(sqlite3_stmt) stmt = gnt_config_db_prepare(db, "PRAGMA user_version", error);
	gint version;

	if (stmt == NULL)
		return FALSE;
	if (sqlite3_step(stmt) != SQLITE_ROW) {
		gnt_config_db_set_error(error, db, "reading the schema version");
		return FALSE;
	}
	version = sqlite3_column_int(stmt, 0);
	if (version > SCHEMA_VERSION) {
		g_set_error(
			error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			"config database '%s' has schema version %d; this Gantry knows up to %d",
			sqlite3_db_filename(db, "main"), version, SCHEMA_VERSION);
		return FALSE;
	}
	*empty = version == 0;
	if (version_out != NULL)
		*version_out = version;
	return TRUE;
}

static sqlite3 *
db_open(const gchar *path, gboolean create, GError **error)
{
	sqlite3 *db = NULL;
	gint flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);

	if (!create && !g_file_test(path, G_FILE_TEST_EXISTS)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND,
			    "no cluster configuration at '%s'", path);
		return NULL;
	}
	if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "cannot open config database '%s': %s", path,
			    db != NULL ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, 10000);
	/* every record is cached in memory (gnt-config-objects.c) and read
	 * from there: SQLite's own page cache (2 MiB by default) would only
	 * hold a second copy, so it gets 512 KiB for writes and start-up */
	if (!gnt_config_db_exec(db, "PRAGMA journal_mode = WAL", error) ||
	    !gnt_config_db_exec(db, "PRAGMA synchronous = FULL", error) ||
	    !gnt_config_db_exec(db, "PRAGMA cache_size = -512", error)) {
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

/* The record's data column: everything but the columns. (transfer full) */
static gchar *
cluster_data_json(const GntCluster *cluster)
{
	g_autoptr(JsonObject) obj = gnt_cluster_to_json(cluster);
	g_autoptr(JsonNode) node = NULL;

	for (guint i = 0; i < N_RECORD_COLUMNS; i++)
		json_object_remove_member(obj, record_keys[i]);
	node = json_node_init_object(json_node_alloc(), obj);
	return gnt_json_to_string(node);
}

/* INSERT (@insert) or UPDATE of the cluster row. */
static gboolean
db_write_cluster(sqlite3 *db, const GntCluster *cluster, gboolean insert, GError **error)
{
	g_autofree gchar *data = cluster_data_json(cluster);
	g_autoptr(sqlite3_stmt) stmt = gnt_config_db_prepare(
		db,
		insert ? "INSERT INTO cluster (name, serial_no, ctime, mtime, data, uuid)"
			 " VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
		       : "UPDATE cluster SET name = ?1, serial_no = ?2, ctime = ?3, mtime = ?4,"
			 " data = ?5 WHERE uuid = ?6",
		error);

	if (stmt == NULL)
		return FALSE;
	sqlite3_bind_text(stmt, 1, cluster->name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 2, cluster->serial_no);
	sqlite3_bind_double(stmt, 3, cluster->ctime);
	sqlite3_bind_double(stmt, 4, cluster->mtime);
	sqlite3_bind_text(stmt, 5, data, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 6, cluster->uuid, -1, SQLITE_STATIC);
	if (sqlite3_step(stmt) != SQLITE_DONE) {
		gnt_config_db_set_error(error, db, "writing the cluster record");
		return FALSE;
	}
	if (sqlite3_changes(db) != 1) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_FAULT,
			    "config database '%s': cluster '%s' (%s) is not there to update",
			    sqlite3_db_filename(db, "main"), cluster->name, cluster->uuid);
		return FALSE;
	}
	return TRUE;
}

/* The stored cluster, or NULL with *@found FALSE if there is none. */
static GntCluster *
db_read_cluster(sqlite3 *db, gboolean *found, GError **error)
{
	g_autoptr(sqlite3_stmt) stmt = gnt_config_db_prepare(
		db, "SELECT uuid, name, serial_no, ctime, mtime, data FROM cluster", error);
	g_autoptr(JsonNode) node = NULL;
	JsonObject *obj;
	gint rc;

	*found = FALSE;
	if (stmt == NULL)
		return NULL;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_DONE)
		return NULL;
	if (rc != SQLITE_ROW) {
		gnt_config_db_set_error(error, db, "reading the cluster record");
		return NULL;
	}
	*found = TRUE;
	node = gnt_json_parse((const gchar *)sqlite3_column_text(stmt, 5), -1, error);
	if (node == NULL) {
		g_prefix_error(error, "config database '%s': the cluster's data: ",
			       sqlite3_db_filename(db, "main"));
		return NULL;
	}
	if (!JSON_NODE_HOLDS_OBJECT(node)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "config database '%s': the cluster's data is not a JSON object",
			    sqlite3_db_filename(db, "main"));
		return NULL;
	}
	obj = json_node_get_object(node);
	json_object_set_string_member(obj, "uuid", (const gchar *)sqlite3_column_text(stmt, 0));
	json_object_set_string_member(obj, "name", (const gchar *)sqlite3_column_text(stmt, 1));
	json_object_set_int_member(obj, "serial_no", sqlite3_column_int64(stmt, 2));
	json_object_set_double_member(obj, "ctime", sqlite3_column_double(stmt, 3));
	json_object_set_double_member(obj, "mtime", sqlite3_column_double(stmt, 4));
	return gnt_cluster_from_json(obj, error);
}

/* ------------------------------------------------------------------ */
/* GntConfig */

G_DEFINE_TYPE(GntConfig, gnt_config, G_TYPE_OBJECT)

static void
gnt_config_finalize(GObject *object)
{
	GntConfig *self = GNT_CONFIG(object);

	sqlite3_close(self->db);
	gnt_cluster_free(self->cluster);
	gnt_config_objects_clear(self);
	g_mutex_clear(&self->mutex);
	G_OBJECT_CLASS(gnt_config_parent_class)->finalize(object);
}

static void
gnt_config_class_init(GntConfigClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = gnt_config_finalize;
}

static void
gnt_config_init(GntConfig *self)
{
	g_mutex_init(&self->mutex);
}

/* The root a database at @path lies in (<root>/var/lib/gantry/config.db),
 * else the default root. (transfer full) */
static gchar *
root_of_db_path(const gchar *path)
{
	g_autofree gchar *abs = g_canonicalize_filename(path, NULL);
	g_autofree gchar *data_dir = g_path_get_dirname(abs);
	g_autofree gchar *lib_dir = g_path_get_dirname(data_dir);
	g_autofree gchar *var_dir = g_path_get_dirname(lib_dir);
	g_autofree gchar *root = g_path_get_dirname(var_dir);
	g_autoptr(GntPaths) paths = gnt_paths_new(root);

	if (g_strcmp0(gnt_paths_get_config_db(paths), abs) == 0)
		return g_steal_pointer(&root);
	gnt_paths_free(paths);
	paths = gnt_paths_new(NULL);
	return g_strdup(gnt_paths_get_root(paths));
}

typedef struct {
	const gchar *path;
	GntCluster *cluster;
} CreateData;

static gboolean
db_create_cluster(sqlite3 *db, gpointer user_data, GError **error)
{
	CreateData *data = user_data;
	g_autoptr(GntCluster) existing = NULL;
	g_autoptr(GError) error_local = NULL;
	gboolean empty = FALSE;
	gboolean found = FALSE;

	if (!db_check_schema(db, &empty, NULL, error))
		return FALSE;
	if (empty && !db_create_schema(db, error))
		return FALSE;
	existing = db_read_cluster(db, &found, &error_local);
	if (found) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_EXISTS, "a cluster already exists in '%s'",
			    data->path);
		return FALSE;
	}
	if (error_local != NULL) {
		g_propagate_error(error, g_steal_pointer(&error_local));
		return FALSE;
	}
	return db_write_cluster(db, data->cluster, TRUE, error);
}

GntConfig *
gnt_config_create(const gchar *path, const gchar *cluster_name, const gchar *master_node,
		  GError **error)
{
	g_autoptr(GntConfig) self = NULL;
	g_autofree gchar *name = NULL;
	g_autofree gchar *master = NULL;
	g_autofree gchar *root = NULL;
	CreateData data = {path, NULL};

	g_return_val_if_fail(path != NULL, NULL);

	if (master_node == NULL)
		master_node = g_get_host_name();
	if (!gnt_config_check_name(cluster_name, "cluster name", error) ||
	    !gnt_config_check_name(master_node, "master node name", error))
		return NULL;
	name = g_ascii_strdown(cluster_name, -1);
	master = g_ascii_strdown(master_node, -1);
	root = root_of_db_path(path);
	self = g_object_new(GNT_TYPE_CONFIG, NULL);
	self->db = db_open(path, TRUE, error);
	if (self->db == NULL)
		return NULL;
	data.cluster = gnt_cluster_new(name, master, root);
	if (!gnt_config_db_transaction(self->db, db_create_cluster, &data, error)) {
		gnt_cluster_free(data.cluster);
		return NULL;
	}
	self->cluster = data.cluster;
	if (!gnt_config_ensure_groups(self, error) ||
	    !gnt_config_ensure_shipped_templates(self, error))
		return NULL;
	return g_steal_pointer(&self);
}

GntConfig *
gnt_config_open(const gchar *path, GError **error)
{
	g_autoptr(GntConfig) self = NULL;
	g_autoptr(GError) error_local = NULL;
	gboolean empty = FALSE;
	gboolean found = FALSE;
	gint version = 0;

	g_return_val_if_fail(path != NULL, NULL);

	self = g_object_new(GNT_TYPE_CONFIG, NULL);
	self->db = db_open(path, FALSE, error);
	if (self->db == NULL || !db_check_schema(self->db, &empty, &version, error))
		return NULL;
	if (!empty && version < SCHEMA_VERSION && !db_create_schema(self->db, error))
		return NULL;
	if (!empty)
		self->cluster = db_read_cluster(self->db, &found, &error_local);
	if (self->cluster != NULL &&
	    (!gnt_config_objects_load(self, error) || !gnt_config_ensure_groups(self, error) ||
	     !gnt_config_ensure_shipped_templates(self, error)))
		return NULL;
	if (self->cluster != NULL)
		return g_steal_pointer(&self);
	if (error_local != NULL) {
		g_propagate_prefixed_error(error, g_steal_pointer(&error_local),
					   "config database '%s': ", path);
		return NULL;
	}
	g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND, "no cluster in '%s'", path);
	return NULL;
}

/* A copy of the string at @offset in the cached cluster record. */
static gchar *
config_dup_string(GntConfig *self, glong offset)
{
	gchar *value;

	g_return_val_if_fail(GNT_IS_CONFIG(self), NULL);

	g_mutex_lock(&self->mutex);
	value = g_strdup(G_STRUCT_MEMBER(gchar *, self->cluster, offset));
	g_mutex_unlock(&self->mutex);
	return value;
}

gchar *
gnt_config_dup_cluster_name(GntConfig *self)
{
	return config_dup_string(self, G_STRUCT_OFFSET(GntCluster, name));
}

gchar *
gnt_config_dup_master_node(GntConfig *self)
{
	return config_dup_string(self, G_STRUCT_OFFSET(GntCluster, master_node));
}

gchar *
gnt_config_dup_cluster_uuid(GntConfig *self)
{
	return config_dup_string(self, G_STRUCT_OFFSET(GntCluster, uuid));
}

GntCluster *
gnt_config_dup_cluster(GntConfig *self)
{
	GntCluster *copy;

	g_return_val_if_fail(GNT_IS_CONFIG(self), NULL);

	g_mutex_lock(&self->mutex);
	copy = gnt_cluster_copy(self->cluster);
	g_mutex_unlock(&self->mutex);
	return copy;
}

static JsonNode *
architecture_json(void)
{
	struct utsname uts;
	JsonArray *arch = json_array_new();
	g_autofree gchar *bits = g_strdup_printf("%zubits", sizeof(gpointer) * 8);

	json_array_add_string_element(arch, bits);
	json_array_add_string_element(arch, uname(&uts) == 0 ? uts.machine : "unknown");
	return gnt_json_node_new_array(arch);
}

JsonObject *
gnt_config_dup_cluster_info(GntConfig *self)
{
	g_autoptr(GntCluster) cluster = gnt_config_dup_cluster(self);
	g_autoptr(JsonObject) record = gnt_cluster_to_json(cluster);
	JsonObject *info = json_object_new();
	JsonArray *hypervisors = NULL;
	const gchar *default_hypervisor = NULL;

	/* Ganeti's default hypervisor is the first enabled one */
	if (gnt_json_get_array(cluster->settings, "enabled_hypervisors", &hypervisors, NULL) &&
	    json_array_get_length(hypervisors) > 0)
		gnt_json_node_get_string(json_array_get_element(hypervisors, 0), "hypervisor",
					 &default_hypervisor, NULL);

	json_object_set_string_member(info, "software_version", GNT_VERSION);
	json_object_set_int_member(info, "protocol_version", GNT_CONFIG_PROTOCOL_VERSION);
	json_object_set_int_member(info, "config_version", GNT_CONFIG_CONFIG_VERSION);
	json_object_set_int_member(info, "os_api_version", GNT_CONFIG_OS_API_VERSION);
	json_object_set_int_member(info, "export_version", GNT_CONFIG_EXPORT_VERSION);
	json_object_set_string_member(info, "vcs_version", "(gantry) version " GNT_VERSION);
	json_object_set_member(info, "architecture", architecture_json());
	json_object_set_string_member(info, "name", cluster->name);
	json_object_set_string_member(info, "master", cluster->master_node);
	json_object_set_string_member(info, "uuid", cluster->uuid);
	json_object_set_double_member(info, "ctime", cluster->ctime);
	json_object_set_double_member(info, "mtime", cluster->mtime);
	json_object_set_member(info, "tags", json_object_dup_member(record, "tags"));
	json_object_set_member(info, "default_hypervisor",
			       gnt_json_node_new_string(default_hypervisor));
	for (guint i = 0; gnt_cluster_settings[i].key != NULL; i++)
		json_object_set_member(info, gnt_cluster_settings[i].key,
				       json_object_dup_member(record, gnt_cluster_settings[i].key));
	return info;
}

JsonNode *
gnt_config_dup_config_values(GntConfig *self, JsonArray *names, gboolean drain_flag)
{
	g_autoptr(GntCluster) cluster = NULL;
	JsonArray *values;

	g_return_val_if_fail(GNT_IS_CONFIG(self), NULL);
	g_return_val_if_fail(names != NULL, NULL);

	cluster = gnt_config_dup_cluster(self);
	values = json_array_new();

	for (guint i = 0; i < json_array_get_length(names); i++) {
		const gchar *name = NULL;
		JsonNode *value = NULL;

		if (!gnt_json_node_get_string(json_array_get_element(names, i), "name", &name,
					      NULL))
			name = "";
		if (g_strcmp0(name, "cluster_name") == 0)
			value = gnt_json_node_new_string(cluster->name);
		else if (g_strcmp0(name, "master_node") == 0)
			value = gnt_json_node_new_string(cluster->master_node);
		else if (g_strcmp0(name, "drain_flag") == 0)
			value = gnt_json_node_new_bool(drain_flag);
		else if (g_strcmp0(name, "modify_ssh_setup") == 0 ||
			 g_strcmp0(name, "ssh_key_type") == 0 ||
			 g_strcmp0(name, "ssh_key_bits") == 0)
			value = json_object_dup_member(cluster->settings, name);
		else /* watcher_pause: there is no watcher to pause yet */
			value = gnt_json_node_new_null();
		json_array_add_element(values, value);
	}
	return gnt_json_node_new_array(values);
}

gint64
gnt_config_get_max_running_jobs(GntConfig *self)
{
	gint64 value = 0;

	g_return_val_if_fail(GNT_IS_CONFIG(self), 0);

	g_mutex_lock(&self->mutex);
	gnt_json_get_int(self->cluster->settings, "max_running_jobs", &value, NULL);
	g_mutex_unlock(&self->mutex);
	return value;
}

static gboolean
db_update_cluster(sqlite3 *db, gpointer cluster, GError **error)
{
	return db_write_cluster(db, cluster, FALSE, error);
}

/* Commits @cluster (a changed copy of the current record) as the next
 * version, with the mutex held. */
static gboolean
config_commit_cluster_locked(GntConfig *self, GntCluster *cluster, GError **error)
{
	cluster->serial_no = self->cluster->serial_no + 1;
	cluster->mtime = (gdouble)g_get_real_time() / G_USEC_PER_SEC;
	if (!gnt_config_db_transaction(self->db, db_update_cluster, cluster, error))
		return FALSE;
	gnt_cluster_free(self->cluster);
	self->cluster = cluster;
	gnt_config_notify_changed_locked(self);
	return TRUE;
}

void
gnt_config_notify_changed_locked(GntConfig *self)
{
	if (self->changed_func != NULL)
		self->changed_func(self->changed_data);
}

void
gnt_config_set_changed_func(GntConfig *self, GntConfigChangedFunc func, gpointer user_data)
{
	g_return_if_fail(GNT_IS_CONFIG(self));

	g_mutex_lock(&self->mutex);
	self->changed_func = func;
	self->changed_data = user_data;
	g_mutex_unlock(&self->mutex);
}

/* Commits a new value of one setting, with the mutex held: a copy of the
 * record with the new value, a bumped serial_no and mtime, becomes the
 * current one once committed. */
static gboolean
config_set_setting_locked(GntConfig *self, const GntClusterSetting *setting, JsonNode *value,
			  GError **error)
{
	g_autoptr(GntCluster) cluster = NULL;

	if (!setting_check(setting, value, error))
		return FALSE;
	cluster = gnt_cluster_copy(self->cluster);
	json_object_set_member(cluster->settings, setting->key, gnt_json_node_deep_copy(value));
	if (!config_commit_cluster_locked(self, cluster, error))
		return FALSE;
	cluster = NULL; /* now the current record */
	return TRUE;
}

static gboolean
config_set_setting(GntConfig *self, const gchar *key, JsonNode *value, GError **error)
{
	const GntClusterSetting *setting = gnt_cluster_setting_lookup(key);
	gboolean ok;

	g_return_val_if_fail(GNT_IS_CONFIG(self), FALSE);
	g_return_val_if_fail(setting != NULL, FALSE);

	g_mutex_lock(&self->mutex);
	ok = config_set_setting_locked(self, setting, value, error);
	g_mutex_unlock(&self->mutex);
	return ok;
}

gboolean
gnt_config_set_max_running_jobs(GntConfig *self, gint64 max_running_jobs, GError **error)
{
	g_autoptr(JsonNode) value = gnt_json_node_new_int(max_running_jobs);

	return config_set_setting(self, "max_running_jobs", value, error);
}

/* ------------------------------------------------------------------ */
/* Changing cluster settings (gnt-cluster init and modify) */

static const gchar *const os_search_path_default[] = {GNT_CONFIG_OS_SEARCH_PATH_DEFAULT, NULL};
static const gchar *const ganeti_disk_templates[] = {
	"diskless", "file", "plain",   "sharedfile", "blockdev",
	"rbd",	    "ext",  "gluster", "drbd",	     NULL,
};

/* The templates Gantry has storage for (storage/): GntDiskTemplate's names,
 * NULL-terminated. */
static const gchar *const *
supported_disk_templates(void)
{
	static const gchar *names[GNT_DISK_TEMPLATE_LAST + 1];
	static gsize done;

	if (g_once_init_enter(&done)) {
		for (guint i = 0; i < GNT_DISK_TEMPLATE_LAST; i++)
			names[i] = gnt_disk_template_to_string((GntDiskTemplate)i);
		g_once_init_leave(&done, 1);
	}
	return names;
}

static gboolean
check_absolute_dir(const gchar *key, const gchar *dir, GError **error)
{
	g_auto(GStrv) parts = NULL;

	if (dir == NULL || !g_path_is_absolute(dir)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "'%s' must be an absolute directory, not '%s'", key,
			    dir != NULL ? dir : "");
		return FALSE;
	}
	parts = g_strsplit(dir, "/", -1);
	for (guint i = 0; parts[i] != NULL; i++) {
		if (g_strcmp0(parts[i], "..") == 0 || g_strcmp0(parts[i], ".") == 0) {
			g_set_error(
				error, GNT_ERROR, GNT_ERROR_INVALID,
				"'%s' must be a normalised directory (no '.' or '..'), not '%s'",
				key, dir);
			return FALSE;
		}
	}
	return TRUE;
}

/* @dir without repeated or trailing slashes. (transfer full) */
static gchar *
normalise_dir(const gchar *dir)
{
	g_auto(GStrv) parts = g_strsplit(dir, "/", -1);
	g_autoptr(GString) out = g_string_new(NULL);

	for (guint i = 0; parts[i] != NULL; i++) {
		if (parts[i][0] != '\0')
			g_string_append_printf(out, "/%s", parts[i]);
	}
	if (out->len == 0)
		g_string_append_c(out, '/');
	return g_string_free(g_steal_pointer(&out), FALSE);
}

static gboolean
string_list_contains(JsonArray *list, const gchar *value)
{
	for (guint i = 0; i < json_array_get_length(list); i++) {
		if (g_strcmp0(json_array_get_string_element(list, i), value) == 0)
			return TRUE;
	}
	return FALSE;
}

/* The user's directories (absolute, normalised, once each), then
 * Ganeti's four. (transfer full) */
static JsonNode *
normalise_os_search_path(JsonArray *given, GError **error)
{
	JsonArray *out = json_array_new();

	for (guint i = 0; i < json_array_get_length(given); i++) {
		const gchar *dir = json_array_get_string_element(given, i);
		g_autofree gchar *normal = NULL;

		if (!check_absolute_dir("os_search_path", dir, error)) {
			json_array_unref(out);
			return NULL;
		}
		normal = normalise_dir(dir);
		if (!g_strv_contains(os_search_path_default, normal) &&
		    !string_list_contains(out, normal))
			json_array_add_string_element(out, normal);
	}
	for (guint i = 0; os_search_path_default[i] != NULL; i++)
		json_array_add_string_element(out, os_search_path_default[i]);
	return gnt_json_node_new_array(out);
}

static gboolean
check_string_list(const gchar *key, JsonArray *list, const gchar *const *allowed,
		  const gchar *const *known, gboolean allow_empty, GError **error)
{
	if (!allow_empty && json_array_get_length(list) == 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "'%s' must not be empty", key);
		return FALSE;
	}
	for (guint i = 0; i < json_array_get_length(list); i++) {
		const gchar *value = json_array_get_string_element(list, i);

		for (guint j = 0; j < i; j++) {
			if (g_strcmp0(json_array_get_string_element(list, j), value) == 0) {
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "'%s' names '%s' twice", key, value);
				return FALSE;
			}
		}
		if (allowed != NULL && !g_strv_contains(allowed, value)) {
			g_autofree gchar *list_text = g_strjoinv(", ", (gchar **)allowed);
			g_set_error(
				error, GNT_ERROR, GNT_ERROR_INVALID,
				known != NULL && g_strv_contains(known, value)
					? "disk template '%s' is not supported by Gantry (%s: %s)"
					: "unknown disk template '%s' (%s: %s)",
				value, key, list_text);
			return FALSE;
		}
	}
	return TRUE;
}

/* Ganeti's volume group names: letters, digits, '+', '_', '.', '-', not
 * starting with '-', at most 128 characters. */
static gboolean
check_vg_name(const gchar *vg, GError **error)
{
	gsize len = strlen(vg);

	if (len == 0 || len > 128 || vg[0] == '-' || g_strcmp0(vg, ".") == 0 ||
	    g_strcmp0(vg, "..") == 0 ||
	    strspn(vg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+_.-") !=
		    len) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "invalid volume group name '%s'",
			    vg);
		return FALSE;
	}
	return TRUE;
}

static gboolean
check_mac_prefix(const gchar *prefix, GError **error)
{
	gboolean ok = strlen(prefix) == 8;

	for (guint i = 0; ok && i < 8; i++)
		ok = i % 3 == 2 ? prefix[i] == ':'
				: g_ascii_isxdigit(prefix[i]) && !g_ascii_isupper(prefix[i]);
	if (!ok)
		g_set_error(
			error, GNT_ERROR, GNT_ERROR_INVALID,
			"Invalid MAC address prefix '%s': expected three lower-case hex octets, "
			"as in 'aa:00:00'",
			prefix);
	return ok;
}

/* The "default" group of beparams: Ganeti's names and types. */
static gboolean
check_beparams(JsonNode *value, GError **error)
{
	static const gchar *const ints[] = {"maxmem", "minmem", "vcpus", "spindle_use", NULL};
	static const gchar *const bools[] = {"auto_balance", "always_failover", NULL};
	JsonObject *groups = json_node_get_object(value);
	JsonObjectIter iter;
	const gchar *group;
	JsonNode *params;

	json_object_iter_init_ordered(&iter, groups);
	while (json_object_iter_next_ordered(&iter, &group, &params)) {
		JsonObjectIter param_iter;
		const gchar *key;
		JsonNode *param;
		gint64 maxmem = G_MAXINT64;
		gint64 minmem = 0;

		if (!JSON_NODE_HOLDS_OBJECT(params)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "'beparams' group '%s' must be a dictionary", group);
			return FALSE;
		}
		json_object_iter_init_ordered(&param_iter, json_node_get_object(params));
		while (json_object_iter_next_ordered(&param_iter, &key, &param)) {
			if (g_strv_contains(ints, key)) {
				gint64 n = 0;
				if (!gnt_json_node_is_int(param) ||
				    (n = json_node_get_int(param)) < 0 ||
				    (n == 0 && g_strcmp0(key, "spindle_use") != 0)) {
					g_set_error(
						error, GNT_ERROR, GNT_ERROR_INVALID,
						"backend parameter '%s' must be a positive integer",
						key);
					return FALSE;
				}
				if (g_strcmp0(key, "maxmem") == 0)
					maxmem = n;
				else if (g_strcmp0(key, "minmem") == 0)
					minmem = n;
			} else if (g_strv_contains(bools, key)) {
				if (!JSON_NODE_HOLDS_VALUE(param) ||
				    json_node_get_value_type(param) != G_TYPE_BOOLEAN) {
					g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
						    "backend parameter '%s' must be a boolean",
						    key);
					return FALSE;
				}
			} else {
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "unknown backend parameter '%s'", key);
				return FALSE;
			}
		}
		if (minmem > maxmem) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "backend parameters: minmem (%" G_GINT64_FORMAT
				    ") is larger than maxmem (%" G_GINT64_FORMAT ")",
				    minmem, maxmem);
			return FALSE;
		}
	}
	return TRUE;
}

static gboolean
check_nicparams(JsonNode *value, GError **error)
{
	JsonObjectIter iter;
	const gchar *group;
	JsonNode *params;

	json_object_iter_init_ordered(&iter, json_node_get_object(value));
	while (json_object_iter_next_ordered(&iter, &group, &params)) {
		JsonObjectIter param_iter;
		const gchar *key;
		JsonNode *param;

		if (!JSON_NODE_HOLDS_OBJECT(params)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "'nicparams' group '%s' must be a dictionary", group);
			return FALSE;
		}
		json_object_iter_init_ordered(&param_iter, json_node_get_object(params));
		while (json_object_iter_next_ordered(&param_iter, &key, &param)) {
			const gchar *text = NULL;
			g_autofree gchar *what = g_strdup_printf("NIC parameter '%s'", key);

			if (g_strcmp0(key, "mode") != 0 && g_strcmp0(key, "link") != 0 &&
			    g_strcmp0(key, "vlan") != 0) {
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "unknown NIC parameter '%s'", key);
				return FALSE;
			}
			if (!gnt_json_node_get_string(param, what, &text, error))
				return FALSE;
			GntNicMode mode = GNT_NIC_MODE_LAST;

			if (g_strcmp0(key, "mode") == 0 &&
			    !gnt_nic_mode_from_string(text, &mode, NULL)) {
				g_autoptr(GString) known = g_string_new(NULL);

				/* "bridged, routed or openvswitch", from the one table */
				for (guint i = 0; i < GNT_NIC_MODE_LAST; i++)
					g_string_append_printf(
						known, "%s%s",
						i == 0			     ? ""
						: i + 1 == GNT_NIC_MODE_LAST ? " or "
									     : ", ",
						gnt_nic_mode_to_string((GntNicMode)i));
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "Invalid NIC mode '%s': expected %s", text, known->str);
				return FALSE;
			}
		}
	}
	return TRUE;
}

static gboolean
check_hvparams(JsonNode *value, GError **error)
{
	JsonObjectIter iter;
	const gchar *hv;
	JsonNode *params;

	json_object_iter_init_ordered(&iter, json_node_get_object(value));
	while (json_object_iter_next_ordered(&iter, &hv, &params)) {
		if (!JSON_NODE_HOLDS_OBJECT(params)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "'hvparams' of '%s' must be a dictionary", hv);
			return FALSE;
		}
	}
	return TRUE;
}

/* Checks (and normalises) the new @value of @setting. (transfer full) */
static JsonNode *
setting_prepare(const GntClusterSetting *setting, JsonNode *value, GError **error)
{
	const gchar *key = setting->key;

	if (!setting_check(setting, value, error))
		return NULL;
	if (g_strcmp0(key, "os_search_path") == 0)
		return normalise_os_search_path(json_node_get_array(value), error);
	if (g_strcmp0(key, "file_storage_dir") == 0 ||
	    g_strcmp0(key, "shared_file_storage_dir") == 0 ||
	    g_strcmp0(key, "gluster_storage_dir") == 0) {
		g_autofree gchar *normal = NULL;

		if (!check_absolute_dir(key, json_node_get_string(value), error))
			return NULL;
		normal = normalise_dir(json_node_get_string(value));
		return gnt_json_node_new_string(normal);
	}
	if ((g_strcmp0(key, "enabled_disk_templates") == 0 &&
	     !check_string_list(key, json_node_get_array(value), supported_disk_templates(),
				ganeti_disk_templates, FALSE, error)) ||
	    (g_strcmp0(key, "enabled_hypervisors") == 0 &&
	     !check_string_list(key, json_node_get_array(value), NULL, NULL, FALSE, error)) ||
	    (g_strcmp0(key, "volume_group_name") == 0 && !JSON_NODE_HOLDS_NULL(value) &&
	     !check_vg_name(json_node_get_string(value), error)) ||
	    (g_strcmp0(key, "mac_prefix") == 0 &&
	     !check_mac_prefix(json_node_get_string(value), error)) ||
	    (g_strcmp0(key, "beparams") == 0 && !check_beparams(value, error)) ||
	    (g_strcmp0(key, "nicparams") == 0 && !check_nicparams(value, error)) ||
	    (g_strcmp0(key, "hvparams") == 0 && !check_hvparams(value, error)))
		return NULL;
	return gnt_json_node_deep_copy(value);
}

gboolean
gnt_cluster_apply_settings(GntCluster *self, JsonObject *changes, GError **error)
{
	g_autoptr(JsonObject) merged = NULL;
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;
	JsonArray *templates = NULL;
	JsonNode *vg;

	g_return_val_if_fail(self != NULL, FALSE);
	g_return_val_if_fail(changes != NULL, FALSE);

	merged = gnt_json_object_deep_copy(self->settings);
	json_object_iter_init_ordered(&iter, changes);
	while (json_object_iter_next_ordered(&iter, &key, &value)) {
		const GntClusterSetting *setting = gnt_cluster_setting_lookup(key);
		JsonNode *prepared;

		if (setting == NULL) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "unknown cluster setting '%s'", key);
			return FALSE;
		}
		prepared = setting_prepare(setting, value, error);
		if (prepared == NULL)
			return FALSE;
		json_object_set_member(merged, key, prepared);
	}
	/* what the settings say together */
	if (!gnt_json_get_array(merged, "enabled_disk_templates", &templates, error))
		return FALSE;
	vg = json_object_get_member(merged, "volume_group_name");
	if (string_list_contains(templates, gnt_disk_template_to_string(GNT_DISK_TEMPLATE_PLAIN)) &&
	    (vg == NULL || JSON_NODE_HOLDS_NULL(vg))) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Please specify a volume group when enabling lvm-based "
				    "disk-templates.");
		return FALSE;
	}
	json_object_unref(self->settings);
	self->settings = g_steal_pointer(&merged);
	return TRUE;
}

gboolean
gnt_config_set_cluster_settings(GntConfig *self, JsonObject *changes, GError **error)
{
	g_autoptr(GntCluster) cluster = NULL;
	gboolean ok = FALSE;

	g_return_val_if_fail(GNT_IS_CONFIG(self), FALSE);
	g_return_val_if_fail(changes != NULL, FALSE);

	g_mutex_lock(&self->mutex);
	cluster = gnt_cluster_copy(self->cluster);
	if (gnt_cluster_apply_settings(cluster, changes, error))
		ok = config_commit_cluster_locked(self, cluster, error);
	if (ok)
		cluster = NULL; /* now the current record */
	g_mutex_unlock(&self->mutex);
	return ok;
}

gboolean
gnt_config_set_cluster_tags(GntConfig *self, const gchar *const *tags, GError **error)
{
	g_autoptr(GntCluster) cluster = NULL;
	gboolean ok;

	g_return_val_if_fail(GNT_IS_CONFIG(self), FALSE);
	g_return_val_if_fail(tags != NULL, FALSE);

	g_mutex_lock(&self->mutex);
	cluster = gnt_cluster_copy(self->cluster);
	g_strfreev(cluster->tags);
	cluster->tags = g_strdupv((gchar **)tags);
	ok = config_commit_cluster_locked(self, cluster, error);
	if (ok)
		cluster = NULL;
	g_mutex_unlock(&self->mutex);
	return ok;
}
