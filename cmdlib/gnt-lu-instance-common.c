/*
 * What the instance units share (gnt-lu-instance-common.h): the unit's
 * instance context, storing an instance's members and state, the OS
 * parameters and checks on the node, and Gantry's instance fields.
 */
#include "gnt-lu-instance-common.h"

#include <string.h>

#include <string.h>
#include "gnt-config.h"
#include "gnt-error.h"
#include "gnt-install-steps.h"
#include "gnt-install-where.h"
#include "gnt-json.h"
#include "gnt-limits.h"
#include "gnt-lu-backup.h"
#include "gnt-lu-instance-metadata.h"
#include "gnt-lu-instance-spec.h"
#include "gnt-lu.h"
#include "gnt-net.h"
#include "gnt-node-calls.h"
#include "gnt-os-definition.h"
#include "gnt-recovery.h"
#include "gnt-size.h"

gboolean
gnt_lu_instance_ctx_load(GntLu *lu, gboolean need_online, GError **error)
{
	GntLuInstanceCtx *ctx = gnt_lu_instance_ctx_new(lu, need_online, error);

	gnt_lu_set_data(lu, ctx, (GDestroyNotify)gnt_lu_instance_ctx_free);
	return ctx != NULL;
}

const gchar *
gnt_lu_instance_name(GntLuInstanceCtx *ctx)
{
	return json_object_get_string_member(ctx->instance, "name");
}
gboolean
gnt_lu_instance_store_members(GntLu *lu, const gchar *uuid, JsonObject *changes, GError **error)
{
	g_autoptr(JsonObject)
		current = gnt_config_dup_object(lu_config(lu), GNT_OBJECT_INSTANCE, uuid, error);

	if (current == NULL)
		return FALSE;
	gnt_json_object_overlay(current, changes);
	return gnt_config_update_object(lu_config(lu), GNT_OBJECT_INSTANCE, current, error);
}
gboolean
gnt_lu_instance_store_state(GntLu *lu, JsonObject *instance, GntAdminState state,
			    JsonObject *install, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	const gchar *source = gnt_opcode_get_string(op, "admin_state_source");
	g_autoptr(JsonObject) changes = json_object_new();

	/* create and reboot have no no_remember: they always record */
	gboolean remember = !gnt_opcode_has_param(op, "no_remember") ||
			    !gnt_opcode_get_bool(op, "no_remember");

	if (state != GNT_ADMIN_STATE_LAST && remember) {
		json_object_set_string_member(changes, "admin_state",
					      gnt_admin_state_to_string(state));
		json_object_set_string_member(
			changes, "admin_state_source",
			source != NULL
				? source
				: gnt_admin_state_source_to_string(GNT_ADMIN_STATE_SOURCE_ADMIN));
	}
	if (install != NULL)
		json_object_set_object_member(changes, "install", json_object_ref(install));
	if (json_object_get_size(changes) == 0)
		return TRUE;
	return gnt_lu_instance_store_members(lu, json_object_get_string_member(instance, "uuid"),
					     changes, error);
}

/* ---- OS parameters, OS checks -------------------------------------------- */

/* Ganeti's VALUE_DEFAULT: a parameter given as "default" goes back to the
 * cluster's value (modify). */
#define VALUE_DEFAULT "default"

static gboolean
is_value_default(JsonNode *value)
{
	return value != NULL && JSON_NODE_HOLDS_VALUE(value) &&
	       json_node_get_value_type(value) == G_TYPE_STRING &&
	       g_strcmp0(json_node_get_string(value), VALUE_DEFAULT) == 0;
}
GntSecretDict *
gnt_lu_dup_osparams_secret(GntLu *lu)
{
	const GntSecret *text = gnt_opcode_get_secret(gnt_lu_get_opcode(lu), "osparams_secret");

	return text != NULL ? gnt_secret_dict_new_from_json(text, NULL) : NULL;
}
gboolean
gnt_lu_check_osparams_secret(GntLu *lu, GError **error)
{
	const GntSecret *text = gnt_opcode_get_secret(gnt_lu_get_opcode(lu), "osparams_secret");
	g_autoptr(GntSecretDict) dict = NULL;

	if (text == NULL)
		return TRUE;
	dict = gnt_secret_dict_new_from_json(text, error);
	if (dict == NULL)
		g_prefix_error(error, "'osparams_secret': ");
	return dict != NULL;
}

/* Ganeti's GetUpdatedParams: @old (nullable) with @changes (nullable)
 * overlaid, a change to "default" or null removing the key. (transfer full) */
JsonObject *
gnt_lu_params_update(JsonObject *old, JsonObject *changes)
{
	JsonObject *out = old != NULL ? gnt_json_object_deep_copy(old) : json_object_new();
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	if (changes == NULL)
		return out;
	json_object_iter_init_ordered(&iter, changes);
	while (json_object_iter_next_ordered(&iter, &key, &value)) {
		if (JSON_NODE_HOLDS_NULL(value) || is_value_default(value))
			json_object_remove_member(out, key);
		else
			json_object_set_member(out, key, gnt_json_node_deep_copy(value));
	}
	return out;
}
JsonObject *
gnt_lu_object_or_null(JsonNode *node)
{
	return node != NULL && JSON_NODE_HOLDS_OBJECT(node) ? json_node_get_object(node) : NULL;
}

JsonObject *
gnt_lu_record_object(JsonObject *record, const gchar *member)
{
	return gnt_lu_object_or_null(json_object_get_member(record, member));
}
const gchar *
gnt_lu_record_os(JsonObject *record)
{
	JsonNode *os = json_object_get_member(record, "os");

	return os != NULL && JSON_NODE_HOLDS_VALUE(os) &&
			       json_node_get_value_type(os) == G_TYPE_STRING
		       ? json_node_get_string(os)
		       : NULL;
}

/* The cluster's OS search path, NULL-terminated; the strings are @info's.
 * (transfer container) */
static GPtrArray *
os_search_path(JsonObject *info)
{
	JsonArray *path = json_object_get_array_member(info, "os_search_path");
	GPtrArray *search_path = g_ptr_array_new();

	for (guint i = 0; path != NULL && i < json_array_get_length(path); i++)
		g_ptr_array_add(search_path, (gpointer)json_array_get_string_element(path, i));
	g_ptr_array_add(search_path, NULL);
	return search_path;
}
gboolean
gnt_lu_check_os(GntLu *lu, GntRpcClient *rpc, JsonObject *node, const gchar *os_name,
		JsonObject *osparams, JsonObject *osparams_private,
		const GntSecretDict *osparams_secret, GError **error)
{
	g_autoptr(JsonObject) info = gnt_config_dup_cluster_info(lu_config(lu));
	g_autoptr(GPtrArray) search_path = os_search_path(info);
	g_autoptr(JsonObject) merged = gnt_lu_params_update(osparams, NULL);

	gnt_json_object_overlay(merged, osparams_private);
	return gnt_node_call_os_validate(
		rpc, node, (const gchar *const *)search_path->pdata, os_name, merged,
		osparams_secret, gnt_opcode_get_bool(gnt_lu_get_opcode(lu), "force_variant"),
		error);
}

/* Looks up the node's definition of @os_name ("name+variant") as
 * os_diagnose lists it: TRUE with *@os NULL when the node has none, FALSE
 * only when the lookup itself failed. (*@os: transfer full) */
static gboolean
lu_lookup_os_definition(GntLu *lu, GntRpcClient *rpc, JsonObject *node, const gchar *os_name,
			GntOsDefinition **os, GError **error)
{
	g_autoptr(JsonObject) info = gnt_config_dup_cluster_info(lu_config(lu));
	g_autoptr(GPtrArray) search_path = os_search_path(info);
	g_autofree gchar *name = NULL;
	g_autoptr(JsonArray) found = NULL;

	*os = NULL;
	gnt_os_split_name(os_name, &name, NULL);
	found = gnt_node_call_os_diagnose(rpc, node, (const gchar *const *)search_path->pdata,
					  error);
	if (found == NULL)
		return FALSE;
	for (guint i = 0; i < json_array_get_length(found); i++) {
		JsonObject *entry = json_array_get_object_element(found, i);

		if (entry == NULL ||
		    g_strcmp0(json_object_get_string_member_with_default(entry, "name", NULL),
			      name) != 0)
			continue;
		*os = gnt_os_definition_from_json(entry, error);
		return *os != NULL;
	}
	return TRUE;
}
gboolean
gnt_lu_lookup_os_parameters(GntLu *lu, GntRpcClient *rpc, JsonObject *node, const gchar *os_name,
			    GHashTable **names, GError **error)
{
	g_autoptr(GntOsDefinition) os = NULL;

	*names = NULL;
	if (!lu_lookup_os_definition(lu, rpc, node, os_name, &os, error))
		return FALSE;
	if (os == NULL || os->parameters[0] == NULL)
		return TRUE;
	*names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	for (guint k = 0; os->parameters[k] != NULL; k++)
		g_hash_table_add(*names, g_strdup(os->parameters[k]));
	return TRUE;
}
gboolean
gnt_lu_choose_install_where(GntLu *lu, GntRpcClient *rpc, JsonObject *node, JsonObject *record,
			    JsonNode *safe_param, GError **error)
{
	const gchar *os_name = gnt_lu_record_os(record);
	JsonObject *install = gnt_install_get(record);
	g_autoptr(JsonObject) info = NULL;
	g_autoptr(GntOsDefinition) os = NULL;
	g_autofree gchar *script = NULL;
	GntInstallWhere where = GNT_INSTALL_IN_APPLIANCE;
	gboolean safe;

	if (os_name == NULL || install == NULL ||
	    g_strcmp0(gnt_install_get_mode(record), GNT_INSTALL_MODE_SELF_INSTALL) == 0)
		return TRUE;
	info = gnt_config_dup_cluster_info(lu_config(lu));
	safe = gnt_install_safe_install_enabled(safe_param, info);
	if (!lu_lookup_os_definition(lu, rpc, node, os_name, &os, error))
		return FALSE;
	if (os == NULL)
		return TRUE; /* os_validate names a missing OS */
	if (!gnt_install_choose_where(
		    os, os_name,
		    gnt_install_os_is_trusted(json_object_get_array_member(info, "trusted_os"),
					      os_name),
		    safe, &where, &script, error))
		return FALSE;
	json_object_set_string_member(install, "where", gnt_install_where_to_string(where));
	json_object_set_string_member(install, "create_script", script);
	return TRUE;
}

/* ---- Gantry's instance fields: communication, user data, ssh keys,
 * the personalization package ---- */

#define USER_DATA_MAX (64 * 1024)

static gboolean
check_user_data(JsonNode *value, GError **error)
{
	if (value == NULL || JSON_NODE_HOLDS_NULL(value))
		return TRUE;
	if (strlen(json_node_get_string(value)) > USER_DATA_MAX) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "user data must be at most %u bytes (64 KiB), not %zu", USER_DATA_MAX,
			    strlen(json_node_get_string(value)));
		return FALSE;
	}
	return TRUE;
}

/* authorized_keys lines: one line each, not empty. */
static gboolean
check_ssh_keys(JsonNode *value, GError **error)
{
	JsonArray *keys;

	if (value == NULL || JSON_NODE_HOLDS_NULL(value))
		return TRUE;
	keys = json_node_get_array(value);
	for (guint i = 0; i < json_array_get_length(keys); i++) {
		const gchar *key = json_array_get_string_element(keys, i);

		if (key == NULL || key[strspn(key, " \t")] == '\0' ||
		    strpbrk(key, "\r\n") != NULL) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "ssh key %u must be one authorized_keys line", i);
			return FALSE;
		}
	}
	return TRUE;
}

/* The personalization package's URL (OS parameter "os-package"): http(s),
 * a .tar.gz or .tgz; its credentials only as secret parameters. Each
 * object may be NULL. */
static gboolean
check_os_package(JsonObject *osparams, JsonObject *osparams_private, GError **error)
{
	static const gchar *const credentials[] = {GNT_OSP_OS_PACKAGE_USERNAME,
						   GNT_OSP_OS_PACKAGE_PASSWORD};
	JsonNode *url = osparams != NULL ? json_object_get_member(osparams, GNT_OSP_OS_PACKAGE)
					 : NULL;

	for (guint i = 0; i < G_N_ELEMENTS(credentials); i++) {
		if ((osparams != NULL && json_object_has_member(osparams, credentials[i])) ||
		    (osparams_private != NULL &&
		     json_object_has_member(osparams_private, credentials[i]))) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "OS parameter '%s' can only be a secret one "
				    "(--os-parameters-secret): it is never stored",
				    credentials[i]);
			return FALSE;
		}
	}
	if (osparams_private != NULL &&
	    json_object_has_member(osparams_private, GNT_OSP_OS_PACKAGE)) {
		g_set_error_literal(
			error, GNT_ERROR, GNT_ERROR_INVALID,
			"OS parameter 'os-package' is a public one (-O or --os-package)");
		return FALSE;
	}
	if (url != NULL && JSON_NODE_HOLDS_VALUE(url) &&
	    json_node_get_value_type(url) == G_TYPE_STRING && !is_value_default(url) &&
	    json_node_get_string(url)[0] != '\0') {
		const gchar *text = json_node_get_string(url);
		g_autofree gchar *path = g_strndup(text, strcspn(text, "?#"));

		if ((!g_str_has_prefix(text, "http://") && !g_str_has_prefix(text, "https://")) ||
		    (!g_str_has_suffix(path, ".tar.gz") && !g_str_has_suffix(path, ".tgz")) ||
		    strlen(path) <= strlen("https://") + strlen(".tgz")) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "OS parameter 'os-package' must be an http(s) URL of a .tar.gz "
				    "or .tgz file, not '%s'",
				    text);
			return FALSE;
		}
	} else if (url != NULL && !is_value_default(url) &&
		   (!JSON_NODE_HOLDS_VALUE(url) ||
		    json_node_get_value_type(url) != G_TYPE_STRING)) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "OS parameter 'os-package' must be a string");
		return FALSE;
	}
	return TRUE;
}
gboolean
gnt_lu_check_instance_fields(const GntOpcode *op, GError **error)
{
	return check_user_data(gnt_opcode_get_param(op, "user_data"), error) &&
	       check_ssh_keys(gnt_opcode_get_param(op, "ssh_keys"), error) &&
	       check_os_package(gnt_lu_object_or_null(gnt_opcode_get_param(op, "osparams")),
				gnt_lu_object_or_null(gnt_opcode_get_param(op, "osparams_private")),
				error);
}

JsonArray *
gnt_lu_parse_disks(JsonArray *given, GError **error)
{
	g_autoptr(JsonArray) disks = json_array_new();

	for (guint i = 0; i < json_array_get_length(given); i++) {
		JsonNode *node = json_array_get_element(given, i);
		JsonObject *in;
		JsonObject *disk;
		JsonNode *size;
		guint64 mib = 0;
		GntDiskMode mode = GNT_DISK_MODE_RW;
		g_autofree gchar *uuid = g_uuid_string_random();

		if (!JSON_NODE_HOLDS_OBJECT(node)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "disk %u must be an object", i);
			return NULL;
		}
		in = json_node_get_object(node);
		size = json_object_get_member(in, "size");
		if (size != NULL && gnt_json_node_is_int(size) && json_node_get_int(size) > 0) {
			mib = (guint64)json_node_get_int(size);
		} else if (size != NULL && JSON_NODE_HOLDS_VALUE(size) &&
			   json_node_get_value_type(size) == G_TYPE_STRING) {
			if (!gnt_size_parse(json_node_get_string(size), &mib, error)) {
				g_prefix_error(error, "disk %u: ", i);
				return NULL;
			}
		} else {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "disk %u: 'size' is missing or not a positive size", i);
			return NULL;
		}
		if (json_object_has_member(in, "mode")) {
			if (!gnt_disk_mode_from_string(json_object_get_string_member(in, "mode"),
						       &mode, NULL)) {
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "disk %u: mode must be 'rw' or 'ro'", i);
				return NULL;
			}
		}
		disk = json_object_new();
		json_object_set_string_member(disk, "uuid", uuid);
		json_object_set_int_member(disk, "size", (gint64)mib);
		json_object_set_string_member(disk, "mode", gnt_disk_mode_to_string(mode));
		json_object_set_member(disk, "name",
				       gnt_json_node_deep_copy(json_object_get_member(in, "name")));
		{
			g_autofree gchar *iv_name = g_strdup_printf("disk/%u", i);
			json_object_set_string_member(disk, "iv_name", iv_name);
		}
		if (json_object_has_member(in, "format"))
			json_object_set_member(
				disk, "format",
				gnt_json_node_deep_copy(json_object_get_member(in, "format")));
		json_array_add_object_element(disks, disk);
	}
	return g_steal_pointer(&disks);
}
gboolean
gnt_lu_check_no_iallocator(const GntOpcode *op, GError **error)
{
	const gchar *iallocator = gnt_opcode_get_string(op, "iallocator");

	if (iallocator == NULL || iallocator[0] == '\0')
		return TRUE;
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
		    "iallocator '%s' is not supported: Gantry has no instance allocator, only its "
		    "default placement (the node given, else the master node)",
		    iallocator);
	return FALSE;
}
JsonObject *
gnt_lu_install_dup_with_state(JsonObject *instance, const gchar *state)
{
	JsonObject *install = gnt_json_object_deep_copy(gnt_install_get(instance));

	json_object_set_string_member(install, "state", state);
	return install;
}
JsonNode *
gnt_lu_install_plan_result(JsonObject *instance)
{
	JsonObject *out = json_object_new();
	JsonObject *install = gnt_install_get(instance);
	JsonNode *plan = install != NULL ? json_object_get_member(install, "plan") : NULL;

	json_object_set_string_member(out, "instance",
				      json_object_get_string_member(instance, "name"));
	json_object_set_member(out, "plan",
			       plan != NULL ? json_node_copy(plan) : gnt_json_node_new_null());
	return gnt_json_node_new_object(out);
}

gboolean
gnt_lu_check_no_repeated_params(JsonObject *osparams, JsonObject *osparams_private, GError **error)
{
	g_autoptr(GString) repeated = g_string_new(NULL);
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	if (osparams == NULL || osparams_private == NULL)
		return TRUE;
	json_object_iter_init_ordered(&iter, osparams);
	while (json_object_iter_next_ordered(&iter, &key, &value)) {
		if (json_object_has_member(osparams_private, key))
			g_string_append_printf(repeated, "%s%s", repeated->len > 0 ? ", " : "",
					       key);
	}
	if (repeated->len == 0)
		return TRUE;
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
		    "OS parameters repeated multiple times: %s", repeated->str);
	return FALSE;
}

void
gnt_lu_change_ctx_free(GntLuChangeCtx *ctx)
{
	g_clear_pointer(&ctx->current, gnt_lu_instance_ctx_free);
	g_clear_pointer(&ctx->updated, json_object_unref);
	g_clear_pointer(&ctx->spec, json_object_unref);
	g_clear_pointer(&ctx->changes, json_array_unref);
	g_free(ctx);
}
gboolean
gnt_lu_change_ctx_settle(GntLu *lu, GntLuChangeCtx *ctx, gboolean check_os,
			 const GntSecretDict *osparams_secret, GError **error)
{
	g_autoptr(GntLuChangeCtx) owned = ctx;
	const gchar *os = gnt_lu_record_os(ctx->updated);

	if (check_os && os != NULL) {
		GntRpcClient *rpc = gnt_lu_get_rpc(lu, error);

		if (rpc == NULL ||
		    !gnt_lu_check_os(lu, rpc, ctx->current->node, os,
				     gnt_lu_record_object(ctx->updated, "osparams"),
				     gnt_lu_record_object(ctx->updated, "osparams_private"),
				     osparams_secret, error))
			return FALSE;
	}
	ctx->spec = gnt_lu_instance_spec_new(lu_config(lu), ctx->updated, error);
	if (ctx->spec == NULL)
		return FALSE;
	gnt_lu_set_data(lu, g_steal_pointer(&owned), (GDestroyNotify)gnt_lu_change_ctx_free);
	return TRUE;
}
