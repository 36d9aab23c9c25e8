/*
 * OP_INSTANCE_STARTUP, _SHUTDOWN, _REBOOT and _CONSOLE: the units that ask
 * the instance's node to start, stop or reboot it, or how to reach its
 * console.
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

/* ---- OP_INSTANCE_STARTUP, _SHUTDOWN, _REBOOT ------------------------------------ */

static gboolean
online_instance_check_prereq(GntLu *lu, GError **error)
{
	GntLuInstanceCtx *ctx;

	if (!gnt_lu_instance_ctx_load(lu, TRUE, error))
		return FALSE;
	ctx = gnt_lu_get_data(lu);
	if (gnt_record_get_admin_state(ctx->instance) == GNT_ADMIN_STATE_OFFLINE) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
			    "instance '%s' is marked offline", gnt_lu_instance_name(ctx));
		return FALSE;
	}
	return TRUE;
}

/* Whether @instance's self_install had its first boot, which its first
 * shutdown (or a start after the guest powered itself off) ends. */
static gboolean
install_is_booted(JsonObject *instance)
{
	return g_strcmp0(gnt_install_get_mode(instance), GNT_INSTALL_MODE_SELF_INSTALL) == 0 &&
	       g_strcmp0(gnt_install_get_state(instance), GNT_INSTALL_STATE_BOOTED) == 0;
}

/* The first boot of a self_install is over: the record says so (@install,
 * for gnt_lu_instance_store_state()) and the job log too. (transfer full) */
static JsonObject *
install_end_first_boot(GntLu *lu, JsonObject *instance)
{
	gnt_lu_feedback(lu,
			"self_install: the first boot of instance %s has ended; from now on it "
			"runs with its own parameters",
			json_object_get_string_member(instance, "name"));
	return gnt_lu_install_dup_with_state(instance, GNT_INSTALL_STATE_DONE);
}

/* The spec a start of @ctx's instance boots: its own (ctx->spec), or while
 * its self_install is pending the one with the install hvparams, and
 * *@first_boot TRUE. (transfer full) */
static JsonObject *
instance_boot_spec(GntLu *lu, GntLuInstanceCtx *ctx, gboolean *first_boot, GError **error)
{
	if (!gnt_install_is_first_boot_pending(ctx->instance)) {
		*first_boot = FALSE;
		return json_object_ref(ctx->spec);
	}
	return gnt_install_boot_spec_new(lu_config(lu), ctx->instance, first_boot, error);
}

/* A start: while a self_install is pending, with its install hvparams (its
 * first boot); once it booted, a start after the guest stopped ends it. */
static JsonNode *
startup_exec(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	GntLuInstanceCtx *ctx = gnt_lu_get_data(lu);
	GntRpcClient *rpc = gnt_lu_get_rpc(lu, error);
	g_autoptr(GError) start_error = NULL;
	g_autoptr(JsonObject) spec = NULL;
	g_autoptr(JsonObject) install = NULL;
	const gchar *install_state = gnt_install_get_state(ctx->instance);
	gboolean first_boot = FALSE;

	if (rpc == NULL)
		return NULL;
	spec = instance_boot_spec(lu, ctx, &first_boot, error);
	if (spec == NULL)
		return NULL;
	if (g_strcmp0(install_state, GNT_INSTALL_STATE_FAILED) == 0 ||
	    g_strcmp0(install_state, GNT_INSTALL_STATE_RUNNING) == 0)
		gnt_lu_feedback(
			lu,
			"WARNING: the last install of instance %s %s; its disks hold what it "
			"left (gnt-instance info shows its steps)",
			gnt_lu_instance_name(ctx),
			g_strcmp0(install_state, GNT_INSTALL_STATE_FAILED) == 0 ? "failed"
										: "did not finish");
	if (first_boot)
		gnt_lu_feedback(lu, "self_install: instance %s boots with its install parameters",
				gnt_lu_instance_name(ctx));
	if (!gnt_node_call_instance_start(rpc, ctx->node, spec,
					  gnt_opcode_get_bool(op, "startup_paused"),
					  &start_error)) {
		/* already running is what was asked for */
		if (!g_error_matches(start_error, GNT_ERROR, GNT_ERROR_EXISTS)) {
			g_propagate_error(error, g_steal_pointer(&start_error));
			return NULL;
		}
		gnt_lu_feedback(lu, "Instance %s is already running", gnt_lu_instance_name(ctx));
	} else if (first_boot) {
		install = gnt_lu_install_dup_with_state(ctx->instance, GNT_INSTALL_STATE_BOOTED);
	} else if (install_is_booted(ctx->instance)) {
		/* the guest stopped by itself: that was its first shutdown */
		install = install_end_first_boot(lu, ctx->instance);
	}
	if (!gnt_lu_instance_store_state(lu, ctx->instance, GNT_ADMIN_STATE_UP, install, error))
		return NULL;
	return gnt_json_node_new_null();
}

const GntLuClass gnt_lu_instance_startup = {
	.declare_locks = gnt_lu_lock_instance,
	.check_prereq = online_instance_check_prereq,
	.exec = startup_exec,
};

static JsonNode *
shutdown_exec(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	guint timeout = (guint)gnt_opcode_get_number(op, "timeout");
	GntLuInstanceCtx *ctx = gnt_lu_get_data(lu);
	GntRpcClient *rpc = gnt_lu_get_rpc(lu, error);
	g_autoptr(GError) stop_error = NULL;
	g_autoptr(JsonObject) install = NULL;
	gboolean forced = FALSE;

	if (rpc == NULL)
		return NULL;
	if (!gnt_node_call_instance_shutdown(rpc, ctx->node, ctx->spec, timeout, &forced,
					     &stop_error)) {
		if (!g_error_matches(stop_error, GNT_ERROR, GNT_ERROR_NOT_FOUND)) {
			g_propagate_error(error, g_steal_pointer(&stop_error));
			return NULL;
		}
		gnt_lu_feedback(lu, "Instance %s is not running", gnt_lu_instance_name(ctx));
	} else if (forced) {
		gnt_lu_feedback(lu, "Instance %s did not shut down within %u seconds: destroyed",
				gnt_lu_instance_name(ctx), timeout);
	}
	/* a self_install's first shutdown ends its first boot */
	if (install_is_booted(ctx->instance))
		install = install_end_first_boot(lu, ctx->instance);
	if (!gnt_lu_instance_store_state(lu, ctx->instance, GNT_ADMIN_STATE_DOWN, install, error))
		return NULL;
	return gnt_json_node_new_null();
}

const GntLuClass gnt_lu_instance_shutdown = {
	.declare_locks = gnt_lu_lock_instance,
	.check_prereq = online_instance_check_prereq,
	.exec = shutdown_exec,
};

/* A hard or full reboot starts the instance again from its record: for a
 * self_install that had its first boot, with its own parameters (the
 * reboot ends the first boot); a soft one is the guest's own. */
static JsonNode *
reboot_exec(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	const gchar *type = gnt_opcode_get_string(op, "reboot_type");
	GntLuInstanceCtx *ctx = gnt_lu_get_data(lu);
	GntRpcClient *rpc = gnt_lu_get_rpc(lu, error);
	g_autoptr(JsonObject) install = NULL;
	g_autoptr(JsonObject) spec = NULL;
	gboolean first_boot = FALSE;

	if (rpc == NULL)
		return NULL;
	spec = instance_boot_spec(lu, ctx, &first_boot, error);
	if (spec == NULL)
		return NULL;
	if (!gnt_node_call_instance_reboot(rpc, ctx->node, spec, type,
					   (guint)gnt_opcode_get_number(op, "shutdown_timeout"),
					   error))
		return NULL;
	if (first_boot)
		install = gnt_lu_install_dup_with_state(ctx->instance, GNT_INSTALL_STATE_BOOTED);
	else if (install_is_booted(ctx->instance) && g_strcmp0(type, "soft") != 0)
		install = install_end_first_boot(lu, ctx->instance);
	if (!gnt_lu_instance_store_state(lu, ctx->instance, GNT_ADMIN_STATE_UP, install, error))
		return NULL;
	return gnt_json_node_new_null();
}

const GntLuClass gnt_lu_instance_reboot = {
	.declare_locks = gnt_lu_lock_instance,
	.check_prereq = online_instance_check_prereq,
	.exec = reboot_exec,
};

/* ---- OP_INSTANCE_CONSOLE -------------------------------------------------------- */

/* Ganeti's console answer: the instance and how to reach its console; the
 * command runs on the master, lines are the serial log's first ones. */
static JsonNode *
console_exec(GntLu *lu, GError **error)
{
	GntLuInstanceCtx *ctx = gnt_lu_get_data(lu);
	GntRpcClient *rpc = gnt_lu_get_rpc(lu, error);
	g_autoptr(JsonObject) console = NULL;

	if (rpc == NULL)
		return NULL;
	console = gnt_node_call_instance_console(rpc, ctx->node, ctx->spec, 50, error);
	if (console == NULL)
		return NULL;
	json_object_set_string_member(console, "instance", gnt_lu_instance_name(ctx));
	json_object_set_string_member(console, "node",
				      json_object_get_string_member(ctx->node, "name"));
	return gnt_json_node_new_object(g_steal_pointer(&console));
}

const GntLuClass gnt_lu_instance_console = {
	.check_prereq = online_instance_check_prereq,
	.exec = console_exec,
};
