/*
 * The install template units (doc/templates.md): add, set-params and
 * remove. A template's steps are checked against the install step
 * registry whenever they are given, so a template that is stored is one an
 * install can use; a change may name the serial number it was made from
 * (RAPI's PATCH does), so that of two changes made from the same reading
 * only the first is applied.
 */
#include "gnt-config-templates.h"
#include "gnt-error.h"
#include "gnt-install-registry.h"
#include "gnt-json.h"
#include "gnt-lu-instance-spec.h"
#include "gnt-lu.h"

static const gchar *
op_template_name(GntLu *lu)
{
	return gnt_opcode_get_string(gnt_lu_get_opcode(lu), "template_name");
}

/* The opcode's steps, NULL when not given. (transfer none) */
static JsonArray *
op_steps(GntLu *lu)
{
	JsonNode *steps = gnt_opcode_get_param(gnt_lu_get_opcode(lu), "steps");

	return steps != NULL && JSON_NODE_HOLDS_ARRAY(steps) ? json_node_get_array(steps) : NULL;
}

/* Locks the template the opcode names: by UUID when it exists (a rename
 * keeps the lock), else by the name (two adds of one name wait for each
 * other). */
static void
lock_op_template(GntLu *lu, GntLockSet *locks)
{
	g_autoptr(JsonObject)
		record = gnt_config_dup_install_template(lu_config(lu), op_template_name(lu));

	gnt_lock_set_add(locks, GNT_LOCK_LEVEL_INSTALL_TEMPLATE,
			 record != NULL ? json_object_get_string_member(record, "uuid")
					: op_template_name(lu),
			 GNT_LOCK_EXCLUSIVE);
}

/* GNT_ERROR_EXISTS when @name is a template's name or UUID other than
 * @self_uuid's (may be NULL). */
static gboolean
check_name_free(GntLu *lu, const gchar *name, const gchar *self_uuid, GError **error)
{
	g_autoptr(JsonObject) other = gnt_config_dup_install_template(lu_config(lu), name);

	if (other != NULL &&
	    g_strcmp0(json_object_get_string_member(other, "uuid"), self_uuid) != 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_EXISTS,
			    "An install template named '%s' already exists (UUID: %s)", name,
			    json_object_get_string_member(other, "uuid"));
		return FALSE;
	}
	return TRUE;
}

/* The template in @record may change: not one shipped with Gantry. */
static gboolean
check_not_shipped(JsonObject *record, const gchar *what, GError **error)
{
	if (!gnt_install_template_is_shipped(record))
		return TRUE;
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
		    "install template '%s' is shipped with Gantry and cannot be %s: copy its "
		    "steps into a template of your own (gnt-template info %s)",
		    json_object_get_string_member(record, "name"), what,
		    json_object_get_string_member(record, "name"));
	return FALSE;
}

/* ---- OP_INSTALL_TEMPLATE_ADD ---- */

static gboolean
add_check_args(GntLu *lu, GError **error)
{
	return gnt_install_steps_validate(op_template_name(lu), op_steps(lu), error);
}

static gboolean
add_check_prereq(GntLu *lu, GError **error)
{
	return check_name_free(lu, op_template_name(lu), NULL, error);
}

static JsonNode *
add_exec(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	g_autoptr(JsonObject) record = gnt_install_template_record_new(
		op_template_name(lu), op_steps(lu), gnt_opcode_get_string(op, "description"));
	g_autoptr(JsonObject) stored = NULL;

	if (!gnt_config_add_object(lu_config(lu), GNT_OBJECT_INSTALL_TEMPLATE, record, error))
		return NULL;
	stored = gnt_config_lookup_install_template(lu_config(lu), op_template_name(lu), error);
	if (stored == NULL)
		return NULL;
	gnt_lu_feedback(lu, "Added install template %s with %u steps", op_template_name(lu),
			json_array_get_length(op_steps(lu)));
	return gnt_json_node_new_string(json_object_get_string_member(stored, "uuid"));
}

const GntLuClass gnt_lu_install_template_add = {
	.check_args = add_check_args,
	.declare_locks = lock_op_template,
	.check_prereq = add_check_prereq,
	.exec = add_exec,
};

/* ---- OP_INSTALL_TEMPLATE_SET_PARAMS ---- */

static const gchar *const set_params_mods[] = {"new_name", "steps", "description"};

static gboolean
set_params_check_args(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	const gchar *new_name = gnt_opcode_get_string(op, "new_name");
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
	return op_steps(lu) == NULL ||
	       gnt_install_steps_validate(new_name != NULL ? new_name : op_template_name(lu),
					  op_steps(lu), error);
}

static gboolean
set_params_check_prereq(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	const gchar *new_name = gnt_opcode_get_string(op, "new_name");
	g_autoptr(JsonObject) record =
		gnt_config_lookup_install_template(lu_config(lu), op_template_name(lu), error);
	gint64 serial = 0;

	if (record == NULL || !check_not_shipped(record, "changed", error))
		return FALSE;
	if (gnt_opcode_lookup_int(op, "serial_no", &serial) &&
	    serial != json_object_get_int_member(record, "serial_no")) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
			    "install template '%s' was changed meanwhile: its serial number is"
			    " %" G_GINT64_FORMAT ", the change was made from %" G_GINT64_FORMAT,
			    json_object_get_string_member(record, "name"),
			    json_object_get_int_member(record, "serial_no"), serial);
		return FALSE;
	}
	if (new_name != NULL &&
	    !check_name_free(lu, new_name, json_object_get_string_member(record, "uuid"), error))
		return FALSE;
	gnt_lu_set_data(lu, g_steal_pointer(&record), (GDestroyNotify)json_object_unref);
	return TRUE;
}

/* Sets @key of @record to @value (transfer full, may be NULL: not given)
 * and adds Ganeti's [key, value] pair to @changes. */
static void
set_member(JsonObject *record, const gchar *key, JsonNode *value, JsonArray *changes)
{
	JsonArray *pair;

	if (value == NULL || JSON_NODE_HOLDS_NULL(value)) {
		g_clear_pointer(&value, json_node_unref);
		return;
	}
	pair = json_array_new();
	json_array_add_string_element(pair, key);
	json_array_add_element(pair, gnt_json_node_deep_copy(value));
	json_array_add_array_element(changes, pair);
	json_object_set_member(record, key, value);
}

static JsonNode *
copy_param(const GntOpcode *op, const gchar *name)
{
	JsonNode *value = gnt_opcode_get_param(op, name);

	return value != NULL ? gnt_json_node_deep_copy(value) : NULL;
}

static JsonNode *
set_params_exec(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	JsonObject *record = gnt_lu_get_data(lu);
	g_autoptr(JsonArray) changes = json_array_new();

	set_member(record, "name", copy_param(op, "new_name"), changes);
	set_member(record, "steps", copy_param(op, "steps"), changes);
	set_member(record, "description", copy_param(op, "description"), changes);
	/* the record keeps the serial_no it was read with: the config
	 * refuses it if another change came in between */
	if (!gnt_config_update_object(lu_config(lu), GNT_OBJECT_INSTALL_TEMPLATE, record, error))
		return NULL;
	return gnt_json_node_new_array(g_steal_pointer(&changes));
}

const GntLuClass gnt_lu_install_template_set_params = {
	.check_args = set_params_check_args,
	.declare_locks = lock_op_template,
	.check_prereq = set_params_check_prereq,
	.exec = set_params_exec,
};

/* ---- OP_INSTALL_TEMPLATE_REMOVE ---- */

static gboolean
remove_check_prereq(GntLu *lu, GError **error)
{
	g_autoptr(JsonObject) record =
		gnt_config_lookup_install_template(lu_config(lu), op_template_name(lu), error);

	if (record == NULL || !check_not_shipped(record, "removed", error))
		return FALSE;
	gnt_lu_set_data(lu, g_steal_pointer(&record), (GDestroyNotify)json_object_unref);
	return TRUE;
}

static JsonNode *
remove_exec(GntLu *lu, GError **error)
{
	JsonObject *record = gnt_lu_get_data(lu);

	/* an install that has built its plan keeps its own copy of the steps */
	gnt_lu_feedback(lu, "Removing install template %s",
			json_object_get_string_member(record, "name"));
	if (!gnt_config_remove_object(lu_config(lu), GNT_OBJECT_INSTALL_TEMPLATE,
				      json_object_get_string_member(record, "uuid"), error))
		return NULL;
	return gnt_json_node_new_null();
}

const GntLuClass gnt_lu_install_template_remove = {
	.declare_locks = lock_op_template,
	.check_prereq = remove_check_prereq,
	.exec = remove_exec,
};
