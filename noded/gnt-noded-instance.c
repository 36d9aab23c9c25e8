/* noded's node and instance procedures: node_info, instance_list and the
 * instance's life (start, shutdown, reboot, console) through the node's
 * hypervisors, with the disks its store gives. doc/node-rpc.md has the
 * arguments and results. */
#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

#include "gnt-error.h"
#include "gnt-hv-params.h"
#include "gnt-json.h"
#include "gnt-noded-appliance.h"
#include "gnt-noded-private.h"

/* --- node_info ---------------------------------------------------------- */

/* MemTotal and MemAvailable of /proc/meminfo, in MiB. */
static gboolean
read_meminfo(guint64 *total_mib, guint64 *free_mib, GError **error)
{
	g_autofree gchar *data = NULL;
	g_auto(GStrv) lines = NULL;
	guint found = 0;

	if (!g_file_get_contents("/proc/meminfo", &data, NULL, error)) {
		gnt_error_convert(error);
		return FALSE;
	}
	lines = g_strsplit(data, "\n", -1);
	for (guint i = 0; lines[i] != NULL; i++) {
		guint64 kib = 0;

		if (sscanf(lines[i], "MemTotal: %" G_GUINT64_FORMAT " kB", &kib) == 1) {
			*total_mib = kib / 1024;
			found |= 1;
		} else if (sscanf(lines[i], "MemAvailable: %" G_GUINT64_FORMAT " kB", &kib) == 1) {
			*free_mib = kib / 1024;
			found |= 2;
		}
	}
	if (found != 3) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    "/proc/meminfo lacks MemTotal or MemAvailable");
		return FALSE;
	}
	return TRUE;
}

/* Whether the hypervisor @name (a known one) works here: made, and (kvm)
 * libvirt answers; the reason it does not goes to the log. */
static gboolean
hypervisor_is_available(GntRpcNode *node, const gchar *name)
{
	g_autoptr(GError) local = NULL;
	g_autoptr(GntHypervisor) hv = NULL;
	g_autoptr(GPtrArray) names = NULL;

	hv = gnt_rpc_node_get_hypervisor(node, name, &local);
	if (hv != NULL)
		names = gnt_hypervisor_list(hv, &local);
	if (names == NULL)
		g_info("hypervisor '%s' is not available: %s", name, local->message);
	return names != NULL;
}

/* One storage report; a store that can not be read reports the reason. */
static void
add_storage_report(JsonBuilder *builder, GntDiskTemplate template, const GntDiskStoreParams *params)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntDiskStore) store = gnt_disk_store_new(template, params, &error);

	/* writes nothing when it fails */
	if (store != NULL && gnt_disk_store_space_to_json(store, builder, &error))
		return;
	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "type");
	json_builder_add_string_value(builder,
				      template == GNT_DISK_TEMPLATE_PLAIN ? "lvm-vg" : "file");
	json_builder_set_member_name(builder, "name");
	json_builder_add_string_value(builder, template == GNT_DISK_TEMPLATE_PLAIN
						       ? params->vg_name
						       : params->file_storage_dir);
	json_builder_set_member_name(builder, "storage_size");
	json_builder_add_int_value(builder, 0);
	json_builder_set_member_name(builder, "storage_free");
	json_builder_add_int_value(builder, 0);
	json_builder_set_member_name(builder, "error");
	json_builder_add_string_value(builder, error->message);
	json_builder_end_object(builder);
}

static gboolean
add_storage_reports(JsonBuilder *builder, JsonObject *storage, GError **error)
{
	GntDiskStoreParams params = {NULL};
	JsonNode *vg = json_object_get_member(storage, "volume_group_name");
	JsonNode *dir = json_object_get_member(storage, "file_storage_dir");

	if ((vg != NULL && !JSON_NODE_HOLDS_NULL(vg) &&
	     !gnt_json_get_string(storage, "volume_group_name", &params.vg_name, error)) ||
	    (dir != NULL && !JSON_NODE_HOLDS_NULL(dir) &&
	     !gnt_json_get_string(storage, "file_storage_dir", &params.file_storage_dir, error))) {
		g_prefix_error(error, "storage: ");
		return FALSE;
	}
	json_builder_set_member_name(builder, "storage");
	json_builder_begin_array(builder);
	if (params.vg_name != NULL)
		add_storage_report(builder, GNT_DISK_TEMPLATE_PLAIN, &params);
	if (params.file_storage_dir != NULL)
		add_storage_report(builder, GNT_DISK_TEMPLATE_FILE, &params);
	json_builder_end_array(builder);
	return TRUE;
}

static JsonNode *
node_info_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	GntRpcNode *node = user_data;
	const gchar *const *hypervisors = gnt_rpc_args_get_strv(args, "hypervisors");
	JsonObject *storage = gnt_rpc_args_get_object(args, "storage");
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autofree gchar *boot_id = NULL;
	guint64 total = 0, free_mib = 0;

	if (!read_meminfo(&total, &free_mib, error))
		return NULL;
	for (guint i = 0; hypervisors[i] != NULL; i++) {
		if (!gnt_hv_check_name(hypervisors[i], error))
			return NULL;
	}
	if (!g_file_get_contents("/proc/sys/kernel/random/boot_id", &boot_id, NULL, error)) {
		gnt_error_convert(error);
		return NULL;
	}
	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "memory_total");
	json_builder_add_int_value(builder, (gint64)total);
	json_builder_set_member_name(builder, "memory_free");
	json_builder_add_int_value(builder, (gint64)free_mib);
	json_builder_set_member_name(builder, "cpu_count");
	json_builder_add_int_value(builder, g_get_num_processors());
	json_builder_set_member_name(builder, "bootid");
	json_builder_add_string_value(builder, g_strstrip(boot_id));
	json_builder_set_member_name(builder, "hypervisors");
	json_builder_begin_object(builder);
	for (guint i = 0; hypervisors[i] != NULL; i++) {
		json_builder_set_member_name(builder, hypervisors[i]);
		json_builder_add_boolean_value(builder,
					       hypervisor_is_available(node, hypervisors[i]));
	}
	json_builder_end_object(builder);
	if (!add_storage_reports(builder, storage, error))
		return NULL;
	json_builder_end_object(builder);
	return json_builder_get_root(builder);
}

/* --- instance_list ------------------------------------------------------ */

static gboolean
list_hypervisor(GntRpcNode *node, const gchar *name, JsonBuilder *builder, GError **error)
{
	g_autoptr(GntHypervisor) hv = gnt_rpc_node_get_hypervisor(node, name, error);
	g_autoptr(GPtrArray) names = hv != NULL ? gnt_hypervisor_list(hv, error) : NULL;

	if (names == NULL)
		return FALSE;
	for (guint i = 0; i < names->len; i++) {
		g_autoptr(GError) local = NULL;
		const gchar *instance = g_ptr_array_index(names, i);
		g_autoptr(GntHvInfo) info = gnt_hypervisor_get_info(hv, instance, &local);

		if (info == NULL) {
			/* stopped between the list and now */
			if (g_error_matches(local, GNT_ERROR, GNT_ERROR_NOT_FOUND))
				continue;
			g_propagate_error(error, g_steal_pointer(&local));
			return FALSE;
		}
		json_builder_set_member_name(builder, instance);
		json_builder_begin_object(builder);
		json_builder_set_member_name(builder, "state");
		json_builder_add_string_value(builder, gnt_hv_state_to_string(info->state));
		json_builder_set_member_name(builder, "memory");
		json_builder_add_int_value(builder, (gint64)info->memory_mib);
		json_builder_set_member_name(builder, "vcpus");
		json_builder_add_int_value(builder, info->vcpus);
		json_builder_set_member_name(builder, "uptime");
		json_builder_add_int_value(builder, (gint64)info->uptime_s);
		json_builder_set_member_name(builder, "hypervisor");
		json_builder_add_string_value(builder, name);
		json_builder_end_object(builder);
	}
	return TRUE;
}

static JsonNode *
instance_list_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	const gchar *const *hypervisors = gnt_rpc_args_get_strv(args, "hypervisors");
	g_autoptr(JsonBuilder) builder = json_builder_new();

	json_builder_begin_object(builder);
	for (guint i = 0; hypervisors[i] != NULL; i++) {
		if (!list_hypervisor(user_data, hypervisors[i], builder, error))
			return NULL;
	}
	json_builder_end_object(builder);
	return json_builder_get_root(builder);
}

/* --- the instance's life ------------------------------------------------ */

static gboolean
hv_instance_add_disks(GntHvInstance *inst, GntRpcNodeSpec *spec, GError **error)
{
	g_autoptr(GPtrArray) paths = gnt_rpc_node_spec_dup_disk_paths(spec, error);

	if (paths == NULL)
		return FALSE;
	for (guint i = 0; i < spec->disks->len; i++) {
		const GntDiskSpec *disk = g_ptr_array_index(spec->disks, i);
		GntHvDisk *hv_disk = gnt_hv_disk_new(g_ptr_array_index(paths, i),
						     gnt_disk_store_get_format(spec->store, disk) ==
								     GNT_DISK_FORMAT_QCOW2
							     ? GNT_HV_DISK_FORMAT_QCOW2
							     : GNT_HV_DISK_FORMAT_RAW);

		const GntDisk *record = g_ptr_array_index(spec->instance->disks, i);

		gnt_hv_instance_add_disk(inst, hv_disk);
		hv_disk->read_only = record->mode == GNT_DISK_MODE_RO;
	}
	return TRUE;
}

/* One NIC as the hypervisor takes it: its MAC, mode (bridged when unset;
 * the hypervisors have no openvswitch) and link. */
static GntHvNic *
hv_nic_from_record(const GntNic *nic, GError **error)
{
	GntHvNicMode mode = GNT_HV_NIC_MODE_BRIDGED;

	if (nic->has_mode) {
		switch (nic->mode) {
		case GNT_NIC_MODE_BRIDGED:
			break;
		case GNT_NIC_MODE_ROUTED:
			mode = GNT_HV_NIC_MODE_ROUTED;
			break;
		case GNT_NIC_MODE_OPENVSWITCH:
		case GNT_NIC_MODE_LAST:
		default:
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "unknown nic mode '%s'",
				    gnt_nic_mode_to_string(nic->mode));
			return NULL;
		}
	}
	return gnt_hv_nic_new(nic->mac, mode,
			      nic->link != NULL && nic->link[0] != '\0' ? nic->link : NULL);
}

static gboolean
hv_instance_add_nics(GntHvInstance *inst, GntRpcNodeSpec *spec, GError **error)
{
	GPtrArray *nics = spec->instance->nics;

	for (guint i = 0; i < nics->len; i++) {
		GntHvNic *nic = hv_nic_from_record(g_ptr_array_index(nics, i), error);

		if (nic == NULL) {
			g_prefix_error(error, "NIC %u of instance '%s': ", i, spec->name);
			return FALSE;
		}
		gnt_hv_instance_add_nic(inst, nic);
	}
	return TRUE;
}

/* What the hypervisor boots: the spec's memory, vCPUs, hvparams, the disk
 * paths of the node's store, and the console log under <log>/console. */
static GntHvInstance *
hv_instance_from_spec(GntRpcNode *node, GntRpcNodeSpec *spec, GError **error)
{
	g_autoptr(GntHvInstance) inst = gnt_hv_instance_new(spec->name, spec->uuid);
	g_autoptr(GHashTable)
		hvparams = gnt_hv_params_from_json(spec->hypervisor, spec->hvparams, error);
	g_autofree gchar *log_name = g_strconcat(spec->name, ".log", NULL);
	GHashTableIter iter;
	gpointer key, value;

	if (hvparams == NULL) {
		g_prefix_error(error, "instance '%s': ", spec->name);
		return NULL;
	}
	inst->memory_mib = spec->memory_mib;
	inst->vcpus = spec->vcpus;
	g_hash_table_iter_init(&iter, hvparams);
	while (g_hash_table_iter_next(&iter, &key, &value))
		gnt_hv_instance_set_hvparam(inst, key, value);
	if (!hv_instance_add_disks(inst, spec, error) || !hv_instance_add_nics(inst, spec, error))
		return NULL;
	if (g_mkdir_with_parents(node->console_dir, 0750) != 0) {
		gnt_error_set_errno(error, errno, node->console_dir);
		g_prefix_error(error, "instance '%s': console log directory: ", spec->name);
		return NULL;
	}
	inst->console_log = g_build_filename(node->console_dir, log_name, NULL);
	inst->state_dir = gnt_rpc_node_dup_instance_state_dir(node, spec, error);
	if (inst->state_dir == NULL)
		return NULL;
	return g_steal_pointer(&inst);
}

/* The spec of argument 0 and its hypervisor. */
static GntRpcNodeSpec *
parse_spec_and_hypervisor(GntRpcNode *node, const GntRpcArgs *args, GntHypervisor **hv,
			  GError **error)
{
	g_autoptr(GntRpcNodeSpec) spec = gnt_rpc_node_spec_parse(args, error);

	if (spec == NULL)
		return NULL;
	*hv = gnt_rpc_node_get_hypervisor(node, spec->hypervisor, error);
	if (*hv == NULL) {
		g_prefix_error(error, "instance '%s': ", spec->name);
		return NULL;
	}
	return g_steal_pointer(&spec);
}

static JsonNode *
instance_start_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	g_autoptr(GntHypervisor) hv = NULL;
	g_autoptr(GntRpcNodeSpec) spec = NULL;
	g_autoptr(GntHvInstance) inst = NULL;
	gboolean paused = gnt_rpc_args_get_bool(args, "paused");
	gboolean communication = FALSE;
	gboolean opened = FALSE;
	const gchar *mac = NULL, *ip = NULL;

	spec = parse_spec_and_hypervisor(user_data, args, &hv, error);
	inst = spec != NULL ? hv_instance_from_spec(user_data, spec, error) : NULL;
	if (inst == NULL ||
	    !gnt_rpc_node_spec_get_communication(spec, &communication, &mac, &ip, error))
		return NULL;
	if (communication) {
		/* the channel, its NIC the last (metad has the record from the
		 * master); one still open (the instance runs) is used as it is */
		inst->channel = gnt_rpc_node_channel_dup_nic(user_data, spec->name, mac);
		if (inst->channel == NULL) {
			inst->channel = gnt_rpc_node_channel_open(user_data, spec->hypervisor,
								  spec->name, mac, ip, error);
			if (inst->channel == NULL)
				return NULL;
			opened = TRUE;
		}
	}
	if (!gnt_hypervisor_start(hv, inst, paused, error)) {
		if (opened)
			gnt_rpc_node_channel_close(user_data, spec->name);
		return NULL;
	}
	g_info("instance '%s' started%s", spec->name, paused ? " (paused)" : "");
	return gnt_json_node_new_null();
}

static JsonNode *
instance_shutdown_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	g_autoptr(GntHypervisor) hv = NULL;
	g_autoptr(GntRpcNodeSpec) spec = NULL;
	JsonObject *result;
	guint timeout_s = (guint)gnt_rpc_args_get_uint(args, "timeout");
	gboolean forced = FALSE;
	g_autoptr(GError) local_error = NULL;

	spec = parse_spec_and_hypervisor(user_data, args, &hv, error);
	if (spec == NULL)
		return NULL;
	if (!gnt_hypervisor_shutdown(hv, spec->name, timeout_s, &forced, &local_error)) {
		/* not running: its channel, if any, has no user left */
		if (g_error_matches(local_error, GNT_ERROR, GNT_ERROR_NOT_FOUND))
			gnt_rpc_node_channel_close(user_data, spec->name);
		g_propagate_error(error, g_steal_pointer(&local_error));
		return NULL;
	}
	gnt_rpc_node_channel_close(user_data, spec->name);
	g_info("instance '%s' %s", spec->name,
	       forced ? "destroyed after the timeout" : "shut down");
	result = json_object_new();
	json_object_set_member(result, "forced", gnt_json_node_new_bool(forced));
	return gnt_json_node_new_object(result);
}

static JsonNode *
instance_reboot_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	g_autoptr(GntHypervisor) hv = NULL;
	g_autoptr(GntRpcNodeSpec) spec = NULL;
	g_autoptr(GntHvInstance) inst = NULL;
	GntHvRebootType type = GNT_HV_REBOOT_SOFT;
	gboolean communication = FALSE;
	const gchar *mac = NULL, *ip = NULL;
	const gchar *type_name = gnt_rpc_args_get_string(args, "reboot_type");
	guint timeout_s = (guint)gnt_rpc_args_get_uint(args, "timeout");

	if (!gnt_hv_reboot_type_from_string(type_name, &type, error))
		return NULL;
	spec = parse_spec_and_hypervisor(user_data, args, &hv, error);
	inst = spec != NULL ? hv_instance_from_spec(user_data, spec, error) : NULL;
	if (inst == NULL ||
	    !gnt_rpc_node_spec_get_communication(spec, &communication, &mac, &ip, error))
		return NULL;
	if (communication)
		inst->channel = gnt_rpc_node_channel_dup_nic(user_data, spec->name, mac);
	if (communication && inst->channel == NULL && type != GNT_HV_REBOOT_SOFT) {
		/* a restart from the record: the channel it lost comes back */
		inst->channel = gnt_rpc_node_channel_open(user_data, spec->hypervisor, spec->name,
							  mac, ip, error);
		if (inst->channel == NULL)
			return NULL;
	}
	if (!gnt_hypervisor_reboot(hv, inst, type, timeout_s, error))
		return NULL;
	g_info("instance '%s' rebooted (%s)", spec->name, type_name);
	return gnt_json_node_new_null();
}

/* The first @n_lines of the console log as a list; none without a log. */
static JsonNode *
console_lines(const GntHvConsole *console, guint n_lines, GError **error)
{
	g_autoptr(GError) local = NULL;
	g_autofree gchar *text = NULL;
	g_auto(GStrv) lines = NULL;
	JsonArray *array = json_array_new();

	if (console->log == NULL || n_lines == 0)
		return gnt_json_node_new_array(array);
	text = gnt_hv_console_read_log(console, n_lines, &local);
	if (text == NULL && !g_error_matches(local, GNT_ERROR, GNT_ERROR_NOT_FOUND)) {
		json_array_unref(array);
		g_propagate_error(error, g_steal_pointer(&local));
		return NULL;
	}
	lines = g_strsplit(text != NULL ? text : "", "\n", -1);
	for (guint i = 0; lines[i] != NULL && i < n_lines; i++) {
		/* the text ends with a newline: no empty line after it */
		if (lines[i + 1] == NULL && lines[i][0] == '\0')
			break;
		json_array_add_string_element(array, lines[i]);
	}
	return gnt_json_node_new_array(array);
}

static JsonNode *
instance_console_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	g_autoptr(GntHypervisor) hv = NULL;
	g_autoptr(GntRpcNodeSpec) spec = NULL;
	g_autoptr(GntHvConsole) console = NULL;
	JsonObject *result;
	JsonArray *command;
	JsonNode *lines;
	guint n_lines = (guint)gnt_rpc_args_get_uint(args, "lines");

	spec = parse_spec_and_hypervisor(user_data, args, &hv, error);
	console = spec != NULL ? gnt_hypervisor_get_console(hv, spec->name, error) : NULL;
	lines = console != NULL ? console_lines(console, n_lines, error) : NULL;
	if (lines == NULL)
		return NULL;
	command = json_array_new();
	for (guint i = 0; console->command != NULL && console->command[i] != NULL; i++)
		json_array_add_string_element(command, console->command[i]);
	result = json_object_new();
	json_object_set_member(result, "kind",
			       gnt_json_node_new_string(console->pty != NULL ? "pty" : "none"));
	json_object_set_member(result, "pty",
			       console->pty != NULL ? gnt_json_node_new_string(console->pty)
						    : gnt_json_node_new_null());
	json_object_set_member(result, "log",
			       console->log != NULL ? gnt_json_node_new_string(console->log)
						    : gnt_json_node_new_null());
	json_object_set_member(result, "command", gnt_json_node_new_array(command));
	json_object_set_member(result, "lines", lines);
	return gnt_json_node_new_object(result);
}

const GntRpcProcedure gnt_rpc_node_instance_procedures[] = {
	{"node_info", node_info_procedure},
	{"instance_list", instance_list_procedure},
	{"instance_start", instance_start_procedure},
	{"instance_shutdown", instance_shutdown_procedure},
	{"instance_reboot", instance_reboot_procedure},
	{"instance_console", instance_console_procedure},
	{NULL},
};
