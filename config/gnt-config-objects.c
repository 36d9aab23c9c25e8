/*
 * Nodes and instances in config.db: one table per kind (uuid, name,
 * serial_no, ctime, mtime, data), all cached in memory under the config's
 * mutex. The cache holds each record once, whole, and never changes it: an
 * update replaces it. Everything handed out is a deep copy, because
 * json-glib's reference counts are not atomic.
 */
#include "gnt-config-private.h"

#include <string.h>

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-memory.h"

static const gchar *const kind_names[] = {
	[GNT_OBJECT_NODE] = "node",
	[GNT_OBJECT_INSTANCE] = "instance",
	[GNT_OBJECT_GROUP] = "nodegroup",
	[GNT_OBJECT_IMAGE] = "image",
	[GNT_OBJECT_INSTALL_TEMPLATE] = "installtemplate",
};
G_STATIC_ASSERT(G_N_ELEMENTS(kind_names) == GNT_OBJECT_LAST);

/* the record keys kept in their own columns */
static const gchar *const column_keys[] = {"uuid", "name", "serial_no", "ctime", "mtime"};

/* At most this many distinct shared values per kind: the table only grows
 * (values are few: node UUIDs, OS names, enumerations), and the cap keeps a
 * cluster with unusual data from growing it without end */
#define SHARED_VALUES_MAX 4096
/* strings longer than this are not shared: the repeated ones are short */
#define SHARED_STRING_MAX 64

/*
 * A record in the cache. Instances are kept typed when the typed record
 * gives back exactly what was stored (with the members it does not know
 * beside it): about 510 bytes with its index entries against about 2.5 KiB
 * as a JsonObject (heaptrack, 3,000 instances), whose every member costs
 * json-glib a key, a list link, a hash slot and a node.
 */
typedef struct {
	GntInstance *instance; /* typed; NULL: json holds the record */
	JsonObject *extra;     /* with instance: members it does not know; NULL: none */
	JsonObject *json;      /* without instance: the whole record */
} CacheEntry;

struct _GntObjectCache {
	GntObjectKind kind;
	GHashTable *by_uuid; /* uuid -> CacheEntry */
	GTree *by_name;	     /* name (borrowed) -> the same CacheEntry (borrowed) */
	/* canonical text ("s:fake", "b:1", "{}") -> a sealed JsonNode that
	 * every record holding that value points at */
	GHashTable *shared_values;
	/* what every typed instance without parameters, disks or NICs points
	 * at (json-glib's reference counts are not atomic: refs and unrefs
	 * happen with the config locked) */
	JsonObject *empty_object;
	GPtrArray *empty_list;
};

const gchar *
gnt_object_kind_to_string(GntObjectKind kind)
{
	g_return_val_if_fail(kind < GNT_OBJECT_LAST, NULL);
	return kind_names[kind];
}

gboolean
gnt_object_kind_from_string(const gchar *name, GntObjectKind *out)
{
	for (guint i = 0; i < G_N_ELEMENTS(kind_names); i++) {
		if (g_strcmp0(name, kind_names[i]) == 0) {
			*out = (GntObjectKind)i;
			return TRUE;
		}
	}
	return FALSE;
}

static void
cache_entry_free(CacheEntry *entry)
{
	gnt_instance_free(entry->instance);
	g_clear_pointer(&entry->extra, json_object_unref);
	g_clear_pointer(&entry->json, json_object_unref);
	g_free(entry);
}

static const gchar *
entry_get_uuid(const CacheEntry *entry)
{
	return entry->instance != NULL ? entry->instance->uuid
				       : json_object_get_string_member(entry->json, "uuid");
}

static const gchar *
entry_get_name(const CacheEntry *entry)
{
	return entry->instance != NULL ? entry->instance->name
				       : json_object_get_string_member(entry->json, "name");
}

static gint64
entry_get_serial_no(const CacheEntry *entry)
{
	return entry->instance != NULL ? entry->instance->serial_no
				       : json_object_get_int_member(entry->json, "serial_no");
}

static gdouble
entry_get_ctime(const CacheEntry *entry)
{
	return entry->instance != NULL ? entry->instance->ctime
				       : json_object_get_double_member(entry->json, "ctime");
}

/* The typed instance @instance with @extra's members, as JSON. (transfer full) */
static JsonObject *
instance_to_json(const GntInstance *instance, JsonObject *extra)
{
	JsonObject *out = gnt_instance_to_json(instance);

	gnt_json_object_overlay(out, extra);
	return out;
}

/* A copy of the record of @entry, the caller's to change. (transfer full) */
static JsonObject *
entry_dup_json(const CacheEntry *entry)
{
	return entry->instance != NULL ? instance_to_json(entry->instance, entry->extra)
				       : gnt_json_object_deep_copy(entry->json);
}

static GntObjectCache *
cache_new(GntObjectKind kind)
{
	GntObjectCache *cache = g_new0(GntObjectCache, 1);

	cache->kind = kind;
	cache->by_uuid = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					       (GDestroyNotify)cache_entry_free);
	cache->by_name = g_tree_new((GCompareFunc)g_strcmp0);
	cache->shared_values = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
						     (GDestroyNotify)json_node_unref);
	cache->empty_object = json_object_new();
	cache->empty_list = g_ptr_array_new();
	return cache;
}

static void
cache_free(GntObjectCache *cache)
{
	if (cache == NULL)
		return;
	g_tree_destroy(cache->by_name);
	g_hash_table_unref(cache->by_uuid);
	g_hash_table_unref(cache->shared_values);
	json_object_unref(cache->empty_object);
	g_ptr_array_unref(cache->empty_list);
	g_free(cache);
}

/* Members whose values are the record's own (never worth sharing). */
static gboolean
member_is_identity(const gchar *name)
{
	static const gchar *const names[] = {"uuid", "name", "ctime", "mtime", "mac", "ip"};

	for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
		if (strcmp(name, names[i]) == 0)
			return TRUE;
	}
	return FALSE;
}

/* The key under which @node's value is shared, NULL when it is not worth
 * sharing (a non-empty container, a long string, a fraction, a large
 * number). (transfer full) */
static gchar *
shared_value_key(JsonNode *node)
{
	if (JSON_NODE_HOLDS_NULL(node))
		return g_strdup("n");
	if (JSON_NODE_HOLDS_OBJECT(node))
		return json_object_get_size(json_node_get_object(node)) == 0 ? g_strdup("{}")
									     : NULL;
	if (JSON_NODE_HOLDS_ARRAY(node))
		return json_array_get_length(json_node_get_array(node)) == 0 ? g_strdup("[]")
									     : NULL;
	switch (json_node_get_value_type(node)) {
	case G_TYPE_BOOLEAN:
		return g_strdup(json_node_get_boolean(node) ? "b:1" : "b:0");
	case G_TYPE_INT64: {
		gint64 value = json_node_get_int(node);

		return value >= -1 && value <= 1024 ? g_strdup_printf("i:%" G_GINT64_FORMAT, value)
						    : NULL;
	}
	case G_TYPE_STRING: {
		const gchar *value = json_node_get_string(node);

		return strlen(value) <= SHARED_STRING_MAX ? g_strconcat("s:", value, NULL) : NULL;
	}
	default:
		return NULL;
	}
}

/* The cache's sealed node for @node's value, NULL when it is not shared.
 * (transfer none) */
static JsonNode *
cache_lookup_shared(GntObjectCache *cache, JsonNode *node)
{
	g_autofree gchar *key = shared_value_key(node);
	JsonNode *shared;

	if (key == NULL)
		return NULL;
	shared = g_hash_table_lookup(cache->shared_values, key);
	if (shared != NULL || g_hash_table_size(cache->shared_values) >= SHARED_VALUES_MAX)
		return shared;
	/* a deep copy: an empty container gets its own, sealed with the node */
	shared = gnt_json_node_deep_copy(node);
	json_node_seal(shared);
	g_hash_table_insert(cache->shared_values, g_steal_pointer(&key), shared);
	return shared;
}

static JsonObject *
cache_copy_object(GntObjectCache *cache, JsonObject *obj);

/* @node's value for the cache: its shared node, or a copy. (transfer full) */
static JsonNode *
cache_copy_node(GntObjectCache *cache, JsonNode *node)
{
	JsonNode *shared = cache_lookup_shared(cache, node);
	JsonArray *copy;
	JsonArray *array;

	if (shared != NULL)
		return json_node_ref(shared);
	if (JSON_NODE_HOLDS_OBJECT(node))
		return gnt_json_node_new_object(
			cache_copy_object(cache, json_node_get_object(node)));
	if (!JSON_NODE_HOLDS_ARRAY(node))
		return gnt_json_node_deep_copy(node);
	array = json_node_get_array(node);
	copy = json_array_sized_new(json_array_get_length(array));
	for (guint i = 0; i < json_array_get_length(array); i++)
		json_array_add_element(copy,
				       cache_copy_node(cache, json_array_get_element(array, i)));
	return gnt_json_node_new_array(copy);
}

/*
 * The cache's copy of @obj: every value that is common (null, a boolean, a
 * small number, a short string, an empty {} or []), at any depth, is the
 * cache's one sealed node for it. A member costs about 100 bytes of node
 * and value on top of its key, and most of an instance's members repeat
 * across instances (its node, OS, hypervisor, states, empty parameters),
 * so this is about a third of a record. The copy is made in one go, not
 * by replacing members of @obj, so that the record's blocks are not
 * interleaved with the holes of freed ones (measured: with 10,000
 * instances added by jobs, that fragmentation was a third of the heap).
 * Mutex held, as json-glib's reference counts are not atomic; records
 * handed out are deep copies with their own, mutable, nodes.
 */
static JsonObject *
cache_copy_object(GntObjectCache *cache, JsonObject *obj)
{
	JsonObject *copy = json_object_new();
	JsonObjectIter iter;
	const gchar *name;
	JsonNode *member;

	json_object_iter_init_ordered(&iter, obj);
	while (json_object_iter_next_ordered(&iter, &name, &member)) {
		json_object_set_member(copy, name,
				       member_is_identity(name) ? gnt_json_node_deep_copy(member)
								: cache_copy_node(cache, member));
	}
	return copy;
}

/* The typed instance of @record, or NULL when it would not give back
 * exactly @record; *@extra: @record's members it does not know (NULL:
 * none; its nodes are @record's). */
static GntInstance *
instance_from_record(JsonObject *record, JsonObject **extra)
{
	g_autoptr(GntInstance) instance = gnt_instance_from_json(record, NULL);
	g_autoptr(JsonObject) known = NULL;
	g_autoptr(JsonObject) others = NULL;
	JsonObjectIter iter;
	const gchar *name;
	JsonNode *member;

	if (instance == NULL)
		return NULL;
	/* what the typed record writes must be what was stored: no default
	 * filled in for a missing member, no value changed */
	known = gnt_instance_to_json(instance);
	json_object_iter_init(&iter, known);
	while (json_object_iter_next(&iter, &name, &member)) {
		JsonNode *stored = json_object_get_member(record, name);

		if (stored == NULL || !json_node_equal(stored, member))
			return NULL;
	}
	others = json_object_new();
	json_object_iter_init_ordered(&iter, record);
	while (json_object_iter_next_ordered(&iter, &name, &member)) {
		if (!json_object_has_member(known, name))
			json_object_set_member(others, name, json_node_ref(member));
	}
	*extra = json_object_get_size(others) > 0 ? g_steal_pointer(&others) : NULL;
	return g_steal_pointer(&instance);
}

/* @slot's object as the cache keeps it: the shared empty one, or a copy
 * sharing the common values. */
static void
cache_keep_object(GntObjectCache *cache, JsonObject **slot)
{
	JsonObject *kept;

	if (*slot == NULL)
		return;
	kept = json_object_get_size(*slot) == 0 ? json_object_ref(cache->empty_object)
						: cache_copy_object(cache, *slot);
	json_object_unref(*slot);
	*slot = kept;
}

static void
cache_keep_list(GntObjectCache *cache, GPtrArray **slot)
{
	if ((*slot)->len > 0)
		return;
	g_ptr_array_unref(*slot);
	*slot = g_ptr_array_ref(cache->empty_list);
}

/* The cache's entry for @record (borrowed). */
static CacheEntry *
cache_make_entry(GntObjectCache *cache, JsonObject *record)
{
	CacheEntry *entry = g_new0(CacheEntry, 1);
	g_autoptr(JsonObject) extra = NULL;

	if (cache->kind == GNT_OBJECT_INSTANCE)
		entry->instance = instance_from_record(record, &extra);
	if (entry->instance == NULL) {
		entry->json = cache_copy_object(cache, record);
		return entry;
	}
	cache_keep_object(cache, &entry->instance->hvparams);
	cache_keep_object(cache, &entry->instance->beparams);
	cache_keep_object(cache, &entry->instance->osparams);
	cache_keep_object(cache, &entry->instance->osparams_private);
	cache_keep_object(cache, &entry->instance->install);
	cache_keep_object(cache, &entry->instance->half_done);
	cache_keep_list(cache, &entry->instance->disks);
	cache_keep_list(cache, &entry->instance->nics);
	if (extra != NULL)
		entry->extra = cache_copy_object(cache, extra);
	return entry;
}

/* Adds @entry in place of any record of its UUID. */
static void
cache_insert(GntObjectCache *cache, CacheEntry *entry)
{
	const gchar *uuid = entry_get_uuid(entry);
	CacheEntry *old = g_hash_table_lookup(cache->by_uuid, uuid);

	if (old != NULL)
		g_tree_remove(cache->by_name, entry_get_name(old));
	g_hash_table_replace(cache->by_uuid, g_strdup(uuid), entry);
	g_tree_insert(cache->by_name, (gpointer)entry_get_name(entry), entry);
}

/*
 * The cache's copies are made on one thread of their own, so that glibc
 * gives them a malloc arena of their own. Made by the job workers, the
 * records' small blocks sat between the blocks of the jobs that made them;
 * once those jobs were freed, every page still held a record and nothing
 * could go back to the system (measured: 10,000 instances added by jobs,
 * about 19 MiB of the heap free but pinned, in 17,000 holes of 1-2 KiB).
 * Apart, the jobs' garbage frees whole pages, which malloc_trim() returns
 * (gnt_memory_trim_soon()). The index entries (the UUID keys, the tree's
 * nodes) are made there too, so they do not land in the holes of what the
 * caller freed just before.
 */
typedef struct {
	GntObjectCache *cache;
	GPtrArray *records; /* records to copy and add (taken) */
	GMutex lock;
	GCond cond;
	gboolean done;
} CopyTask;

static void
copy_task_run(gpointer data, G_GNUC_UNUSED gpointer user_data)
{
	CopyTask *task = data;

	for (guint i = 0; i < task->records->len; i++) {
		JsonObject *taken = g_ptr_array_index(task->records, i);

		cache_insert(task->cache, cache_make_entry(task->cache, taken));
		json_object_unref(taken);
	}
	g_mutex_lock(&task->lock);
	task->done = TRUE;
	g_cond_signal(&task->cond);
	g_mutex_unlock(&task->lock);
}

static gpointer
copy_pool_new(G_GNUC_UNUSED gpointer data)
{
	/* exclusive: the one thread starts now and lives as long as the
	 * process, so its arena stays the records' */
	return g_thread_pool_new(copy_task_run, NULL, 1, TRUE, NULL);
}

/* Adds a copy of each record of @records (taken) to the cache, made on the
 * records' own thread with the cache's index entries. Mutex held. */
static void
cache_add_records(GntObjectCache *cache, GPtrArray *records)
{
	static GOnce copy_pool_once = G_ONCE_INIT;
	GThreadPool *pool = g_once(&copy_pool_once, copy_pool_new, NULL);
	CopyTask task = {.cache = cache, .records = records};

	if (pool == NULL || !g_thread_pool_push(pool, &task, NULL)) {
		copy_task_run(&task, NULL); /* no thread: here, at some memory cost */
		return;
	}
	g_mutex_lock(&task.lock);
	while (!task.done)
		g_cond_wait(&task.cond, &task.lock);
	g_mutex_unlock(&task.lock);
}

/* Takes @taken; the cache keeps its own copy. */
static void
cache_put(GntObjectCache *cache, JsonObject *taken)
{
	g_autoptr(GPtrArray) records = g_ptr_array_new();

	g_ptr_array_add(records, taken);
	cache_add_records(cache, records);
}

static void
cache_remove(GntObjectCache *cache, const gchar *uuid)
{
	CacheEntry *old = g_hash_table_lookup(cache->by_uuid, uuid);

	if (old == NULL)
		return;
	g_tree_remove(cache->by_name, entry_get_name(old));
	g_hash_table_remove(cache->by_uuid, uuid);
}

void
gnt_config_objects_clear(GntConfig *self)
{
	for (guint k = 0; k < GNT_OBJECT_LAST; k++)
		g_clear_pointer(&self->objects[k], cache_free);
}

/* records parsed, then copied into the cache in one trip to its thread */
#define LOAD_BATCH 64

static gboolean
objects_load_kind(GntConfig *self, GntObjectKind kind, GError **error)
{
	g_autofree gchar *sql = g_strdup_printf(
		"SELECT uuid, name, serial_no, ctime, mtime, data FROM %s", kind_names[kind]);
	g_autoptr(sqlite3_stmt) stmt = gnt_config_db_prepare(self->db, sql, error);
	g_autoptr(GPtrArray)
		records = g_ptr_array_new_with_free_func((GDestroyNotify)json_object_unref);
	int rc;

	if (stmt == NULL)
		return FALSE;
	self->objects[kind] = cache_new(kind);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		const gchar *uuid = (const gchar *)sqlite3_column_text(stmt, 0);
		g_autoptr(JsonNode) data =
			gnt_json_parse((const gchar *)sqlite3_column_text(stmt, 5), -1, error);
		JsonObject *record;

		if (data == NULL || !JSON_NODE_HOLDS_OBJECT(data)) {
			if (data != NULL)
				g_set_error(error, GNT_ERROR, GNT_ERROR_FAULT, "not an object");
			g_prefix_error(error, "config database: %s '%s': ", kind_names[kind], uuid);
			return FALSE;
		}
		record = json_object_ref(json_node_get_object(data));
		json_object_set_string_member(record, "uuid", uuid);
		json_object_set_string_member(record, "name",
					      (const gchar *)sqlite3_column_text(stmt, 1));
		json_object_set_int_member(record, "serial_no", sqlite3_column_int64(stmt, 2));
		json_object_set_double_member(record, "ctime", sqlite3_column_double(stmt, 3));
		json_object_set_double_member(record, "mtime", sqlite3_column_double(stmt, 4));
		g_ptr_array_add(records, record);
		/* a few at a time: the next ones are parsed into the memory
		 * these leave, instead of all of them at once into a heap
		 * that would stay as large (40 MiB for 10,000 instances) */
		if (records->len == LOAD_BATCH) {
			g_ptr_array_set_free_func(records, NULL);
			cache_add_records(self->objects[kind], records);
			g_ptr_array_set_size(records, 0);
			g_ptr_array_set_free_func(records, (GDestroyNotify)json_object_unref);
		}
	}
	if (rc != SQLITE_DONE) {
		gnt_config_db_set_error(error, self->db, sql);
		return FALSE;
	}
	g_ptr_array_set_free_func(records, NULL);
	cache_add_records(self->objects[kind], records);
	return TRUE;
}

gboolean
gnt_config_objects_load(GntConfig *self, GError **error)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&self->mutex);

	for (guint k = 0; k < GNT_OBJECT_LAST; k++) {
		if (!objects_load_kind(self, (GntObjectKind)k, error))
			return FALSE;
	}
	/* the parsed records were copied and freed: give what pages can go
	 * back to the system */
	gnt_memory_trim_soon();
	return TRUE;
}

/* The cache of @kind, loading it on first use (a config just created). */
static GntObjectCache *
objects_cache(GntConfig *self, GntObjectKind kind)
{
	if (self->objects[kind] == NULL)
		self->objects[kind] = cache_new(kind);
	return self->objects[kind];
}

/* The record for @name, or NULL with the error set. Mutex held. */
static CacheEntry *
objects_lookup_locked(GntConfig *self, GntObjectKind kind, const gchar *name, GError **error)
{
	GntObjectCache *cache = objects_cache(self, kind);
	CacheEntry *record = g_tree_lookup(cache->by_name, name);

	if (record == NULL)
		record = g_hash_table_lookup(cache->by_uuid, name);
	/* a template's name is a tag, not a host name: no short names */
	if (record == NULL && kind != GNT_OBJECT_INSTALL_TEMPLATE) {
		/* names are sorted: the matches of "inst1." start at its lower
		 * bound, so this is O(log n) and not a walk over every name */
		g_autofree gchar *prefix = g_strconcat(name, ".", NULL);
		GTreeNode *first = g_tree_lower_bound(cache->by_name, prefix);
		GTreeNode *second = first != NULL ? g_tree_node_next(first) : NULL;

		if (first != NULL && g_str_has_prefix(g_tree_node_key(first), prefix)) {
			if (second != NULL && g_str_has_prefix(g_tree_node_key(second), prefix)) {
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "%s name '%s' has multiple matches", kind_names[kind],
					    name);
				return NULL;
			}
			record = g_tree_node_value(first);
		}
	}
	if (record == NULL)
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND, "%s '%s' does not exist",
			    kind_names[kind], name);
	return record;
}

JsonObject *
gnt_config_dup_object(GntConfig *self, GntObjectKind kind, const gchar *name, GError **error)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = NULL;
	CacheEntry *record;

	g_return_val_if_fail(GNT_IS_CONFIG(self) && kind < GNT_OBJECT_LAST, NULL);
	g_return_val_if_fail(name != NULL, NULL);

	locker = g_mutex_locker_new(&self->mutex);
	record = objects_lookup_locked(self, kind, name, error);
	return record != NULL ? entry_dup_json(record) : NULL;
}

/* ---- records lent to walks ---- */

void
gnt_config_record_init_json(GntConfigRecord *self, JsonObject *json)
{
	g_return_if_fail(self != NULL && json != NULL);

	*self = (GntConfigRecord){.json = json};
}

const GntInstance *
gnt_config_record_peek_instance(GntConfigRecord *self)
{
	return self->instance;
}

JsonObject *
gnt_config_record_peek_json(GntConfigRecord *self)
{
	if (self->json == NULL) {
		self->json = instance_to_json(self->instance, self->extra);
		self->owns_json = TRUE;
	}
	return self->json;
}

JsonNode *
gnt_config_record_peek_other(GntConfigRecord *self, const gchar *key)
{
	if (self->instance == NULL)
		return json_object_get_member(self->json, key);
	return self->extra != NULL ? json_object_get_member(self->extra, key) : NULL;
}

const gchar *
gnt_config_record_get_name(GntConfigRecord *self)
{
	const gchar *name = NULL;

	if (self->instance != NULL)
		return self->instance->name;
	return gnt_json_get_string(self->json, "name", &name, NULL) ? name : NULL;
}

/* String member @key of @self, read from the typed instance when it has
 * that field. */
static const gchar *
record_get_string(GntConfigRecord *self, const gchar *key)
{
	const GntInstance *instance = self->instance;
	const gchar *value = NULL;

	if (instance != NULL && strcmp(key, "primary_node") == 0)
		return instance->primary_node;
	if (instance != NULL && strcmp(key, "name") == 0)
		return instance->name;
	if (instance != NULL && strcmp(key, "hypervisor") == 0)
		return instance->hypervisor;
	if (instance != NULL && strcmp(key, "os") == 0)
		return instance->os;
	if (instance != NULL && strcmp(key, "disk_template") == 0)
		return gnt_disk_template_to_string(instance->disk_template);
	return gnt_json_get_string(gnt_config_record_peek_json(self), key, &value, NULL) ? value
											 : NULL;
}

/* A copy of @self's record, the caller's to change. (transfer full) */
static JsonObject *
record_dup_json(GntConfigRecord *self)
{
	if (self->instance != NULL)
		return instance_to_json(self->instance, self->extra);
	return gnt_json_object_deep_copy(self->json);
}

typedef struct {
	GntConfigRecordFunc func;
	gpointer user_data;
} ForeachData;

static gboolean
foreach_cb(gpointer key, gpointer value, gpointer user_data)
{
	ForeachData *data = user_data;
	CacheEntry *entry = value;
	GntConfigRecord record = {entry->instance, entry->extra, entry->json, FALSE};
	gboolean more = data->func(&record, data->user_data);

	if (record.owns_json)
		json_object_unref(record.json);
	return !more;
}

void
gnt_config_foreach_record(GntConfig *self, GntObjectKind kind, GntConfigRecordFunc func,
			  gpointer user_data)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = NULL;
	ForeachData data;

	g_return_if_fail(GNT_IS_CONFIG(self) && kind < GNT_OBJECT_LAST && func != NULL);

	locker = g_mutex_locker_new(&self->mutex);
	data = (ForeachData){func, user_data};
	g_tree_foreach(objects_cache(self, kind)->by_name, foreach_cb, &data);
}

typedef struct {
	GntConfigObjectFunc func;
	gpointer user_data;
} ForeachObjectData;

static gboolean
foreach_object_cb(GntConfigRecord *record, gpointer user_data)
{
	ForeachObjectData *data = user_data;

	return data->func(gnt_config_record_peek_json(record), data->user_data);
}

void
gnt_config_foreach_object(GntConfig *self, GntObjectKind kind, GntConfigObjectFunc func,
			  gpointer user_data)
{
	ForeachObjectData data = {func, user_data};

	g_return_if_fail(func != NULL);

	gnt_config_foreach_record(self, kind, foreach_object_cb, &data);
}

static gboolean
dup_cb(GntConfigRecord *record, gpointer user_data)
{
	g_ptr_array_add(user_data, record_dup_json(record));
	return TRUE;
}

GPtrArray *
gnt_config_dup_objects(GntConfig *self, GntObjectKind kind)
{
	GPtrArray *out = g_ptr_array_new_with_free_func((GDestroyNotify)json_object_unref);

	gnt_config_foreach_record(self, kind, dup_cb, out);
	return out;
}

typedef struct {
	const gchar *key;
	const gchar *value;
	gboolean names; /* collect the names, else copies of the records */
	GPtrArray *found;
} ObjectsWhere;

static gboolean
objects_where_cb(GntConfigRecord *record, gpointer user_data)
{
	ObjectsWhere *where = user_data;
	const gchar *name = gnt_config_record_get_name(record);

	if (g_strcmp0(record_get_string(record, where->key), where->value) != 0)
		return TRUE;
	if (!where->names)
		g_ptr_array_add(where->found, record_dup_json(record));
	else if (name != NULL)
		g_ptr_array_add(where->found, g_strdup(name));
	return TRUE;
}

GPtrArray *
gnt_config_dup_names_where(GntConfig *self, GntObjectKind kind, const gchar *key,
			   const gchar *value)
{
	ObjectsWhere where = {key, value, TRUE, g_ptr_array_new_null_terminated(1, g_free, TRUE)};

	g_return_val_if_fail(key != NULL && value != NULL, where.found);

	gnt_config_foreach_record(self, kind, objects_where_cb, &where);
	return where.found;
}

GPtrArray *
gnt_config_dup_objects_where(GntConfig *self, GntObjectKind kind, const gchar *key,
			     const gchar *value)
{
	ObjectsWhere where = {key, value, FALSE,
			      g_ptr_array_new_with_free_func((GDestroyNotify)json_object_unref)};

	g_return_val_if_fail(key != NULL && value != NULL, where.found);

	gnt_config_foreach_record(self, kind, objects_where_cb, &where);
	return where.found;
}

guint
gnt_config_count_objects(GntConfig *self, GntObjectKind kind)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = NULL;

	g_return_val_if_fail(GNT_IS_CONFIG(self) && kind < GNT_OBJECT_LAST, 0);
	locker = g_mutex_locker_new(&self->mutex);
	return g_hash_table_size(objects_cache(self, kind)->by_uuid);
}

typedef struct {
	GntObjectKind kind;
	JsonObject *record; /* the new record; NULL to remove */
	const gchar *uuid;
	gboolean insert;
} WriteData;

static gboolean
db_write_object(sqlite3 *db, gpointer user_data, GError **error)
{
	WriteData *w = user_data;
	g_autofree gchar *sql = NULL;
	g_autoptr(sqlite3_stmt) stmt = NULL;
	g_autoptr(JsonObject) data = NULL;
	g_autoptr(JsonNode) node = NULL;
	g_autofree gchar *text = NULL;

	if (w->record == NULL) {
		sql = g_strdup_printf("DELETE FROM %s WHERE uuid = ?1", kind_names[w->kind]);
		stmt = gnt_config_db_prepare(db, sql, error);
		if (stmt == NULL)
			return FALSE;
		sqlite3_bind_text(stmt, 1, w->uuid, -1, SQLITE_STATIC);
	} else {
		sql = g_strdup_printf(
			w->insert ? "INSERT INTO %s (uuid, name, serial_no, ctime, mtime,"
				    " data) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
				  : "UPDATE %s SET name = ?2, serial_no = ?3, ctime = ?4,"
				    " mtime = ?5, data = ?6 WHERE uuid = ?1",
			kind_names[w->kind]);
		stmt = gnt_config_db_prepare(db, sql, error);
		if (stmt == NULL)
			return FALSE;
		data = gnt_json_object_deep_copy(w->record);
		for (guint i = 0; i < G_N_ELEMENTS(column_keys); i++)
			json_object_remove_member(data, column_keys[i]);
		node = json_node_init_object(json_node_alloc(), data);
		text = gnt_json_to_string(node);
		sqlite3_bind_text(stmt, 1, json_object_get_string_member(w->record, "uuid"), -1,
				  SQLITE_STATIC);
		sqlite3_bind_text(stmt, 2, json_object_get_string_member(w->record, "name"), -1,
				  SQLITE_STATIC);
		sqlite3_bind_int64(stmt, 3, json_object_get_int_member(w->record, "serial_no"));
		sqlite3_bind_double(stmt, 4, json_object_get_double_member(w->record, "ctime"));
		sqlite3_bind_double(stmt, 5, json_object_get_double_member(w->record, "mtime"));
		sqlite3_bind_text(stmt, 6, text, -1, SQLITE_STATIC);
	}
	if (sqlite3_step(stmt) != SQLITE_DONE) {
		gnt_config_db_set_error(error, db, sql);
		return FALSE;
	}
	return TRUE;
}

/* A new record from @record: the caller's keys, then the bookkeeping. */
static JsonObject *
object_prepare(JsonObject *record, const gchar *uuid, gint64 serial, gdouble ctime, GError **error)
{
	JsonObject *out;
	const gchar *name = NULL;

	if (!gnt_json_get_string(record, "name", &name, error))
		return NULL;
	out = gnt_json_object_deep_copy(record);
	json_object_set_string_member(out, "uuid", uuid);
	json_object_set_int_member(out, "serial_no", serial);
	json_object_set_double_member(out, "ctime", ctime);
	json_object_set_double_member(out, "mtime", (gdouble)g_get_real_time() / G_USEC_PER_SEC);
	return out;
}

/* Writes @fresh (taken) as the record @uuid of @kind and caches it, unless
 * a record other than @old (NULL for a new one) has its name. Under the
 * mutex. */
static gboolean
object_store_locked(GntConfig *self, GntObjectKind kind, JsonObject *fresh, const gchar *uuid,
		    CacheEntry *old, GError **error)
{
	g_autoptr(JsonObject) taken = fresh;
	const gchar *name = json_object_get_string_member(taken, "name");
	CacheEntry *other = g_tree_lookup(objects_cache(self, kind)->by_name, name);
	WriteData w = {kind, taken, uuid, old == NULL};

	if (other != NULL && other != old) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_EXISTS, "%s '%s' already exists",
			    kind_names[kind], name);
		return FALSE;
	}
	if (!gnt_config_db_transaction(self->db, db_write_object, &w, error))
		return FALSE;
	cache_put(objects_cache(self, kind), g_steal_pointer(&taken));
	gnt_config_notify_changed_locked(self);
	return TRUE;
}

gboolean
gnt_config_add_object(GntConfig *self, GntObjectKind kind, JsonObject *record, GError **error)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = NULL;
	g_autofree gchar *uuid = NULL;
	g_autoptr(JsonObject) fresh = NULL;

	g_return_val_if_fail(GNT_IS_CONFIG(self) && kind < GNT_OBJECT_LAST, FALSE);
	g_return_val_if_fail(record != NULL, FALSE);

	uuid = json_object_has_member(record, "uuid")
		       ? g_strdup(json_object_get_string_member(record, "uuid"))
		       : g_uuid_string_random();
	fresh = object_prepare(record, uuid, 1, (gdouble)g_get_real_time() / G_USEC_PER_SEC, error);
	if (fresh == NULL)
		return FALSE;
	locker = g_mutex_locker_new(&self->mutex);
	return object_store_locked(self, kind, g_steal_pointer(&fresh), uuid, NULL, error);
}

gboolean
gnt_config_update_object(GntConfig *self, GntObjectKind kind, JsonObject *record, GError **error)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = NULL;
	g_autoptr(JsonObject) fresh = NULL;
	const gchar *uuid = NULL;
	CacheEntry *old;

	g_return_val_if_fail(GNT_IS_CONFIG(self) && kind < GNT_OBJECT_LAST, FALSE);
	g_return_val_if_fail(record != NULL, FALSE);

	if (!gnt_json_get_string(record, "uuid", &uuid, error))
		return FALSE;
	locker = g_mutex_locker_new(&self->mutex);
	old = g_hash_table_lookup(objects_cache(self, kind)->by_uuid, uuid);
	if (old == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND, "%s '%s' does not exist",
			    kind_names[kind], uuid);
		return FALSE;
	}
	if (json_object_has_member(record, "serial_no") &&
	    json_object_get_int_member(record, "serial_no") != entry_get_serial_no(old)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
			    "%s '%s' was changed by someone else meanwhile", kind_names[kind],
			    entry_get_name(old));
		return FALSE;
	}
	fresh = object_prepare(record, uuid, entry_get_serial_no(old) + 1, entry_get_ctime(old),
			       error);
	if (fresh == NULL)
		return FALSE;
	return object_store_locked(self, kind, g_steal_pointer(&fresh), uuid, old, error);
}

gboolean
gnt_config_remove_object(GntConfig *self, GntObjectKind kind, const gchar *uuid, GError **error)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = NULL;
	WriteData w = {kind, NULL, uuid, FALSE};

	g_return_val_if_fail(GNT_IS_CONFIG(self) && kind < GNT_OBJECT_LAST && uuid != NULL, FALSE);

	locker = g_mutex_locker_new(&self->mutex);
	if (!g_hash_table_contains(objects_cache(self, kind)->by_uuid, uuid)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND, "%s '%s' does not exist",
			    kind_names[kind], uuid);
		return FALSE;
	}
	if (!gnt_config_db_transaction(self->db, db_write_object, &w, error))
		return FALSE;
	cache_remove(objects_cache(self, kind), uuid);
	gnt_config_notify_changed_locked(self);
	return TRUE;
}
