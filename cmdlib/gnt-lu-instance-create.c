/*
 * OP_INSTANCE_CREATE: checks the arguments, builds the record, makes the
 * instance on its node and installs it (install/gnt-install-steps.h),
 * rolling back everything it made when a step fails.
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

/* ---- OP_INSTANCE_CREATE ---------------------------------------------------- */

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
			GntNicMode known = GNT_NIC_MODE_BRIDGED;

			if (!gnt_nic_mode_from_string(mode, &known, NULL)) {
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

/* A creation's install parameters (doc/install.md): an import or
 * --no-install installs nothing; install hvparams are self_install's; an
 * install needs an OS, a disk image or self_install. */
static gboolean
create_check_install_args(const GntOpcode *op, GError **error)
{
	gboolean import = gnt_lu_backup_is_import(op);
	gboolean no_install = gnt_opcode_get_flag(op, "no_install");
	const gchar *mode = gnt_opcode_get_string(op, "install_mode");
	const gchar *image = gnt_install_op_os_image(op);
	JsonObject *install_hv =
		gnt_lu_object_or_null(gnt_opcode_get_param(op, "install_hvparams"));
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
	if (!gnt_lu_check_no_iallocator(op, error) ||
	    !gnt_config_check_name(gnt_opcode_get_string(op, "instance_name"), "instance name",
				   error))
		return FALSE;
	disks = gnt_lu_parse_disks(json_node_get_array(gnt_opcode_get_param(op, "disks")), error);
	nics = create_parse_nics(json_node_get_array(gnt_opcode_get_param(op, "nics")), error);
	be = disks != NULL && nics != NULL
		     ? gnt_beparams_parse(
			       json_node_get_object(gnt_opcode_get_param(op, "beparams")), FALSE,
			       error)
		     : NULL;
	if (be == NULL)
		return FALSE;
	return create_check_install_args(op, error) && gnt_lu_check_instance_fields(op, error);
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

/* Every create with NICs walks every instance: typed ones are read
 * without JSON. */
static gboolean
collect_macs_cb(GntConfigRecord *record, gpointer user_data)
{
	const GntInstance *instance = gnt_config_record_peek_instance(record);
	JsonObject *json = NULL;
	JsonArray *nics = NULL;

	if (instance != NULL) {
		for (guint i = 0; i < instance->nics->len; i++) {
			const GntNic *nic = g_ptr_array_index(instance->nics, i);

			if (nic->mac != NULL)
				g_hash_table_add(user_data, g_strdup(nic->mac));
		}
		return TRUE;
	}
	json = gnt_config_record_peek_json(record);
	nics = json_object_has_member(json, "nics") ? json_object_get_array_member(json, "nics")
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
	GntDiskTemplate template_value = GNT_DISK_TEMPLATE_DISKLESS;
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
				   : gnt_disk_template_to_string(GNT_DISK_TEMPLATE_DISKLESS);
	if (!string_array_contains(enabled_dt, template)) {
		g_autofree gchar *list = string_array_join(enabled_dt);
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "disk template '%s' is not enabled in the cluster (enabled: %s)",
			    template, list);
		return NULL;
	}
	if (!gnt_disk_template_from_string(template, &template_value, error))
		return NULL;
	disks = gnt_lu_parse_disks(json_node_get_array(gnt_opcode_get_param(op, "disks")), error);
	if (disks == NULL)
		return NULL;
	if (template_value == GNT_DISK_TEMPLATE_DISKLESS && json_array_get_length(disks) > 0) {
		json_array_unref(disks);
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "a diskless instance cannot have disks");
		return NULL;
	}
	if (template_value != GNT_DISK_TEMPLATE_DISKLESS && json_array_get_length(disks) == 0) {
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
		gnt_config_foreach_record(lu_config(lu), GNT_OBJECT_INSTANCE, collect_macs_cb,
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
		gnt_beparams_parse(json_node_get_object(gnt_opcode_get_param(op, "beparams")),
				   FALSE, NULL));
	json_object_set_member(record, "osparams",
			       gnt_json_node_deep_copy(gnt_opcode_get_param(op, "osparams")));
	json_object_set_member(record, "osparams_private",
			       osparams_private != NULL && !JSON_NODE_HOLDS_NULL(osparams_private)
				       ? gnt_json_node_deep_copy(osparams_private)
				       : gnt_json_node_new_object(json_object_new()));
	json_object_set_string_member(record, "admin_state",
				      gnt_admin_state_to_string(GNT_ADMIN_STATE_DOWN));
	json_object_set_string_member(
		record, "admin_state_source",
		gnt_admin_state_source_to_string(GNT_ADMIN_STATE_SOURCE_ADMIN));
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
					       gnt_opcode_get_bool(op, "instance_communication"));
		json_object_set_object_member(record, "communication_nic", comm);
		if (user_data != NULL && !JSON_NODE_HOLDS_NULL(user_data) &&
		    json_node_get_string(user_data)[0] != '\0')
			json_object_set_member(record, "user_data",
					       gnt_json_node_deep_copy(user_data));
		if (keys != NULL && !JSON_NODE_HOLDS_NULL(keys))
			json_object_set_member(record, "ssh_keys", gnt_json_node_deep_copy(keys));
	}
	/* what the install is to do; none for an import or --no-install */
	if (!gnt_lu_backup_is_import(op) && !gnt_opcode_get_flag(op, "no_install")) {
		JsonObject *install = gnt_install_params_new(
			gnt_opcode_get_string(op, "install_mode"),
			gnt_lu_object_or_null(gnt_opcode_get_param(op, "install_hvparams")));

		gnt_install_set_os_image(install, gnt_install_op_os_image(op),
					 gnt_opcode_get_string(op, "os_image_sha256"));
		json_object_set_object_member(record, "install", install);
		if (!gnt_lu_image_resolve_install(lu, install, gnt_install_op_os_image(op),
						  gnt_opcode_get_string(op, "os_image_sha256"),
						  error))
			return NULL;
		gnt_lu_instance_kickstart_set_template(record, op);
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
	if (gnt_record_get_flag(node, "drained", FALSE)) {
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
	/* the plan: the templates the tags select (the node must allow them)
	 * and the cluster's policy, before asking the node anything */
	if (gnt_install_get(record) != NULL &&
	    !gnt_install_attach_plan(lu_config(lu), record, node, error))
		return FALSE;
	/* the OS must exist on the node even when nothing is installed now
	 * (--no-install): a later reinstall or export runs its scripts */
	if (gnt_opcode_get_string(op, "os_type") != NULL) {
		GntRpcClient *rpc = gnt_lu_get_rpc(lu, error);
		g_autoptr(GntSecretDict) secret = gnt_lu_dup_osparams_secret(lu);

		if (rpc == NULL || !gnt_lu_check_osparams_secret(lu, error) ||
		    !gnt_lu_check_os(lu, rpc, node, gnt_opcode_get_string(op, "os_type"),
				     gnt_lu_record_object(record, "osparams"),
				     gnt_lu_record_object(record, "osparams_private"), secret,
				     error))
			return FALSE;
		if (!gnt_opcode_get_flag(op, "no_install") &&
		    !gnt_lu_choose_install_where(lu, rpc, node, record,
						 gnt_opcode_get_param(op, "enable_safe_install"),
						 error))
			return FALSE;
	}
	/* what each step of the plan cannot do is refused now, before
	 * anything is made */
	if (gnt_install_get(record) != NULL) {
		g_autoptr(GntInstall) install =
			gnt_install_new(lu, GNT_INSTALL_CREATE, node, record, NULL, FALSE);

		if (!gnt_install_check(install, error) ||
		    !gnt_lu_instance_kickstart_check(lu, record, error))
			return FALSE;
	} else if (gnt_opcode_get_bool(op, "print_kickstart") ||
		   gnt_opcode_get_string(op, "ks_template") != NULL) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "an instance that installs nothing has no kickstart");
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
		if (!gnt_lu_instance_store_state(lu, stored, GNT_ADMIN_STATE_UP, NULL, error))
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
	g_autoptr(GntSecretDict) secret = gnt_lu_dup_osparams_secret(lu);
	g_autoptr(GntInstall)
		install = gnt_install_new(lu, GNT_INSTALL_CREATE, node, stored, secret, start);
	g_autoptr(JsonObject) state = NULL;
	g_autoptr(JsonObject) changes = NULL;

	/* a restarted master takes the install up where it waited */
	if (gnt_lu_get_resume(lu) != NULL)
		gnt_install_resume_from(install, gnt_lu_get_resume(lu));

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
	changes = gnt_install_dup_changes(install);
	if (json_object_get_size(changes) > 0 &&
	    !gnt_lu_instance_store_members(lu, json_object_get_string_member(stored, "uuid"),
					   changes, error))
		return FALSE;
	state = gnt_install_dup_state(install);
	return gnt_lu_instance_store_state(
		lu, stored, gnt_install_booted(install) ? GNT_ADMIN_STATE_UP : GNT_ADMIN_STATE_LAST,
		state, error);
}

static JsonNode *
create_finish(GntLu *lu, GntRpcClient *rpc, JsonObject *node, JsonObject *stored, gboolean start,
	      GError **error);

static JsonNode *
create_exec(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	CreateCtx *ctx = gnt_lu_get_data(lu);
	JsonObject *node = ctx->node;
	JsonObject *record = ctx->record;
	GntRpcClient *rpc = gnt_lu_get_rpc(lu, error);
	g_autoptr(JsonObject) stored = NULL;
	gboolean start = gnt_opcode_get_bool(op, "start");

	if (gnt_opcode_get_bool(op, "print_plan"))
		return gnt_lu_install_plan_result(record);
	if (rpc == NULL)
		return NULL;
	if (gnt_opcode_get_flag(op, "no_install") && start) {
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
	return create_finish(lu, rpc, node, stored, start, error);
}

/* After a master restart while the create's install waited on its node
 * (gnt_lu_set_resume(), doc/install.md "Master restarts"): the record this
 * job stored, the install taken up at its session, then the rest of
 * exec. */
static JsonNode *
create_resume(GntLu *lu, GError **error)
{
	const GntOpcode *op = gnt_lu_get_opcode(lu);
	const gchar *name = gnt_opcode_get_string(op, "instance_name");
	g_autofree gchar *node_name = create_dup_node_name(lu);
	g_autoptr(JsonObject) node = NULL;
	g_autoptr(JsonObject) stored = NULL;
	GntRecoveryOp marked = GNT_RECOVERY_REMOVE;
	guint64 job_id = 0;
	GntRpcClient *rpc;

	node = gnt_lu_dup_node(lu_config(lu), node_name, error);
	if (node == NULL)
		return NULL;
	stored = gnt_config_dup_object(lu_config(lu), GNT_OBJECT_INSTANCE, name, error);
	if (stored == NULL)
		return NULL;
	if (!gnt_recovery_get_mark(stored, &marked, &job_id) || marked != GNT_RECOVERY_CREATE ||
	    job_id != gnt_lu_get_job_id(lu) || gnt_install_get(stored) == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
			    "instance '%s' is no longer the one this job was creating", name);
		return NULL;
	}
	rpc = gnt_lu_get_rpc(lu, error);
	if (rpc == NULL)
		return NULL;
	gnt_lu_feedback(lu, "taking the install of %s up again at its appliance session", name);
	return create_finish(
		lu, rpc, node, stored,
		gnt_opcode_get_bool(op, "start") && !gnt_opcode_get_flag(op, "no_install"), error);
}

/* What exec does once the record is stored: the install (or the disks
 * alone), the mark cleared, metad told. */
static JsonNode *
create_finish(GntLu *lu, GntRpcClient *rpc, JsonObject *node, JsonObject *stored, gboolean start,
	      GError **error)
{
	gboolean ok;
	JsonArray *result;

	if (gnt_install_get(stored) != NULL)
		ok = create_exec_install(lu, rpc, node, stored, start, error);
	else
		ok = create_exec_without_install(lu, rpc, node, stored, start, error);
	if (!ok || !instance_clear_mark(lu, json_object_get_string_member(stored, "uuid"), error))
		return NULL;
	if (gnt_lu_instance_has_communication(stored)) {
		g_autoptr(GntSecretDict) secret = gnt_lu_dup_osparams_secret(lu);

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
	.resume = create_resume,
};
