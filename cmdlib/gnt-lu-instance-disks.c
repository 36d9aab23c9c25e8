/*
 * An instance's disks as a whole: activate, deactivate and grow
 * (Ganeti's LUInstanceActivateDisks, LUInstanceDeactivateDisks and
 * LUInstanceGrowDisk, lib/cmdlib/instance_storage.py). Gantry's disks are
 * file images and logical volumes, usable whenever they exist: activating
 * checks each one on the node and answers where it is; deactivating only
 * records it (nothing to tear down without DRBD); growing grows the image
 * or volume on the node, then the record.
 */
#include "gnt-records.h"
#include "gnt-config.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-lu-instance-spec.h"
#include "gnt-lu.h"
#include "gnt-node-calls.h"
#include "gnt-size.h"

static gboolean
disks_check_prereq(GntLu *lu, GError **error)
{
	GntLuInstanceCtx *ctx = gnt_lu_instance_ctx_new(lu, TRUE, error);

	gnt_lu_set_data(lu, ctx, (GDestroyNotify)gnt_lu_instance_ctx_free);
	return ctx != NULL;
}

/* Stores @value (transfer full) as the instance's @member, on the record as
 * it is now. */
static gboolean
instance_store(GntLu *lu, GntLuInstanceCtx *ctx, const gchar *member, JsonNode *value,
	       GError **error)
{
	GntConfig *config = gnt_lu_get_env(lu)->config;
	g_autoptr(JsonObject) current =
		gnt_config_dup_object(config, GNT_OBJECT_INSTANCE,
				      json_object_get_string_member(ctx->instance, "uuid"), error);

	if (current == NULL) {
		json_node_unref(value);
		return FALSE;
	}
	json_object_set_member(current, member, value);
	return gnt_config_update_object(config, GNT_OBJECT_INSTANCE, current, error);
}

static const gchar *
instance_name(GntLuInstanceCtx *ctx)
{
	return json_object_get_string_member(ctx->instance, "name");
}

/* ---- OP_INSTANCE_ACTIVATE_DISKS ---- */

/* Ganeti's answer: [[node, iv_name, device path], ...], one per disk. */
static JsonNode *
activate_exec(GntLu *lu, GError **error)
{
	GntLuInstanceCtx *ctx = gnt_lu_get_data(lu);
	GntRpcClient *rpc = gnt_lu_get_rpc(lu, error);
	JsonArray *disks = json_object_get_array_member(ctx->instance, "disks");
	const gchar *node = json_object_get_string_member(ctx->node, "name");
	g_autoptr(JsonArray) paths = NULL;
	g_autoptr(JsonArray) answer = json_array_new();

	if (rpc == NULL)
		return NULL;
	paths = gnt_node_call_blockdev_assemble(rpc, ctx->node, ctx->spec, error);
	if (paths == NULL) {
		g_prefix_error(error, "Cannot activate block devices: ");
		return NULL;
	}
	if (json_array_get_length(paths) != json_array_get_length(disks)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "node '%s' answered %u disk paths for the %u disks of instance '%s'",
			    node, json_array_get_length(paths), json_array_get_length(disks),
			    instance_name(ctx));
		return NULL;
	}
	for (guint i = 0; i < json_array_get_length(disks); i++) {
		JsonArray *row = json_array_new();
		const gchar *iv_name = NULL;
		g_autofree gchar *fallback = g_strdup_printf("disk/%u", i);

		gnt_json_get_string(json_array_get_object_element(disks, i), "iv_name", &iv_name,
				    NULL);
		json_array_add_string_element(row, node);
		json_array_add_string_element(row, iv_name != NULL ? iv_name : fallback);
		json_array_add_string_element(row, json_array_get_string_element(paths, i));
		json_array_add_array_element(answer, row);
	}
	if (!instance_store(lu, ctx, "disks_active", gnt_json_node_new_bool(TRUE), error))
		return NULL;
	return gnt_json_node_new_array(g_steal_pointer(&answer));
}

const GntLuClass gnt_lu_instance_activate_disks = {
	.declare_locks = gnt_lu_lock_instance,
	.check_prereq = disks_check_prereq,
	.exec = activate_exec,
};

/* ---- OP_INSTANCE_DEACTIVATE_DISKS ---- */

static JsonNode *
deactivate_exec(GntLu *lu, GError **error)
{
	GntLuInstanceCtx *ctx = gnt_lu_get_data(lu);
	GntRpcClient *rpc = NULL;

	/* Ganeti's _SafeShutdownInstanceDisks: not under a running instance,
	 * unless forced */
	if (!gnt_opcode_get_bool(gnt_lu_get_opcode(lu), "force")) {
		rpc = gnt_lu_get_rpc(lu, error);
		if (rpc == NULL ||
		    !gnt_lu_instance_check_not_running(rpc, ctx, "cannot shutdown disks", error))
			return NULL;
	}
	if (!instance_store(lu, ctx, "disks_active", gnt_json_node_new_bool(FALSE), error))
		return NULL;
	return gnt_json_node_new_null();
}

const GntLuClass gnt_lu_instance_deactivate_disks = {
	.declare_locks = gnt_lu_lock_instance,
	.check_prereq = disks_check_prereq,
	.exec = deactivate_exec,
};

/* ---- OP_INSTANCE_GROW_DISK ---- */

typedef struct {
	GntLuInstanceCtx *instance;
	guint index;
	gint64 size; /* MiB, now */
	gint64 target;
} GrowCtx;

static void
grow_ctx_free(GrowCtx *ctx)
{
	g_clear_pointer(&ctx->instance, gnt_lu_instance_ctx_free);
	g_free(ctx);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GrowCtx, grow_ctx_free)

static gboolean
grow_check_prereq(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	g_autoptr(GrowCtx) ctx = g_new0(GrowCtx, 1);
	gint64 index = gnt_opcode_get_int(op, "disk");
	gint64 amount = gnt_opcode_get_int(op, "amount");
	JsonArray *disks;
	g_autofree gchar *target_s = NULL;
	g_autofree gchar *size_s = NULL;

	ctx->instance = gnt_lu_instance_ctx_new(lu, TRUE, error);
	if (ctx->instance == NULL)
		return FALSE;
	disks = json_object_get_array_member(ctx->instance->instance, "disks");
	if (json_array_get_length(disks) == 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "Instance '%s' has no disks to grow", instance_name(ctx->instance));
		return FALSE;
	}
	if (index < 0 || index >= json_array_get_length(disks)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "Invalid disk index %" G_GINT64_FORMAT " (must be between 0 and %u)",
			    index, json_array_get_length(disks) - 1);
		return FALSE;
	}
	ctx->index = (guint)index;
	ctx->size = json_object_get_int_member(json_array_get_object_element(disks, ctx->index),
					       "size");
	ctx->target = gnt_opcode_get_bool(op, "absolute") ? amount : ctx->size + amount;
	target_s = gnt_size_format(ctx->target, GNT_SIZE_UNIT_AUTO);
	size_s = gnt_size_format(ctx->size, GNT_SIZE_UNIT_AUTO);
	if (ctx->target < ctx->size) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
			    "Requested size (%s) is smaller than current disk size (%s)", target_s,
			    size_s);
		return FALSE;
	}
	if ((guint64)ctx->target > G_MAXUINT) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "Requested size (%s) is larger than the largest disk (%u MiB)",
			    target_s, G_MAXUINT);
		return FALSE;
	}
	gnt_lu_set_data(lu, g_steal_pointer(&ctx), (GDestroyNotify)grow_ctx_free);
	return TRUE;
}

static JsonNode *
grow_exec(GntLu *lu, GError **error)
{
	GrowCtx *ctx = gnt_lu_get_data(lu);
	GntRpcClient *rpc = gnt_lu_get_rpc(lu, error);
	JsonNode *disks;
	g_autofree gchar *delta_s = gnt_size_format(ctx->target - ctx->size, GNT_SIZE_UNIT_AUTO);
	g_autofree gchar *target_s = gnt_size_format(ctx->target, GNT_SIZE_UNIT_AUTO);

	if (rpc == NULL)
		return NULL;
	gnt_lu_feedback(lu, "Growing disk %u of instance '%s' by %s to %s", ctx->index,
			instance_name(ctx->instance), delta_s, target_s);
	if (!gnt_node_call_blockdev_grow(rpc, ctx->instance->node, ctx->instance->spec, ctx->index,
					 (guint64)ctx->target, error))
		return NULL;
	disks = gnt_json_node_deep_copy(json_object_get_member(ctx->instance->instance, "disks"));
	json_object_set_int_member(json_array_get_object_element(json_node_get_array(disks),
								 ctx->index),
				   "size", ctx->target);
	if (!instance_store(lu, ctx->instance, "disks", disks, error))
		return NULL;
	if (gnt_record_get_admin_state(ctx->instance->instance) == GNT_ADMIN_STATE_UP)
		gnt_lu_feedback(lu, "The instance sees the new size when it is next started");
	return gnt_json_node_new_null();
}

const GntLuClass gnt_lu_instance_grow_disk = {
	.declare_locks = gnt_lu_lock_instance,
	.check_prereq = grow_check_prereq,
	.exec = grow_exec,
};
