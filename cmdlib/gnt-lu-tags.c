/*
 * OP_TAGS_SET and OP_TAGS_DEL on the cluster, a node or an instance, with
 * Ganeti's tag rules (gnt-limits.h).
 */
#include <string.h>

#include "gnt-config.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-limits.h"
#include "gnt-lu.h"

/* Cluster tags are read, changed and written in one step under this lock
 * (the cluster record has no lock of its own); nodes and instances have
 * their locks. */
static GMutex cluster_tags_mutex;

static gint
compare_strings(gconstpointer a, gconstpointer b)
{
	return g_strcmp0(*(const gchar *const *)a, *(const gchar *const *)b);
}

/* The object kind of a tag kind other than "cluster" (check_args refused
 * "network"). */
static GntObjectKind
tags_object_kind(const gchar *kind)
{
	GntObjectKind object_kind = GNT_OBJECT_INSTANCE;

	gnt_object_kind_from_string(kind, &object_kind);
	return object_kind;
}

static gboolean
tags_check_args(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	const gchar *kind = gnt_opcode_get_string(op, "kind");

	if (g_strcmp0(kind, "network") == 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "tags of a %s are not supported (Gantry has no %ss)", kind, kind);
		return FALSE;
	}
	if (g_strcmp0(kind, "cluster") != 0 && gnt_opcode_get_string(op, "name") == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "the %s's name is missing", kind);
		return FALSE;
	}
	/* the tags themselves: the opcode table's check (gnt-limits.h) */
	return TRUE;
}

static void
tags_declare_locks(GntLu *lu, GntLockSet *locks)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	const gchar *kind = gnt_opcode_get_string(op, "kind");
	const gchar *name = gnt_opcode_get_string(op, "name");
	g_autoptr(JsonObject) record = NULL;

	if (g_strcmp0(kind, "cluster") == 0 || name == NULL)
		return;
	record = gnt_config_dup_object(gnt_lu_get_env(lu)->config, tags_object_kind(kind), name,
				       NULL);
	if (tags_object_kind(kind) == GNT_OBJECT_GROUP) {
		/* groups are locked by UUID: a rename keeps the lock */
		gnt_lock_set_add(locks, GNT_LOCK_LEVEL_NODEGROUP,
				 record != NULL ? json_object_get_string_member(record, "uuid")
						: name,
				 GNT_LOCK_EXCLUSIVE);
		return;
	}
	gnt_lock_set_add(locks,
			 tags_object_kind(kind) == GNT_OBJECT_NODE ? GNT_LOCK_LEVEL_NODE
								   : GNT_LOCK_LEVEL_INSTANCE,
			 record != NULL ? json_object_get_string_member(record, "name") : name,
			 GNT_LOCK_EXCLUSIVE);
}

/* The current tags of the target. (transfer full) */
static GPtrArray *
tags_dup_current(GntLu *lu, JsonObject **record_out, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	const gchar *kind = gnt_opcode_get_string(op, "kind");
	GntConfig *config = gnt_lu_get_env(lu)->config;
	g_autoptr(GPtrArray) tags = g_ptr_array_new_with_free_func(g_free);

	if (g_strcmp0(kind, "cluster") == 0) {
		g_autoptr(GntCluster) cluster = gnt_config_dup_cluster(config);
		for (guint i = 0; cluster->tags[i] != NULL; i++)
			g_ptr_array_add(tags, g_strdup(cluster->tags[i]));
	} else {
		JsonObject *record = gnt_config_dup_object(
			config, tags_object_kind(kind), gnt_opcode_get_string(op, "name"), error);
		JsonArray *list = NULL;

		if (record == NULL)
			return NULL;
		if (json_object_has_member(record, "tags") &&
		    JSON_NODE_HOLDS_ARRAY(json_object_get_member(record, "tags")))
			list = json_object_get_array_member(record, "tags");
		for (guint i = 0; list != NULL && i < json_array_get_length(list); i++)
			g_ptr_array_add(tags, g_strdup(json_array_get_string_element(list, i)));
		*record_out = record;
	}
	return g_steal_pointer(&tags);
}

static gboolean
tags_store(GntLu *lu, JsonObject *record, GPtrArray *tags, GError **error)
{
	GntConfig *config = gnt_lu_get_env(lu)->config;
	const gchar *kind = gnt_opcode_get_string(gnt_lu_get_opcode(lu), "kind");
	JsonArray *list;

	g_ptr_array_sort(tags, compare_strings);
	if (record == NULL) {
		g_ptr_array_add(tags, NULL);
		return gnt_config_set_cluster_tags(config, (const gchar *const *)tags->pdata,
						   error);
	}
	list = json_array_new();
	for (guint i = 0; i < tags->len; i++)
		json_array_add_string_element(list, g_ptr_array_index(tags, i));
	json_object_set_array_member(record, "tags", list);
	return gnt_config_update_object(config, tags_object_kind(kind), record, error);
}

static gboolean
tags_contains(GPtrArray *tags, const gchar *tag)
{
	return g_ptr_array_find_with_equal_func(tags, tag, g_str_equal, NULL);
}

/* Ganeti's TagsLU.CheckPrereq: the target exists. */
static gboolean
tags_check_target(GntLu *lu, GError **error)
{
	g_autoptr(JsonObject) record = NULL;
	g_autoptr(GPtrArray) tags = tags_dup_current(lu, &record, error);

	return tags != NULL;
}

/* Both units change the tags in exec, read and written in one step. */
typedef gboolean (*TagsChangeFunc)(GPtrArray *tags, JsonArray *given, GError **error);

static JsonNode *
tags_change(GntLu *lu, TagsChangeFunc change, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	JsonArray *given = json_node_get_array(gnt_opcode_get_param(op, "tags"));
	gboolean cluster = g_strcmp0(gnt_opcode_get_string(op, "kind"), "cluster") == 0;
	g_autoptr(JsonObject) record = NULL;
	g_autoptr(GPtrArray) tags = NULL;
	gboolean ok = FALSE;

	if (cluster)
		g_mutex_lock(&cluster_tags_mutex);
	tags = tags_dup_current(lu, &record, error);
	if (tags != NULL && change(tags, given, error))
		ok = tags_store(lu, record, tags, error);
	if (cluster)
		g_mutex_unlock(&cluster_tags_mutex);
	return ok ? gnt_json_node_new_null() : NULL;
}

static gboolean
tags_add(GPtrArray *tags, JsonArray *given, GError **error)
{
	for (guint i = 0; i < json_array_get_length(given); i++) {
		const gchar *tag = json_array_get_string_element(given, i);

		if (tags_contains(tags, tag))
			continue;
		if (tags->len >= GNT_MAX_TAGS_PER_OBJECT) {
			g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "Error while setting tag: Too many tags");
			return FALSE;
		}
		g_ptr_array_add(tags, g_strdup(tag));
	}
	return TRUE;
}

static JsonNode *
tags_set_exec(GntLu *lu, GError **error)
{
	return tags_change(lu, tags_add, error);
}

const GntLuClass gnt_lu_tags_set = {
	.check_args = tags_check_args,
	.declare_locks = tags_declare_locks,
	.check_prereq = tags_check_target,
	.exec = tags_set_exec,
};

/* Ganeti's "Tag(s) 'a', 'b' not found". */
static gboolean
tags_check_present(GPtrArray *tags, JsonArray *given, GError **error)
{
	g_autoptr(GPtrArray) missing = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GString) text = g_string_new(NULL);

	for (guint i = 0; i < json_array_get_length(given); i++) {
		const gchar *tag = json_array_get_string_element(given, i);
		g_autofree gchar *quoted = g_strdup_printf("'%s'", tag);

		if (!tags_contains(tags, tag) && !tags_contains(missing, quoted))
			g_ptr_array_add(missing, g_steal_pointer(&quoted));
	}
	if (missing->len == 0)
		return TRUE;
	g_ptr_array_sort(missing, compare_strings);
	for (guint i = 0; i < missing->len; i++)
		g_string_append_printf(text, "%s%s", i > 0 ? ", " : "",
				       (const gchar *)g_ptr_array_index(missing, i));
	g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND, "Tag(s) %s not found", text->str);
	return FALSE;
}

static gboolean
tags_del_check_prereq(GntLu *lu, GError **error)
{
	JsonArray *given = json_node_get_array(gnt_opcode_get_param(gnt_lu_get_opcode(lu), "tags"));
	g_autoptr(JsonObject) record = NULL;
	g_autoptr(GPtrArray) tags = tags_dup_current(lu, &record, error);

	return tags != NULL && tags_check_present(tags, given, error);
}

static gboolean
tags_remove(GPtrArray *tags, JsonArray *given, GError **error)
{
	/* checked in check_prereq; again here, as another job may have been first */
	if (!tags_check_present(tags, given, error))
		return FALSE;
	for (guint i = 0; i < json_array_get_length(given); i++) {
		guint index = 0;
		if (g_ptr_array_find_with_equal_func(tags, json_array_get_string_element(given, i),
						     g_str_equal, &index))
			g_ptr_array_remove_index(tags, index);
	}
	return TRUE;
}

static JsonNode *
tags_del_exec(GntLu *lu, GError **error)
{
	return tags_change(lu, tags_remove, error);
}

const GntLuClass gnt_lu_tags_del = {
	.check_args = tags_check_args,
	.declare_locks = tags_declare_locks,
	.check_prereq = tags_del_check_prereq,
	.exec = tags_del_exec,
};
