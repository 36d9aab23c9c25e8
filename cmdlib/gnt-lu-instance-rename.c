/*
 * OP_INSTANCE_RENAME: a new name in the config and on the node.
 */
#include <string.h>

#include "gnt-records.h"
#include "gnt-config.h"
#include "gnt-error.h"
#include "gnt-install-steps.h"
#include "gnt-install-where.h"
#include "gnt-json.h"
#include "gnt-limits.h"
#include "gnt-lu-backup.h"
#include "gnt-lu-instance-common.h"
#include "gnt-lu-instance-metadata.h"
#include "gnt-lu-instance-spec.h"
#include "gnt-lu.h"
#include "gnt-net.h"
#include "gnt-node-calls.h"
#include "gnt-os-definition.h"
#include "gnt-recovery.h"
#include "gnt-size.h"
#include <string.h>

/* ---- OP_INSTANCE_RENAME ---------------------------------------------------------- */

static void
rename_declare_locks(GntLu *lu, GntLockSet *locks)
{
	gnt_lu_lock_instance(lu, locks);
	gnt_lock_set_add(locks, GNT_LOCK_LEVEL_INSTANCE,
			 gnt_opcode_get_string(gnt_lu_get_opcode(lu), "new_name"),
			 GNT_LOCK_EXCLUSIVE);
}

/* Ganeti renames only a stopped instance, to a name nobody has. */
static gboolean
rename_check_prereq(GntLu *lu, GError **error)
{
	const gchar *new_name = gnt_opcode_get_string(gnt_lu_get_opcode(lu), "new_name");
	g_autoptr(JsonObject) taken = NULL;
	GntLuInstanceCtx *ctx;

	if (!gnt_config_check_name(new_name, "new instance name", error) ||
	    !gnt_lu_instance_ctx_load(lu, TRUE, error))
		return FALSE;
	ctx = gnt_lu_get_data(lu);
	if (gnt_record_get_admin_state(ctx->instance) == GNT_ADMIN_STATE_UP) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
			    "instance '%s' is running: shut it down before renaming it",
			    gnt_lu_instance_name(ctx));
		return FALSE;
	}
	taken = gnt_config_dup_object(lu_config(lu), GNT_OBJECT_INSTANCE, new_name, NULL);
	if (taken != NULL &&
	    g_strcmp0(json_object_get_string_member(taken, "name"), new_name) == 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_EXISTS,
			    "Instance '%s' is already in the cluster", new_name);
		return FALSE;
	}
	return TRUE;
}

static JsonNode *
rename_exec(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	const gchar *new_name = gnt_opcode_get_string(op, "new_name");
	GntLuInstanceCtx *ctx = gnt_lu_get_data(lu);
	GntRpcClient *rpc = gnt_lu_get_rpc(lu, error);
	g_autofree gchar *old_name = NULL;
	g_autoptr(JsonObject) renamed = NULL;
	g_autoptr(JsonObject) spec = NULL;
	g_autoptr(GError) os_error = NULL;

	if (rpc == NULL)
		return NULL;
	old_name = g_strdup(gnt_lu_instance_name(ctx));
	renamed = gnt_json_object_deep_copy(ctx->instance);
	json_object_set_string_member(renamed, "name", new_name);
	spec = gnt_lu_instance_spec_new(lu_config(lu), renamed, error);
	if (spec == NULL)
		return NULL;
	/* the disks first: file disks live in a directory named after it */
	if (!gnt_node_call_blockdev_rename(rpc, ctx->node, spec, old_name, error))
		return NULL;
	if (!gnt_config_update_object(lu_config(lu), GNT_OBJECT_INSTANCE, renamed, error)) {
		g_autoptr(GError) undo_error = NULL;
		if (!gnt_node_call_blockdev_rename(rpc, ctx->node, ctx->spec, new_name,
						   &undo_error))
			gnt_lu_feedback(lu, "WARNING: could not move the disks back: %s",
					undo_error->message);
		return NULL;
	}
	/* Ganeti runs the OS rename script last; its failure is reported, the
	 * rename stands */
	if (json_object_get_member(renamed, "os") != NULL &&
	    !JSON_NODE_HOLDS_NULL(json_object_get_member(renamed, "os")) &&
	    !gnt_node_call_os_rename(rpc, ctx->node, spec, old_name, gnt_opcode_get_debug_level(op),
				     &os_error))
		gnt_lu_feedback(lu, "WARNING: the OS rename script failed: %s", os_error->message);
	/* metad knows instances by name */
	if (gnt_lu_instance_has_communication(renamed)) {
		gnt_lu_instance_metadata_remove(lu, rpc, ctx->node, old_name);
		gnt_lu_instance_metadata_push(lu, rpc, ctx->node, renamed, NULL);
	}
	return gnt_json_node_new_string(new_name);
}

const GntLuClass gnt_lu_instance_rename = {
	.declare_locks = rename_declare_locks,
	.check_prereq = rename_check_prereq,
	.exec = rename_exec,
};
