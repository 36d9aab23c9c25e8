/*
 * The node group units, after Ganeti's cmdlib/group.py: add, set-params
 * (allocation policy, node/disk parameters, instance policy), rename,
 * remove (only an empty group, never the last one) and assign-nodes (which
 * refuses to split an instance's nodes across groups unless forced).
 * doc/groups.md.
 */
#include <string.h>

#include "gnt-config-groups.h"
#include "gnt-config.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-lu-instance-spec.h"
#include "gnt-lu.h"

static const gchar *
op_group_name(GntLu *lu)
{
	return gnt_opcode_get_string(gnt_lu_get_opcode(lu), "group_name");
}

/* A given dictionary parameter, or NULL when absent or null. */
static JsonObject *
op_dict(const GntOpcode *op, const gchar *name)
{
	JsonNode *value = gnt_opcode_get_param(op, name);

	return value != NULL && JSON_NODE_HOLDS_OBJECT(value) ? json_node_get_object(value) : NULL;
}

/* A group name: what Ganeti's NonEmptyString allows, without what RAPI
 * paths and CLI lists cannot carry. */
static gboolean
check_group_name(const gchar *name, GError **error)
{
	if (name == NULL || *name == '\0' || strpbrk(name, "/, \t\n") != NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "invalid node group name '%s': it must be non-empty, without '/', ','"
			    " or white space",
			    name != NULL ? name : "");
		return FALSE;
	}
	return TRUE;
}

/* The record of the group @name names (a name or a UUID). (transfer full) */
static JsonObject *
dup_group(GntConfig *config, const gchar *name, GError **error)
{
	g_autofree gchar *uuid = gnt_config_lookup_group(config, name, error);

	return uuid != NULL ? gnt_config_dup_object(config, GNT_OBJECT_GROUP, uuid, error) : NULL;
}

/* ---- parameters ---- */

/* The opcode's ndparams in their types (gnt_group_coerce_params()), or
 * NULL without an error when none are given. (transfer full) */
static JsonObject *
op_ndparams(GntLu *lu, GError **error)
{
	JsonObject *given = op_dict(gnt_lu_get_opcode(lu), "ndparams");
	g_autoptr(GntCluster) cluster = NULL;
	JsonObject *defaults = NULL;

	if (given == NULL)
		return NULL;
	cluster = gnt_config_dup_cluster(lu_config(lu));
	gnt_json_get_object(cluster->settings, "ndparams", &defaults, NULL);
	return gnt_group_coerce_params(defaults, given, "node parameter", error);
}

/* The opcode's diskparams: a dictionary per disk template the cluster
 * knows, each parameter one the cluster's has, in its type; NULL without
 * an error when none are given. (transfer full) */
static JsonObject *
op_diskparams(GntLu *lu, GError **error)
{
	JsonObject *given = op_dict(gnt_lu_get_opcode(lu), "diskparams");
	g_autoptr(GntCluster) cluster = NULL;
	g_autoptr(JsonObject) out = json_object_new();
	JsonObject *known = NULL;
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	if (given == NULL)
		return NULL;
	cluster = gnt_config_dup_cluster(lu_config(lu));
	gnt_json_get_object(cluster->settings, "diskparams", &known, NULL);
	json_object_iter_init_ordered(&iter, given);
	while (json_object_iter_next_ordered(&iter, &key, &value)) {
		JsonObject *defaults = NULL;
		JsonObject *params;

		if (known == NULL || !gnt_json_get_object(known, key, &defaults, NULL)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "While verify diskparams options: unknown disk template '%s'",
				    key);
			return NULL;
		}
		if (!JSON_NODE_HOLDS_OBJECT(value)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "While verify diskparams options: the parameters of '%s' must"
				    " be a dictionary",
				    key);
			return NULL;
		}
		params = gnt_group_coerce_params(defaults, json_node_get_object(value),
						 "disk parameter", error);
		if (params == NULL) {
			g_prefix_error(error, "While verify diskparams options: %s: ", key);
			return NULL;
		}
		json_object_set_object_member(out, key, params);
	}
	return g_steal_pointer(&out);
}

/* Ganeti's GetUpdatedIPolicy: "std" key by key, the rest whole. */
static JsonObject *
updated_ipolicy(JsonObject *old, JsonObject *changes)
{
	JsonObject *out = gnt_lu_params_update(old, changes);
	JsonObject *old_std = NULL;
	JsonObject *new_std = NULL;

	if (old != NULL && gnt_json_get_object(old, "std", &old_std, NULL) &&
	    gnt_json_get_object(changes, "std", &new_std, NULL))
		json_object_set_object_member(out, "std", gnt_lu_params_update(old_std, new_std));
	return out;
}

/* diskparams: each template's dictionary updated on its own. */
static JsonObject *
updated_diskparams(JsonObject *old, JsonObject *changes)
{
	JsonObject *out = old != NULL ? gnt_json_object_deep_copy(old) : json_object_new();
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	json_object_iter_init_ordered(&iter, changes);
	while (json_object_iter_next_ordered(&iter, &key, &value)) {
		JsonObject *current = NULL;

		gnt_json_get_object(out, key, &current, NULL);
		json_object_set_object_member(
			out, key, gnt_lu_params_update(current, json_node_get_object(value)));
	}
	return out;
}

/* What OP_GROUP_ADD and OP_GROUP_SET_PARAMS do to a group record: the
 * opcode's parameters, checked and in their types. */
typedef struct {
	JsonObject *group;	/* the new record, or the one read under the lock */
	JsonObject *ndparams;	/* NULL: not given */
	JsonObject *diskparams; /* NULL: not given */
} GroupChange;

static void
group_change_free(GroupChange *change)
{
	g_clear_pointer(&change->group, json_object_unref);
	g_clear_pointer(&change->ndparams, json_object_unref);
	g_clear_pointer(&change->diskparams, json_object_unref);
	g_free(change);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GroupChange, group_change_free)

/* The change of @group (transfer full); GNT_ERROR_INVALID for node or disk
 * parameters the cluster does not have or of the wrong type, and with
 * @ipolicy for an instance policy that is not valid as given (a change of
 * set-params is checked once merged with the group's). */
static GroupChange *
group_change_new(GntLu *lu, JsonObject *group, gboolean ipolicy, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	g_autoptr(GroupChange) change = g_new0(GroupChange, 1);
	JsonObject *policy = ipolicy ? op_dict(op, "ipolicy") : NULL;

	change->group = group;
	if (op_dict(op, "ndparams") != NULL && (change->ndparams = op_ndparams(lu, error)) == NULL)
		return NULL;
	if (op_dict(op, "diskparams") != NULL &&
	    (change->diskparams = op_diskparams(lu, error)) == NULL)
		return NULL;
	if (policy != NULL && !gnt_group_check_ipolicy(policy, error))
		return NULL;
	return g_steal_pointer(&change);
}

/* The record's dictionary @key with @changes (may be NULL) applied by
 * @update; with @result, Ganeti's [param, new value] pair added to it. */
static void
update_dict(JsonObject *group, const gchar *key, JsonObject *changes,
	    JsonObject *(*update)(JsonObject *old, JsonObject *changes), JsonArray *result)
{
	JsonObject *old = NULL;
	JsonArray *pair;

	if (changes == NULL)
		return;
	gnt_json_get_object(group, key, &old, NULL);
	json_object_set_object_member(group, key, update(old, changes));
	if (result == NULL)
		return;
	pair = json_array_new();
	json_array_add_string_element(pair, key);
	json_array_add_element(pair, gnt_json_node_deep_copy(json_object_get_member(group, key)));
	json_array_add_array_element(result, pair);
}

/* Applies @change to its record; what Ganeti reports of it (the node and
 * disk parameters changed, as [param, value] pairs). (transfer full) */
static JsonArray *
group_change_apply(GntLu *lu, GroupChange *change)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	JsonObject *group = change->group;
	JsonArray *result = json_array_new();
	const gchar *policy = gnt_opcode_get_string(op, "alloc_policy");

	update_dict(group, "ndparams", change->ndparams, gnt_lu_params_update, result);
	update_dict(group, "diskparams", change->diskparams, updated_diskparams, result);
	if (policy != NULL)
		json_object_set_string_member(group, "alloc_policy", policy);
	update_dict(group, "hv_state_static", op_dict(op, "hv_state"), gnt_lu_params_update, NULL);
	update_dict(group, "disk_state_static", op_dict(op, "disk_state"), gnt_lu_params_update,
		    NULL);
	update_dict(group, "ipolicy", op_dict(op, "ipolicy"), updated_ipolicy, NULL);
	return result;
}

/* ---- OP_GROUP_ADD ---- */

static gboolean
add_check_args(GntLu *lu, GError **error)
{
	g_autoptr(GroupChange) change = NULL;

	if (!check_group_name(op_group_name(lu), error))
		return FALSE;
	change = group_change_new(lu, json_object_new(), TRUE, error);
	return change != NULL;
}

static gboolean
add_check_prereq(GntLu *lu, GError **error)
{
	/* a name that is a group's name or UUID */
	g_autofree gchar *uuid = gnt_config_lookup_group(lu_config(lu), op_group_name(lu), NULL);
	GroupChange *change;

	if (uuid != NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_EXISTS,
			    "Desired group name '%s' already exists as a node group (UUID: %s)",
			    op_group_name(lu), uuid);
		return FALSE;
	}
	change = group_change_new(lu, gnt_group_record_new(op_group_name(lu)), TRUE, error);
	if (change == NULL)
		return FALSE;
	gnt_lu_set_data(lu, change, (GDestroyNotify)group_change_free);
	return TRUE;
}

static JsonNode *
add_exec(GntLu *lu, GError **error)
{
	GroupChange *change = gnt_lu_get_data(lu);

	/* a new group reports no changes */
	json_array_unref(group_change_apply(lu, change));
	gnt_lu_feedback(lu, "Adding node group %s", op_group_name(lu));
	if (!gnt_config_add_object(lu_config(lu), GNT_OBJECT_GROUP, change->group, error))
		return NULL;
	return gnt_json_node_new_null();
}

static void
add_declare_locks(GntLu *lu, GntLockSet *locks)
{
	gnt_lock_set_add(locks, GNT_LOCK_LEVEL_NODEGROUP, op_group_name(lu), GNT_LOCK_EXCLUSIVE);
}

const GntLuClass gnt_lu_group_add = {
	.check_args = add_check_args,
	.declare_locks = add_declare_locks,
	.check_prereq = add_check_prereq,
	.exec = add_exec,
};

/* ---- OP_GROUP_SET_PARAMS ---- */

/* Groups are locked by UUID: a rename keeps the lock. */
static void
lock_op_group(GntLu *lu, GntLockSet *locks)
{
	g_autofree gchar *uuid = gnt_config_lookup_group(lu_config(lu), op_group_name(lu), NULL);

	gnt_lock_set_add(locks, GNT_LOCK_LEVEL_NODEGROUP, uuid != NULL ? uuid : op_group_name(lu),
			 GNT_LOCK_EXCLUSIVE);
}

static const gchar *const set_params_mods[] = {
	"alloc_policy", "ndparams", "diskparams", "hv_state", "disk_state", "ipolicy",
};

static gboolean
set_params_check_args(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	g_autoptr(GroupChange) change = NULL;
	gboolean given = FALSE;

	for (guint i = 0; i < G_N_ELEMENTS(set_params_mods); i++) {
		JsonNode *value = gnt_opcode_get_param(op, set_params_mods[i]);

		given |= value != NULL && !JSON_NODE_HOLDS_NULL(value);
	}
	if (!given) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Please pass at least one modification");
		return FALSE;
	}
	change = group_change_new(lu, json_object_new(), FALSE, error);
	return change != NULL;
}

static gboolean
set_params_check_prereq(GntLu *lu, GError **error)
{
	JsonObject *changes = op_dict(gnt_lu_get_opcode(lu), "ipolicy");
	JsonObject *group = dup_group(lu_config(lu), op_group_name(lu), error);
	g_autoptr(GroupChange) change = NULL;
	JsonObject *old = NULL;

	if (group == NULL)
		return FALSE;
	change = group_change_new(lu, group, FALSE, error);
	if (change == NULL)
		return FALSE;
	if (changes != NULL) {
		g_autoptr(JsonObject) ipolicy = NULL;

		gnt_json_get_object(group, "ipolicy", &old, NULL);
		ipolicy = updated_ipolicy(old, changes);
		if (!gnt_group_check_ipolicy(ipolicy, error))
			return FALSE;
	}
	gnt_lu_set_data(lu, g_steal_pointer(&change), (GDestroyNotify)group_change_free);
	return TRUE;
}

static JsonNode *
set_params_exec(GntLu *lu, GError **error)
{
	GroupChange *change = gnt_lu_get_data(lu);
	g_autoptr(JsonArray) result = group_change_apply(lu, change);

	/* read under the group's lock: no stale serial_no check */
	json_object_remove_member(change->group, "serial_no");
	if (!gnt_config_update_object(lu_config(lu), GNT_OBJECT_GROUP, change->group, error))
		return NULL;
	return gnt_json_node_new_array(g_steal_pointer(&result));
}

const GntLuClass gnt_lu_group_set_params = {
	.check_args = set_params_check_args,
	.declare_locks = lock_op_group,
	.check_prereq = set_params_check_prereq,
	.exec = set_params_exec,
};

/* ---- OP_GROUP_RENAME ---- */

static gboolean
rename_check_args(GntLu *lu, GError **error)
{
	return check_group_name(gnt_opcode_get_string(gnt_lu_get_opcode(lu), "new_name"), error);
}

static gboolean
rename_check_prereq(GntLu *lu, GError **error)
{
	const gchar *new_name = gnt_opcode_get_string(gnt_lu_get_opcode(lu), "new_name");
	g_autoptr(JsonObject) group = dup_group(lu_config(lu), op_group_name(lu), error);
	g_autofree gchar *clash = gnt_config_lookup_group(lu_config(lu), new_name, NULL);

	if (group == NULL)
		return FALSE;
	if (clash != NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_EXISTS,
			    "Desired new name '%s' clashes with existing node group (UUID: %s)",
			    new_name, clash);
		return FALSE;
	}
	gnt_lu_set_data(lu, g_steal_pointer(&group), (GDestroyNotify)json_object_unref);
	return TRUE;
}

static JsonNode *
rename_exec(GntLu *lu, GError **error)
{
	const gchar *new_name = gnt_opcode_get_string(gnt_lu_get_opcode(lu), "new_name");
	JsonObject *group = gnt_lu_get_data(lu);

	json_object_set_string_member(group, "name", new_name);
	json_object_remove_member(group, "serial_no");
	if (!gnt_config_update_object(lu_config(lu), GNT_OBJECT_GROUP, group, error))
		return NULL;
	return gnt_json_node_new_string(new_name);
}

const GntLuClass gnt_lu_group_rename = {
	.check_args = rename_check_args,
	.declare_locks = lock_op_group,
	.check_prereq = rename_check_prereq,
	.exec = rename_exec,
};

/* ---- OP_GROUP_REMOVE ---- */

static gboolean
remove_check_prereq(GntLu *lu, GError **error)
{
	g_autoptr(JsonObject) group = dup_group(lu_config(lu), op_group_name(lu), error);
	g_autoptr(GPtrArray) names = NULL;

	if (group == NULL)
		return FALSE;
	names = gnt_config_dup_names_where(lu_config(lu), GNT_OBJECT_NODE, "group",
					   json_object_get_string_member(group, "uuid"));
	if (names->len > 0) {
		g_autofree gchar *list = g_strjoinv(", ", (gchar **)names->pdata);

		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
			    "Group '%s' not empty, has the following nodes: %s",
			    json_object_get_string_member(group, "name"), list);
		return FALSE;
	}
	if (gnt_config_count_objects(lu_config(lu), GNT_OBJECT_GROUP) <= 1) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
			    "Group '%s' is the only group, cannot be removed",
			    json_object_get_string_member(group, "name"));
		return FALSE;
	}
	gnt_lu_set_data(lu, g_steal_pointer(&group), (GDestroyNotify)json_object_unref);
	return TRUE;
}

static JsonNode *
remove_exec(GntLu *lu, GError **error)
{
	JsonObject *group = gnt_lu_get_data(lu);

	gnt_lu_feedback(lu, "Removing node group %s", json_object_get_string_member(group, "name"));
	if (!gnt_config_remove_object(lu_config(lu), GNT_OBJECT_GROUP,
				      json_object_get_string_member(group, "uuid"), error))
		return NULL;
	return gnt_json_node_new_null();
}

const GntLuClass gnt_lu_group_remove = {
	.declare_locks = lock_op_group,
	.check_prereq = remove_check_prereq,
	.exec = remove_exec,
};

/* ---- OP_GROUP_ASSIGN_NODES ---- */

typedef struct {
	gchar *group_uuid;
	GPtrArray *nodes; /* JsonObject: the nodes to move, as read */
} AssignCtx;

static void
assign_ctx_free(AssignCtx *ctx)
{
	g_free(ctx->group_uuid);
	g_ptr_array_unref(ctx->nodes);
	g_free(ctx);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(AssignCtx, assign_ctx_free)

typedef struct {
	GHashTable *before; /* node uuid -> group uuid (borrowed from the records) */
	GHashTable *after;
	GPtrArray *new_splits;
	GPtrArray *old_splits;
	GPtrArray *nodes; /* keeps the records the tables point into */
} SplitCheck;

/* Whether the nodes of @inst (primary and secondaries) lie in more than
 * one group of @groups. */
static gboolean
instance_split(JsonObject *inst, GHashTable *groups)
{
	const gchar *first = g_hash_table_lookup(
		groups, json_object_get_string_member_with_default(inst, "primary_node", ""));
	JsonArray *secondaries = NULL;

	if (!gnt_json_get_array(inst, "secondary_nodes", &secondaries, NULL))
		return FALSE;
	for (guint i = 0; i < json_array_get_length(secondaries); i++) {
		JsonNode *uuid = json_array_get_element(secondaries, i);
		const gchar *group =
			json_node_get_value_type(uuid) == G_TYPE_STRING
				? g_hash_table_lookup(groups, json_node_get_string(uuid))
				: NULL;

		if (g_strcmp0(group, first) != 0)
			return TRUE;
	}
	return FALSE;
}

/* Ganeti's CheckAssignmentForSplitInstances: instances split by the move,
 * and those split before and after it. */
static gboolean
split_check_cb(JsonObject *inst, gpointer user_data)
{
	SplitCheck *check = user_data;
	const gchar *name = json_object_get_string_member(inst, "name");

	if (!instance_split(inst, check->after))
		return TRUE;
	g_ptr_array_add(instance_split(inst, check->before) ? check->old_splits : check->new_splits,
			g_strdup(name));
	return TRUE;
}

static gchar *
join_names(GPtrArray *names)
{
	g_autoptr(GStrvBuilder) builder = g_strv_builder_new();
	g_auto(GStrv) strv = NULL;

	for (guint i = 0; i < names->len; i++)
		g_strv_builder_add(builder, g_ptr_array_index(names, i));
	strv = g_strv_builder_end(builder);
	return g_strjoinv(", ", strv);
}

static gboolean
assign_check_splits(GntLu *lu, AssignCtx *ctx, GError **error)
{
	g_autoptr(GPtrArray) all = gnt_config_dup_objects(lu_config(lu), GNT_OBJECT_NODE);
	g_autoptr(GHashTable) before = g_hash_table_new(g_str_hash, g_str_equal);
	g_autoptr(GHashTable) after = g_hash_table_new(g_str_hash, g_str_equal);
	g_autoptr(GPtrArray) new_splits = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) old_splits = g_ptr_array_new_with_free_func(g_free);
	SplitCheck check = {before, after, new_splits, old_splits, all};

	for (guint i = 0; i < all->len; i++) {
		JsonObject *node = g_ptr_array_index(all, i);
		const gchar *uuid = json_object_get_string_member(node, "uuid");
		const gchar *group = json_object_get_string_member_with_default(node, "group", "");

		g_hash_table_insert(before, (gpointer)uuid, (gpointer)group);
		g_hash_table_insert(after, (gpointer)uuid, (gpointer)group);
	}
	for (guint i = 0; i < ctx->nodes->len; i++)
		g_hash_table_insert(after,
				    (gpointer)json_object_get_string_member(
					    g_ptr_array_index(ctx->nodes, i), "uuid"),
				    ctx->group_uuid);
	gnt_config_foreach_object(lu_config(lu), GNT_OBJECT_INSTANCE, split_check_cb, &check);
	if (new_splits->len == 0)
		return TRUE;
	g_ptr_array_sort(new_splits, (GCompareFunc)g_strcmp0);
	if (!gnt_opcode_get_bool(gnt_lu_get_opcode(lu), "force")) {
		g_autofree gchar *list = join_names(new_splits);

		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
			    "The following instances get split by this change and --force was not"
			    " given: %s",
			    list);
		return FALSE;
	}
	{
		g_autofree gchar *list = join_names(new_splits);

		gnt_lu_feedback(
			lu, "WARNING: This operation will split the following instances: %s", list);
	}
	if (old_splits->len > 0) {
		g_autofree gchar *list = join_names(old_splits);

		gnt_lu_feedback(lu,
				"WARNING: In addition, these already-split instances continue to"
				" be split across groups: %s",
				list);
	}
	return TRUE;
}

static gboolean
assign_check_prereq(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	JsonArray *names = json_node_get_array(gnt_opcode_get_param(op, "nodes"));
	g_autoptr(AssignCtx) ctx = g_new0(AssignCtx, 1);

	ctx->nodes = g_ptr_array_new_with_free_func((GDestroyNotify)json_object_unref);
	ctx->group_uuid = gnt_config_lookup_group(lu_config(lu), op_group_name(lu), error);
	if (ctx->group_uuid == NULL)
		return FALSE;
	for (guint i = 0; i < json_array_get_length(names); i++) {
		JsonObject *node = gnt_lu_dup_node(lu_config(lu),
						   json_array_get_string_element(names, i), error);

		if (node == NULL)
			return FALSE;
		g_ptr_array_add(ctx->nodes, node);
	}
	if (!assign_check_splits(lu, ctx, error))
		return FALSE;
	gnt_lu_set_data(lu, g_steal_pointer(&ctx), (GDestroyNotify)assign_ctx_free);
	return TRUE;
}

static JsonNode *
assign_exec(GntLu *lu, GError **error)
{
	AssignCtx *ctx = gnt_lu_get_data(lu);

	for (guint i = 0; i < ctx->nodes->len; i++) {
		JsonObject *node = g_ptr_array_index(ctx->nodes, i);

		if (g_strcmp0(json_object_get_string_member_with_default(node, "group", NULL),
			      ctx->group_uuid) == 0)
			continue;
		json_object_set_string_member(node, "group", ctx->group_uuid);
		/* read under the cluster lock: no stale serial_no check */
		json_object_remove_member(node, "serial_no");
		if (!gnt_config_update_object(lu_config(lu), GNT_OBJECT_NODE, node, error))
			return NULL;
	}
	return gnt_json_node_new_null();
}

const GntLuClass gnt_lu_group_assign_nodes = {
	.declare_locks = lock_op_group,
	.check_prereq = assign_check_prereq,
	.exec = assign_exec,
};
