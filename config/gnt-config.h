#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "gnt-records.h"

G_BEGIN_DECLS

/*
 * The cluster model, kept in config.db (SQLite, WAL, synchronous=FULL): one
 * table per object kind (uuid, name, serial_no, ctime, mtime, and a JSON
 * `data` column with everything else). Every change is one transaction that
 * bumps the record's serial_no and mtime, committed before the call returns.
 * For now the model holds the cluster record only.
 */

/* Ganeti's versions, as QueryClusterInfo reports them. */
#define GNT_CONFIG_PROTOCOL_VERSION 3000000
#define GNT_CONFIG_CONFIG_VERSION   3000000
#define GNT_CONFIG_OS_API_VERSION   20
#define GNT_CONFIG_EXPORT_VERSION   0

/*
 * The cluster record, as stored and as its golden JSON shows it:
 * {"uuid", "name", "master_node", "serial_no", "ctime", "mtime", "tags",
 *  and every cluster setting of Ganeti's QueryClusterInfo (hvparams,
 *  beparams, max_running_jobs, ...)}. ctime and mtime are float seconds.
 */
typedef struct {
	gchar *uuid;
	gchar *name;
	gchar *master_node;
	gint64 serial_no;
	gdouble ctime;
	gdouble mtime;
	GStrv tags;
	JsonObject *settings; /* every setting, each checked against its type */
} GntCluster;

/* A new record with a random UUID, serial_no 1, ctime = mtime = now, no
 * tags, and default settings (storage directories under @root, e.g.
 * <root>/srv/gantry/file-storage). Names are not checked here. */
GntCluster *
gnt_cluster_new(const gchar *name, const gchar *master_node, const gchar *root);
void
gnt_cluster_free(GntCluster *self);
GntCluster *
gnt_cluster_copy(const GntCluster *self);

/* Loads a record: unknown keys are skipped, missing settings take their
 * defaults, then every value is checked. GNT_ERROR_INVALID names the bad
 * key. (transfer full) */
GntCluster *
gnt_cluster_from_json(JsonObject *obj, GError **error);
/* The record as a JSON object, settings in a fixed order. (transfer full) */
JsonObject *
gnt_cluster_to_json(const GntCluster *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntCluster, gnt_cluster_free)

/* Whether @name is a DNS-like name: 1..253 characters, labels of 1..63
 * letters, digits, '-' or '_' not starting or ending with '-'. */
gboolean
gnt_config_check_name(const gchar *name, const gchar *what, GError **error);

#define GNT_TYPE_CONFIG (gnt_config_get_type())
G_DECLARE_FINAL_TYPE(GntConfig, gnt_config, GNT, CONFIG, GObject)

/*
 * Creates the cluster in the database at @path (the file is created if
 * needed; its directory must exist). @cluster_name and @master_node (NULL:
 * this host's name) must be DNS-like names and are stored in lower case.
 * Storage directories default under the root that @path lies in
 * (<root>/var/lib/gantry/config.db), else under $GANTRY_ROOT or "/".
 * Fails with GNT_ERROR_EXISTS if a cluster already exists there,
 * GNT_ERROR_INVALID on a bad name, GNT_ERROR_ENVIRONMENT if SQLite fails.
 */
GntConfig *
gnt_config_create(const gchar *path, const gchar *cluster_name, const gchar *master_node,
		  GError **error);

/* Opens an existing cluster. GNT_ERROR_NOT_FOUND if there is no database
 * or no cluster in it, GNT_ERROR_INVALID if the stored record is bad,
 * GNT_ERROR_ENVIRONMENT if SQLite fails. */
GntConfig *
gnt_config_open(const gchar *path, GError **error);

/* Every function below is thread-safe. Strings and JSON are (transfer full). */
gchar *
gnt_config_dup_cluster_name(GntConfig *self);
gchar *
gnt_config_dup_master_node(GntConfig *self);
gchar *
gnt_config_dup_cluster_uuid(GntConfig *self);
/* A copy of the whole record. */
GntCluster *
gnt_config_dup_cluster(GntConfig *self);

/* QueryClusterInfo: every key of Ganeti's answer (versions, architecture,
 * identity, settings). */
JsonObject *
gnt_config_dup_cluster_info(GntConfig *self);

/* QueryConfigValues: a list with one value per name of @names, in order
 * (cluster_name, watcher_pause, master_node, drain_flag, modify_ssh_setup,
 * ssh_key_type, ssh_key_bits); null for an unknown name or a non-string.
 * @drain_flag is the queue's. */
JsonNode *
gnt_config_dup_config_values(GntConfig *self, JsonArray *names, gboolean drain_flag);

/* Ganeti's max_running_jobs; setting it (>= 1, else GNT_ERROR_INVALID) is
 * one committed change. */
gint64
gnt_config_get_max_running_jobs(GntConfig *self);
gboolean
gnt_config_set_max_running_jobs(GntConfig *self, gint64 max_running_jobs, GError **error);

/*
 * Cluster settings as gnt-cluster init and modify change them. @changes
 * maps setting keys (those of the record: "enabled_hypervisors",
 * "volume_group_name", "hvparams", ...) to their complete new values. Each
 * is checked against its type and what the config knows of it:
 * enabled_disk_templates only Gantry's (diskless, file, plain) and never
 * empty, enabled_hypervisors not empty and without repeats, storage
 * directories absolute and normalised, mac_prefix "xx:xx:xx" in lower-case
 * hex, a volume group name that LVM accepts, beparams and nicparams
 * defaults by name and type, the OS search path of absolute directories,
 * which always ends with Ganeti's four (GNT_CONFIG_OS_SEARCH_PATH_DEFAULT:
 * they are moved to the end when given, appended when not), and "plain"
 * enabled only with a volume group. Hypervisor names and their parameters
 * are the caller's to check (hypervisor/ lies above config/). Everything
 * is one committed change, or nothing: GNT_ERROR_INVALID naming the setting.
 */
#define GNT_CONFIG_OS_SEARCH_PATH_DEFAULT                                                          \
	"/srv/ganeti/os", "/usr/local/lib/ganeti/os", "/usr/lib/ganeti/os", "/usr/share/ganeti/os"
gboolean
gnt_cluster_apply_settings(GntCluster *self, JsonObject *changes, GError **error);
gboolean
gnt_config_set_cluster_settings(GntConfig *self, JsonObject *changes, GError **error);
/* Replaces the cluster's tags (the caller validated them). */
gboolean
gnt_config_set_cluster_tags(GntConfig *self, const gchar *const *tags, GError **error);

/*
 * Nodes and instances: JSON records with Ganeti's keys, each carrying
 * uuid, name, serial_no, ctime and mtime. The config caches them all in
 * memory (listing 10,000 instances reads no disk); every change is one
 * durable transaction. Records handed out are deep copies.
 */
typedef enum {
	GNT_OBJECT_NODE,
	GNT_OBJECT_INSTANCE,
	GNT_OBJECT_GROUP, /* node groups: gnt-config-groups.h */
	GNT_OBJECT_IMAGE, /* the image catalog: gnt-config-images.h */
	/* install templates: gnt-config-templates.h */
	GNT_OBJECT_INSTALL_TEMPLATE,
	GNT_OBJECT_LAST
} GntObjectKind;

/* "node", "instance", "nodegroup" (Ganeti's tag kinds; also the tables),
 * "image", "installtemplate" (tables, and Gantry's query resource) */
const gchar *
gnt_object_kind_to_string(GntObjectKind kind);
/* The kind @name names, of those strings; FALSE (and *@out unchanged) for
 * another, such as the tag kinds "cluster" and "network". */
gboolean
gnt_object_kind_from_string(const gchar *name, GntObjectKind *out);

/* Looks a record up by UUID, exact name, or (Ganeti's short names, for
 * every kind but install templates, whose names are tags) an unambiguous
 * prefix of a name up to a dot: "inst1" finds "inst1.example.com". GNT_ERROR_NOT_FOUND "instance 'x' does not exist",
 * GNT_ERROR_INVALID when a short name has several matches. */
JsonObject *
gnt_config_dup_object(GntConfig *self, GntObjectKind kind, const gchar *name, GError **error);
/* Every record of @kind, sorted by name. (transfer full: a GPtrArray of JsonObject) */
GPtrArray *
gnt_config_dup_objects(GntConfig *self, GntObjectKind kind);
guint
gnt_config_count_objects(GntConfig *self, GntObjectKind kind);
/* The names of the records of @kind whose string member @key is @value
 * (the instances on a node, the nodes of a group, ...), in name order.
 * (transfer full: a GPtrArray of strings, NULL-terminated for
 * g_strjoinv() though its len does not count the NULL) */
GPtrArray *
gnt_config_dup_names_where(GntConfig *self, GntObjectKind kind, const gchar *key,
			   const gchar *value);
/* The same records themselves, copied. (transfer full: a GPtrArray of
 * JsonObject) */
GPtrArray *
gnt_config_dup_objects_where(GntConfig *self, GntObjectKind kind, const gchar *key,
			     const gchar *value);
/* Calls @func on every record of @kind in name order while the config is
 * locked: @record is borrowed and must not be kept, changed or given to
 * another thread. Return FALSE to stop. For queries over many objects. */
typedef gboolean (*GntConfigObjectFunc)(JsonObject *record, gpointer user_data);
void
gnt_config_foreach_object(GntConfig *self, GntObjectKind kind, GntConfigObjectFunc func,
			  gpointer user_data);

/*
 * A record as the cache holds it, lent by gnt_config_foreach_record(): an
 * instance is kept typed (a GntInstance, plus the members it does not
 * know), so a walk over thousands of them reads its fields without JSON.
 * Read it through the functions below; the fields are for
 * gnt_config_record_init_json() and the cache.
 */
typedef struct {
	const GntInstance *instance; /* typed; NULL: json holds the record */
	JsonObject *extra;	     /* with instance: members it does not know; NULL: none */
	JsonObject *json;	     /* the record as JSON; NULL until asked for */
	gboolean owns_json;	     /* json was made for this loan */
} GntConfigRecord;

/* A record lent for @json (a copy of the caller's), for code that takes
 * records; no clear needed. */
void
gnt_config_record_init_json(GntConfigRecord *self, JsonObject *json);
/* The typed instance, NULL when the record is held as JSON (another kind,
 * or an instance the typed record cannot hold exactly). Borrowed: never
 * keep, change or ref anything of it. */
const GntInstance *
gnt_config_record_peek_instance(GntConfigRecord *self);
/* The record as JSON. For a typed instance it is made on the first call
 * (about as costly as gnt_config_dup_object()) and kept for the loan, so
 * a walk over many records reads the typed fields instead. */
JsonObject *
gnt_config_record_peek_json(GntConfigRecord *self);
/* The record as JSON of @item, a query row's item: the query engine lends
 * GntConfigRecords to the field getters (gnt-query.h). */
static inline JsonObject *
gnt_config_query_item_json(gconstpointer item)
{
	return gnt_config_record_peek_json((GntConfigRecord *)item);
}
/* Member @key of a record, for keys a GntInstance has no field for
 * ("secondary_nodes", "forthcoming"): from a typed instance's other
 * members, or from the JSON. NULL when missing. (transfer none) */
JsonNode *
gnt_config_record_peek_other(GntConfigRecord *self, const gchar *key);
/* The record's name (NULL: it has none). */
const gchar *
gnt_config_record_get_name(GntConfigRecord *self);
/* As gnt_config_foreach_object(), lending records. */
typedef gboolean (*GntConfigRecordFunc)(GntConfigRecord *record, gpointer user_data);
void
gnt_config_foreach_record(GntConfig *self, GntObjectKind kind, GntConfigRecordFunc func,
			  gpointer user_data);

/* Adds @record (its "name" required; "uuid" made when missing; serial_no,
 * ctime and mtime set). GNT_ERROR_EXISTS when the name is taken.
 * (transfer none: @record; it is copied) */
gboolean
gnt_config_add_object(GntConfig *self, GntObjectKind kind, JsonObject *record, GError **error);
/* Replaces the record with @record's UUID (renames included), bumping
 * serial_no and mtime. When @record carries a serial_no that is not the
 * stored one, fails with GNT_ERROR_WRONG_STATE: someone changed it since
 * it was read. */
gboolean
gnt_config_update_object(GntConfig *self, GntObjectKind kind, JsonObject *record, GError **error);
gboolean
gnt_config_remove_object(GntConfig *self, GntObjectKind kind, const gchar *uuid, GError **error);

/* Calls @func(@user_data) after every committed change (the cluster record,
 * a node, an instance), on the thread that made it and with the config
 * locked: @func must not call the config (it schedules, gnt-ssconf.h).
 * NULL: none. One at a time. */
typedef void (*GntConfigChangedFunc)(gpointer user_data);
void
gnt_config_set_changed_func(GntConfig *self, GntConfigChangedFunc func, gpointer user_data);

G_END_DECLS
