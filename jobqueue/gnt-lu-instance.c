/*
 * The instance units: create (with a rollback of everything it made when a
 * step fails), remove, startup, shutdown, reboot, console, rename, modify
 * (set_params) and reinstall. Create and reinstall share the install (its
 * steps). They change the config and call the instance's node
 * (rpc/gnt-node-calls.h); the node does the hypervisor, disk and OS-script
 * work.
 */
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

#define INSTANCE_START_PAUSED_FALSE FALSE

/* ---- shared helpers ------------------------------------------------------ */

static GntConfig *
lu_config(GntLu *lu)
{
	return gnt_lu_get_env(lu)->config;
}

/* Loads the context for the unit's later phases (check_prereq runs under
 * the locks, so it stays valid for exec). */
static gboolean
instance_ctx_load(GntLu *lu, gboolean need_online, GError **error)
{
	GntLuInstanceCtx *ctx = gnt_lu_instance_ctx_new(lu, need_online, error);

	gnt_lu_set_data(lu, ctx, (GDestroyNotify)gnt_lu_instance_ctx_free);
	return ctx != NULL;
}

static const gchar *
instance_name(GntLuInstanceCtx *ctx)
{
	return json_object_get_string_member(ctx->instance, "name");
}

/* Replaces members of the stored instance @uuid by copies of @changes' in
 * one update (the record is read again: an earlier update of this unit
 * changed its serial number). */
static gboolean
instance_store_members(GntLu *lu, const gchar *uuid, JsonObject *changes, GError **error)
{
	g_autoptr(JsonObject)
		current = gnt_config_dup_object(lu_config(lu), GNT_OBJECT_INSTANCE, uuid, error);

	if (current == NULL)
		return FALSE;
	gnt_json_object_overlay(current, changes);
	return gnt_config_update_object(lu_config(lu), GNT_OBJECT_INSTANCE, current, error);
}

/* Stores a new admin state (nullable; not when the opcode says not to
 * remember) and a new install member (nullable), in one update. */
static gboolean
instance_store_state(GntLu *lu, JsonObject *instance, const gchar *state, JsonObject *install,
		     GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	const gchar *source = gnt_opcode_get_string(op, "admin_state_source");
	g_autoptr(JsonObject) changes = json_object_new();

	if (state != NULL && !gnt_opcode_get_bool(op, "no_remember", FALSE)) {
		json_object_set_string_member(changes, "admin_state", state);
		json_object_set_string_member(changes, "admin_state_source",
					      source != NULL ? source : "admin");
	}
	if (install != NULL)
		json_object_set_object_member(changes, "install", json_object_ref(install));
	if (json_object_get_size(changes) == 0)
		return TRUE;
	return instance_store_members(lu, json_object_get_string_member(instance, "uuid"), changes,
				      error);
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

/* The opcode's secret OS parameters ("osparams_secret"), or NULL when none
 * were given. They stay in protected memory until they are written into a
 * node RPC's body (doc/secrets.md). (transfer full) */
static GntSecretDict *
lu_dup_osparams_secret(GntLu *lu)
{
	const GntSecret *text = gnt_opcode_get_secret(gnt_lu_get_opcode(lu), "osparams_secret");

	return text != NULL ? gnt_secret_dict_new_from_json(text, NULL) : NULL;
}

/* The check that lu_dup_osparams_secret() loses nothing: every value a
 * string (messages name the parameter, never a value). */
static gboolean
lu_check_osparams_secret(GntLu *lu, GError **error)
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

/* An object member of a record or an opcode parameter, NULL when it is
 * missing or null. (transfer none) */
static JsonObject *
object_or_null(JsonNode *node)
{
	return node != NULL && JSON_NODE_HOLDS_OBJECT(node) ? json_node_get_object(node) : NULL;
}

static JsonObject *
record_object(JsonObject *record, const gchar *member)
{
	return object_or_null(json_object_get_member(record, member));
}

/* A record's OS ("name+variant"), NULL when it has none. */
static const gchar *
record_os(JsonObject *record)
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

/* Ganeti's CheckOSParams on @node: @os_name ("name+variant") exists and
 * is valid there, its variant (unless force_variant), and the parameters
 * of every category, merged, against its parameters.list and verify
 * script. Each object may be NULL. */
static gboolean
lu_check_os(GntLu *lu, GntRpcClient *rpc, JsonObject *node, const gchar *os_name,
	    JsonObject *osparams, JsonObject *osparams_private,
	    const GntSecretDict *osparams_secret, GError **error)
{
	g_autoptr(JsonObject) info = gnt_config_dup_cluster_info(lu_config(lu));
	g_autoptr(GPtrArray) search_path = os_search_path(info);
	g_autoptr(JsonObject) merged = gnt_lu_params_update(osparams, NULL);

	gnt_json_object_overlay(merged, osparams_private);
	return gnt_node_call_os_validate(
		rpc, node, (const gchar *const *)search_path->pdata, os_name, merged,
		osparams_secret, gnt_opcode_get_bool(gnt_lu_get_opcode(lu), "force_variant", FALSE),
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

/* Looks up the names @os_name's definition on @node declares in its
 * parameters.list: TRUE with *@names NULL when it declares none (no such
 * OS, or one older than API 20, which takes no parameters), FALSE only
 * when the lookup failed. (*@names: transfer full) */
static gboolean
lu_lookup_os_parameters(GntLu *lu, GntRpcClient *rpc, JsonObject *node, const gchar *os_name,
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

/*
 * Where the install of @record (its "os", with an install to do) runs its
 * create script (gnt-install-where.h): refused here, before anything
 * changes, when it cannot run anywhere. The decision goes into the
 * record's install member ("where": "host"|"appliance", "create_script":
 * the path on the node) for the install steps. @safe_param: the opcode's
 * "enable_safe_install" (nullable).
 */
static gboolean
lu_choose_install_where(GntLu *lu, GntRpcClient *rpc, JsonObject *node, JsonObject *record,
			JsonNode *safe_param, GError **error)
{
	const gchar *os_name = record_os(record);
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

/* The user data, ssh keys and package of a create, modify or reinstall. */
static gboolean
check_instance_fields(const GntOpcode *op, GError **error)
{
	return check_user_data(gnt_opcode_get_param(op, "user_data"), error) &&
	       check_ssh_keys(gnt_opcode_get_param(op, "ssh_keys"), error) &&
	       check_os_package(object_or_null(gnt_opcode_get_param(op, "osparams")),
				object_or_null(gnt_opcode_get_param(op, "osparams_private")),
				error);
}

/* ---- OP_INSTANCE_CREATE ---------------------------------------------------- */

static const gchar *const nic_modes[] = {"bridged", "routed", "openvswitch", NULL};

/* Ganeti's disk dicts: size (MiB, or a string with a unit), mode, name. */
static JsonArray *
create_parse_disks(JsonArray *given, GError **error)
{
	g_autoptr(JsonArray) disks = json_array_new();

	for (guint i = 0; i < json_array_get_length(given); i++) {
		JsonNode *node = json_array_get_element(given, i);
		JsonObject *in;
		JsonObject *disk;
		JsonNode *size;
		guint64 mib = 0;
		const gchar *mode = "rw";
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
			mode = json_object_get_string_member(in, "mode");
			if (g_strcmp0(mode, "rw") != 0 && g_strcmp0(mode, "ro") != 0) {
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "disk %u: mode must be 'rw' or 'ro'", i);
				return NULL;
			}
		}
		disk = json_object_new();
		json_object_set_string_member(disk, "uuid", uuid);
		json_object_set_int_member(disk, "size", (gint64)mib);
		json_object_set_string_member(disk, "mode", mode);
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

/* Ganeti's nic dicts: mac ("generate"), ip, mode, link, name. MACs are
 * generated later (they must be unique in the cluster). */
static JsonArray *
create_parse_nics(JsonArray *given, GError **error)
{
	g_autoptr(JsonArray) nics = json_array_new();

	for (guint i = 0; i < json_array_get_length(given); i++) {
		JsonNode *node = json_array_get_element(given, i);
		JsonObject *in;
		JsonObject *nic;
		JsonObject *nicparams;
		const gchar *mac = NULL;
		g_autofree gchar *uuid = g_uuid_string_random();

		if (!JSON_NODE_HOLDS_OBJECT(node)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "nic %u must be an object",
				    i);
			return NULL;
		}
		in = json_node_get_object(node);
		if (json_object_has_member(in, "mac"))
			mac = json_object_get_string_member(in, "mac");
		if (mac != NULL && g_strcmp0(mac, "generate") != 0 && g_strcmp0(mac, "auto") != 0 &&
		    !gnt_net_parse_mac(mac, NULL)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "nic %u: '%s' is not a valid MAC address", i, mac);
			return NULL;
		}
		nicparams = json_object_new();
		if (json_object_has_member(in, "mode")) {
			const gchar *mode = json_object_get_string_member(in, "mode");
			if (!g_strv_contains(nic_modes, mode != NULL ? mode : "")) {
				json_object_unref(nicparams);
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "nic %u: mode must be bridged, routed or openvswitch",
					    i);
				return NULL;
			}
			json_object_set_string_member(nicparams, "mode", mode);
		}
		if (json_object_has_member(in, "link"))
			json_object_set_member(
				nicparams, "link",
				gnt_json_node_deep_copy(json_object_get_member(in, "link")));
		nic = json_object_new();
		json_object_set_string_member(nic, "uuid", uuid);
		json_object_set_member(nic, "name",
				       gnt_json_node_deep_copy(json_object_get_member(in, "name")));
		json_object_set_string_member(
			nic, "mac", mac != NULL && gnt_net_parse_mac(mac, NULL) ? mac : "generate");
		json_object_set_member(nic, "ip",
				       gnt_json_node_deep_copy(json_object_get_member(in, "ip")));
		json_object_set_object_member(nic, "nicparams", nicparams);
		json_object_set_member(nic, "network", gnt_json_node_new_null());
		json_array_add_object_element(nics, nic);
	}
	return g_steal_pointer(&nics);
}

/* Ganeti's -B values: memory (sets maxmem and minmem), maxmem, minmem,
 * vcpus, ...; sizes may carry a unit. With @allow_default, "default" is
 * kept as it is (for gnt_lu_params_update()). */
static JsonObject *
create_parse_beparams(JsonObject *given, gboolean allow_default, GError **error)
{
	static const gchar *const sizes[] = {"memory", "maxmem", "minmem", NULL};
	static const gchar *const counts[] = {"vcpus", "spindle_use", NULL};
	static const gchar *const flags[] = {"auto_balance", "always_failover", NULL};
	g_autoptr(JsonObject) out = json_object_new();
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	json_object_iter_init_ordered(&iter, given);
	while (json_object_iter_next_ordered(&iter, &key, &value)) {
		gboolean known = g_strv_contains(sizes, key) || g_strv_contains(counts, key) ||
				 g_strv_contains(flags, key);

		if (known && allow_default && is_value_default(value)) {
			if (g_strcmp0(key, "memory") == 0) {
				json_object_set_string_member(out, "maxmem", VALUE_DEFAULT);
				json_object_set_string_member(out, "minmem", VALUE_DEFAULT);
			} else {
				json_object_set_string_member(out, key, VALUE_DEFAULT);
			}
		} else if (g_strv_contains(sizes, key)) {
			guint64 mib = 0;
			if (gnt_json_node_is_int(value) && json_node_get_int(value) > 0) {
				mib = (guint64)json_node_get_int(value);
			} else if (!JSON_NODE_HOLDS_VALUE(value) ||
				   json_node_get_value_type(value) != G_TYPE_STRING) {
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "backend parameter '%s' must be a size", key);
				return NULL;
			} else if (!gnt_size_parse(json_node_get_string(value), &mib, error)) {
				g_prefix_error(error, "backend parameter '%s': ", key);
				return NULL;
			}
			if (g_strcmp0(key, "memory") == 0) {
				json_object_set_int_member(out, "maxmem", (gint64)mib);
				json_object_set_int_member(out, "minmem", (gint64)mib);
			} else {
				json_object_set_int_member(out, key, (gint64)mib);
			}
		} else if (g_strv_contains(counts, key)) {
			gint64 n = 0;
			if (gnt_json_node_is_int(value))
				n = json_node_get_int(value);
			else if (JSON_NODE_HOLDS_VALUE(value) &&
				 json_node_get_value_type(value) == G_TYPE_STRING)
				g_ascii_string_to_signed(json_node_get_string(value), 10, 1, 1024,
							 &n, NULL);
			if (n < 1 || n > 1024) {
				g_set_error(
					error, GNT_ERROR, GNT_ERROR_INVALID,
					"backend parameter '%s' must be a number from 1 to 1024",
					key);
				return NULL;
			}
			json_object_set_int_member(out, key, n);
		} else if (g_strv_contains(flags, key)) {
			json_object_set_member(out, key, gnt_json_node_deep_copy(value));
		} else {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "unknown backend parameter '%s'", key);
			return NULL;
		}
	}
	return g_steal_pointer(&out);
}

/* A creation's install parameters (doc/install.md): an import or
 * --no-install installs nothing; install hvparams are self_install's; an
 * install needs an OS, a disk image or self_install. */
static gboolean
create_check_install_args(const GntOpcode *op, GError **error)
{
	gboolean import = gnt_lu_backup_is_import(op);
	gboolean no_install = gnt_opcode_get_bool(op, "no_install", FALSE);
	const gchar *mode = gnt_opcode_get_string(op, "install_mode");
	const gchar *image = gnt_install_op_os_image(op);
	JsonObject *install_hv = object_or_null(gnt_opcode_get_param(op, "install_hvparams"));
	gboolean has_image = image != NULL && image[0] != '\0';
	gboolean has_hv = install_hv != NULL && json_object_get_size(install_hv) > 0;
	gboolean self_install = g_strcmp0(mode, GNT_INSTALL_MODE_SELF_INSTALL) == 0;

	if ((import || no_install) && (has_image || mode != NULL || has_hv)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "%s installs nothing: it takes no OS image, install mode or install "
			    "hypervisor parameters",
			    import ? "an import" : "--no-install");
		return FALSE;
	}
	if (has_hv && !self_install) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "install hypervisor parameters are for install mode "
				    "'self_install' (they are its first boot's)");
		return FALSE;
	}
	if (!import && !no_install && !has_image && !self_install &&
	    gnt_opcode_get_string(op, "os_type") == NULL) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "No guest OS or OS image specified");
		return FALSE;
	}
	return TRUE;
}

/* Ganeti's iallocator (hail through htools) picks the nodes; Gantry has
 * only its default placement, so an iallocator is refused rather than
 * ignored. */
static gboolean
check_no_iallocator(const GntOpcode *op, GError **error)
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

static gboolean
create_check_args(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	g_autoptr(JsonArray) disks = NULL;
	g_autoptr(JsonArray) nics = NULL;
	g_autoptr(JsonObject) be = NULL;

	if (gnt_lu_backup_is_import(op)) {
		if (!gnt_lu_backup_import_check_args(lu, error))
			return FALSE;
	} else if (g_strcmp0(gnt_opcode_get_string(op, "mode"), "create") != 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "instance creation mode '%s' is not supported yet",
			    gnt_opcode_get_string(op, "mode"));
		return FALSE;
	}
	if (!check_no_iallocator(op, error) ||
	    !gnt_config_check_name(gnt_opcode_get_string(op, "instance_name"), "instance name",
				   error))
		return FALSE;
	disks = create_parse_disks(json_node_get_array(gnt_opcode_get_param(op, "disks")), error);
	nics = create_parse_nics(json_node_get_array(gnt_opcode_get_param(op, "nics")), error);
	be = disks != NULL && nics != NULL
		     ? create_parse_beparams(
			       json_node_get_object(gnt_opcode_get_param(op, "beparams")), FALSE,
			       error)
		     : NULL;
	if (be == NULL)
		return FALSE;
	return create_check_install_args(op, error) && check_instance_fields(op, error);
}

/* The node the instance goes to: -n, else the master. */
static gchar *
create_dup_node_name(GntLu *lu)
{
	const gchar *pnode = gnt_opcode_get_string(gnt_lu_get_opcode(lu), "pnode");

	return pnode != NULL ? g_strdup(pnode) : gnt_config_dup_master_node(lu_config(lu));
}

static void
create_declare_locks(GntLu *lu, GntLockSet *locks)
{
	g_autofree gchar *node_name = create_dup_node_name(lu);
	g_autoptr(JsonObject) node = gnt_lu_dup_node(lu_config(lu), node_name, NULL);

	gnt_lock_set_add(locks, GNT_LOCK_LEVEL_INSTANCE,
			 gnt_opcode_get_string(gnt_lu_get_opcode(lu), "instance_name"),
			 GNT_LOCK_EXCLUSIVE);
	/* shared: creates on one node run side by side; the node checks its
	 * free space when it makes the disks, and a create that then fails
	 * undoes itself */
	gnt_lock_set_add(locks, GNT_LOCK_LEVEL_NODE,
			 node != NULL ? json_object_get_string_member(node, "name") : node_name,
			 GNT_LOCK_SHARED);
}

static gboolean
string_array_contains(JsonArray *arr, const gchar *value)
{
	for (guint i = 0; arr != NULL && i < json_array_get_length(arr); i++) {
		if (g_strcmp0(json_array_get_string_element(arr, i), value) == 0)
			return TRUE;
	}
	return FALSE;
}

static gchar *
string_array_join(JsonArray *arr)
{
	g_autoptr(GString) out = g_string_new(NULL);

	for (guint i = 0; arr != NULL && i < json_array_get_length(arr); i++)
		g_string_append_printf(out, "%s%s", i ? ", " : "",
				       json_array_get_string_element(arr, i));
	return g_string_free(g_steal_pointer(&out), FALSE);
}

/* A MAC under the cluster's prefix that no instance uses yet. */
static gchar *
create_generate_mac(GntLu *lu, const gchar *prefix, GHashTable *taken)
{
	for (guint tries = 0; tries < 1000; tries++) {
		gchar *mac = g_strdup_printf("%s:%02x:%02x:%02x", prefix,
					     g_random_int_range(0, 256), g_random_int_range(0, 256),
					     g_random_int_range(0, 256));
		if (!g_hash_table_contains(taken, mac))
			return mac;
		g_free(mac);
	}
	return NULL;
}

static gboolean
collect_macs_cb(JsonObject *record, gpointer user_data)
{
	JsonArray *nics = json_object_has_member(record, "nics")
				  ? json_object_get_array_member(record, "nics")
				  : NULL;

	for (guint i = 0; nics != NULL && i < json_array_get_length(nics); i++) {
		JsonObject *nic = json_array_get_object_element(nics, i);
		if (json_object_has_member(nic, "mac"))
			g_hash_table_add(user_data,
					 g_strdup(json_object_get_string_member(nic, "mac")));
	}
	return TRUE;
}

/* Each NIC's mode and link: its own, else the cluster's defaults. */
static void
create_fill_nicparams(JsonArray *nics, JsonObject *cluster_nicparams)
{
	JsonObject *defaults = cluster_nicparams != NULL &&
					       json_object_has_member(cluster_nicparams, "default")
				       ? json_object_get_object_member(cluster_nicparams, "default")
				       : NULL;
	static const gchar *const keys[] = {"mode", "link"};

	for (guint i = 0; defaults != NULL && i < json_array_get_length(nics); i++) {
		JsonObject *params = json_object_get_object_member(
			json_array_get_object_element(nics, i), "nicparams");
		for (guint k = 0; k < G_N_ELEMENTS(keys); k++) {
			if (!json_object_has_member(params, keys[k]) &&
			    json_object_has_member(defaults, keys[k]))
				json_object_set_member(
					params, keys[k],
					gnt_json_node_deep_copy(
						json_object_get_member(defaults, keys[k])));
		}
	}
}

/* The new instance's record, everything checked against the cluster. */
static JsonObject *
create_build_record(GntLu *lu, JsonObject *node, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	g_autoptr(JsonObject) info = gnt_config_dup_cluster_info(lu_config(lu));
	g_autoptr(JsonObject) record = json_object_new();
	g_autoptr(GHashTable) macs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	JsonArray *enabled_hv = json_object_get_array_member(info, "enabled_hypervisors");
	JsonArray *enabled_dt = json_object_get_array_member(info, "enabled_disk_templates");
	const gchar *hv = gnt_opcode_get_string(op, "hypervisor");
	const gchar *template = gnt_opcode_get_string(op, "disk_template");
	JsonArray *disks;
	JsonArray *nics;
	JsonNode *osparams_private = gnt_opcode_get_param(op, "osparams_private");

	if (hv == NULL)
		hv = json_object_get_string_member(info, "default_hypervisor");
	if (!string_array_contains(enabled_hv, hv)) {
		g_autofree gchar *list = string_array_join(enabled_hv);
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "hypervisor '%s' is not enabled in the cluster (enabled: %s)", hv,
			    list);
		return NULL;
	}
	if (template == NULL)
		template = json_array_get_length(enabled_dt) > 0
				   ? json_array_get_string_element(enabled_dt, 0)
				   : "diskless";
	if (!string_array_contains(enabled_dt, template)) {
		g_autofree gchar *list = string_array_join(enabled_dt);
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "disk template '%s' is not enabled in the cluster (enabled: %s)",
			    template, list);
		return NULL;
	}
	disks = create_parse_disks(json_node_get_array(gnt_opcode_get_param(op, "disks")), error);
	if (disks == NULL)
		return NULL;
	if (g_strcmp0(template, "diskless") == 0 && json_array_get_length(disks) > 0) {
		json_array_unref(disks);
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "a diskless instance cannot have disks");
		return NULL;
	}
	if (g_strcmp0(template, "diskless") != 0 && json_array_get_length(disks) == 0) {
		json_array_unref(disks);
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "disk template '%s' needs at least one disk", template);
		return NULL;
	}
	nics = create_parse_nics(json_node_get_array(gnt_opcode_get_param(op, "nics")), error);
	if (nics == NULL) {
		json_array_unref(disks);
		return NULL;
	}
	create_fill_nicparams(nics, json_object_get_object_member(info, "nicparams"));
	/* every instance's MACs: only a create with NICs needs them */
	if (json_array_get_length(nics) > 0)
		gnt_config_foreach_object(lu_config(lu), GNT_OBJECT_INSTANCE, collect_macs_cb,
					  macs);
	for (guint i = 0; i < json_array_get_length(nics); i++) {
		JsonObject *nic = json_array_get_object_element(nics, i);
		const gchar *mac = json_object_get_string_member(nic, "mac");
		if (g_strcmp0(mac, "generate") == 0) {
			g_autofree gchar *fresh = create_generate_mac(
				lu, json_object_get_string_member(info, "mac_prefix"), macs);
			json_object_set_string_member(nic, "mac", fresh);
			mac = json_object_get_string_member(nic, "mac");
		} else if (g_hash_table_contains(macs, mac)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_EXISTS,
				    "MAC address '%s' is already in use", mac);
			json_array_unref(disks);
			json_array_unref(nics);
			return NULL;
		}
		g_hash_table_add(macs, g_strdup(mac));
	}
	json_object_set_string_member(record, "name", gnt_opcode_get_string(op, "instance_name"));
	json_object_set_string_member(record, "primary_node",
				      json_object_get_string_member(node, "uuid"));
	json_object_set_member(record, "os",
			       gnt_json_node_deep_copy(gnt_opcode_get_param(op, "os_type")));
	json_object_set_string_member(record, "hypervisor", hv);
	json_object_set_member(record, "hvparams",
			       gnt_json_node_deep_copy(gnt_opcode_get_param(op, "hvparams")));
	json_object_set_object_member(
		record, "beparams",
		create_parse_beparams(json_node_get_object(gnt_opcode_get_param(op, "beparams")),
				      FALSE, NULL));
	json_object_set_member(record, "osparams",
			       gnt_json_node_deep_copy(gnt_opcode_get_param(op, "osparams")));
	json_object_set_member(record, "osparams_private",
			       osparams_private != NULL && !JSON_NODE_HOLDS_NULL(osparams_private)
				       ? gnt_json_node_deep_copy(osparams_private)
				       : gnt_json_node_new_object(json_object_new()));
	json_object_set_string_member(record, "admin_state", "down");
	json_object_set_string_member(record, "admin_state_source", "admin");
	json_object_set_string_member(record, "disk_template", template);
	json_object_set_array_member(record, "disks", disks);
	json_object_set_array_member(record, "nics", nics);
	json_object_set_member(record, "tags",
			       gnt_json_node_deep_copy(gnt_opcode_get_param(op, "tags")));
	json_object_set_member(record, "network_port", gnt_json_node_new_null());
	json_object_set_boolean_member(record, "disks_active", FALSE);
	/* Gantry's (doc/metad.md): the channel, for every instance an address
	 * (the install appliance uses it too), the metadata it serves */
	{
		JsonObject *comm = gnt_lu_instance_communication_nic_new(
			lu_config(lu), json_object_get_string_member(info, "mac_prefix"), macs,
			error);
		JsonNode *user_data = gnt_opcode_get_param(op, "user_data");
		JsonNode *keys = gnt_opcode_get_param(op, "ssh_keys");

		if (comm == NULL)
			return NULL;
		json_object_set_boolean_member(record, "communication",
					       gnt_opcode_get_bool(op, "instance_communication",
								   FALSE));
		json_object_set_object_member(record, "communication_nic", comm);
		if (user_data != NULL && !JSON_NODE_HOLDS_NULL(user_data) &&
		    json_node_get_string(user_data)[0] != '\0')
			json_object_set_member(record, "user_data",
					       gnt_json_node_deep_copy(user_data));
		if (keys != NULL && !JSON_NODE_HOLDS_NULL(keys))
			json_object_set_member(record, "ssh_keys", gnt_json_node_deep_copy(keys));
	}
	/* what the install is to do; none for an import or --no-install */
	if (!gnt_lu_backup_is_import(op) && !gnt_opcode_get_bool(op, "no_install", FALSE)) {
		JsonObject *install = gnt_install_params_new(
			gnt_opcode_get_string(op, "install_mode"),
			object_or_null(gnt_opcode_get_param(op, "install_hvparams")));

		gnt_install_set_os_image(install, gnt_install_op_os_image(op),
					 gnt_opcode_get_string(op, "os_image_sha256"));
		json_object_set_object_member(record, "install", install);
	}
	return g_steal_pointer(&record);
}

/* What create's check_prereq settles for its exec. */
typedef struct {
	JsonObject *node;
	JsonObject *record;
} CreateCtx;

static void
create_ctx_free(CreateCtx *ctx)
{
	g_clear_pointer(&ctx->node, json_object_unref);
	g_clear_pointer(&ctx->record, json_object_unref);
	g_free(ctx);
}

static gboolean
create_check_prereq(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	const gchar *name = gnt_opcode_get_string(op, "instance_name");
	g_autofree gchar *node_name = create_dup_node_name(lu);
	g_autoptr(JsonObject) existing = NULL;
	g_autoptr(JsonObject) node = NULL;
	g_autoptr(JsonObject) record = NULL;
	g_autoptr(JsonObject) spec = NULL;
	g_autoptr(GError) lookup_error = NULL;

	/* an import: what the opcode leaves open comes from the export */
	if (gnt_lu_backup_is_import(op)) {
		if (!gnt_lu_backup_import_prepare(lu, error))
			return FALSE;
		op = gnt_lu_get_opcode(lu);
	}
	existing = gnt_config_dup_object(lu_config(lu), GNT_OBJECT_INSTANCE, name, &lookup_error);
	if (existing != NULL &&
	    g_strcmp0(json_object_get_string_member(existing, "name"), name) == 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_EXISTS,
			    "Instance '%s' is already in the cluster", name);
		return FALSE;
	}
	node = gnt_lu_dup_node(lu_config(lu), node_name, error);
	if (node == NULL || !gnt_lu_check_node_online(node, error))
		return FALSE;
	if (json_object_has_member(node, "drained") &&
	    json_object_get_boolean_member(node, "drained")) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
			    "node '%s' is drained: it takes no new instances", node_name);
		return FALSE;
	}
	record = create_build_record(lu, node, error);
	if (record == NULL)
		return FALSE;
	/* checks the hypervisor parameters against the hypervisor's table */
	spec = gnt_lu_instance_spec_new(lu_config(lu), record, error);
	if (spec == NULL)
		return FALSE;
	/* the OS must exist on the node even when nothing is installed now
	 * (--no-install): a later reinstall or export runs its scripts */
	if (gnt_opcode_get_string(op, "os_type") != NULL) {
		GntRpcClient *rpc = gnt_lu_get_rpc(lu, error);
		g_autoptr(GntSecretDict) secret = lu_dup_osparams_secret(lu);

		if (rpc == NULL || !lu_check_osparams_secret(lu, error) ||
		    !lu_check_os(lu, rpc, node, gnt_opcode_get_string(op, "os_type"),
				 record_object(record, "osparams"),
				 record_object(record, "osparams_private"), secret, error))
			return FALSE;
		if (!gnt_opcode_get_bool(op, "no_install", FALSE) &&
		    !lu_choose_install_where(lu, rpc, node, record,
					     gnt_opcode_get_param(op, "enable_safe_install"),
					     error))
			return FALSE;
	}
	/* what each install step cannot do is refused now, before anything
	 * is made */
	if (gnt_install_get(record) != NULL) {
		g_autoptr(GntInstall) install =
			gnt_install_new(lu, GNT_INSTALL_CREATE, node, record, NULL, FALSE);

		if (!gnt_install_check(install, error))
			return FALSE;
	}
	{
		CreateCtx *ctx = g_new0(CreateCtx, 1);
		ctx->node = g_steal_pointer(&node);
		ctx->record = g_steal_pointer(&record);
		gnt_lu_set_data(lu, ctx, (GDestroyNotify)create_ctx_free);
	}
	return TRUE;
}

/*
 * Undoes what a failed create made, newest first; never fails. @disks_may_exist:
 * a disk creation was tried (it may have made some before it failed). When
 * the node cannot remove them (noded down or killed), the record stays,
 * still marked as being created by this job, so that masterd's recovery
 * pass (gnt-recovery.h) removes both once the node answers again: an
 * instance is either whole or, in the end, gone. Returns whether all of
 * it is gone now.
 */
static gboolean
create_roll_back(GntLu *lu, GntRpcClient *rpc, JsonObject *node, JsonObject *spec,
		 gboolean disks_may_exist)
{
	JsonObject *record = json_object_get_object_member(spec, "instance");
	const gchar *uuid = json_object_get_string_member(record, "uuid");
	g_autoptr(GError) error = NULL;

	if (disks_may_exist && !gnt_node_call_blockdev_remove(rpc, node, spec, &error)) {
		gnt_lu_feedback(
			lu,
			"WARNING: could not remove the disks made: %s; the instance stays in "
			"the configuration, marked as half created by job %" G_GUINT64_FORMAT
			", until the master removes it (it tries again at start-up and every "
			"5 minutes)",
			error->message, gnt_lu_get_job_id(lu));
		return FALSE;
	}
	if (!gnt_config_remove_object(lu_config(lu), GNT_OBJECT_INSTANCE, uuid, &error)) {
		gnt_lu_feedback(lu, "WARNING: could not remove the instance from the config: %s",
				error->message);
		return FALSE;
	}
	return TRUE;
}

/* The create ended well: its record loses the mark of an operation under
 * way (gnt-recovery.h). */
static gboolean
instance_clear_mark(GntLu *lu, const gchar *uuid, GError **error)
{
	g_autoptr(JsonObject)
		current = gnt_config_dup_object(lu_config(lu), GNT_OBJECT_INSTANCE, uuid, error);

	if (current == NULL)
		return FALSE;
	gnt_recovery_unmark(current);
	return gnt_config_update_object(lu_config(lu), GNT_OBJECT_INSTANCE, current, error);
}

/* An import or --no-install: the disks, then the import's streams; no
 * install. */
static gboolean
create_exec_without_install(GntLu *lu, GntRpcClient *rpc, JsonObject *node, JsonObject *stored,
			    gboolean start, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	g_autoptr(JsonObject) spec = gnt_lu_instance_spec_new(lu_config(lu), stored, error);
	gboolean has_disks = json_array_get_length(json_object_get_array_member(stored, "disks")) >
			     0;

	if (spec == NULL)
		return FALSE;
	/* diskless: nothing to make, so no call to the node */
	if (has_disks) {
		gnt_lu_feedback(lu, "* creating instance disks...");
		if (!gnt_node_call_blockdev_create(rpc, node, spec, error)) {
			create_roll_back(lu, rpc, node, spec, TRUE);
			return FALSE;
		}
	}
	if (gnt_lu_backup_is_import(op) && !gnt_lu_backup_import_exec(lu, rpc, node, spec, error)) {
		create_roll_back(lu, rpc, node, spec, has_disks);
		return FALSE;
	}
	if (start) {
		gnt_lu_feedback(lu, "* starting instance...");
		if (!gnt_node_call_instance_start(rpc, node, spec, FALSE, error)) {
			create_roll_back(lu, rpc, node, spec, has_disks);
			return FALSE;
		}
		if (!instance_store_state(lu, stored, "up", NULL, error))
			return FALSE;
	}
	return TRUE;
}

/* The install's steps (gnt-install-steps.h): prepare makes the disks, ...,
 * boot starts the instance. A failure removes everything made; success
 * stores what the install did (and the admin state of a booted one). */
static gboolean
create_exec_install(GntLu *lu, GntRpcClient *rpc, JsonObject *node, JsonObject *stored,
		    gboolean start, GError **error)
{
	g_autoptr(GntSecretDict) secret = lu_dup_osparams_secret(lu);
	g_autoptr(GntInstall)
		install = gnt_install_new(lu, GNT_INSTALL_CREATE, node, stored, secret, start);
	g_autoptr(JsonObject) state = NULL;

	if (!gnt_install_run(install, rpc, error)) {
		g_autoptr(GError) spec_error = NULL;
		g_autoptr(JsonObject)
			spec = gnt_lu_instance_spec_new(lu_config(lu), stored, &spec_error);

		if (spec == NULL)
			gnt_lu_feedback(lu, "WARNING: could not undo the create: %s",
					spec_error->message);
		else if (create_roll_back(lu, rpc, node, spec,
					  gnt_install_disks_may_exist(install)))
			gnt_lu_feedback(
				lu, "Instance %s was not created: what the install made is removed",
				json_object_get_string_member(stored, "name"));
		return FALSE;
	}
	state = gnt_install_dup_state(install);
	return instance_store_state(lu, stored, gnt_install_booted(install) ? "up" : NULL, state,
				    error);
}

static JsonNode *
create_exec(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	CreateCtx *ctx = gnt_lu_get_data(lu);
	JsonObject *node = ctx->node;
	JsonObject *record = ctx->record;
	GntRpcClient *rpc = gnt_lu_get_rpc(lu, error);
	g_autoptr(JsonObject) stored = NULL;
	gboolean start = gnt_opcode_get_bool(op, "start", TRUE);
	gboolean ok;
	JsonArray *result;

	if (rpc == NULL)
		return NULL;
	if (gnt_opcode_get_bool(op, "no_install", FALSE) && start) {
		gnt_lu_feedback(lu, "No-installation mode selected, disabling startup");
		start = FALSE;
	}
	gnt_lu_feedback(lu, "adding instance %s to cluster config",
			json_object_get_string_member(record, "name"));
	/* until the create ended well (instance_clear_mark()): a master killed
	 * meanwhile finds it half made at its next start (gnt-recovery.h) */
	gnt_recovery_mark(record, GNT_RECOVERY_CREATE, gnt_lu_get_job_id(lu));
	if (!gnt_config_add_object(lu_config(lu), GNT_OBJECT_INSTANCE, record, error))
		return NULL;
	stored = gnt_config_dup_object(lu_config(lu), GNT_OBJECT_INSTANCE,
				       json_object_get_string_member(record, "name"), error);
	if (stored == NULL)
		return NULL;
	if (gnt_install_get(stored) != NULL)
		ok = create_exec_install(lu, rpc, node, stored, start, error);
	else
		ok = create_exec_without_install(lu, rpc, node, stored, start, error);
	if (!ok || !instance_clear_mark(lu, json_object_get_string_member(stored, "uuid"), error))
		return NULL;
	if (gnt_lu_instance_has_communication(stored)) {
		g_autoptr(GntSecretDict) secret = lu_dup_osparams_secret(lu);

		gnt_lu_instance_metadata_push(lu, rpc, node, stored, secret);
	}
	result = json_array_new();
	json_array_add_string_element(result, json_object_get_string_member(node, "name"));
	return gnt_json_node_new_array(result);
}

const GntLuClass gnt_lu_instance_create = {
	.check_args = create_check_args,
	.declare_locks = create_declare_locks,
	.check_prereq = create_check_prereq,
	.exec = create_exec,
};

/* ---- OP_INSTANCE_REMOVE ------------------------------------------------------ */

static gboolean
remove_check_prereq(GntLu *lu, GError **error)
{
	gboolean ignore = gnt_opcode_get_bool(gnt_lu_get_opcode(lu), "ignore_failures", FALSE);

	return instance_ctx_load(lu, !ignore, error);
}

static JsonNode *
remove_exec(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	gboolean ignore = gnt_opcode_get_bool(op, "ignore_failures", FALSE);
	guint timeout = (guint)gnt_opcode_get_number(op, "shutdown_timeout", 120);
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
				instance_name(ctx), gnt_recovery_op_to_participle(half_done_by),
				half_done_job);
	} else {
		/* from here on the removal is decided: one that fails part way or
		 * is interrupted (the master killed, the node's answer lost: the
		 * node may have done it) is finished by masterd (gnt-recovery.h) */
		g_autoptr(JsonObject) marked = gnt_json_object_deep_copy(ctx->instance);

		gnt_recovery_mark(marked, GNT_RECOVERY_REMOVE, gnt_lu_get_job_id(lu));
		if (!gnt_config_update_object(lu_config(lu), GNT_OBJECT_INSTANCE, marked, error))
			return NULL;
	}
	gnt_lu_feedback(lu, "Shutting down instance %s on node %s", instance_name(ctx),
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
	gnt_lu_feedback(lu, "Removing block devices for instance %s", instance_name(ctx));
	if (!gnt_node_call_blockdev_remove(rpc, ctx->node, ctx->spec, &step_error)) {
		if (!ignore) {
			g_propagate_error(error, g_steal_pointer(&step_error));
			return NULL;
		}
		gnt_lu_feedback(lu, "WARNING: could not remove the disks: %s", step_error->message);
	}
	if (gnt_lu_instance_has_communication(ctx->instance))
		gnt_lu_instance_metadata_remove(lu, rpc, ctx->node, instance_name(ctx));
	gnt_lu_feedback(lu, "Removing instance %s out of cluster config", instance_name(ctx));
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

/* ---- OP_INSTANCE_STARTUP, _SHUTDOWN, _REBOOT ------------------------------------ */

static gboolean
online_instance_check_prereq(GntLu *lu, GError **error)
{
	GntLuInstanceCtx *ctx;

	if (!instance_ctx_load(lu, TRUE, error))
		return FALSE;
	ctx = gnt_lu_get_data(lu);
	if (g_strcmp0(json_object_get_string_member(ctx->instance, "admin_state"), "offline") ==
	    0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
			    "instance '%s' is marked offline", instance_name(ctx));
		return FALSE;
	}
	return TRUE;
}

/* self_install (doc/install.md): a copy of @instance's install member in
 * @state, for instance_store_state(). (transfer full) */
static JsonObject *
install_dup_with_state(JsonObject *instance, const gchar *state)
{
	JsonObject *install = gnt_json_object_deep_copy(gnt_install_get(instance));

	json_object_set_string_member(install, "state", state);
	return install;
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
 * for instance_store_state()) and the job log too. (transfer full) */
static JsonObject *
install_end_first_boot(GntLu *lu, JsonObject *instance)
{
	gnt_lu_feedback(lu,
			"self_install: the first boot of instance %s has ended; from now on it "
			"runs with its own parameters",
			json_object_get_string_member(instance, "name"));
	return install_dup_with_state(instance, GNT_INSTALL_STATE_DONE);
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
			instance_name(ctx),
			g_strcmp0(install_state, GNT_INSTALL_STATE_FAILED) == 0 ? "failed"
										: "did not finish");
	if (first_boot)
		gnt_lu_feedback(lu, "self_install: instance %s boots with its install parameters",
				instance_name(ctx));
	if (!gnt_node_call_instance_start(rpc, ctx->node, spec,
					  gnt_opcode_get_bool(op, "startup_paused", FALSE),
					  &start_error)) {
		/* already running is what was asked for */
		if (!g_error_matches(start_error, GNT_ERROR, GNT_ERROR_EXISTS)) {
			g_propagate_error(error, g_steal_pointer(&start_error));
			return NULL;
		}
		gnt_lu_feedback(lu, "Instance %s is already running", instance_name(ctx));
	} else if (first_boot) {
		install = install_dup_with_state(ctx->instance, GNT_INSTALL_STATE_BOOTED);
	} else if (install_is_booted(ctx->instance)) {
		/* the guest stopped by itself: that was its first shutdown */
		install = install_end_first_boot(lu, ctx->instance);
	}
	if (!instance_store_state(lu, ctx->instance, "up", install, error))
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
	guint timeout = (guint)gnt_opcode_get_number(op, "timeout", 120);
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
		gnt_lu_feedback(lu, "Instance %s is not running", instance_name(ctx));
	} else if (forced) {
		gnt_lu_feedback(lu, "Instance %s did not shut down within %u seconds: destroyed",
				instance_name(ctx), timeout);
	}
	/* a self_install's first shutdown ends its first boot */
	if (install_is_booted(ctx->instance))
		install = install_end_first_boot(lu, ctx->instance);
	if (!instance_store_state(lu, ctx->instance, "down", install, error))
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
	if (!gnt_node_call_instance_reboot(
		    rpc, ctx->node, spec, type,
		    (guint)gnt_opcode_get_number(op, "shutdown_timeout", 120), error))
		return NULL;
	if (first_boot)
		install = install_dup_with_state(ctx->instance, GNT_INSTALL_STATE_BOOTED);
	else if (install_is_booted(ctx->instance) && g_strcmp0(type, "soft") != 0)
		install = install_end_first_boot(lu, ctx->instance);
	if (!instance_store_state(lu, ctx->instance, "up", install, error))
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
	json_object_set_string_member(console, "instance", instance_name(ctx));
	json_object_set_string_member(console, "node",
				      json_object_get_string_member(ctx->node, "name"));
	return gnt_json_node_new_object(g_steal_pointer(&console));
}

const GntLuClass gnt_lu_instance_console = {
	.check_prereq = online_instance_check_prereq,
	.exec = console_exec,
};

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
	    !instance_ctx_load(lu, TRUE, error))
		return FALSE;
	ctx = gnt_lu_get_data(lu);
	if (g_strcmp0(json_object_get_string_member(ctx->instance, "admin_state"), "up") == 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
			    "instance '%s' is running: shut it down before renaming it",
			    instance_name(ctx));
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
	old_name = g_strdup(instance_name(ctx));
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
	    !gnt_node_call_os_rename(rpc, ctx->node, spec, old_name,
				     (guint)gnt_opcode_get_int(op, "debug_level", 0), &os_error))
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
		parsed = create_parse_disks(one, error);
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

/* Ganeti refuses a parameter given both public and private. */
static gboolean
check_no_repeated_params(JsonObject *osparams, JsonObject *osparams_private, GError **error)
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

/* What check_prereq settles for a unit that changes an instance: the
 * instance as stored (with its node and spec), the record as it is to be
 * and its spec, and for set_params the changes to report. */
typedef struct {
	GntLuInstanceCtx *current;
	JsonObject *updated;
	JsonObject *spec;
	JsonArray *changes;
	guint n_old_disks;
} ChangeCtx;

static void
change_ctx_free(ChangeCtx *ctx)
{
	g_clear_pointer(&ctx->current, gnt_lu_instance_ctx_free);
	g_clear_pointer(&ctx->updated, json_object_unref);
	g_clear_pointer(&ctx->spec, json_object_unref);
	g_clear_pointer(&ctx->changes, json_array_unref);
	g_free(ctx);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(ChangeCtx, change_ctx_free)

/* The end of check_prereq for a unit that changes an instance: with
 * @check_os, the OS of the record as it is to be and its parameters (and
 * @osparams_secret, nullable) checked on the instance's node; its spec
 * built (its hypervisor must still take it); @ctx (transfer full) kept for
 * exec. */
static gboolean
change_ctx_settle(GntLu *lu, ChangeCtx *ctx, gboolean check_os,
		  const GntSecretDict *osparams_secret, GError **error)
{
	g_autoptr(ChangeCtx) owned = ctx;
	const gchar *os = record_os(ctx->updated);

	if (check_os && os != NULL) {
		GntRpcClient *rpc = gnt_lu_get_rpc(lu, error);

		if (rpc == NULL || !lu_check_os(lu, rpc, ctx->current->node, os,
						record_object(ctx->updated, "osparams"),
						record_object(ctx->updated, "osparams_private"),
						osparams_secret, error))
			return FALSE;
	}
	ctx->spec = gnt_lu_instance_spec_new(lu_config(lu), ctx->updated, error);
	if (ctx->spec == NULL)
		return FALSE;
	gnt_lu_set_data(lu, g_steal_pointer(&owned), (GDestroyNotify)change_ctx_free);
	return TRUE;
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

	if (!check_no_iallocator(op, error))
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
	if (param_given(op, "install_done") && !gnt_opcode_get_bool(op, "install_done", FALSE)) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "'install_done' can only be true: it ends a self_install's "
				    "first boot");
		return FALSE;
	}
	disks = set_params_parse_disk_mods(json_node_get_array(gnt_opcode_get_param(op, "disks")),
					   -1, error);
	if (disks == NULL)
		return FALSE;
	be = create_parse_beparams(json_node_get_object(gnt_opcode_get_param(op, "beparams")), TRUE,
				   error);
	return be != NULL && check_instance_fields(op, error) &&
	       check_no_repeated_params(
		       object_or_null(gnt_opcode_get_param(op, "osparams")),
		       object_or_null(gnt_opcode_get_param(op, "osparams_private")), error);
}

/* Ganeti's CAN_CHANGE_INSTANCE_OFFLINE: a running instance stays online. */
static gboolean
set_params_apply_offline(JsonObject *updated, JsonNode *offline, JsonArray *changes, GError **error)
{
	const gchar *state = json_object_get_string_member(updated, "admin_state");
	gboolean off;

	if (offline == NULL || JSON_NODE_HOLDS_NULL(offline))
		return TRUE;
	off = json_node_get_boolean(offline);
	if (g_strcmp0(state, "up") == 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
			    "Instance '%s' is marked to be up, can't change to %s",
			    json_object_get_string_member(updated, "name"),
			    off ? "offline" : "online");
		return FALSE;
	}
	json_object_set_string_member(updated, "admin_state", off ? "offline" : "down");
	changes_add(changes, "admin_state", gnt_json_node_new_string(off ? "offline" : "down"));
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
	g_autoptr(JsonObject) be = create_parse_beparams(
		json_node_get_object(gnt_opcode_get_param(op, "beparams")), TRUE, error);
	g_autoptr(JsonArray) new_disks = NULL;
	JsonObject *hv = object_or_null(gnt_opcode_get_param(op, "hvparams"));
	JsonObject *os_public = object_or_null(gnt_opcode_get_param(op, "osparams"));
	JsonObject *os_private = object_or_null(gnt_opcode_get_param(op, "osparams_private"));
	const gchar *os_name = gnt_opcode_get_string(op, "os_name");

	if (be == NULL)
		return NULL;
	new_disks =
		set_params_parse_disk_mods(json_node_get_array(gnt_opcode_get_param(op, "disks")),
					   json_array_get_length(disks), error);
	if (new_disks == NULL)
		return NULL;
	if (json_array_get_length(new_disks) > 0 &&
	    g_strcmp0(json_object_get_string_member(updated, "disk_template"), "diskless") == 0) {
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
		updated, "hvparams", gnt_lu_params_update(record_object(instance, "hvparams"), hv));
	changes_add_params(changes, "hv", hv, FALSE);
	json_object_set_object_member(
		updated, "beparams", gnt_lu_params_update(record_object(instance, "beparams"), be));
	changes_add_params(changes, "be", be, FALSE);
	/* Ganeti does not list the OS; the list says what changed */
	if (os_name != NULL) {
		json_object_set_string_member(updated, "os", os_name);
		changes_add(changes, "os", gnt_json_node_new_string(os_name));
	}
	json_object_set_object_member(updated, "osparams",
				      gnt_lu_params_update(record_object(instance, "osparams"),
							   os_public));
	changes_add_params(changes, "os", os_public, FALSE);
	json_object_set_object_member(
		updated, "osparams_private",
		gnt_lu_params_update(record_object(instance, "osparams_private"), os_private));
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
	    !set_params_apply_install_done(updated, gnt_opcode_get_bool(op, "install_done", FALSE),
					   changes, error))
		return NULL;
	return g_steal_pointer(&updated);
}

static gboolean
set_params_check_prereq(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	g_autoptr(ChangeCtx) ctx = g_new0(ChangeCtx, 1);
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
	return change_ctx_settle(lu, g_steal_pointer(&ctx),
				 os_changes && !gnt_opcode_get_bool(op, "force", FALSE), NULL,
				 error);
}

static JsonNode *
set_params_exec(GntLu *lu, GError **error)
{
	ChangeCtx *ctx = gnt_lu_get_data(lu);
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
							instance_name(ctx->current));
	}
	if (g_strcmp0(json_object_get_string_member(ctx->updated, "admin_state"), "up") == 0)
		gnt_lu_feedback(lu, "The changes take effect when the instance is next started");
	return gnt_json_node_new_array(json_array_ref(ctx->changes));
}

const GntLuClass gnt_lu_instance_set_params = {
	.check_args = set_params_check_args,
	.declare_locks = gnt_lu_lock_instance,
	.check_prereq = set_params_check_prereq,
	.exec = set_params_exec,
};

/* ---- OP_INSTANCE_REINSTALL ---------------------------------------------------------- */

/* The names in @names (a JSON list of strings) given neither as secret,
 * public nor private parameter of the install as it is to be. (transfer
 * full) */
static GPtrArray *
reinstall_missing_secrets(JsonArray *names, const GntSecretDict *secret, JsonObject *updated)
{
	GPtrArray *missing = g_ptr_array_new();
	JsonObject *given[] = {record_object(updated, "osparams"),
			       record_object(updated, "osparams_private")};

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
reinstall_check_secrets(GntLu *lu, GntRpcClient *rpc, ChangeCtx *ctx, const GntSecretDict *secret,
			GError **error)
{
	JsonObject *last = gnt_install_get(ctx->current->instance);
	JsonNode *names = last != NULL ? json_object_get_member(last, "secret_names") : NULL;
	const gchar *os = record_os(ctx->updated);
	g_autoptr(GPtrArray) missing = NULL;
	g_autoptr(GHashTable) declared = NULL;
	g_autoptr(GString) list = g_string_new(NULL);

	if (names == NULL || !JSON_NODE_HOLDS_ARRAY(names) ||
	    !os_same_name(record_os(ctx->current->instance), os))
		return TRUE;
	missing = reinstall_missing_secrets(json_node_get_array(names), secret, ctx->updated);
	if (missing->len == 0)
		return TRUE;
	if (!lu_lookup_os_parameters(lu, rpc, ctx->current->node, os, &declared, error))
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
		instance_name(ctx->current), list->str);
	return FALSE;
}

/* The personalization package's credentials are secret, never stored: a
 * reinstall of a package that needed them (the last install's secret
 * names) is refused without them. */
static gboolean
reinstall_check_package_credentials(ChangeCtx *ctx, const GntSecretDict *secret, GError **error)
{
	static const gchar *const credentials[] = {GNT_OSP_OS_PACKAGE_USERNAME,
						   GNT_OSP_OS_PACKAGE_PASSWORD};
	JsonObject *last = gnt_install_get(ctx->current->instance);
	JsonNode *names = last != NULL ? json_object_get_member(last, "secret_names") : NULL;
	JsonObject *osparams = record_object(ctx->updated, "osparams");
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
		    instance_name(ctx->current), missing->str);
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
	JsonObject *op_public = object_or_null(gnt_opcode_get_param(op, "osparams"));
	JsonObject *op_private = object_or_null(gnt_opcode_get_param(op, "osparams_private"));
	const gchar *os_type = gnt_opcode_get_string(op, "os_type");
	const gchar *os_image = gnt_install_op_os_image(op);
	g_autoptr(ChangeCtx) ctx = g_new0(ChangeCtx, 1);
	g_autoptr(GntSecretDict) secret = lu_dup_osparams_secret(lu);
	g_autoptr(GntInstall) install = NULL;
	GntRpcClient *rpc = gnt_lu_get_rpc(lu, error);
	ChangeCtx *settled;
	JsonObject *instance;
	const gchar *state;

	if (rpc == NULL || !lu_check_osparams_secret(lu, error))
		return FALSE;
	ctx->current = gnt_lu_instance_ctx_new(lu, TRUE, error);
	if (ctx->current == NULL)
		return FALSE;
	instance = ctx->current->instance;
	if (json_array_get_length(json_object_get_array_member(instance, "disks")) == 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "Instance '%s' has no disks",
			    instance_name(ctx->current));
		return FALSE;
	}
	state = json_object_get_string_member(instance, "admin_state");
	if (g_strcmp0(state, "down") != 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
			    "Instance '%s' is marked to be %s, cannot reinstall",
			    instance_name(ctx->current), state);
		return FALSE;
	}
	if (!gnt_lu_instance_check_not_running(rpc, ctx->current, "cannot reinstall", error) ||
	    !check_no_repeated_params(op_public, op_private, error) ||
	    !check_instance_fields(op, error))
		return FALSE;
	ctx->updated = gnt_json_object_deep_copy(instance);
	if (os_type != NULL)
		json_object_set_string_member(ctx->updated, "os", os_type);
	json_object_set_object_member(ctx->updated, "osparams",
				      gnt_lu_params_update(record_object(instance, "osparams"),
							   op_public));
	json_object_set_object_member(
		ctx->updated, "osparams_private",
		gnt_lu_params_update(record_object(instance, "osparams_private"), op_private));
	/* the stored install parameters (none for an instance made with
	 * --no-install: Gantry installs before its first boot) */
	if (gnt_install_get(ctx->updated) == NULL)
		json_object_set_object_member(ctx->updated, "install",
					      gnt_install_params_new(NULL, NULL));
	gnt_install_set_os_image(gnt_install_get(ctx->updated), os_image,
				 gnt_opcode_get_string(op, "os_image_sha256"));
	/* the OS and parameters first, then what the install needs */
	if (!change_ctx_settle(lu, g_steal_pointer(&ctx), TRUE, secret, error))
		return FALSE;
	settled = gnt_lu_get_data(lu);
	if (!reinstall_check_secrets(lu, rpc, settled, secret, error) ||
	    !reinstall_check_package_credentials(settled, secret, error) ||
	    !lu_choose_install_where(lu, rpc, settled->current->node, settled->updated,
				     gnt_opcode_get_param(op, "enable_safe_install"), error))
		return FALSE;
	/* after the decision: the steps' checks depend on where they run */
	install = gnt_install_new(lu, GNT_INSTALL_REINSTALL, settled->current->node,
				  settled->updated, secret, FALSE);
	return gnt_install_check(install, error);
}

/* The install onto the existing disks. The record's install says
 * "running" while it runs, then what it did; the OS and its parameters
 * change only when it succeeded. Secrets go to the node, never into it. */
static JsonNode *
reinstall_exec(GntLu *lu, GError **error)
{
	ChangeCtx *ctx = gnt_lu_get_data(lu);
	const gchar *os_type = gnt_opcode_get_string(gnt_lu_get_opcode(lu), "os_type");
	const gchar *uuid = json_object_get_string_member(ctx->current->instance, "uuid");
	GntRpcClient *rpc = gnt_lu_get_rpc(lu, error);
	g_autoptr(GntSecretDict) secret = lu_dup_osparams_secret(lu);
	g_autoptr(GntInstall) install = NULL;
	g_autoptr(JsonObject) changes = json_object_new();
	static const gchar *const kept[] = {"os", "osparams", "osparams_private"};

	if (rpc == NULL)
		return NULL;
	if (record_os(ctx->updated) == NULL && gnt_install_get_os_image(ctx->updated) == NULL &&
	    g_strcmp0(gnt_install_get_mode(ctx->updated), GNT_INSTALL_MODE_SELF_INSTALL) != 0) {
		gnt_lu_feedback(lu,
				"No OS scripts or OS image specified or found in the instance's "
				"configuration, nothing to install");
		return gnt_json_node_new_null();
	}
	if (os_type != NULL && g_strcmp0(record_os(ctx->current->instance), os_type) != 0)
		gnt_lu_feedback(lu, "Changing OS scripts to '%s'...", os_type);
	json_object_set_object_member(changes, "install",
				      install_dup_with_state(ctx->updated,
							     GNT_INSTALL_STATE_RUNNING));
	if (!instance_store_members(lu, uuid, changes, error))
		return NULL;
	install = gnt_install_new(lu, GNT_INSTALL_REINSTALL, ctx->current->node, ctx->updated,
				  secret, FALSE);
	if (!gnt_install_run(install, rpc, error)) {
		g_autoptr(GError) store_error = NULL;

		json_object_set_object_member(changes, "install", gnt_install_dup_state(install));
		if (!instance_store_members(lu, uuid, changes, &store_error))
			gnt_lu_feedback(lu, "WARNING: could not record the failed install: %s",
					store_error->message);
		gnt_lu_feedback(
			lu,
			"Instance %s stays stopped with its disks, which hold what the failed "
			"install left; its OS and OS parameters are unchanged (gnt-instance "
			"info shows the install's steps)",
			instance_name(ctx->current));
		return NULL;
	}
	for (guint i = 0; i < G_N_ELEMENTS(kept); i++)
		json_object_set_member(
			changes, kept[i],
			gnt_json_node_deep_copy(json_object_get_member(ctx->updated, kept[i])));
	json_object_set_object_member(changes, "install", gnt_install_dup_state(install));
	if (!instance_store_members(lu, uuid, changes, error))
		return NULL;
	if (gnt_lu_instance_has_communication(ctx->updated)) {
		g_autoptr(JsonObject) stored =
			gnt_config_dup_object(lu_config(lu), GNT_OBJECT_INSTANCE, uuid, NULL);

		if (stored != NULL)
			gnt_lu_instance_metadata_push(lu, rpc, ctx->current->node, stored, secret);
	}
	return gnt_json_node_new_null();
}

const GntLuClass gnt_lu_instance_reinstall = {
	.declare_locks = gnt_lu_lock_instance,
	.check_prereq = reinstall_check_prereq,
	.exec = reinstall_exec,
};
