/*
 * OP_INSTANCE_REINSTALL: installs the instance's OS again (optionally a new
 * one, with new parameters) through the install steps.
 */
#include <string.h>

#include "gnt-records.h"
#include "gnt-config.h"
#include "gnt-error.h"
#include "gnt-install-steps.h"
#include "gnt-install-where.h"
#include "gnt-json.h"
#include "gnt-limits.h"
#include "gnt-lu-instance-kickstart.h"
#include "gnt-lu-backup.h"
#include "gnt-lu-image.h"
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

/* ---- OP_INSTANCE_REINSTALL ---------------------------------------------------------- */

/* The names in @names (a JSON list of strings) given neither as secret,
 * public nor private parameter of the install as it is to be. (transfer
 * full) */
static GPtrArray *
reinstall_missing_secrets(JsonArray *names, const GntSecretDict *secret, JsonObject *updated)
{
	GPtrArray *missing = g_ptr_array_new();
	JsonObject *given[] = {gnt_lu_record_object(updated, "osparams"),
			       gnt_lu_record_object(updated, "osparams_private")};

	for (guint i = 0; names != NULL && i < json_array_get_length(names); i++) {
		const gchar *name = json_array_get_string_element(names, i);
		gboolean found = secret != NULL && name != NULL &&
				 gnt_secret_dict_contains(secret, name);

		for (guint k = 0; name != NULL && k < G_N_ELEMENTS(given); k++)
			found = found ||
				(given[k] != NULL && json_object_has_member(given[k], name));
		if (name != NULL && !found)
			g_ptr_array_add(missing, (gpointer)name);
	}
	return missing;
}

/* The same OS, variants aside. */
static gboolean
os_same_name(const gchar *a, const gchar *b)
{
	gsize len_a = a != NULL ? strcspn(a, "+") : 0;
	gsize len_b = b != NULL ? strcspn(b, "+") : 0;

	return a != NULL && b != NULL && len_a == len_b && strncmp(a, b, len_a) == 0;
}

/*
 * Secret parameters are never stored, so a reinstall needs them again
 * (doc/install.md): those given at the last install (the record keeps
 * their names) that the OS still declares in its parameters.list must be
 * given again, as secret, public or private ones. Ganeti runs the script
 * without them; Gantry refuses before anything changes. Another OS asks
 * for its own.
 */
static gboolean
reinstall_check_secrets(GntLu *lu, GntRpcClient *rpc, GntLuChangeCtx *ctx,
			const GntSecretDict *secret, GError **error)
{
	JsonObject *last = gnt_install_get(ctx->current->instance);
	JsonNode *names = last != NULL ? json_object_get_member(last, "secret_names") : NULL;
	const gchar *os = gnt_lu_record_os(ctx->updated);
	g_autoptr(GPtrArray) missing = NULL;
	g_autoptr(GHashTable) declared = NULL;
	g_autoptr(GString) list = g_string_new(NULL);

	if (names == NULL || !JSON_NODE_HOLDS_ARRAY(names) ||
	    !os_same_name(gnt_lu_record_os(ctx->current->instance), os))
		return TRUE;
	missing = reinstall_missing_secrets(json_node_get_array(names), secret, ctx->updated);
	if (missing->len == 0)
		return TRUE;
	if (!gnt_lu_lookup_os_parameters(lu, rpc, ctx->current->node, os, &declared, error))
		return FALSE;
	if (declared == NULL)
		return TRUE;
	for (guint i = 0; i < missing->len; i++) {
		if (g_hash_table_contains(declared, missing->pdata[i]))
			g_string_append_printf(list, "%s'%s'", list->len > 0 ? ", " : "",
					       (const gchar *)missing->pdata[i]);
	}
	if (list->len == 0)
		return TRUE;
	g_set_error(
		error, GNT_ERROR, GNT_ERROR_INVALID,
		"instance '%s': the secret OS parameters %s were given at its last install and "
		"are never stored: give them again (--os-parameters-secret, or osparams_secret)",
		gnt_lu_instance_name(ctx->current), list->str);
	return FALSE;
}

/* The personalization package's credentials are secret, never stored: a
 * reinstall of a package that needed them (the last install's secret
 * names) is refused without them. */
static gboolean
reinstall_check_package_credentials(GntLuChangeCtx *ctx, const GntSecretDict *secret,
				    GError **error)
{
	static const gchar *const credentials[] = {GNT_OSP_OS_PACKAGE_USERNAME,
						   GNT_OSP_OS_PACKAGE_PASSWORD};
	JsonObject *last = gnt_install_get(ctx->current->instance);
	JsonNode *names = last != NULL ? json_object_get_member(last, "secret_names") : NULL;
	JsonObject *osparams = gnt_lu_record_object(ctx->updated, "osparams");
	g_autoptr(GString) missing = g_string_new(NULL);

	if (names == NULL || !JSON_NODE_HOLDS_ARRAY(names) || osparams == NULL ||
	    !json_object_has_member(osparams, GNT_OSP_OS_PACKAGE))
		return TRUE;
	for (guint i = 0; i < G_N_ELEMENTS(credentials); i++) {
		JsonArray *list = json_node_get_array(names);
		gboolean had = FALSE;

		for (guint k = 0; k < json_array_get_length(list); k++)
			had = had || g_strcmp0(json_array_get_string_element(list, k),
					       credentials[i]) == 0;
		if (had && (secret == NULL || !gnt_secret_dict_contains(secret, credentials[i])))
			g_string_append_printf(missing, "%s'%s'", missing->len > 0 ? ", " : "",
					       credentials[i]);
	}
	if (missing->len == 0)
		return TRUE;
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
		    "instance '%s': its personalization package needed %s at its last install, "
		    "which are never stored: give them again (--os-parameters-secret)",
		    gnt_lu_instance_name(ctx->current), missing->str);
	return FALSE;
}

/* Ganeti's LUInstanceReinstall: a stopped instance with disks; the OS
 * given replaces the stored one, the parameters given are merged into the
 * stored ones ("default" removes one), the disk image given replaces the
 * stored one, the secrets of the last install are given again, and the
 * result is checked on the node as at create. */
static gboolean
reinstall_check_prereq(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	JsonObject *op_public = gnt_lu_object_or_null(gnt_opcode_get_param(op, "osparams"));
	JsonObject *op_private =
		gnt_lu_object_or_null(gnt_opcode_get_param(op, "osparams_private"));
	const gchar *os_type = gnt_opcode_get_string(op, "os_type");
	const gchar *os_image = gnt_install_op_os_image(op);
	g_autoptr(GntLuChangeCtx) ctx = g_new0(GntLuChangeCtx, 1);
	g_autoptr(GntSecretDict) secret = gnt_lu_dup_osparams_secret(lu);
	g_autoptr(GntInstall) install = NULL;
	GntRpcClient *rpc = gnt_lu_get_rpc(lu, error);
	GntLuChangeCtx *settled;
	JsonObject *instance;
	const gchar *state;

	if (rpc == NULL || !gnt_lu_check_osparams_secret(lu, error))
		return FALSE;
	ctx->current = gnt_lu_instance_ctx_new(lu, TRUE, error);
	if (ctx->current == NULL)
		return FALSE;
	instance = ctx->current->instance;
	if (json_array_get_length(json_object_get_array_member(instance, "disks")) == 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "Instance '%s' has no disks",
			    gnt_lu_instance_name(ctx->current));
		return FALSE;
	}
	state = json_object_get_string_member(instance, "admin_state");
	if (gnt_record_get_admin_state(instance) != GNT_ADMIN_STATE_DOWN) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
			    "Instance '%s' is marked to be %s, cannot reinstall",
			    gnt_lu_instance_name(ctx->current), state);
		return FALSE;
	}
	if (!gnt_lu_instance_check_not_running(rpc, ctx->current, "cannot reinstall", error) ||
	    !gnt_lu_check_no_repeated_params(op_public, op_private, error) ||
	    !gnt_lu_check_instance_fields(op, error))
		return FALSE;
	ctx->updated = gnt_json_object_deep_copy(instance);
	if (os_type != NULL)
		json_object_set_string_member(ctx->updated, "os", os_type);
	json_object_set_object_member(
		ctx->updated, "osparams",
		gnt_lu_params_update(gnt_lu_record_object(instance, "osparams"), op_public));
	json_object_set_object_member(
		ctx->updated, "osparams_private",
		gnt_lu_params_update(gnt_lu_record_object(instance, "osparams_private"),
				     op_private));
	/* the stored install parameters (none for an instance made with
	 * --no-install: Gantry installs before its first boot) */
	if (gnt_install_get(ctx->updated) == NULL)
		json_object_set_object_member(ctx->updated, "install",
					      gnt_install_params_new(NULL, NULL));
	gnt_install_set_os_image(gnt_install_get(ctx->updated), os_image,
				 gnt_opcode_get_string(op, "os_image_sha256"));
	if (!gnt_lu_image_resolve_install(lu, gnt_install_get(ctx->updated), os_image,
					  gnt_opcode_get_string(op, "os_image_sha256"), error))
		return FALSE;
	/* the plan: the templates the tags select (the node must allow them)
	 * and the cluster's policy */
	if (!gnt_install_attach_plan(lu_config(lu), ctx->updated, ctx->current->node, error))
		return FALSE;
	gnt_lu_instance_kickstart_set_template(ctx->updated, op);
	/* the OS and parameters first, then what the install needs */
	if (!gnt_lu_change_ctx_settle(lu, g_steal_pointer(&ctx), TRUE, secret, error))
		return FALSE;
	settled = gnt_lu_get_data(lu);
	if (!reinstall_check_secrets(lu, rpc, settled, secret, error) ||
	    !reinstall_check_package_credentials(settled, secret, error) ||
	    !gnt_lu_choose_install_where(lu, rpc, settled->current->node, settled->updated,
					 gnt_opcode_get_param(op, "enable_safe_install"), error))
		return FALSE;
	/* after the decision: the steps' checks depend on where they run */
	install = gnt_install_new(lu, GNT_INSTALL_REINSTALL, settled->current->node,
				  settled->updated, secret, FALSE);
	return gnt_install_check(install, error) &&
	       gnt_lu_instance_kickstart_check(lu, settled->updated, error);
}

/* The install onto the existing disks. The record's install says
 * "running" while it runs, then what it did; the OS and its parameters
 * change only when it succeeded. Secrets go to the node, never into it. */
static JsonNode *
reinstall_exec(GntLu *lu, GError **error)
{
	GntLuChangeCtx *ctx = gnt_lu_get_data(lu);
	const gchar *os_type = gnt_opcode_get_string(gnt_lu_get_opcode(lu), "os_type");
	const gchar *uuid = json_object_get_string_member(ctx->current->instance, "uuid");
	GntRpcClient *rpc = gnt_lu_get_rpc(lu, error);
	g_autoptr(GntSecretDict) secret = gnt_lu_dup_osparams_secret(lu);
	g_autoptr(GntInstall) install = NULL;
	g_autoptr(JsonObject) changes = json_object_new();
	g_autoptr(JsonObject) install_changes = NULL;
	static const gchar *const kept[] = {"os", "osparams", "osparams_private"};
	gboolean ok;

	if (gnt_opcode_get_bool(gnt_lu_get_opcode(lu), "print_plan"))
		return gnt_lu_install_plan_result(ctx->updated);
	if (rpc == NULL)
		return NULL;
	if (gnt_lu_record_os(ctx->updated) == NULL &&
	    gnt_install_get_os_image(ctx->updated) == NULL &&
	    g_strcmp0(gnt_install_get_mode(ctx->updated), GNT_INSTALL_MODE_SELF_INSTALL) != 0) {
		gnt_lu_feedback(lu,
				"No OS scripts or OS image specified or found in the instance's "
				"configuration, nothing to install");
		return gnt_json_node_new_null();
	}
	if (os_type != NULL && g_strcmp0(gnt_lu_record_os(ctx->current->instance), os_type) != 0)
		gnt_lu_feedback(lu, "Changing OS scripts to '%s'...", os_type);
	json_object_set_object_member(changes, "install",
				      gnt_lu_install_dup_with_state(ctx->updated,
								    GNT_INSTALL_STATE_RUNNING));
	if (!gnt_lu_instance_store_members(lu, uuid, changes, error))
		return NULL;
	install = gnt_install_new(lu, GNT_INSTALL_REINSTALL, ctx->current->node, ctx->updated,
				  secret, FALSE);
	/* a restarted master takes the install up where it waited */
	if (gnt_lu_get_resume(lu) != NULL)
		gnt_install_resume_from(install, gnt_lu_get_resume(lu));
	ok = gnt_install_run(install, rpc, error);
	/* what steps changed on the instance (hvparams, disk sizes) is kept
	 * whether the install ended well or not: it happened */
	install_changes = gnt_install_dup_changes(install);
	if (!ok) {
		g_autoptr(GError) store_error = NULL;

		json_object_set_object_member(changes, "install", gnt_install_dup_state(install));
		gnt_json_object_overlay(changes, install_changes);
		if (!gnt_lu_instance_store_members(lu, uuid, changes, &store_error))
			gnt_lu_feedback(lu, "WARNING: could not record the failed install: %s",
					store_error->message);
		gnt_lu_feedback(
			lu,
			"Instance %s stays stopped with its disks, which hold what the failed "
			"install left; its OS and OS parameters are unchanged (gnt-instance "
			"info shows the install's steps)",
			gnt_lu_instance_name(ctx->current));
		return NULL;
	}
	for (guint i = 0; i < G_N_ELEMENTS(kept); i++)
		json_object_set_member(
			changes, kept[i],
			gnt_json_node_deep_copy(json_object_get_member(ctx->updated, kept[i])));
	json_object_set_object_member(changes, "install", gnt_install_dup_state(install));
	gnt_json_object_overlay(changes, install_changes);
	if (!gnt_lu_instance_store_members(lu, uuid, changes, error))
		return NULL;
	if (gnt_lu_instance_has_communication(ctx->updated)) {
		g_autoptr(JsonObject) stored =
			gnt_config_dup_object(lu_config(lu), GNT_OBJECT_INSTANCE, uuid, NULL);

		if (stored != NULL)
			gnt_lu_instance_metadata_push(lu, rpc, ctx->current->node, stored, secret);
	}
	return gnt_json_node_new_null();
}

/* After a master restart while the reinstall's install waited on its node
 * (gnt_lu_set_resume(), doc/install.md "Master restarts"): the checks
 * again, which rebuild what exec needs from the record and the opcode (the
 * instance is still stopped, its OS unchanged until success), then exec,
 * which takes the install up at its session. */
static JsonNode *
reinstall_resume(GntLu *lu, GError **error)
{
	gnt_lu_feedback(lu, "taking the reinstall of %s up again at its appliance session",
			gnt_opcode_get_string(gnt_lu_get_opcode(lu), "instance_name"));
	if (!reinstall_check_prereq(lu, error))
		return NULL;
	return reinstall_exec(lu, error);
}

const GntLuClass gnt_lu_instance_reinstall = {
	.declare_locks = gnt_lu_lock_instance,
	.check_prereq = reinstall_check_prereq,
	.exec = reinstall_exec,
	.resume = reinstall_resume,
};
