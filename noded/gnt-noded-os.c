/* noded's OS procedures: Ganeti OS definitions along the cluster's search
 * path (os/), their scripts run for an instance spec with its disks as the
 * node's store has them. Secret parameters go from the request straight
 * into GntSecret memory and the script's environment; nothing here logs or
 * stores them. */
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-node-calls.h"
#include "gnt-os-definition.h"
#include "gnt-os-env.h"
#include "gnt-os-script.h"
#include "gnt-noded-private.h"
#include "gnt-secret.h"

/* The time a script may take: what the master waits, less a margin. */
static guint
script_timeout(const GntRpcArgs *args)
{
	return gnt_rpc_args_get_def(args)->timeout_s - GNT_RPC_SCRIPT_MARGIN_S;
}

static JsonNode *
os_diagnose_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	g_autoptr(GPtrArray)
		found = gnt_os_definition_discover(gnt_rpc_args_get_strv(args, "search_path"));
	JsonArray *result;

	result = json_array_new();
	for (guint i = 0; i < found->len; i++) {
		const GntOsDefinition *os = g_ptr_array_index(found, i);
		JsonObject *obj = gnt_os_definition_to_json(os);

		json_object_set_member(obj, "valid", gnt_json_node_new_bool(os->valid));
		json_array_add_object_element(result, obj);
	}
	return gnt_json_node_new_array(result);
}

typedef enum {
	OS_PARAM_PUBLIC,
	OS_PARAM_PRIVATE,
	OS_PARAM_SECRET,
} OsParamKind;

/* Every member of @params (a string each) as OSP_*. Messages name the
 * parameter, never its value. */
static gboolean
env_set_params(GntOsEnv *env, JsonObject *params, OsParamKind kind, GError **error)
{
	g_autoptr(GList) names = params != NULL ? json_object_get_members(params) : NULL;

	for (GList *l = names; l != NULL; l = l->next) {
		g_autofree gchar *what = g_strdup_printf("OS parameter '%s'", (gchar *)l->data);
		const gchar *value = NULL;

		if (!gnt_json_node_get_string(json_object_get_member(params, l->data), what, &value,
					      error))
			return FALSE;
		if (kind == OS_PARAM_SECRET) {
			g_autoptr(GntSecret) secret = gnt_secret_new(value, -1);

			gnt_os_env_set_param_secret(env, l->data, secret);
			/* moved into protected memory: the request's copy goes
			 * now, not after the script */
			gnt_secret_wipe_string((gchar *)value);
		} else if (kind == OS_PARAM_PRIVATE) {
			gnt_os_env_set_param_private(env, l->data, value);
		} else {
			gnt_os_env_set_param(env, l->data, value);
		}
	}
	return TRUE;
}

static gboolean
env_add_disks(GntOsEnv *env, GntRpcNodeSpec *spec, GError **error)
{
	g_autoptr(GPtrArray) paths = gnt_rpc_node_spec_dup_disk_paths(spec, error);

	if (paths == NULL)
		return FALSE;
	for (guint i = 0; i < spec->disks->len; i++) {
		const GntDiskSpec *disk = g_ptr_array_index(spec->disks, i);
		const GntDisk *record = g_ptr_array_index(spec->instance->disks, i);
		g_autoptr(GntOsDisk) os_disk = gnt_os_disk_new();

		os_disk->path = g_strdup(g_ptr_array_index(paths, i));
		os_disk->access = g_strdup(gnt_disk_mode_to_string(record->mode));
		os_disk->uuid = g_strdup(disk->uuid);
		os_disk->name = g_strdup(record->name);
		os_disk->size_mib = disk->size_mib;
		os_disk->backend_type = g_strdup(
			gnt_disk_store_is_block_device(spec->store) ? "block" : "file:loop");
		os_disk->format = g_strdup(
			gnt_disk_format_to_string(gnt_disk_store_get_format(spec->store, disk)));
		gnt_os_env_add_disk(env, os_disk);
	}
	return TRUE;
}

static void
env_add_nics(GntOsEnv *env, GPtrArray *nics)
{
	for (guint i = 0; i < nics->len; i++) {
		const GntNic *nic = g_ptr_array_index(nics, i);
		g_autoptr(GntOsNic) os_nic = gnt_os_nic_new();

		os_nic->mac = g_strdup(nic->mac);
		os_nic->uuid = g_strdup(nic->uuid);
		os_nic->name = g_strdup(nic->name);
		os_nic->ip = g_strdup(nic->ip);
		os_nic->mode = nic->has_mode ? nic->mode : GNT_NIC_MODE_BRIDGED;
		os_nic->link = g_strdup(nic->link);
		gnt_os_env_add_nic(env, os_nic);
	}
}

/* The environment of @os's scripts for the spec's instance, as Ganeti's
 * OSEnvironment builds it. (transfer full) */
static GntOsEnv *
env_from_spec(GntRpcNodeSpec *spec, const GntOsDefinition *os, const gchar *os_name,
	      guint debug_level, JsonObject *secrets, GError **error)
{
	g_autoptr(GntOsEnv) env = gnt_os_env_new(os, os_name, debug_level);
	const GntInstance *record = spec->instance;

	gnt_os_env_set_instance(env, spec->name, spec->uuid, spec->hypervisor);
	/* a stored record has both (a record that never was has neither) */
	if (record->ctime != 0 || record->mtime != 0)
		gnt_os_env_set_times(env, record->ctime, record->mtime);
	gnt_os_env_set_nodes(env, record->primary_node, NULL);
	gnt_os_env_set_hvparams(env, spec->hvparams);
	gnt_os_env_set_beparams(env, spec->beparams);
	env_add_nics(env, record->nics);
	if (!env_set_params(env, record->osparams, OS_PARAM_PUBLIC, error) ||
	    !env_set_params(env, record->osparams_private, OS_PARAM_PRIVATE, error) ||
	    !env_set_params(env, secrets, OS_PARAM_SECRET, error) ||
	    !env_add_disks(env, spec, error))
		return NULL;
	return g_steal_pointer(&env);
}

/* The spec's OS definition from its search path, and the name asked for
 * (with the variant). */
static GntOsDefinition *
find_spec_os(GntRpcNodeSpec *spec, const gchar **os_name, GError **error)
{
	const gchar *const *search_path = (const gchar *const *)spec->decoded->os_search_path;

	if (search_path == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "instance spec of '%s': 'os' is missing", spec->name);
		return NULL;
	}
	*os_name = spec->instance->os;
	if (*os_name == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "instance '%s': 'os' is missing",
			    spec->name);
		return NULL;
	}
	return gnt_os_definition_find(search_path, *os_name, error);
}

GntOsEnv *
gnt_rpc_node_spec_new_os_env(GntRpcNodeSpec *spec, guint debug_level, JsonObject *secrets,
			     GntOsDefinition **os, GError **error)
{
	g_autoptr(GntOsDefinition) found = NULL;
	GntOsEnv *env = NULL;
	const gchar *os_name = NULL;

	found = find_spec_os(spec, &os_name, error);
	if (found != NULL)
		env = env_from_spec(spec, found, os_name, debug_level, secrets, error);
	if (env == NULL) {
		g_prefix_error(error, "instance '%s': ", spec->name);
		return NULL;
	}
	*os = g_steal_pointer(&found);
	return env;
}

/* Runs @script for the spec of @args with their "debug_level"; @secrets
 * and @old_name may be NULL; @reinstall sets INSTANCE_REINSTALL (create
 * only). */
static gboolean
run_spec_script(GntRpcNode *node, const GntRpcArgs *args, GntOsScript script, JsonObject *secrets,
		const gchar *old_name, gboolean reinstall, GError **error)
{
	guint debug_level = (guint)gnt_rpc_args_get_uint(args, "debug_level");
	g_autoptr(GntRpcNodeSpec) spec = gnt_rpc_node_spec_parse(args, error);
	g_autoptr(GntOsDefinition) os = NULL;
	g_autoptr(GntOsEnv) env = NULL;
	g_autofree gchar *log_file = NULL;
	GntOsRunOptions options = {
		.log_dir = node->os_log_dir,
		.timeout_s = script_timeout(args),
	};

	if (spec == NULL)
		return FALSE;
	env = gnt_rpc_node_spec_new_os_env(spec, debug_level, secrets, &os, error);
	if (env == NULL)
		return FALSE;
	if (old_name != NULL)
		gnt_os_env_set_old_name(env, old_name);
	gnt_os_env_set_reinstall(env, reinstall);
	if (!gnt_os_script_run(os, script, env, &options, &log_file, error)) {
		g_prefix_error(error, "instance '%s': ", spec->name);
		return FALSE;
	}
	g_info("OS %s script of instance '%s' (%s) done, log in %s",
	       gnt_os_script_to_string(script), spec->name, gnt_os_env_get_os_name(env), log_file);
	return TRUE;
}

/* Ganeti's instance_os_add; "reinstall" is left out by a master that
 * predates it. */
static JsonNode *
os_create_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	if (!run_spec_script(user_data, args, GNT_OS_SCRIPT_CREATE,
			     gnt_rpc_args_get_object(args, "osparams_secret"), NULL,
			     gnt_rpc_args_get_bool(args, "reinstall"), error))
		return NULL;
	return gnt_json_node_new_null();
}

static JsonNode *
os_rename_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	if (!run_spec_script(user_data, args, GNT_OS_SCRIPT_RENAME, NULL,
			     gnt_rpc_args_get_string(args, "old_name"), FALSE, error))
		return NULL;
	return gnt_json_node_new_null();
}

static JsonNode *
os_validate_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	g_autoptr(GntOsDefinition) os = NULL;
	g_autoptr(GntOsEnv) env = NULL;
	JsonObject *osparams = gnt_rpc_args_get_object(args, "osparams");
	const gchar *os_name = gnt_rpc_args_get_string(args, "os_name");
	gboolean force_variant = gnt_rpc_args_get_bool(args, "force_variant");

	os = gnt_os_definition_find(gnt_rpc_args_get_strv(args, "search_path"), os_name, error);
	if (os == NULL)
		return NULL;
	env = gnt_os_env_new(os, os_name, 0);
	/* public and private come merged: all are treated as private */
	if (!env_set_params(env, osparams, OS_PARAM_PRIVATE, error) ||
	    !gnt_os_validate(os, env, force_variant, script_timeout(args), error)) {
		g_prefix_error(error, "OS '%s': ", os_name);
		return NULL;
	}
	return gnt_json_node_new_null();
}

const GntRpcProcedure gnt_rpc_node_os_procedures[] = {
	{"os_diagnose", os_diagnose_procedure},
	{"os_create", os_create_procedure},
	{"os_rename", os_rename_procedure},
	{"os_validate", os_validate_procedure},
	{NULL},
};
