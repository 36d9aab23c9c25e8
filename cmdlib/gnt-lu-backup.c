/*
 * Exports and imports (gnt-backup), Ganeti's local mode: OP_BACKUP_EXPORT
 * (LUBackupExport), OP_BACKUP_QUERY (LUBackupQuery), OP_BACKUP_REMOVE
 * (LUBackupRemove), and the import steps of OP_INSTANCE_CREATE in mode
 * "import" (LUInstanceCreate's _ReadExportInfo, _ReadExportParams and the
 * import scripts), which the create unit calls. The node does the work
 * (noded/gnt-noded-backup.c): the OS export and import scripts, once per
 * disk, and the export directory. doc/backup.md describes the whole.
 */
#include "gnt-records.h"
#include "gnt-lu-backup.h"

#include "gnt-config.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-lu-instance-spec.h"
#include "gnt-node-calls-backup.h"

/* Ganeti's constants.EXPORT_VERSION */
#define EXPORT_VERSION "0"
/* Ganeti's constants.MAX_DISKS and MAX_NICS: how far an export is read */
#define EXPORT_MAX_DISKS 16
#define EXPORT_MAX_NICS	 8

static const gchar *const compressions[] = {"none", "gzip", NULL};

static const gchar *
record_name(JsonObject *record)
{
	return json_object_get_string_member(record, "name");
}

static gboolean
check_compress(const gchar *compress, GError **error)
{
	if (!g_strv_contains(compressions, compress)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "compression '%s' is not supported (none or gzip)", compress);
		return FALSE;
	}
	return TRUE;
}

/* The node @name, which must be online. (transfer full) */
static JsonObject *
dup_online_node(GntLu *lu, const gchar *name, GError **error)
{
	g_autoptr(JsonObject) node = gnt_lu_dup_node(lu_config(lu), name, error);

	if (node == NULL || !gnt_lu_check_node_online(node, error))
		return NULL;
	return g_steal_pointer(&node);
}

/* Every node but the offline ones, in name order. (transfer full) */
static GPtrArray *
dup_online_nodes(GntLu *lu)
{
	g_autoptr(GPtrArray) all = gnt_config_dup_objects(lu_config(lu), GNT_OBJECT_NODE);
	GPtrArray *online = g_ptr_array_new_with_free_func((GDestroyNotify)json_object_unref);

	for (guint i = 0; i < all->len; i++) {
		JsonObject *node = g_ptr_array_index(all, i);

		if (gnt_lu_check_node_online(node, NULL))
			g_ptr_array_add(online, json_object_ref(node));
	}
	return online;
}

/* A string of a config.ini section, NULL when missing or Python's "None". */
static const gchar *
ini_get(JsonObject *section, const gchar *key)
{
	const gchar *value;

	if (section == NULL || !json_object_has_member(section, key))
		return NULL;
	value = json_object_get_string_member(section, key);
	return g_strcmp0(value, "None") == 0 ? NULL : value;
}

/* "<device><index>_<what>" of [instance]: disk0_size, nic1_mac. */
static const gchar *
ini_get_device(JsonObject *section, const gchar *device, guint index, const gchar *what)
{
	g_autofree gchar *key = g_strdup_printf("%s%u_%s", device, index, what);

	return ini_get(section, key);
}

static JsonObject *
ini_section(JsonObject *sections, const gchar *name)
{
	JsonNode *node = json_object_get_member(sections, name);

	return node != NULL && JSON_NODE_HOLDS_OBJECT(node) ? json_node_get_object(node) : NULL;
}

/* Removes the exports of @instance from every online node but @keep
 * (Ganeti's _CleanupExports); @keep NULL: from all. Whether one was found;
 * failures are warnings. */
static gboolean
remove_exports(GntLu *lu, GntRpcClient *rpc, const gchar *instance, JsonObject *keep)
{
	g_autoptr(GPtrArray) nodes = dup_online_nodes(lu);
	gboolean found = FALSE;

	for (guint i = 0; i < nodes->len; i++) {
		JsonObject *node = g_ptr_array_index(nodes, i);
		g_auto(GStrv) names = NULL;
		g_autoptr(GError) error = NULL;
		gboolean removed = FALSE;

		if (keep != NULL && g_strcmp0(record_name(node), record_name(keep)) == 0)
			continue;
		names = gnt_node_call_export_list(rpc, node, &error);
		if (names == NULL) {
			gnt_lu_feedback(lu, "WARNING: Failed to query node %s (continuing): %s",
					record_name(node), error->message);
			continue;
		}
		if (!g_strv_contains((const gchar *const *)names, instance))
			continue;
		found = TRUE;
		if (!gnt_node_call_export_remove(rpc, node, instance, &removed, &error))
			gnt_lu_feedback(
				lu,
				"WARNING: Could not remove the export of instance %s on node "
				"%s: %s",
				instance, record_name(node), error->message);
	}
	return found;
}

/* ---- OP_BACKUP_EXPORT ------------------------------------------------------ */

static gboolean
export_check_args(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	JsonNode *target = gnt_opcode_get_param(op, "target_node");

	if (g_strcmp0(gnt_opcode_get_string(op, "mode"), "remote") == 0) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "remote exports (mode 'remote', to another cluster) are not "
				    "supported: export to a node of this cluster (mode 'local')");
		return FALSE;
	}
	if (!JSON_NODE_HOLDS_VALUE(target) || json_node_get_value_type(target) != G_TYPE_STRING) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "a local export's 'target_node' must be a node name, not %s",
			    gnt_json_node_type_name(target));
		return FALSE;
	}
	if (!check_compress(gnt_opcode_get_string(op, "compress"), error))
		return FALSE;
	if (gnt_opcode_get_bool(op, "zero_free_space")) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "zeroing free space before an export is not supported");
		return FALSE;
	}
	if (gnt_opcode_get_param(op, "zeroing_timeout_fixed") != NULL &&
	    !JSON_NODE_HOLDS_NULL(gnt_opcode_get_param(op, "zeroing_timeout_fixed"))) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Zeroing timeout options can only be used only with the "
				    "--zero-free-space option");
		return FALSE;
	}
	return TRUE;
}

static const gchar *
export_target_name(GntLu *lu)
{
	return gnt_opcode_get_string(gnt_lu_get_opcode(lu), "target_node");
}

/* The instance (its full name when it exists) exclusively, its primary
 * node and the target node shared. */
static void
export_declare_locks(GntLu *lu, GntLockSet *locks)
{
	g_autoptr(JsonObject) target = gnt_lu_dup_node(lu_config(lu), export_target_name(lu), NULL);

	gnt_lu_lock_instance(lu, locks);
	if (target != NULL)
		gnt_lock_set_add(locks, GNT_LOCK_LEVEL_NODE, record_name(target), GNT_LOCK_SHARED);
}

static gboolean
export_check_prereq(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	g_autoptr(GntLuInstanceCtx) ctx = gnt_lu_instance_ctx_new(lu, TRUE, error);
	g_autoptr(JsonObject) target = NULL;
	const gchar *name;
	JsonNode *os;

	if (ctx == NULL)
		return FALSE;
	name = record_name(ctx->instance);
	if (gnt_opcode_get_bool(op, "remove_instance") && !gnt_opcode_get_bool(op, "shutdown") &&
	    gnt_record_get_admin_state(ctx->instance) == GNT_ADMIN_STATE_UP) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
				    "Can not remove instance without shutting it down before");
		return FALSE;
	}
	target = dup_online_node(lu, export_target_name(lu), error);
	if (target == NULL)
		return FALSE;
	if (json_object_has_member(target, "drained") &&
	    json_object_get_boolean_member(target, "drained")) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE, "node '%s' is drained",
			    record_name(target));
		return FALSE;
	}
	if (g_strcmp0(json_object_get_string_member(target, "uuid"),
		      json_object_get_string_member(ctx->node, "uuid")) != 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "exporting instance '%s' to node '%s' is not supported yet: the export "
			    "must go to its primary node '%s'",
			    name, record_name(target), record_name(ctx->node));
		return FALSE;
	}
	os = json_object_get_member(ctx->instance, "os");
	if (os == NULL || JSON_NODE_HOLDS_NULL(os)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
			    "instance '%s' has no OS: its export scripts are what exports it",
			    name);
		return FALSE;
	}
	gnt_lu_set_data(lu, g_steal_pointer(&ctx), (GDestroyNotify)gnt_lu_instance_ctx_free);
	return TRUE;
}

/* Every disk's dump, then the description; an unfinished export is
 * removed again. */
static gboolean
export_write(GntLu *lu, GntRpcClient *rpc, GntLuInstanceCtx *ctx, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	const gchar *compress = gnt_opcode_get_string(op, "compress");
	guint debug_level = gnt_opcode_get_debug_level(op);
	const gchar *name = record_name(ctx->instance);
	JsonArray *disks = json_object_get_array_member(ctx->instance, "disks");
	g_autofree gchar *unfinished = g_strconcat(name, ".new", NULL);
	g_autoptr(GError) cleanup_error = NULL;
	gboolean ok;

	/* what an export that died left behind */
	ok = gnt_node_call_export_remove(rpc, ctx->node, unfinished, NULL, error);
	for (guint i = 0; ok && disks != NULL && i < json_array_get_length(disks); i++) {
		gnt_lu_feedback(lu, "* exporting disk/%u of %s to %s", i, name,
				record_name(ctx->node));
		if (!gnt_node_call_export_disk(rpc, ctx->node, ctx->spec, i, compress, debug_level,
					       NULL, error)) {
			g_prefix_error(error, "disk/%u: ", i);
			ok = FALSE;
		}
	}
	if (ok && gnt_node_call_export_finalize(rpc, ctx->node, ctx->spec, compress, error))
		return TRUE;
	if (!gnt_node_call_export_remove(rpc, ctx->node, unfinished, NULL, &cleanup_error))
		gnt_lu_feedback(lu, "WARNING: could not remove the unfinished export: %s",
				cleanup_error->message);
	return FALSE;
}

/* Removes the instance after its export (Ganeti's RemoveInstance; it is
 * shut down already). */
static gboolean
export_remove_instance(GntLu *lu, GntRpcClient *rpc, GntLuInstanceCtx *ctx, GError **error)
{
	gboolean ignore = gnt_opcode_get_bool(gnt_lu_get_opcode(lu), "ignore_remove_failures");
	g_autoptr(GError) disk_error = NULL;

	gnt_lu_feedback(lu, "Removing instance %s", record_name(ctx->instance));
	if (!gnt_node_call_blockdev_remove(rpc, ctx->node, ctx->spec, &disk_error)) {
		if (!ignore) {
			g_propagate_prefixed_error(error, g_steal_pointer(&disk_error),
						   "removing the disks of instance '%s': ",
						   record_name(ctx->instance));
			return FALSE;
		}
		gnt_lu_feedback(lu, "WARNING: could not remove the disks: %s", disk_error->message);
	}
	return gnt_config_remove_object(lu_config(lu), GNT_OBJECT_INSTANCE,
					json_object_get_string_member(ctx->instance, "uuid"),
					error);
}

static JsonNode *
export_exec(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	GntLuInstanceCtx *ctx = gnt_lu_get_data(lu);
	GntRpcClient *rpc = gnt_lu_get_rpc(lu, error);
	const gchar *name = record_name(ctx->instance);
	gboolean shutdown = gnt_opcode_get_bool(op, "shutdown");
	gboolean remove = gnt_opcode_get_bool(op, "remove_instance");
	gboolean was_up = gnt_record_get_admin_state(ctx->instance) == GNT_ADMIN_STATE_UP;
	g_autoptr(GError) export_error = NULL;
	g_autoptr(GError) step_error = NULL;
	JsonArray *disks = json_object_get_array_member(ctx->instance, "disks");
	JsonArray *result;
	JsonArray *disk_results;
	gboolean exported;

	if (rpc == NULL)
		return NULL;
	if (shutdown) {
		gnt_lu_feedback(lu, "Shutting down instance %s", name);
		if (!gnt_node_call_instance_shutdown(
			    rpc, ctx->node, ctx->spec,
			    (guint)gnt_opcode_get_number(op, "shutdown_timeout"), NULL,
			    &step_error) &&
		    !g_error_matches(step_error, GNT_ERROR, GNT_ERROR_NOT_FOUND)) {
			g_propagate_prefixed_error(error, g_steal_pointer(&step_error),
						   "Could not shutdown instance %s on node %s: ",
						   name, record_name(ctx->node));
			return NULL;
		}
		g_clear_error(&step_error);
	} else if (was_up) {
		gnt_lu_feedback(lu,
				"WARNING: instance %s keeps running: its export may not be "
				"consistent",
				name);
	}
	exported = export_write(lu, rpc, ctx, &export_error);
	/* started again unless it goes; after a failed export it stays */
	if (shutdown && was_up && !(exported && remove)) {
		gnt_lu_feedback(lu, "Starting instance %s", name);
		if (!gnt_node_call_instance_start(rpc, ctx->node, ctx->spec, FALSE, &step_error)) {
			if (exported) {
				g_propagate_prefixed_error(error, g_steal_pointer(&step_error),
							   "Could not start instance: ");
				return NULL;
			}
			gnt_lu_feedback(lu, "WARNING: Failed to start instance: %s",
					step_error->message);
		}
	}
	if (!exported) {
		g_propagate_prefixed_error(error, g_steal_pointer(&export_error),
					   "Export of instance %s failed: ", name);
		return NULL;
	}
	if (remove && !export_remove_instance(lu, rpc, ctx, error))
		return NULL;
	if (remove_exports(lu, rpc, name, ctx->node))
		gnt_lu_feedback(lu, "Removed the older exports of instance %s on other nodes",
				name);
	/* Ganeti's (fin_resu, dresults) */
	result = json_array_new();
	json_array_add_boolean_element(result, TRUE);
	disk_results = json_array_new();
	for (guint i = 0; disks != NULL && i < json_array_get_length(disks); i++)
		json_array_add_boolean_element(disk_results, TRUE);
	json_array_add_array_element(result, disk_results);
	return gnt_json_node_new_array(result);
}

const GntLuClass gnt_lu_backup_export = {
	.check_args = export_check_args,
	.declare_locks = export_declare_locks,
	.check_prereq = export_check_prereq,
	.exec = export_exec,
};

/* ---- OP_BACKUP_QUERY ------------------------------------------------------- */

static gboolean
query_check_prereq(GntLu *lu, GError **error)
{
	JsonArray *names =
		json_node_get_array(gnt_opcode_get_param(gnt_lu_get_opcode(lu), "nodes"));
	g_autoptr(GPtrArray) nodes = NULL;

	if (json_array_get_length(names) == 0) {
		nodes = gnt_config_dup_objects(lu_config(lu), GNT_OBJECT_NODE);
	} else {
		nodes = g_ptr_array_new_with_free_func((GDestroyNotify)json_object_unref);
		for (guint i = 0; i < json_array_get_length(names); i++) {
			JsonObject *node = gnt_lu_dup_node(
				lu_config(lu), json_array_get_string_element(names, i), error);

			if (node == NULL)
				return FALSE;
			g_ptr_array_add(nodes, node);
		}
	}
	gnt_lu_set_data(lu, g_steal_pointer(&nodes), (GDestroyNotify)g_ptr_array_unref);
	return TRUE;
}

static JsonArray *
strv_to_array(gchar **strv)
{
	JsonArray *array = json_array_new();

	for (guint i = 0; strv[i] != NULL; i++)
		json_array_add_string_element(array, strv[i]);
	return array;
}

/* Ganeti's LUBackupQuery: {node: [export, ...], or false when the node is
 * offline or did not answer}. */
static JsonNode *
query_exec(GntLu *lu, GError **error)
{
	GPtrArray *nodes = gnt_lu_get_data(lu);
	GntRpcClient *rpc = gnt_lu_get_rpc(lu, error);
	JsonObject *result;

	if (rpc == NULL)
		return NULL;
	result = json_object_new();
	for (guint i = 0; i < nodes->len; i++) {
		JsonObject *node = g_ptr_array_index(nodes, i);
		g_autoptr(GError) node_error = NULL;
		g_auto(GStrv) names = NULL;

		if (gnt_lu_check_node_online(node, NULL))
			names = gnt_node_call_export_list(rpc, node, &node_error);
		if (names == NULL) {
			if (node_error != NULL)
				gnt_lu_feedback(lu, "WARNING: node %s: %s", record_name(node),
						node_error->message);
			json_object_set_boolean_member(result, record_name(node), FALSE);
			continue;
		}
		json_object_set_array_member(result, record_name(node), strv_to_array(names));
	}
	return gnt_json_node_new_object(result);
}

const GntLuClass gnt_lu_backup_query = {
	.check_prereq = query_check_prereq,
	.exec = query_exec,
};

/* ---- OP_BACKUP_REMOVE ------------------------------------------------------ */

/* The instance's full name when it exists (exports of removed instances
 * are named in full), else the name given. (transfer full) */
static gchar *
remove_dup_export_name(GntLu *lu)
{
	const gchar *name = gnt_opcode_get_string(gnt_lu_get_opcode(lu), "instance_name");
	g_autoptr(JsonObject)
		instance = gnt_config_dup_object(lu_config(lu), GNT_OBJECT_INSTANCE, name, NULL);

	return g_strdup(instance != NULL ? record_name(instance) : name);
}

static void
remove_declare_locks(GntLu *lu, GntLockSet *locks)
{
	g_autofree gchar *name = remove_dup_export_name(lu);

	gnt_lock_set_add(locks, GNT_LOCK_LEVEL_INSTANCE, name, GNT_LOCK_EXCLUSIVE);
}

static JsonNode *
remove_exec(GntLu *lu, GError **error)
{
	const gchar *given = gnt_opcode_get_string(gnt_lu_get_opcode(lu), "instance_name");
	g_autofree gchar *name = remove_dup_export_name(lu);
	GntRpcClient *rpc = gnt_lu_get_rpc(lu, error);

	if (rpc == NULL)
		return NULL;
	if (!remove_exports(lu, rpc, name, NULL) && g_strcmp0(name, given) == 0)
		gnt_lu_feedback(lu,
				"Export not found. If trying to remove an export belonging to a "
				"deleted instance please use its Fully Qualified Domain Name.");
	return gnt_json_node_new_null();
}

const GntLuClass gnt_lu_backup_remove = {
	.declare_locks = remove_declare_locks,
	.exec = remove_exec,
};

/* ---- importing: OP_INSTANCE_CREATE in mode "import" ------------------------ */

gboolean
gnt_lu_backup_is_import(const GntOpcode *op)
{
	return g_strcmp0(gnt_opcode_get_id(op), "OP_INSTANCE_CREATE") == 0 &&
	       g_strcmp0(gnt_opcode_get_string(op, "mode"), "import") == 0;
}

gboolean
gnt_lu_backup_import_check_args(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	const gchar *src_path = gnt_opcode_get_string(op, "src_path");

	if (src_path != NULL && g_path_is_absolute(src_path) &&
	    gnt_opcode_get_string(op, "src_node") == NULL) {
		g_set_error_literal(
			error, GNT_ERROR, GNT_ERROR_INVALID,
			"Importing an instance from a path requires a source node option");
		return FALSE;
	}
	return check_compress(gnt_opcode_get_string(op, "compress"), error);
}

/* The new instance's primary node: pnode, else the master. (transfer full) */
static gchar *
import_dup_pnode_name(const GntOpcode *op, GntConfig *config)
{
	const gchar *pnode = gnt_opcode_get_string(op, "pnode");

	return pnode != NULL ? g_strdup(pnode) : gnt_config_dup_master_node(config);
}

/* The source node (src_node, else the primary node), which must be the
 * primary node: exports are imported locally. (transfer full) */
static JsonObject *
import_dup_src_node(GntLu *lu, const GntOpcode *op, GError **error)
{
	g_autofree gchar *pnode_name = import_dup_pnode_name(op, lu_config(lu));
	const gchar *src_name = gnt_opcode_get_string(op, "src_node");
	g_autoptr(JsonObject) pnode = gnt_lu_dup_node(lu_config(lu), pnode_name, error);
	g_autoptr(JsonObject) src = NULL;

	if (pnode == NULL)
		return NULL;
	if (src_name == NULL)
		return dup_online_node(lu, pnode_name, error);
	src = dup_online_node(lu, src_name, error);
	if (src == NULL)
		return NULL;
	if (g_strcmp0(json_object_get_string_member(src, "uuid"),
		      json_object_get_string_member(pnode, "uuid")) != 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "importing from node '%s' onto node '%s' is not supported yet: the "
			    "export must be on the new instance's primary node",
			    record_name(src), record_name(pnode));
		return NULL;
	}
	return g_steal_pointer(&src);
}

/* _ReadExportInfo: the description of the export the opcode names, as
 * {"path", "sections"}, version checked. (transfer full) */
static JsonObject *
import_read_info(GntLu *lu, GntRpcClient *rpc, JsonObject *src_node, const gchar *src_path,
		 GError **error)
{
	g_autoptr(JsonObject) info = gnt_node_call_export_info(rpc, src_node, src_path, error);
	JsonObject *exp;
	const gchar *version;

	if (info == NULL) {
		g_prefix_error(error, "No export or invalid export found in dir %s: ", src_path);
		return NULL;
	}
	exp = ini_section(json_object_get_object_member(info, "sections"), "export");
	version = ini_get(exp, "version");
	if (g_strcmp0(version, EXPORT_VERSION) != 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "Wrong export version %s (wanted %s)",
			    version != NULL ? version : "None", EXPORT_VERSION);
		return NULL;
	}
	if (ini_get(exp, "os") == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "export '%s' names no OS",
			    src_path);
		return NULL;
	}
	return g_steal_pointer(&info);
}

/* A JSON array member of @obj, or NULL when it is not a non-empty one. */
static JsonArray *
nonempty_array(JsonObject *obj, const gchar *member)
{
	JsonNode *node = json_object_get_member(obj, member);

	if (node == NULL || !JSON_NODE_HOLDS_ARRAY(node) ||
	    json_array_get_length(json_node_get_array(node)) == 0)
		return NULL;
	return json_node_get_array(node);
}

/* @out[key] = @value unless @out has @key (or @value is NULL). */
static void
set_default_string(JsonObject *out, const gchar *key, const gchar *value)
{
	if (value != NULL && !json_object_has_member(out, key))
		json_object_set_string_member(out, key, value);
}

/* The export's disks (size, name, Gantry's format). (transfer full) */
static JsonArray *
import_disks(JsonObject *ins)
{
	JsonArray *disks = json_array_new();

	for (guint i = 0; i < EXPORT_MAX_DISKS; i++) {
		const gchar *size = ini_get_device(ins, "disk", i, "size");
		JsonObject *disk;

		if (size == NULL)
			continue;
		disk = json_object_new();
		json_object_set_string_member(disk, "size", size);
		set_default_string(disk, "name", ini_get_device(ins, "disk", i, "name"));
		set_default_string(disk, "format", ini_get_device(ins, "disk", i, "format"));
		json_array_add_object_element(disks, disk);
	}
	return disks;
}

/* The export's NICs: mac, ip, name, and network or mode and link. (transfer full) */
static JsonArray *
import_nics(JsonObject *ins)
{
	JsonArray *nics = json_array_new();

	for (guint i = 0; i < EXPORT_MAX_NICS && ini_get_device(ins, "nic", i, "mac") != NULL;
	     i++) {
		JsonObject *nic = json_object_new();
		const gchar *network = ini_get_device(ins, "nic", i, "network");
		static const gchar *const keys[] = {"mac", "ip", "name"};
		static const gchar *const params[] = {"mode", "link"};

		for (guint k = 0; k < G_N_ELEMENTS(keys); k++)
			set_default_string(nic, keys[k], ini_get_device(ins, "nic", i, keys[k]));
		if (network != NULL)
			json_object_set_string_member(nic, "network", network);
		for (guint k = 0; network == NULL && k < G_N_ELEMENTS(params); k++)
			set_default_string(nic, params[k],
					   ini_get_device(ins, "nic", i, params[k]));
		json_array_add_object_element(nics, nic);
	}
	return nics;
}

/* The export's @section overlaid under @target's own values. */
static void
import_merge_section(JsonObject *target, JsonObject *section)
{
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	if (section == NULL)
		return;
	json_object_iter_init_ordered(&iter, section);
	while (json_object_iter_next_ordered(&iter, &key, &value)) {
		if (!json_object_has_member(target, key) && ini_get(section, key) != NULL)
			json_object_set_member(target, key, gnt_json_node_deep_copy(value));
	}
}

/* Backend parameters: the export's under the opcode's, the old "memory"
 * as maxmem and minmem (unless the opcode gives "memory", which sets
 * both), the booleans as booleans. */
static void
import_merge_beparams(JsonObject *be, JsonObject *sections)
{
	static const gchar *const flags[] = {"auto_balance", "always_failover", NULL};
	static const gchar *const old_style[] = {"maxmem", "minmem", "vcpus", NULL};
	JsonObject *bep = ini_section(sections, "backend");
	gboolean own_memory = json_object_has_member(be, "memory");
	g_autoptr(GList) keys = NULL;

	if (bep == NULL) {
		/* before [backend]: in [instance] */
		bep = json_object_new();
		for (guint i = 0; old_style[i] != NULL; i++)
			set_default_string(bep, old_style[i],
					   ini_get(ini_section(sections, "instance"),
						   old_style[i]));
		json_object_set_object_member(sections, "backend", bep);
	}
	keys = json_object_get_members(bep);
	for (GList *l = keys; l != NULL; l = l->next) {
		const gchar *key = l->data;
		const gchar *value = ini_get(bep, key);

		if (g_strcmp0(key, "memory") == 0 && !own_memory) {
			set_default_string(be, "maxmem", value);
			set_default_string(be, "minmem", value);
		} else if (!own_memory ||
			   (g_strcmp0(key, "maxmem") != 0 && g_strcmp0(key, "minmem") != 0 &&
			    g_strcmp0(key, "memory") != 0)) {
			set_default_string(be, key, value);
		}
	}
	for (guint i = 0; flags[i] != NULL; i++) {
		JsonNode *value = json_object_get_member(be, flags[i]);
		g_autofree gchar *lower = NULL;

		if (value == NULL || json_node_get_value_type(value) != G_TYPE_STRING)
			continue;
		lower = g_ascii_strdown(json_node_get_string(value), -1);
		if (g_strcmp0(lower, "true") == 0 || g_strcmp0(lower, "false") == 0)
			json_object_set_boolean_member(be, flags[i], g_strcmp0(lower, "true") == 0);
	}
}

/* A dict member of @obj, made empty when missing or null. (transfer none) */
static JsonObject *
dict_member(JsonObject *obj, const gchar *member)
{
	JsonNode *node = json_object_get_member(obj, member);

	if (node == NULL || !JSON_NODE_HOLDS_OBJECT(node))
		json_object_set_object_member(obj, member, json_object_new());
	return json_object_get_object_member(obj, member);
}

/* _ReadExportParams on @shown (the opcode's public values) and @private
 * (its private ones). */
static gboolean
import_fill(GntLu *lu, JsonObject *shown, JsonObject *private_values, JsonObject *sections,
	    GError **error)
{
	JsonObject *exp = ini_section(sections, "export");
	JsonObject *ins = ini_section(sections, "instance");
	const gchar *template = json_object_get_string_member(shown, "disk_template");
	const gchar *tags = ini_get(ins, "tags");

	json_object_set_string_member(shown, "os_type", ini_get(exp, "os"));
	if (nonempty_array(shown, "disks") == NULL) {
		g_autoptr(JsonArray) disks = import_disks(ins);

		GntDiskTemplate value = GNT_DISK_TEMPLATE_LAST;

		if (json_array_get_length(disks) == 0 && template != NULL &&
		    !(gnt_disk_template_from_string(template, &value, NULL) &&
		      value == GNT_DISK_TEMPLATE_DISKLESS)) {
			g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "No disk info specified and the export is missing the "
					    "disk information");
			return FALSE;
		}
		json_object_set_array_member(shown, "disks", g_steal_pointer(&disks));
	}
	if (nonempty_array(shown, "nics") == NULL)
		json_object_set_array_member(shown, "nics", import_nics(ins));
	if (nonempty_array(shown, "tags") == NULL && tags != NULL) {
		g_auto(GStrv) split = g_strsplit_set(tags, " \t", -1);
		JsonArray *list = json_array_new();

		for (guint i = 0; split[i] != NULL; i++) {
			if (split[i][0] != '\0')
				json_array_add_string_element(list, split[i]);
		}
		json_object_set_array_member(shown, "tags", list);
	}
	if (json_object_get_string_member(shown, "hypervisor") == NULL &&
	    ini_get(ins, "hypervisor") != NULL)
		json_object_set_string_member(shown, "hypervisor", ini_get(ins, "hypervisor"));
	import_merge_section(dict_member(shown, "hvparams"), ini_section(sections, "hypervisor"));
	import_merge_beparams(dict_member(shown, "beparams"), sections);
	import_merge_section(dict_member(shown, "osparams"), ini_section(sections, "os"));
	import_merge_section(dict_member(private_values, "osparams_private"),
			     ini_section(sections, "os_private"));
	/* Ganeti: an import must take its OS's variant as it comes */
	json_object_set_boolean_member(shown, "force_variant", TRUE);
	if (gnt_opcode_get_flag(gnt_lu_get_opcode(lu), "no_install")) {
		if (json_object_get_boolean_member(shown, "start")) {
			gnt_lu_feedback(lu, "No-installation mode selected, disabling startup");
			json_object_set_boolean_member(shown, "start", FALSE);
		}
		gnt_lu_feedback(lu, "No-installation mode has no effect during import");
	}
	json_object_set_boolean_member(shown, "no_install", FALSE);
	return TRUE;
}

gboolean
gnt_lu_backup_import_prepare(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	const gchar *src_path = gnt_opcode_get_string(op, "src_path");
	GntRpcClient *rpc = gnt_lu_get_rpc(lu, error);
	g_autoptr(JsonObject) src_node = NULL;
	g_autoptr(JsonObject) info = NULL;
	g_autoptr(JsonObject) shown = NULL;
	g_autoptr(JsonObject) private_values = NULL;
	g_autoptr(GntOpcode) filled = NULL;

	if (rpc == NULL)
		return FALSE;
	if (src_path == NULL)
		src_path = gnt_opcode_get_string(op, "instance_name");
	src_node = import_dup_src_node(lu, op, error);
	info = src_node != NULL ? import_read_info(lu, rpc, src_node, src_path, error) : NULL;
	if (info == NULL)
		return FALSE;
	shown = gnt_opcode_to_json(op);
	private_values = gnt_opcode_dup_private(op);
	if (private_values == NULL)
		private_values = json_object_new();
	/* secret values are the submitted opcode's alone: an import runs no
	 * script that takes them */
	json_object_set_null_member(shown, "osparams_secret");
	if (!import_fill(lu, shown, private_values, json_object_get_object_member(info, "sections"),
			 error))
		return FALSE;
	json_object_set_string_member(shown, "src_node", record_name(src_node));
	json_object_set_string_member(shown, "src_node_uuid",
				      json_object_get_string_member(src_node, "uuid"));
	json_object_set_string_member(shown, "src_path",
				      json_object_get_string_member(info, "path"));
	filled = gnt_opcode_new_from_store(shown, private_values, error);
	if (filled == NULL) {
		g_prefix_error(error, "the export's values: ");
		return FALSE;
	}
	gnt_lu_set_opcode(lu, filled);
	return TRUE;
}

gboolean
gnt_lu_backup_import_exec(GntLu *lu, GntRpcClient *rpc, JsonObject *node, JsonObject *spec,
			  GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	const gchar *src_path = gnt_opcode_get_string(op, "src_path");
	guint debug_level = gnt_opcode_get_debug_level(op);
	JsonObject *instance = json_object_get_object_member(spec, "instance");
	const gchar *name = record_name(instance);
	guint n_disks = json_array_get_length(json_object_get_array_member(instance, "disks"));
	g_autoptr(JsonObject) info = import_read_info(lu, rpc, node, src_path, error);
	g_autoptr(GError) rename_error = NULL;
	JsonObject *sections;
	const gchar *compress;
	const gchar *old_name;

	if (info == NULL)
		return FALSE;
	sections = json_object_get_object_member(info, "sections");
	compress = ini_get(ini_section(sections, "export"), "compression");
	if (compress == NULL)
		compress = "none";
	if (!check_compress(compress, error)) {
		g_prefix_error(error, "export '%s': ", src_path);
		return FALSE;
	}
	old_name = ini_get(ini_section(sections, "instance"), "name");
	gnt_lu_feedback(lu, "* running the instance OS import scripts...");
	for (guint i = 0; i < n_disks; i++) {
		const gchar *dump =
			ini_get_device(ini_section(sections, "instance"), "disk", i, "dump");

		if (dump == NULL)
			continue;
		if (!gnt_node_call_import_disk(rpc, node, spec, i, src_path, dump, compress,
					       debug_level, error)) {
			g_prefix_error(error, "importing disk/%u: ", i);
			return FALSE;
		}
	}
	if (old_name != NULL && g_strcmp0(old_name, name) != 0 &&
	    !gnt_node_call_os_rename(rpc, node, spec, old_name, debug_level, &rename_error))
		gnt_lu_feedback(lu, "WARNING: Failed to run rename script for %s on node %s: %s",
				name, record_name(node), rename_error->message);
	return TRUE;
}
