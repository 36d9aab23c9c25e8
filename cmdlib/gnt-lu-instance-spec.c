/*
 * What every instance unit needs: the instance and its node from the
 * config, and the "instance spec" a node is sent (doc/node-rpc.md): the
 * record, its filled hypervisor and backend parameters, where its disks
 * live, where OS definitions are looked for.
 */
#include "gnt-lu-instance-spec.h"

#include "gnt-config-fill.h"
#include "gnt-error.h"
#include "gnt-instance-spec.h"
#include "gnt-json.h"
#include "gnt-live-probe.h"
#include "gnt-node-calls.h"
#include "gnt-records.h"

GntRpcClient *
gnt_lu_get_rpc(GntLu *lu, GError **error)
{
	GntRpcClient *rpc = gnt_lu_get_env(lu)->rpc;

	if (rpc == NULL)
		g_set_error_literal(
			error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			"this master daemon cannot reach nodes (no cluster certificates)");
	return rpc;
}

JsonObject *
gnt_lu_dup_node(GntConfig *config, const gchar *uuid_or_name, GError **error)
{
	return gnt_config_dup_object(config, GNT_OBJECT_NODE, uuid_or_name, error);
}

gboolean
gnt_lu_check_node_online(JsonObject *node, GError **error)
{
	const gchar *name = json_object_get_string_member(node, "name");

	if (gnt_record_get_flag(node, "offline", FALSE)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE, "node '%s' is offline", name);
		return FALSE;
	}
	return TRUE;
}

static gboolean
collect_vm_node(JsonObject *record, gpointer user_data)
{
	GPtrArray *nodes = user_data;

	if (!gnt_record_get_flag(record, "offline", FALSE) &&
	    gnt_record_get_flag(record, "vm_capable", TRUE))
		g_ptr_array_add(nodes, gnt_json_object_deep_copy(record));
	return TRUE;
}

GPtrArray *
gnt_lu_dup_vm_nodes(GntConfig *config)
{
	GPtrArray *nodes = g_ptr_array_new_with_free_func((GDestroyNotify)json_object_unref);

	gnt_config_foreach_object(config, GNT_OBJECT_NODE, collect_vm_node, nodes);
	return nodes;
}

/* The instance the opcode names. (transfer full) */
static JsonObject *
lu_dup_instance(GntLu *lu, GError **error)
{
	const gchar *name = gnt_opcode_get_string(gnt_lu_get_opcode(lu), "instance_name");

	return gnt_config_dup_object(gnt_lu_get_env(lu)->config, GNT_OBJECT_INSTANCE, name, error);
}

void
gnt_lu_lock_instance(GntLu *lu, GntLockSet *locks)
{
	const gchar *name = gnt_opcode_get_string(gnt_lu_get_opcode(lu), "instance_name");
	g_autoptr(JsonObject) instance = lu_dup_instance(lu, NULL);
	g_autoptr(JsonObject) node = NULL;

	if (instance == NULL) {
		gnt_lock_set_add(locks, GNT_LOCK_LEVEL_INSTANCE, name, GNT_LOCK_EXCLUSIVE);
		return;
	}
	gnt_lock_set_add(locks, GNT_LOCK_LEVEL_INSTANCE,
			 json_object_get_string_member(instance, "name"), GNT_LOCK_EXCLUSIVE);
	node = gnt_lu_dup_node(gnt_lu_get_env(lu)->config,
			       json_object_get_string_member(instance, "primary_node"), NULL);
	if (node != NULL)
		gnt_lock_set_add(locks, GNT_LOCK_LEVEL_NODE,
				 json_object_get_string_member(node, "name"), GNT_LOCK_SHARED);
}

void
gnt_lu_instance_ctx_free(GntLuInstanceCtx *ctx)
{
	g_clear_pointer(&ctx->instance, json_object_unref);
	g_clear_pointer(&ctx->node, json_object_unref);
	g_clear_pointer(&ctx->spec, json_object_unref);
	g_free(ctx);
}

GntLuInstanceCtx *
gnt_lu_instance_ctx_new(GntLu *lu, gboolean need_online, GError **error)
{
	GntConfig *config = gnt_lu_get_env(lu)->config;
	g_autoptr(GntLuInstanceCtx) ctx = g_new0(GntLuInstanceCtx, 1);

	ctx->instance = lu_dup_instance(lu, error);
	if (ctx->instance == NULL)
		return NULL;
	ctx->node = gnt_lu_dup_node(
		config, json_object_get_string_member(ctx->instance, "primary_node"), error);
	if (ctx->node == NULL) {
		g_prefix_error(error, "instance '%s': its primary node: ",
			       json_object_get_string_member(ctx->instance, "name"));
		return NULL;
	}
	if (need_online && !gnt_lu_check_node_online(ctx->node, error))
		return NULL;
	ctx->spec = gnt_lu_instance_spec_new(config, ctx->instance, error);
	return ctx->spec != NULL ? g_steal_pointer(&ctx) : NULL;
}

JsonObject *
gnt_lu_storage_spec_new(JsonObject *info)
{
	JsonObject *storage = json_object_new();

	json_object_set_member(
		storage, "volume_group_name",
		gnt_json_node_deep_copy(json_object_get_member(info, "volume_group_name")));
	json_object_set_member(
		storage, "file_storage_dir",
		gnt_json_node_deep_copy(json_object_get_member(info, "file_storage_dir")));
	return storage;
}

/* A string setting of @info, NULL when unset or null. (transfer full) */
static gchar *
info_dup_string(JsonObject *info, const gchar *key)
{
	JsonNode *node = json_object_get_member(info, key);

	return node != NULL && JSON_NODE_HOLDS_VALUE(node) &&
			       json_node_get_value_type(node) == G_TYPE_STRING
		       ? json_node_dup_string(node)
		       : NULL;
}

JsonObject *
gnt_lu_instance_spec_new(GntConfig *config, JsonObject *instance, GError **error)
{
	g_autoptr(JsonObject) info = gnt_config_dup_cluster_info(config);
	/* all of them, globals included, as Ganeti's FillHV for a node */
	g_autoptr(JsonObject) hvparams = gnt_fill_hvparams(info, instance, FALSE, error);
	g_autoptr(GntInstance) record = NULL;
	g_autoptr(GntInstanceSpec) spec = NULL;
	JsonArray *search_path = gnt_json_peek_array(info, "os_search_path");

	if (hvparams == NULL) {
		g_prefix_error(error,
			       "instance '%s': ", json_object_get_string_member(instance, "name"));
		return NULL;
	}
	record = gnt_instance_from_json(instance, error);
	if (record == NULL)
		return NULL;
	spec = gnt_instance_spec_new(g_steal_pointer(&record), g_steal_pointer(&hvparams),
				     gnt_fill_beparams(info, instance));
	spec->volume_group_name = info_dup_string(info, "volume_group_name");
	spec->file_storage_dir = info_dup_string(info, "file_storage_dir");
	if (search_path != NULL) {
		g_autoptr(GStrvBuilder) dirs = g_strv_builder_new();

		for (guint i = 0; i < json_array_get_length(search_path); i++)
			g_strv_builder_add(dirs, json_array_get_string_element(search_path, i));
		spec->os_search_path = g_strv_builder_end(dirs);
	}
	return gnt_instance_spec_to_json(spec);
}

gint64
gnt_lu_spec_get_be_int(JsonObject *spec, const gchar *name)
{
	JsonObject *be = json_object_get_object_member(spec, "beparams");

	return json_object_has_member(be, name) ? json_object_get_int_member(be, name) : 0;
}

gboolean
gnt_lu_instance_check_not_running(GntRpcClient *rpc, GntLuInstanceCtx *ctx, const gchar *doing,
				  GError **error)
{
	const gchar *name = json_object_get_string_member(ctx->instance, "name");
	const gchar *hypervisors[] = {json_object_get_string_member(ctx->instance, "hypervisor"),
				      NULL};
	g_autoptr(JsonObject)
		running = gnt_live_probe_instances(rpc, ctx->node, hypervisors, 0, error);
	JsonObject *entry = NULL;
	const gchar *state = NULL;

	if (running == NULL)
		return FALSE;
	if (gnt_json_get_object(running, name, &entry, NULL))
		gnt_json_get_string(entry, "state", &state, NULL);
	/* a guest that shut itself off is not running (gnt-live-probe.h) */
	if (entry != NULL && g_strcmp0(state, "shutdown") != 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE, "Instance '%s' is running, %s",
			    name, doing);
		return FALSE;
	}
	return TRUE;
}
