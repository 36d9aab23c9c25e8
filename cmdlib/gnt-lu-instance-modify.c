/*
 * OP_INSTANCE_SET_PARAMS (gnt-instance modify): checks the changes, builds
 * the record as it is to be and stores it; disks are added on the node.
 */
#include <string.h>

#include "gnt-records.h"
#include "gnt-cluster-settings-params.h"
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

/* ---- OP_INSTANCE_SET_PARAMS -------------------------------------------------------- */

/* The index of a disk modification: an integer, or one written as a
 * string (Ganeti's command line sends "1" for "--disk 1:add,..."). */
static gboolean
disk_mod_index(JsonNode *node, gint64 *index)
{
	if (gnt_json_node_is_int(node)) {
		*index = json_node_get_int(node);
		return TRUE;
	}
	return node != NULL && JSON_NODE_HOLDS_VALUE(node) &&
	       json_node_get_value_type(node) == G_TYPE_STRING &&
	       g_ascii_string_to_signed(json_node_get_string(node), 10, -1, G_MAXINT32, index,
					NULL);
}

/* Ganeti's modification lists: [[action, index, params], ...]. Only adding
 * disks at the end is supported for now: index -1, or the number of disks
 * before the addition (@n_disks; -1 when not known yet). Returns the disks
 * to add (transfer full). */
static JsonArray *
set_params_parse_disk_mods(JsonArray *mods, gint64 n_disks, GError **error)
{
	g_autoptr(JsonArray) to_add = json_array_new();

	for (guint i = 0; i < json_array_get_length(mods); i++) {
		JsonNode *mod = json_array_get_element(mods, i);
		JsonArray *triple;
		const gchar *action = NULL;
		gint64 index = 0;
		gint64 end = n_disks + (gint64)json_array_get_length(to_add);
		g_autoptr(JsonArray) one = NULL;
		g_autoptr(JsonArray) parsed = NULL;

		if (!JSON_NODE_HOLDS_ARRAY(mod) ||
		    json_array_get_length(json_node_get_array(mod)) != 3 ||
		    !JSON_NODE_HOLDS_OBJECT(json_array_get_element(json_node_get_array(mod), 2))) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "disk modification %u must be [action, index, parameters]", i);
			return NULL;
		}
		triple = json_node_get_array(mod);
		gnt_json_node_get_string(json_array_get_element(triple, 0), "action", &action,
					 NULL);
		if (g_strcmp0(action, "add") != 0) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "disk modification '%s' is not supported yet (only 'add')",
				    action != NULL ? action : "?");
			return NULL;
		}
		if (!disk_mod_index(json_array_get_element(triple, 1), &index)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "disk modification %u: the index must be an integer", i);
			return NULL;
		}
		if (n_disks >= 0 && index != -1 && index != end) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "disk modification %u: disks are added at the end (index -1 or "
				    "%" G_GINT64_FORMAT "), not at index %" G_GINT64_FORMAT,
				    i, end, index);
			return NULL;
		}
		if (n_disks >= 0 && end >= GNT_MAX_DISKS) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Instance has too many disks (%d), cannot add more",
				    GNT_MAX_DISKS);
			return NULL;
		}
		one = json_array_new();
		json_array_add_element(one,
				       gnt_json_node_deep_copy(json_array_get_element(triple, 2)));
		parsed = gnt_lu_parse_disks(one, error);
		if (parsed == NULL) {
			g_prefix_error(error, "disk modification %u: ", i);
			return NULL;
		}
		json_array_add_element(to_add,
				       gnt_json_node_deep_copy(json_array_get_element(parsed, 0)));
	}
	return g_steal_pointer(&to_add);
}

/* An entry of the list of changes OP_INSTANCE_SET_PARAMS returns, Ganeti's
 * [name, value]. @value: (transfer full) */
static void
changes_add(JsonArray *changes, const gchar *name, JsonNode *value)
{
	JsonArray *entry = json_array_new();

	json_array_add_string_element(entry, name);
	json_array_add_element(entry, value);
	json_array_add_array_element(changes, entry);
}

/* "@prefix/key" entries for the members of @given (nullable); private
 * values are shown as "<redacted>". */
static void
changes_add_params(JsonArray *changes, const gchar *prefix, JsonObject *given, gboolean private)
{
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	if (given == NULL)
		return;
	json_object_iter_init_ordered(&iter, given);
	while (json_object_iter_next_ordered(&iter, &key, &value)) {
		g_autofree gchar *name = g_strdup_printf("%s/%s", prefix, key);

		changes_add(changes, name,
			    private ? gnt_json_node_new_string(GNT_SECRET_REDACTED)
				    : gnt_json_node_deep_copy(value));
	}
}

/* Whether a parameter is given at all (not missing, not null). */
static gboolean
param_not_null(const GntOpcode *op, const gchar *name)
{
	JsonNode *value = gnt_opcode_get_param(op, name);

	return value != NULL && !JSON_NODE_HOLDS_NULL(value);
}

/* Whether a parameter carries a change: not null, not an empty dict or list. */
static gboolean
param_given(const GntOpcode *op, const gchar *name)
{
	JsonNode *value = gnt_opcode_get_param(op, name);

	if (value == NULL || JSON_NODE_HOLDS_NULL(value))
		return FALSE;
	if (JSON_NODE_HOLDS_OBJECT(value))
		return json_object_get_size(json_node_get_object(value)) > 0;
	if (JSON_NODE_HOLDS_ARRAY(value))
		return json_array_get_length(json_node_get_array(value)) > 0;
	return TRUE;
}

static gboolean
set_params_check_args(GntLu *lu, GError **error)
{
	static const struct {
		const gchar *param;
		const gchar *what;
	} not_yet[] = {
		{"nics", "NIC modifications are"},
		{"disk_template", "changing the disk template is"},
		{"runtime_mem", "changing the runtime memory is"},
		{"pnode", "changing the primary node is"},
		{"pnode_uuid", "changing the primary node is"},
	};
	static const gchar *const changing[] = {
		"disks",   "hvparams",	   "beparams",
		"os_name", "osparams",	   "osparams_private",
		"offline", "install_done", "instance_communication",
		NULL,
	};
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	g_autoptr(JsonArray) disks = NULL;
	g_autoptr(JsonObject) be = NULL;
	gboolean any = FALSE;
	gboolean done = FALSE;

	if (!gnt_lu_check_no_iallocator(op, error))
		return FALSE;
	for (guint i = 0; i < G_N_ELEMENTS(not_yet); i++) {
		if (param_given(op, not_yet[i].param)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "%s not supported yet",
				    not_yet[i].what);
			return FALSE;
		}
	}
	for (guint i = 0; changing[i] != NULL; i++)
		any = any || param_given(op, changing[i]);
	/* "" and [] remove the user data and ssh keys */
	any = any || param_not_null(op, "user_data") || param_not_null(op, "ssh_keys");
	if (!any) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID, "No changes submitted");
		return FALSE;
	}
	if (gnt_opcode_lookup_bool(op, "install_done", &done) && !done) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "'install_done' can only be true: it ends a self_install's "
				    "first boot");
		return FALSE;
	}
	disks = set_params_parse_disk_mods(json_node_get_array(gnt_opcode_get_param(op, "disks")),
					   -1, error);
	if (disks == NULL)
		return FALSE;
	be = gnt_beparams_parse(json_node_get_object(gnt_opcode_get_param(op, "beparams")), TRUE,
				error);
	return be != NULL && gnt_lu_check_instance_fields(op, error) &&
	       gnt_lu_check_no_repeated_params(
		       gnt_lu_object_or_null(gnt_opcode_get_param(op, "osparams")),
		       gnt_lu_object_or_null(gnt_opcode_get_param(op, "osparams_private")), error);
}

/* Ganeti's CAN_CHANGE_INSTANCE_OFFLINE: a running instance stays online. */
static gboolean
set_params_apply_offline(JsonObject *updated, JsonNode *offline, JsonArray *changes, GError **error)
{
	gboolean off;
	const gchar *new_state;

	if (offline == NULL || JSON_NODE_HOLDS_NULL(offline))
		return TRUE;
	off = json_node_get_boolean(offline);
	if (gnt_record_get_admin_state(updated) == GNT_ADMIN_STATE_UP) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
			    "Instance '%s' is marked to be up, can't change to %s",
			    json_object_get_string_member(updated, "name"),
			    off ? "offline" : "online");
		return FALSE;
	}
	new_state = gnt_admin_state_to_string(off ? GNT_ADMIN_STATE_OFFLINE : GNT_ADMIN_STATE_DOWN);
	json_object_set_string_member(updated, "admin_state", new_state);
	changes_add(changes, "admin_state", gnt_json_node_new_string(new_state));
	return TRUE;
}

/* --install-done: a self_install waiting for its first boot, or in it,
 * is over; its next start uses its own parameters. */
static gboolean
set_params_apply_install_done(JsonObject *updated, gboolean done, JsonArray *changes,
			      GError **error)
{
	const gchar *state = gnt_install_get_state(updated);

	if (!done)
		return TRUE;
	if (g_strcmp0(gnt_install_get_mode(updated), GNT_INSTALL_MODE_SELF_INSTALL) != 0 ||
	    (g_strcmp0(state, GNT_INSTALL_STATE_PENDING) != 0 &&
	     g_strcmp0(state, GNT_INSTALL_STATE_BOOTED) != 0)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
			    "instance '%s' has no self_install waiting for or in its first boot "
			    "(install mode '%s', state '%s')",
			    json_object_get_string_member(updated, "name"),
			    gnt_install_get_mode(updated), state != NULL ? state : "none");
		return FALSE;
	}
	gnt_install_set_state(updated, GNT_INSTALL_STATE_DONE);
	changes_add(changes, "install", gnt_json_node_new_string(GNT_INSTALL_STATE_DONE));
	return TRUE;
}

/* Gantry's: the communication channel, user data and ssh keys ("" and []
 * remove them). The user data's text is not listed, only its size. */
static void
set_params_apply_metadata(const GntOpcode *op, JsonObject *updated, JsonArray *changes)
{
	JsonNode *comm = gnt_opcode_get_param(op, "instance_communication");
	JsonNode *user_data = gnt_opcode_get_param(op, "user_data");
	JsonNode *keys = gnt_opcode_get_param(op, "ssh_keys");

	if (comm != NULL && !JSON_NODE_HOLDS_NULL(comm)) {
		json_object_set_boolean_member(updated, "communication",
					       json_node_get_boolean(comm));
		changes_add(changes, "communication",
			    gnt_json_node_new_string(json_node_get_boolean(comm) ? "yes" : "no"));
	}
	if (user_data != NULL && !JSON_NODE_HOLDS_NULL(user_data)) {
		const gchar *text = json_node_get_string(user_data);
		g_autofree gchar *what = g_strdup_printf("%zu bytes", strlen(text));

		if (text[0] == '\0')
			json_object_remove_member(updated, "user_data");
		else
			json_object_set_string_member(updated, "user_data", text);
		changes_add(changes, "user_data", gnt_json_node_new_string(what));
	}
	if (keys != NULL && !JSON_NODE_HOLDS_NULL(keys)) {
		guint n = json_array_get_length(json_node_get_array(keys));
		g_autofree gchar *what = g_strdup_printf("%u key%s", n, n == 1 ? "" : "s");

		if (n == 0)
			json_object_remove_member(updated, "ssh_keys");
		else
			json_object_set_member(updated, "ssh_keys", gnt_json_node_deep_copy(keys));
		changes_add(changes, "ssh_keys", gnt_json_node_new_string(what));
	}
}

/* Applies the opcode's changes to a copy of @instance, listing them in
 * @changes in Ganeti's order. (transfer full) */
static JsonObject *
set_params_apply(GntLu *lu, JsonObject *instance, JsonArray *changes, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	const gchar *name = json_object_get_string_member(instance, "name");
	JsonArray *disks = json_object_get_array_member(instance, "disks");
	g_autoptr(JsonObject) updated = gnt_json_object_deep_copy(instance);
	g_autoptr(JsonObject) be = gnt_beparams_parse(
		json_node_get_object(gnt_opcode_get_param(op, "beparams")), TRUE, error);
	g_autoptr(JsonArray) new_disks = NULL;
	JsonObject *hv = gnt_lu_object_or_null(gnt_opcode_get_param(op, "hvparams"));
	JsonObject *os_public = gnt_lu_object_or_null(gnt_opcode_get_param(op, "osparams"));
	JsonObject *os_private =
		gnt_lu_object_or_null(gnt_opcode_get_param(op, "osparams_private"));
	const gchar *os_name = gnt_opcode_get_string(op, "os_name");

	if (be == NULL)
		return NULL;
	new_disks =
		set_params_parse_disk_mods(json_node_get_array(gnt_opcode_get_param(op, "disks")),
					   json_array_get_length(disks), error);
	if (new_disks == NULL)
		return NULL;
	if (json_array_get_length(new_disks) > 0 &&
	    gnt_record_get_disk_template(updated) == GNT_DISK_TEMPLATE_DISKLESS) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "instance '%s' is diskless: it cannot take disks", name);
		return NULL;
	}
	disks = json_object_get_array_member(updated, "disks");
	for (guint i = 0; i < json_array_get_length(new_disks); i++) {
		JsonObject *disk =
			gnt_json_object_deep_copy(json_array_get_object_element(new_disks, i));
		guint index = json_array_get_length(disks);
		g_autofree gchar *iv_name = g_strdup_printf("disk/%u", index);
		g_autofree gchar *what =
			g_strdup_printf("add:size=%" G_GINT64_FORMAT ",mode=%s",
					json_object_get_int_member(disk, "size"),
					json_object_get_string_member(disk, "mode"));

		json_object_set_string_member(disk, "iv_name", iv_name);
		json_array_add_object_element(disks, disk);
		changes_add(changes, iv_name, gnt_json_node_new_string(what));
	}
	json_object_set_object_member(
		updated, "hvparams",
		gnt_lu_params_update(gnt_lu_record_object(instance, "hvparams"), hv));
	changes_add_params(changes, "hv", hv, FALSE);
	json_object_set_object_member(
		updated, "beparams",
		gnt_lu_params_update(gnt_lu_record_object(instance, "beparams"), be));
	changes_add_params(changes, "be", be, FALSE);
	/* Ganeti does not list the OS; the list says what changed */
	if (os_name != NULL) {
		json_object_set_string_member(updated, "os", os_name);
		changes_add(changes, "os", gnt_json_node_new_string(os_name));
	}
	json_object_set_object_member(
		updated, "osparams",
		gnt_lu_params_update(gnt_lu_record_object(instance, "osparams"), os_public));
	changes_add_params(changes, "os", os_public, FALSE);
	json_object_set_object_member(
		updated, "osparams_private",
		gnt_lu_params_update(gnt_lu_record_object(instance, "osparams_private"),
				     os_private));
	changes_add_params(changes, "os_private", os_private, TRUE);
	set_params_apply_metadata(op, updated, changes);
	/* an instance made before communication NICs existed gets one now */
	if (gnt_lu_instance_has_communication(updated) &&
	    !json_object_has_member(updated, "communication_nic")) {
		g_autoptr(JsonObject) info = gnt_config_dup_cluster_info(lu_config(lu));
		JsonObject *nic = gnt_lu_instance_communication_nic_new(
			lu_config(lu), json_object_get_string_member(info, "mac_prefix"), NULL,
			error);

		if (nic == NULL)
			return NULL;
		json_object_set_object_member(updated, "communication_nic", nic);
	}
	if (!set_params_apply_offline(updated, gnt_opcode_get_param(op, "offline"), changes,
				      error) ||
	    !set_params_apply_install_done(updated, gnt_opcode_get_flag(op, "install_done"),
					   changes, error))
		return NULL;
	return g_steal_pointer(&updated);
}

static gboolean
set_params_check_prereq(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	g_autoptr(GntLuChangeCtx) ctx = g_new0(GntLuChangeCtx, 1);
	gboolean os_changes = gnt_opcode_get_string(op, "os_name") != NULL ||
			      param_given(op, "osparams") || param_given(op, "osparams_private");

	ctx->current = gnt_lu_instance_ctx_new(lu, TRUE, error);
	if (ctx->current == NULL)
		return FALSE;
	ctx->n_old_disks = json_array_get_length(
		json_object_get_array_member(ctx->current->instance, "disks"));
	ctx->changes = json_array_new();
	ctx->updated = set_params_apply(lu, ctx->current->instance, ctx->changes, error);
	if (ctx->updated == NULL)
		return FALSE;
	/* the OS and its parameters as Ganeti checks them, unless forced */
	return gnt_lu_change_ctx_settle(lu, g_steal_pointer(&ctx),
					os_changes && !gnt_opcode_get_bool(op, "force"), NULL,
					error);
}

static JsonNode *
set_params_exec(GntLu *lu, GError **error)
{
	GntLuChangeCtx *ctx = gnt_lu_get_data(lu);
	JsonArray *disks = json_object_get_array_member(ctx->updated, "disks");
	guint n_disks = json_array_get_length(disks);
	GntRpcClient *rpc = NULL;

	if (n_disks > ctx->n_old_disks && (rpc = gnt_lu_get_rpc(lu, error)) == NULL)
		return NULL;
	for (guint i = ctx->n_old_disks; i < n_disks; i++) {
		gnt_lu_feedback(lu, "* adding disk/%u", i);
		if (!gnt_node_call_blockdev_add(rpc, ctx->current->node, ctx->spec, i, error)) {
			/* the job fails and changes nothing else, but the disks made
			 * so far stay in the record, so none is left unknown */
			if (i > ctx->n_old_disks) {
				g_autoptr(JsonObject)
					partial = gnt_json_object_deep_copy(ctx->current->instance);
				JsonArray *made = json_object_get_array_member(partial, "disks");
				g_autoptr(GError) save_error = NULL;
				for (guint k = ctx->n_old_disks; k < i; k++)
					json_array_add_element(
						made, gnt_json_node_deep_copy(
							      json_array_get_element(disks, k)));
				if (!gnt_config_update_object(lu_config(lu), GNT_OBJECT_INSTANCE,
							      partial, &save_error))
					gnt_lu_feedback(lu, "WARNING: %s", save_error->message);
			}
			return NULL;
		}
	}
	if (!gnt_config_update_object(lu_config(lu), GNT_OBJECT_INSTANCE, ctx->updated, error))
		return NULL;
	/* metad serves what the record now says, or forgets an instance that
	 * no longer has its channel */
	if (gnt_lu_instance_has_communication(ctx->updated) ||
	    gnt_lu_instance_has_communication(ctx->current->instance)) {
		if (rpc == NULL && (rpc = gnt_lu_get_rpc(lu, error)) == NULL)
			return NULL;
		if (gnt_lu_instance_has_communication(ctx->updated))
			gnt_lu_instance_metadata_push(lu, rpc, ctx->current->node, ctx->updated,
						      NULL);
		else
			gnt_lu_instance_metadata_remove(lu, rpc, ctx->current->node,
							gnt_lu_instance_name(ctx->current));
	}
	if (gnt_record_get_admin_state(ctx->updated) == GNT_ADMIN_STATE_UP)
		gnt_lu_feedback(lu, "The changes take effect when the instance is next started");
	return gnt_json_node_new_array(json_array_ref(ctx->changes));
}

const GntLuClass gnt_lu_instance_set_params = {
	.check_args = set_params_check_args,
	.declare_locks = gnt_lu_lock_instance,
	.check_prereq = set_params_check_prereq,
	.exec = set_params_exec,
};
