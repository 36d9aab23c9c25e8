/*
 * OP_INSTANCE_REMOVE: removes the instance from its node, then from the
 * config (gnt-recovery.h finishes a removal a crash interrupted).
 */
#include <string.h>

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

/* ---- OP_INSTANCE_REMOVE ------------------------------------------------------ */

static gboolean
remove_check_prereq(GntLu *lu, GError **error)
{
	gboolean ignore = gnt_opcode_get_bool(gnt_lu_get_opcode(lu), "ignore_failures");

	return gnt_lu_instance_ctx_load(lu, !ignore, error);
}

static JsonNode *
remove_exec(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	gboolean ignore = gnt_opcode_get_bool(op, "ignore_failures");
	guint timeout = (guint)gnt_opcode_get_number(op, "shutdown_timeout");
	GntLuInstanceCtx *ctx = gnt_lu_get_data(lu);
	GntRpcClient *rpc = gnt_lu_get_rpc(lu, error);
	gboolean forced = FALSE;
	g_autoptr(GError) step_error = NULL;
	GntRecoveryOp half_done_by = GNT_RECOVERY_CREATE;
	guint64 half_done_job = 0;

	if (rpc == NULL)
		return NULL;
	if (gnt_recovery_get_mark(ctx->instance, &half_done_by, &half_done_job)) {
		/* its mark stays until the record goes: a half-made instance stays
		 * half made if this removal fails too */
		gnt_lu_feedback(lu,
				"Instance %s was left half %s by job %" G_GUINT64_FORMAT
				": removing what is left",
				gnt_lu_instance_name(ctx),
				gnt_recovery_op_to_participle(half_done_by), half_done_job);
	} else {
		/* from here on the removal is decided: one that fails part way or
		 * is interrupted (the master killed, the node's answer lost: the
		 * node may have done it) is finished by masterd (gnt-recovery.h) */
		g_autoptr(JsonObject) marked = gnt_json_object_deep_copy(ctx->instance);

		gnt_recovery_mark(marked, GNT_RECOVERY_REMOVE, gnt_lu_get_job_id(lu));
		if (!gnt_config_update_object(lu_config(lu), GNT_OBJECT_INSTANCE, marked, error))
			return NULL;
	}
	gnt_lu_feedback(lu, "Shutting down instance %s on node %s", gnt_lu_instance_name(ctx),
			json_object_get_string_member(ctx->node, "name"));
	if (!gnt_node_call_instance_shutdown(rpc, ctx->node, ctx->spec, timeout, &forced,
					     &step_error) &&
	    !g_error_matches(step_error, GNT_ERROR, GNT_ERROR_NOT_FOUND)) {
		if (!ignore) {
			gnt_lu_feedback(lu, "The instance stays marked as being removed: the "
					    "master finishes its removal once the node answers");
			g_propagate_error(error, g_steal_pointer(&step_error));
			return NULL;
		}
		gnt_lu_feedback(lu, "WARNING: could not shut the instance down: %s",
				step_error->message);
	}
	g_clear_error(&step_error);
	gnt_lu_feedback(lu, "Removing block devices for instance %s", gnt_lu_instance_name(ctx));
	if (!gnt_node_call_blockdev_remove(rpc, ctx->node, ctx->spec, &step_error)) {
		if (!ignore) {
			g_propagate_error(error, g_steal_pointer(&step_error));
			return NULL;
		}
		gnt_lu_feedback(lu, "WARNING: could not remove the disks: %s", step_error->message);
	}
	if (gnt_lu_instance_has_communication(ctx->instance))
		gnt_lu_instance_metadata_remove(lu, rpc, ctx->node, gnt_lu_instance_name(ctx));
	gnt_lu_feedback(lu, "Removing instance %s out of cluster config",
			gnt_lu_instance_name(ctx));
	if (!gnt_config_remove_object(lu_config(lu), GNT_OBJECT_INSTANCE,
				      json_object_get_string_member(ctx->instance, "uuid"), error))
		return NULL;
	return gnt_json_node_new_null();
}

const GntLuClass gnt_lu_instance_remove = {
	.declare_locks = gnt_lu_lock_instance,
	.check_prereq = remove_check_prereq,
	.exec = remove_exec,
};
