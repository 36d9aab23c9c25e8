/* gnt-instance: instance-related commands, after Ganeti's
 * lib/client/gnt_instance.py. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gnt-records.h"
#include "gnt-cli-create.h"
#include "gnt-cli-objects.h"
#include "gnt-cli-plan.h"
#include "gnt-json.h"
#include "gnt-opcode.h"
#include "gnt-size.h"

/* ---- list, list-fields ---- */

static const gchar *const list_default_fields[] = {
	"name", "hypervisor", "os", "pnode", "status", "oper_ram", NULL,
};

/* ListInstances' fmtoverride: lists joined with "," */
static const GntCliFormatOverride list_overrides[] = {
	{"tags", gnt_cli_format_comma_list, FALSE},
	{"disk.sizes", gnt_cli_format_comma_list, FALSE},
	{"nic.macs", gnt_cli_format_comma_list, FALSE},
	{"nic.ips", gnt_cli_format_comma_list, FALSE},
	{"nic.modes", gnt_cli_format_comma_list, FALSE},
	{"nic.links", gnt_cli_format_comma_list, FALSE},
	{"nic.bridges", gnt_cli_format_comma_list, FALSE},
	{"nic.networks", gnt_cli_format_comma_list, FALSE},
	{"snodes", gnt_cli_format_comma_list, FALSE},
	{"snodes.group", gnt_cli_format_comma_list, FALSE},
	{"snodes.group.uuid", gnt_cli_format_comma_list, FALSE},
	{NULL},
};

static const GntCliListSpec list_spec = {"instance", list_default_fields, list_overrides};

/* ---- info ---- */

static gboolean opt_all;
static gboolean opt_static;

static const GOptionEntry info_entries[] = {
	{"all", 0, 0, G_OPTION_ARG_NONE, &opt_all, "Show info on all instances on the cluster",
	 NULL},
	{"static", 's', 0, G_OPTION_ARG_NONE, &opt_static,
	 "Only show configuration data, not runtime data", NULL},
	{NULL},
};

/* What _FormatInstanceInfo shows, as Query fields (Ganeti asks
 * OpInstanceQueryData; these carry the same facts). */
enum {
	INFO_NAME,
	INFO_UUID,
	INFO_SERIAL,
	INFO_CTIME,
	INFO_MTIME,
	INFO_ADMIN_STATE,
	INFO_OPER_STATE,
	INFO_PNODE,
	INFO_PNODE_GROUP,
	INFO_PNODE_GROUP_UUID,
	INFO_SNODES,
	INFO_SNODES_GROUP,
	INFO_SNODES_GROUP_UUID,
	INFO_OS,
	INFO_CUSTOM_OSPARAMS,
	INFO_OSPARAMS,
	INFO_NETWORK_PORT,
	INFO_HYPERVISOR,
	INFO_CUSTOM_HVPARAMS,
	INFO_HVPARAMS,
	INFO_CUSTOM_BEPARAMS,
	INFO_BEPARAMS,
	INFO_NIC_MACS,
	INFO_NIC_IPS,
	INFO_NIC_MODES,
	INFO_NIC_LINKS,
	INFO_NIC_VLANS,
	INFO_NIC_NETWORKS,
	INFO_NIC_UUIDS,
	INFO_NIC_NAMES,
	INFO_DISK_TEMPLATE,
	INFO_DISK_SIZES,
	INFO_DISK_NAMES,
	INFO_DISK_UUIDS,
	INFO_N_FIELDS
};

static const gchar *const info_fields[] = {
	"name",
	"uuid",
	"serial_no",
	"ctime",
	"mtime",
	"admin_state",
	"oper_state",
	"pnode",
	"pnode.group",
	"pnode.group.uuid",
	"snodes",
	"snodes.group",
	"snodes.group.uuid",
	"os",
	"custom_osparams",
	"osparams",
	"network_port",
	"hypervisor",
	"custom_hvparams",
	"hvparams",
	"custom_beparams",
	"beparams",
	"nic.macs",
	"nic.ips",
	"nic.modes",
	"nic.links",
	"nic.vlans",
	"nic.networks.names",
	"nic.uuids",
	"nic.names",
	"disk_template",
	"disk.sizes",
	"disk.names",
	"disk.uuids",
	NULL,
};
G_STATIC_ASSERT(G_N_ELEMENTS(info_fields) == INFO_N_FIELDS + 1);

static void
add_str(GntCliInfo *info, const gchar *key, JsonNode *value)
{
	g_autofree gchar *text = gnt_cli_py_str(value);

	gnt_cli_info_add_text(info, key, text);
}

static void
add_time(GntCliInfo *info, const gchar *key, JsonNode *value)
{
	g_autofree gchar *text =
		value != NULL && gnt_json_node_is_number(value)
			? gnt_cli_format_time((gint64)json_node_get_double(value), -1)
			: gnt_cli_py_str(value);

	gnt_cli_info_add_text(info, key, text);
}

static void
add_params(GntCliInfo *info, const gchar *key, JsonNode *custom, JsonNode *actual)
{
	g_autoptr(JsonNode) params = gnt_cli_format_params(custom, actual);

	gnt_cli_info_add(info, key, NULL, gnt_cli_info_new_json(params));
}

/* _FormatInstanceNodesInfo */
static GntCliInfo *
nodes_info(JsonNode **values)
{
	GntCliInfo *nodes = gnt_cli_info_new_list();
	GntCliInfo *primary = gnt_cli_info_new_dict();
	GntCliInfo *secondaries = gnt_cli_info_new_dict();
	g_autofree gchar *group = gnt_cli_py_str(values[INFO_PNODE_GROUP]);
	g_autofree gchar *group_uuid = gnt_cli_py_str(values[INFO_PNODE_GROUP_UUID]);
	g_autoptr(GString) secs = g_string_new(NULL);

	add_str(primary, "primary", values[INFO_PNODE]);
	gnt_cli_info_add_printf(primary, "group", "%s (UUID %s)", group, group_uuid);
	for (guint i = 0; i < gnt_cli_list_length(values[INFO_SNODES]); i++) {
		g_autofree gchar *name = gnt_cli_py_str(gnt_cli_list_item(values[INFO_SNODES], i));
		g_autofree gchar *sgroup =
			gnt_cli_py_str(gnt_cli_list_item(values[INFO_SNODES_GROUP], i));
		g_autofree gchar *suuid =
			gnt_cli_py_str(gnt_cli_list_item(values[INFO_SNODES_GROUP_UUID], i));

		g_string_append_printf(secs, "%s%s (group %s, group UUID %s)", i > 0 ? ", " : "",
				       name, sgroup, suuid);
	}
	gnt_cli_info_add_text(secondaries, "secondaries", secs->str);
	gnt_cli_info_append(nodes, primary);
	gnt_cli_info_append(nodes, secondaries);
	return nodes;
}

/* _FormatInstanceNicInfo */
static GntCliInfo *
nics_info(JsonNode **values)
{
	static const struct {
		const gchar *key;
		guint field;
	} nic_keys[] = {
		{"MAC", INFO_NIC_MACS},	  {"IP", INFO_NIC_IPS},	    {"mode", INFO_NIC_MODES},
		{"link", INFO_NIC_LINKS}, {"vlan", INFO_NIC_VLANS}, {"network", INFO_NIC_NETWORKS},
		{"UUID", INFO_NIC_UUIDS}, {"name", INFO_NIC_NAMES},
	};
	GntCliInfo *nics = gnt_cli_info_new_list();

	for (guint i = 0; i < gnt_cli_list_length(values[INFO_NIC_MACS]); i++) {
		GntCliInfo *nic = gnt_cli_info_new_dict();
		g_autofree gchar *header = g_strdup_printf("nic/%u", i);

		gnt_cli_info_add_text(nic, header, "");
		for (guint k = 0; k < G_N_ELEMENTS(nic_keys); k++)
			add_str(nic, nic_keys[k].key,
				gnt_cli_list_item(values[nic_keys[k].field], i));
		gnt_cli_info_append(nics, nic);
	}
	return nics;
}

/* _FormatBlockDevInfo for what the records hold: the type and size, the
 * name and the UUID. */
static GntCliInfo *
disks_info(JsonNode **values)
{
	GntCliInfo *disks = gnt_cli_info_new_list();
	const gchar *template = values[INFO_DISK_TEMPLATE] != NULL &&
						json_node_get_value_type(
							values[INFO_DISK_TEMPLATE]) == G_TYPE_STRING
					? json_node_get_string(values[INFO_DISK_TEMPLATE])
					: "?";

	for (guint i = 0; i < gnt_cli_list_length(values[INFO_DISK_SIZES]); i++) {
		GntCliInfo *disk = gnt_cli_info_new_dict();
		JsonNode *size = gnt_cli_list_item(values[INFO_DISK_SIZES], i);
		g_autofree gchar *header = g_strdup_printf("disk/%u", i);
		g_autofree gchar *nice_size =
			size != NULL && gnt_json_node_is_int(size)
				? gnt_cli_format_unit((gdouble)json_node_get_int(size), 'h')
				: gnt_cli_py_str(size);

		gnt_cli_info_add_printf(disk, header, "%s, size %s", template, nice_size);
		add_str(disk, "name", gnt_cli_list_item(values[INFO_DISK_NAMES], i));
		add_str(disk, "UUID", gnt_cli_list_item(values[INFO_DISK_UUIDS], i));
		gnt_cli_info_append(disks, disk);
	}
	return disks;
}

/* A string member, or @fallback. */
static const gchar *
member_string(JsonObject *obj, const gchar *key, const gchar *fallback)
{
	JsonNode *node = json_object_get_member(obj, key);

	return node != NULL && json_node_get_value_type(node) == G_TYPE_STRING
		       ? json_node_get_string(node)
		       : fallback;
}

/* What an install state means, for the reader. */
static const gchar *
install_state_text(const gchar *state)
{
	static const struct {
		const gchar *state;
		const gchar *text;
	} texts[] = {
		{"done", "done"},
		{"failed", "failed: the instance keeps the disks as the install left them"},
		{"running", "running (or interrupted by a master restart)"},
		{"pending", "pending: the next start boots with the install hypervisor parameters"},
		{"booted", "first boot: its first shutdown ends the install"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(texts); i++) {
		if (g_strcmp0(texts[i].state, state) == 0)
			return texts[i].text;
	}
	return state != NULL ? state : "none yet";
}

/* One step of the last install: "prepare (100): ok in 0.012s". */
static GntCliInfo *
install_step_info(JsonObject *step)
{
	JsonNode *priority = json_object_get_member(step, "priority");
	JsonNode *duration = json_object_get_member(step, "duration");
	const gchar *detail = member_string(step, "detail", NULL);
	g_autoptr(GString) text = g_string_new(NULL);

	g_string_append_printf(text, "%s (%" G_GINT64_FORMAT "): %s",
			       member_string(step, "name", "?"),
			       priority != NULL && gnt_json_node_is_int(priority)
				       ? json_node_get_int(priority)
				       : (gint64)0,
			       member_string(step, "result", "?"));
	if (duration != NULL && gnt_json_node_is_number(duration))
		g_string_append_printf(text, " in %.3fs", json_node_get_double(duration));
	if (detail != NULL)
		g_string_append_printf(text, ", %s", detail);
	/* a template's row: its arguments */
	if (member_string(step, "template", NULL) != NULL) {
		g_autofree gchar *args =
			gnt_cli_plan_format_args(gnt_json_peek_object(step, "args"));

		g_string_append_printf(text, ";%s", args[0] != '\0' ? args : " no arguments");
	}
	return gnt_cli_info_new_text(text->str);
}

/* The storage layout of the last install (install.layout, doc/install.md
 * "Storage layouts"): a line a filesystem, then a line an array. */
static GntCliInfo *
layout_info(JsonObject *layout)
{
	GntCliInfo *items = gnt_cli_info_new_list();
	JsonArray *filesystems = gnt_json_peek_array(layout, "filesystems");
	JsonArray *raids = gnt_json_peek_array(layout, "raids");

	for (guint i = 0; filesystems != NULL && i < json_array_get_length(filesystems); i++) {
		JsonObject *fs = json_array_get_object_element(filesystems, i);
		JsonNode *root = json_object_get_member(fs, "root");

		g_autofree gchar *line = g_strdup_printf(
			"%s (%s): %s on %s, UUID %s%s", member_string(fs, "name", "?"),
			member_string(fs, "device", "?"), member_string(fs, "fstype", "?"),
			member_string(fs, "path", "?"), member_string(fs, "uuid", "?"),
			root != NULL && JSON_NODE_HOLDS_VALUE(root) &&
					json_node_get_value_type(root) == G_TYPE_BOOLEAN &&
					json_node_get_boolean(root)
				? ", root"
				: "");

		gnt_cli_info_append(items, gnt_cli_info_new_text(line));
	}
	for (guint i = 0; raids != NULL && i < json_array_get_length(raids); i++) {
		JsonObject *raid = json_array_get_object_element(raids, i);
		JsonArray *members = gnt_json_peek_array(raid, "members");
		JsonNode *level = json_object_get_member(raid, "level");
		g_autoptr(GString) text = g_string_new(NULL);
		g_autofree gchar *line = NULL;

		for (guint k = 0; members != NULL && k < json_array_get_length(members); k++) {
			JsonNode *m = json_array_get_element(members, k);

			g_string_append_printf(text, "%s%s", k > 0 ? ", " : "",
					       JSON_NODE_HOLDS_VALUE(m) &&
							       json_node_get_value_type(m) ==
								       G_TYPE_STRING
						       ? json_node_get_string(m)
						       : "?");
		}
		line = g_strdup_printf("%s (%s): RAID%" G_GINT64_FORMAT " of %s",
				       member_string(raid, "name", "?"),
				       member_string(raid, "device", "?"),
				       level != NULL && gnt_json_node_is_int(level)
					       ? json_node_get_int(level)
					       : (gint64)-1,
				       text->str);
		gnt_cli_info_append(items, gnt_cli_info_new_text(line));
	}
	return items;
}

/* Gantry's install section: the install parameters, the state, and the
 * steps of the last install (doc/install.md). */
static GntCliInfo *
install_info(JsonObject *install)
{
	GntCliInfo *info = gnt_cli_info_new_dict();
	JsonNode *hvparams = json_object_get_member(install, "hvparams");
	JsonNode *names = json_object_get_member(install, "secret_names");
	JsonNode *end = json_object_get_member(install, "end_time");
	JsonNode *steps = json_object_get_member(install, "steps");
	JsonNode *plan = json_object_get_member(install, "plan");
	JsonNode *ks = json_object_get_member(install, "kickstart");
	JsonNode *layout = json_object_get_member(install, "layout");
	const gchar *mode = member_string(install, "mode", "run");

	gnt_cli_info_add_text(info, "mode", mode);
	gnt_cli_info_add_text(info, "state",
			      install_state_text(member_string(install, "state", NULL)));
	gnt_cli_info_add_text(info, "OS image", member_string(install, "os_image", "none"));
	if (ks != NULL && JSON_NODE_HOLDS_OBJECT(ks)) {
		JsonObject *kickstart = json_node_get_object(ks);

		/* the last install's (doc/kickstart.md) */
		gnt_cli_info_add_printf(info, "kickstart template",
					"%s (the %s's), sha256 %s, for %s",
					member_string(kickstart, "source", "?"),
					member_string(kickstart, "origin", "?"),
					member_string(kickstart, "sha256", "?"),
					member_string(kickstart, "syntax", "?"));
	}
	if (g_strcmp0(mode, "self_install") == 0)
		gnt_cli_info_add(info, "install hypervisor parameters", NULL,
				 gnt_cli_info_new_json(hvparams));
	if (names != NULL && JSON_NODE_HOLDS_ARRAY(names) &&
	    json_array_get_length(json_node_get_array(names)) > 0) {
		JsonArray *list = json_node_get_array(names);
		g_autoptr(GString) text = g_string_new(NULL);

		for (guint i = 0; i < json_array_get_length(list); i++)
			g_string_append_printf(text, "%s%s", i > 0 ? ", " : "",
					       json_array_get_string_element(list, i));
		gnt_cli_info_add_text(info, "secret parameters (give them again to reinstall)",
				      text->str);
	}
	if (end != NULL && gnt_json_node_is_number(end)) {
		g_autofree gchar *when = gnt_cli_format_time((gint64)json_node_get_double(end), -1);
		JsonNode *reinstall = json_object_get_member(install, "reinstall");

		gnt_cli_info_add_printf(info, "last install", "%s, %s, OS %s", when,
					reinstall != NULL &&
							json_node_get_value_type(reinstall) ==
								G_TYPE_BOOLEAN &&
							json_node_get_boolean(reinstall)
						? "a reinstall"
						: "at creation",
					member_string(install, "os", "none"));
	}
	if (member_string(install, "error", NULL) != NULL)
		gnt_cli_info_add_text(info, "error", member_string(install, "error", NULL));
	if (member_string(install, "root_device", NULL) != NULL)
		gnt_cli_info_add_text(info, "root device",
				      member_string(install, "root_device", NULL));
	if (layout != NULL && JSON_NODE_HOLDS_OBJECT(layout))
		gnt_cli_info_add(info, "layout", NULL, layout_info(json_node_get_object(layout)));
	if (plan != NULL && JSON_NODE_HOLDS_OBJECT(plan))
		gnt_cli_info_add(info, "plan", NULL, gnt_cli_plan_info(json_node_get_object(plan)));
	if (steps != NULL && JSON_NODE_HOLDS_ARRAY(steps)) {
		JsonArray *list = json_node_get_array(steps);
		GntCliInfo *items = gnt_cli_info_new_list();

		for (guint i = 0; i < json_array_get_length(list); i++) {
			JsonNode *step = json_array_get_element(list, i);

			if (JSON_NODE_HOLDS_OBJECT(step))
				gnt_cli_info_append(items,
						    install_step_info(json_node_get_object(step)));
		}
		gnt_cli_info_add(info, "steps", NULL, items);
	}
	return info;
}

/* Gantry's metadata section (@metadata: OP_INSTANCE_QUERY_DATA's) */
static GntCliInfo *
metadata_info(JsonObject *metadata)
{
	GntCliInfo *info = gnt_cli_info_new_dict();
	JsonNode *comm = json_object_get_member(metadata, "communication");
	gboolean on = comm != NULL && json_node_get_value_type(comm) == G_TYPE_BOOLEAN &&
		      json_node_get_boolean(comm);
	JsonNode *size = json_object_get_member(metadata, "user_data_size");
	JsonNode *keys = json_object_get_member(metadata, "ssh_keys");

	gnt_cli_info_add_printf(info, "communication", "%s%s%s", on ? "yes" : "no",
				on ? ", address " : "",
				on ? member_string(metadata, "communication_ip", "?") : "");
	gnt_cli_info_add_printf(info, "user data", "%" G_GINT64_FORMAT " bytes",
				size != NULL && gnt_json_node_is_int(size) ? json_node_get_int(size)
									   : (gint64)0);
	gnt_cli_info_add_printf(
		info, "ssh keys", "%" G_GINT64_FORMAT "%s",
		keys != NULL && gnt_json_node_is_int(keys) ? json_node_get_int(keys) : (gint64)0,
		keys != NULL && gnt_json_node_is_int(keys) && json_node_get_int(keys) > 0
			? ""
			: " (the cluster's are served)");
	gnt_cli_info_add_text(info, "OS package", member_string(metadata, "os_package", "none"));
	return info;
}

/* _FormatInstanceInfo, and Gantry's install section (@install: the
 * "install" of OP_INSTANCE_QUERY_DATA; nullable) */
static GntCliInfo *
instance_info(JsonNode **values, JsonObject *install, JsonObject *metadata)
{
	GntCliInfo *info = gnt_cli_info_new_dict();
	g_autofree gchar *admin_state = gnt_cli_py_str(values[INFO_ADMIN_STATE]);
	g_autoptr(JsonNode) be_actual = values[INFO_BEPARAMS] != NULL
						? gnt_json_node_deep_copy(values[INFO_BEPARAMS])
						: NULL;
	JsonNode *oper_state = values[INFO_OPER_STATE];

	add_str(info, "Instance name", values[INFO_NAME]);
	add_str(info, "UUID", values[INFO_UUID]);
	add_str(info, "Serial number", values[INFO_SERIAL]);
	add_time(info, "Creation time", values[INFO_CTIME]);
	add_time(info, "Modification time", values[INFO_MTIME]);
	/* Ganeti's run_state: "up" when the node runs it, else "down" for an
	 * instance meant to run, else its admin state */
	if (!opt_static && oper_state != NULL &&
	    json_node_get_value_type(oper_state) == G_TYPE_BOOLEAN) {
		GntAdminState state = GNT_ADMIN_STATE_LAST;
		gboolean meant_up = admin_state != NULL &&
				    gnt_admin_state_from_string(admin_state, &state, NULL) &&
				    state == GNT_ADMIN_STATE_UP;

		gnt_cli_info_add_printf(
			info, "State", "configured to be %s, actual state is %s", admin_state,
			json_node_get_boolean(oper_state)
				? gnt_admin_state_to_string(GNT_ADMIN_STATE_UP)
				: (meant_up ? gnt_admin_state_to_string(GNT_ADMIN_STATE_DOWN)
					    : admin_state));
	} else
		gnt_cli_info_add_printf(info, "State", "configured to be %s", admin_state);
	gnt_cli_info_add(info, "Nodes", NULL, nodes_info(values));
	add_str(info, "Operating system", values[INFO_OS]);
	add_params(info, "Operating system parameters", values[INFO_CUSTOM_OSPARAMS],
		   values[INFO_OSPARAMS]);
	add_str(info, "Allocated network port", values[INFO_NETWORK_PORT]);
	add_str(info, "Hypervisor", values[INFO_HYPERVISOR]);
	add_params(info, "Hypervisor parameters", values[INFO_CUSTOM_HVPARAMS],
		   values[INFO_HVPARAMS]);
	/* the deprecated "memory", kept by Ganeti for compatibility */
	if (be_actual != NULL && JSON_NODE_HOLDS_OBJECT(be_actual)) {
		JsonObject *be = json_node_get_object(be_actual);
		JsonNode *maxmem = json_object_get_member(be, "maxmem");

		if (maxmem != NULL)
			json_object_set_member(be, "memory", json_node_copy(maxmem));
	}
	add_params(info, "Back-end parameters", values[INFO_CUSTOM_BEPARAMS], be_actual);
	gnt_cli_info_add(info, "NICs", NULL, nics_info(values));
	add_str(info, "Disk template", values[INFO_DISK_TEMPLATE]);
	gnt_cli_info_add(info, "Disks", NULL, disks_info(values));
	if (install != NULL)
		gnt_cli_info_add(info, "Install", NULL, install_info(install));
	if (metadata != NULL)
		gnt_cli_info_add(info, "Metadata", NULL, metadata_info(metadata));
	return info;
}

/* The install of each instance of @rows (their first value is the name),
 * as OP_INSTANCE_QUERY_DATA (static) answers it: {name: {"install": ...}}.
 * Ganeti's info asks that job for everything; here the Query fields carry
 * the rest. (transfer full) */
static JsonObject *
query_installs(GntCli *cli, JsonArray *rows, GError **error)
{
	g_autoptr(JsonArray) ops = json_array_new();
	g_autoptr(JsonArray) results = NULL;
	JsonObject *op = gnt_cli_new_opcode(cli, "OP_INSTANCE_QUERY_DATA");
	JsonArray *names = json_array_new();
	JsonNode *first;
	guint64 job_id = 0;

	for (guint r = 0; r < json_array_get_length(rows); r++) {
		JsonNode *row = json_array_get_element(rows, r);
		JsonNode *name = JSON_NODE_HOLDS_ARRAY(row)
					 ? gnt_cli_row_value(json_node_get_array(row), INFO_NAME)
					 : NULL;

		if (name != NULL && json_node_get_value_type(name) == G_TYPE_STRING)
			json_array_add_string_element(names, json_node_get_string(name));
	}
	json_object_set_array_member(op, "instances", names);
	json_object_set_boolean_member(op, "static", TRUE);
	json_array_add_object_element(ops, op);
	if (!gnt_cli_send_job(cli, g_steal_pointer(&ops), &job_id, error) ||
	    (results = gnt_cli_poll_job(cli, job_id, GNT_CLI_POLL_SILENT, error)) == NULL)
		return NULL;
	first = json_array_get_length(results) > 0 ? json_array_get_element(results, 0) : NULL;
	if (first == NULL || !JSON_NODE_HOLDS_OBJECT(first)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "OP_INSTANCE_QUERY_DATA answered a %s, not an object",
			    gnt_json_node_type_name(first));
		return NULL;
	}
	return json_object_ref(json_node_get_object(first));
}

static gint
show_instance_config(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) response = NULL;
	g_autoptr(GntCliInfo) container = gnt_cli_info_new_list();
	g_autofree gchar *text = NULL;
	g_autoptr(JsonObject) installs = NULL;
	JsonArray *rows = NULL;

	if (args[0] == NULL && !opt_all) {
		g_printerr("No instance selected. Please pass in --all if you want to query all "
			   "instances.\nNote that this can take a long time on a big cluster.\n");
		return 1;
	}
	if (args[0] != NULL && opt_all) {
		g_printerr("Cannot use --all if you specify instance names.\n");
		return 1;
	}
	response = gnt_cli_query(cli, "instance", (gchar **)info_fields, gnt_cli_name_filter(args),
				 &error);
	if (response == NULL || !gnt_json_get_array(response, "data", &rows, &error))
		return gnt_cli_fail(cli, error);
	if (json_array_get_length(rows) == 0) {
		g_print("No instances.\n");
		return 1;
	}
	installs = query_installs(cli, rows, &error);
	if (installs == NULL)
		return gnt_cli_fail(cli, error);
	for (guint r = 0; r < json_array_get_length(rows); r++) {
		JsonNode *row = json_array_get_element(rows, r);
		JsonNode *values[INFO_N_FIELDS];
		JsonObject *entry = NULL;
		JsonObject *install = NULL;
		JsonObject *metadata = NULL;
		const gchar *name;

		if (!JSON_NODE_HOLDS_ARRAY(row) ||
		    json_array_get_length(json_node_get_array(row)) != INFO_N_FIELDS)
			continue;
		for (guint f = 0; f < INFO_N_FIELDS; f++)
			values[f] = gnt_cli_row_value(json_node_get_array(row), f);
		name = values[INFO_NAME] != NULL &&
				       json_node_get_value_type(values[INFO_NAME]) == G_TYPE_STRING
			       ? json_node_get_string(values[INFO_NAME])
			       : NULL;
		if (name != NULL && gnt_json_get_object(installs, name, &entry, NULL)) {
			gnt_json_get_object(entry, "install", &install, NULL);
			if (json_object_has_member(entry, "metadata"))
				gnt_json_get_object(entry, "metadata", &metadata, NULL);
		}
		gnt_cli_info_append(container, instance_info(values, install, metadata));
	}
	text = gnt_cli_info_format(container);
	g_print("%s\n", text);
	return 0;
}

/* ---- add ---- */

static gint
add_instance(GntCli *cli, gchar **args)
{
	return gnt_cli_create_instance(cli, GNT_CLI_CREATE_MODE_CREATE, args[0]);
}

/* ---- remove ---- */

static gboolean opt_force;
static gint opt_shutdown_timeout = GNT_CLI_INT_UNSET;
static gboolean opt_ignore_failures;

static const GOptionEntry remove_entries[] = {
	{"force", 'f', 0, G_OPTION_ARG_NONE, &opt_force, "Force the operation", NULL},
	{"shutdown-timeout", 0, 0, G_OPTION_ARG_INT, &opt_shutdown_timeout,
	 GNT_CLI_PARAM_HELP("OP_INSTANCE_REMOVE", "shutdown_timeout"), "SECONDS"},
	{"ignore-failures", 0, 0, G_OPTION_ARG_NONE, &opt_ignore_failures,
	 "Remove the instance from the cluster configuration even if there are failures during "
	 "the removal process",
	 NULL},
	{NULL},
};

/* QueryInstances(@names, ["name"]): the full names, failing for an unknown
 * one ("Instance name 'x' not found"). (transfer full) */
static GStrv
expand_names(GntCli *cli, gchar **names, GError **error)
{
	g_autoptr(JsonArray) args = json_array_new();
	JsonArray *fields = json_array_new();
	g_autoptr(JsonNode) result = NULL;
	g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func(g_free);
	JsonArray *rows;

	json_array_add_array_element(args, gnt_cli_strv_to_json(names));
	json_array_add_string_element(fields, "name");
	json_array_add_array_element(args, fields);
	json_array_add_boolean_element(args, FALSE);
	result = gnt_cli_call_array(cli, "QueryInstances", g_steal_pointer(&args), error);
	if (result == NULL)
		return NULL;
	rows = JSON_NODE_HOLDS_ARRAY(result) ? json_node_get_array(result) : NULL;
	for (guint i = 0; rows != NULL && i < json_array_get_length(rows); i++) {
		JsonNode *row = json_array_get_element(rows, i);
		JsonNode *name = JSON_NODE_HOLDS_ARRAY(row) &&
						 json_array_get_length(json_node_get_array(row)) ==
							 1
					 ? json_array_get_element(json_node_get_array(row), 0)
					 : NULL;

		if (name != NULL && json_node_get_value_type(name) == G_TYPE_STRING)
			g_ptr_array_add(out, g_strdup(json_node_get_string(name)));
	}
	g_ptr_array_add(out, NULL);
	return (GStrv)g_ptr_array_free(g_steal_pointer(&out), FALSE);
}

static gint
remove_instance(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) ops = json_array_new();
	JsonObject *op;

	if (!opt_force) {
		g_auto(GStrv) names = expand_names(cli, args, &error);
		g_autofree gchar *question = NULL;

		if (names == NULL)
			return gnt_cli_fail(cli, error);
		question = g_strdup_printf("This will remove the volumes of the instance %s "
					   "(including mirrors), thus removing all the data of the "
					   "instance. Continue?",
					   args[0]);
		if (!gnt_cli_ask_user(question))
			return 1;
	}
	op = gnt_cli_new_opcode(cli, "OP_INSTANCE_REMOVE");
	json_object_set_string_member(op, "instance_name", args[0]);
	json_object_set_boolean_member(op, "ignore_failures", opt_ignore_failures);
	gnt_cli_set_int_if_given(op, "shutdown_timeout", opt_shutdown_timeout);
	json_array_add_object_element(ops, op);
	if (!gnt_cli_submit_or_send(cli, g_steal_pointer(&ops), NULL, &error))
		return gnt_cli_fail(cli, error);
	return 0;
}

/* ---- startup, shutdown, reboot ---- */

static gboolean opt_force_multi;
static gboolean opt_ignore_offline;
static gboolean opt_no_remember;
static gboolean opt_paused;
static gchar *opt_hvparams;
static gchar *opt_beparams;
static gint opt_timeout = GNT_CLI_INT_UNSET;
static gchar *opt_reboot_type;
static gboolean opt_ignore_secondaries;

#define FORCE_MULTI_ENTRY                                                                          \
	{                                                                                          \
		"force-multiple", 0, 0, G_OPTION_ARG_NONE, &opt_force_multi,                       \
			"Do not ask for confirmation when more than one instance is affected",     \
			NULL                                                                       \
	}
#define IGNORE_OFFLINE_ENTRY                                                                       \
	{                                                                                          \
		"ignore-offline", 0, 0, G_OPTION_ARG_NONE, &opt_ignore_offline,                    \
			"Ignore offline nodes and do as much as possible", NULL                    \
	}
#define NO_REMEMBER_ENTRY                                                                          \
	{                                                                                          \
		"no-remember", 0, 0, G_OPTION_ARG_NONE, &opt_no_remember,                          \
			"Perform but do not record the change in the configuration", NULL          \
	}

static const GOptionEntry startup_entries[] = {
	{"force", 'f', 0, G_OPTION_ARG_NONE, &opt_force, "Force the operation", NULL},
	FORCE_MULTI_ENTRY,
	IGNORE_OFFLINE_ENTRY,
	NO_REMEMBER_ENTRY,
	{"paused", 0, 0, G_OPTION_ARG_NONE, &opt_paused, "Pause instance at startup", NULL},
	{"hypervisor-parameters", 'H', 0, G_OPTION_ARG_STRING, &opt_hvparams,
	 "Temporary hypervisor parameters", "KEY=VAL,..."},
	{"backend-parameters", 'B', 0, G_OPTION_ARG_STRING, &opt_beparams,
	 "Temporary backend parameters", "KEY=VAL,..."},
	{NULL},
};

static const GOptionEntry shutdown_entries[] = {
	{"force", 'f', 0, G_OPTION_ARG_NONE, &opt_force, "Force the operation", NULL},
	FORCE_MULTI_ENTRY,
	IGNORE_OFFLINE_ENTRY,
	NO_REMEMBER_ENTRY,
	{"timeout", 0, 0, G_OPTION_ARG_INT, &opt_timeout,
	 GNT_CLI_PARAM_HELP("OP_INSTANCE_SHUTDOWN", "timeout"), "SECONDS"},
	{NULL},
};

static const GOptionEntry reboot_entries[] = {
	FORCE_MULTI_ENTRY,
	{"type", 't', 0, G_OPTION_ARG_STRING, &opt_reboot_type,
	 GNT_CLI_PARAM_HELP("OP_INSTANCE_REBOOT", "reboot_type"), "REBOOT"},
	{"ignore-secondaries", 0, 0, G_OPTION_ARG_NONE, &opt_ignore_secondaries,
	 "Ignore errors from secondaries", NULL},
	{"shutdown-timeout", 0, 0, G_OPTION_ARG_INT, &opt_shutdown_timeout,
	 GNT_CLI_PARAM_HELP("OP_INSTANCE_REBOOT", "shutdown_timeout"), "SECONDS"},
	{NULL},
};

typedef JsonObject *(*ManyOpsFunc)(GntCli *cli, const gchar *name, GError **error);

static JsonObject *
startup_opcode(GntCli *cli, const gchar *name, GError **error)
{
	g_autoptr(JsonObject) op = json_object_new();
	JsonObject *params;

	json_object_set_string_member(op, "OP_ID", "OP_INSTANCE_STARTUP");
	json_object_set_string_member(op, "instance_name", name);
	json_object_set_boolean_member(op, "force", opt_force);
	json_object_set_boolean_member(op, "ignore_offline_nodes", opt_ignore_offline);
	json_object_set_boolean_member(op, "no_remember", opt_no_remember);
	json_object_set_boolean_member(op, "startup_paused", opt_paused);
	/* only when given, as Ganeti */
	if (opt_hvparams != NULL) {
		if ((params = gnt_cli_parse_keyval_option(cli, "-H", opt_hvparams, error)) == NULL)
			return NULL;
		json_object_set_object_member(op, "hvparams", params);
	}
	if (opt_beparams != NULL) {
		if ((params = gnt_cli_parse_beparams(cli, opt_beparams, TRUE, error)) == NULL)
			return NULL;
		json_object_set_object_member(op, "beparams", params);
	}
	return g_steal_pointer(&op);
}

static JsonObject *
shutdown_opcode(GntCli *cli, const gchar *name, GError **error)
{
	JsonObject *op = json_object_new();

	json_object_set_string_member(op, "OP_ID", "OP_INSTANCE_SHUTDOWN");
	json_object_set_string_member(op, "instance_name", name);
	json_object_set_boolean_member(op, "force", opt_force);
	gnt_cli_set_int_if_given(op, "timeout", opt_timeout);
	json_object_set_boolean_member(op, "ignore_offline_nodes", opt_ignore_offline);
	json_object_set_boolean_member(op, "no_remember", opt_no_remember);
	return op;
}

static JsonObject *
reboot_opcode(GntCli *cli, const gchar *name, GError **error)
{
	JsonObject *op = json_object_new();

	json_object_set_string_member(op, "OP_ID", "OP_INSTANCE_REBOOT");
	json_object_set_string_member(op, "instance_name", name);
	json_object_set_string_member(
		op, "reboot_type",
		opt_reboot_type != NULL
			? opt_reboot_type
			: gnt_op_param_get_client_default("OP_INSTANCE_REBOOT", "reboot_type"));
	json_object_set_boolean_member(op, "ignore_secondaries", opt_ignore_secondaries);
	gnt_cli_set_int_if_given(op, "shutdown_timeout", opt_shutdown_timeout);
	return op;
}

/* ConfirmOperation for several instances, @extra (a line or "") before
 * the question; no terminal answers no. */
static gboolean
confirm_many(gchar **names, const gchar *operation, const gchar *extra)
{
	guint count = g_strv_length(names);
	g_autoptr(GString) question = g_string_new(NULL);

	g_string_printf(question,
			"The %s will operate on %u instances.\n%sDo you want to continue?",
			operation, count, extra);
	if (count <= 20) {
		g_string_append(question, "\nAffected instances:");
		for (guint i = 0; i < count; i++)
			g_string_append_printf(question, "\n  %s", names[i]);
	}
	return gnt_cli_ask_user(question->str);
}

/* Asks before an operation on @names; FALSE: do not run it. */
typedef gboolean (*ManyOpsConfirmFunc)(gchar **names);

/* The instances @args names (at least one, each expanded), or NULL with
 * Ganeti's errors for none given and none matching. (transfer full) */
static gchar **
expand_names_given(GntCli *cli, gchar **args, GError **error)
{
	g_auto(GStrv) names = NULL;

	if (args[0] == NULL) {
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID, "No instance names passed");
		return NULL;
	}
	names = expand_names(cli, args, error);
	if (names == NULL)
		return NULL;
	if (names[0] == NULL) {
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
					 "Selection filter does not match any instances");
		return NULL;
	}
	return g_steal_pointer(&names);
}

/* GenericManyOps: the named instances (short names expanded), confirmed
 * (by @confirm, or when there are several), one job each, all submitted at
 * once. */
static gint
many_ops(GntCli *cli, gchar **args, const gchar *operation, ManyOpsFunc func,
	 ManyOpsConfirmFunc confirm)
{
	g_autoptr(GError) error = NULL;
	g_auto(GStrv) names = NULL;
	g_autoptr(GntCliJobExecutor) executor = NULL;
	gboolean multi;
	gboolean all_ok = FALSE;

	names = expand_names_given(cli, args, &error);
	if (names == NULL)
		return gnt_cli_fail(cli, error);
	multi = names[1] != NULL;
	if (confirm != NULL ? !confirm(names)
			    : multi && !opt_force_multi && !confirm_many(names, operation, ""))
		return 1;
	executor = gnt_cli_job_executor_new(cli, multi);
	for (guint i = 0; names[i] != NULL; i++) {
		JsonObject *op = func(cli, names[i], &error);

		if (op == NULL)
			return gnt_cli_fail(cli, error);
		gnt_cli_job_executor_queue(executor, names[i], op);
	}
	if (!gnt_cli_job_executor_run(executor, &all_ok, &error))
		return gnt_cli_fail(cli, error);
	return all_ok ? 0 : 1;
}

static gint
startup_instances(GntCli *cli, gchar **args)
{
	return many_ops(cli, args, "startup", startup_opcode, NULL);
}

static gint
shutdown_instances(GntCli *cli, gchar **args)
{
	return many_ops(cli, args, "shutdown", shutdown_opcode, NULL);
}

static gint
reboot_instances(GntCli *cli, gchar **args)
{
	if (opt_reboot_type != NULL &&
	    !gnt_op_param_is_choice("OP_INSTANCE_REBOOT", "reboot_type", opt_reboot_type)) {
		g_auto(GStrv)
			choices = gnt_op_param_dup_choices("OP_INSTANCE_REBOOT", "reboot_type");
		g_autofree gchar *list = g_strjoinv("', '", choices);
		g_printerr("%s reboot: error: option -t: invalid choice: '%s' (choose from '%s')\n",
			   gnt_cli_get_binary(cli), opt_reboot_type, list);
		return GNT_CLI_EXIT_USAGE;
	}
	return many_ops(cli, args, "reboot", reboot_opcode, NULL);
}

/* ---- reinstall ---- */

static gchar *opt_os;
static gboolean opt_force_variant;
static gchar *opt_osparams;
static gchar *opt_osparams_private;
static gchar *opt_osparams_secret;
static gchar *opt_osparams_secret_file;
static gchar *opt_os_image;
static gchar *opt_os_image_sha256;
static gchar *opt_os_package;
static gchar *opt_safe_install;
static gboolean opt_print_plan;
static gchar *opt_ks_template;
static gboolean opt_print_kickstart;

static const GOptionEntry reinstall_entries[] = {
	{"force", 'f', 0, G_OPTION_ARG_NONE, &opt_force, "Force the operation", NULL},
	FORCE_MULTI_ENTRY,
	{"os-type", 'o', 0, G_OPTION_ARG_STRING, &opt_os,
	 "Install this OS instead of the instance's", "OS[+VARIANT]"},
	GNT_CLI_FORCE_VARIANT_ENTRY(&opt_force_variant),
	GNT_CLI_OSPARAMS_ENTRY(&opt_osparams),
	GNT_CLI_OSPARAMS_PRIVATE_ENTRY(&opt_osparams_private),
	GNT_CLI_OSPARAMS_SECRET_ENTRY(&opt_osparams_secret),
	GNT_CLI_OSPARAMS_SECRET_FILE_ENTRY(&opt_osparams_secret_file),
	GNT_CLI_OS_IMAGE_ENTRY(&opt_os_image),
	GNT_CLI_OS_IMAGE_SHA256_ENTRY(&opt_os_image_sha256),
	GNT_CLI_OS_PACKAGE_ENTRY(&opt_os_package),
	GNT_CLI_SAFE_INSTALL_ENTRY(&opt_safe_install),
	{"print-plan", 0, 0, G_OPTION_ARG_NONE, &opt_print_plan,
	 GNT_CLI_PARAM_HELP("OP_INSTANCE_REINSTALL", "print_plan"), NULL},
	GNT_CLI_KS_TEMPLATE_ENTRY("OP_INSTANCE_REINSTALL", &opt_ks_template),
	GNT_CLI_PRINT_KICKSTART_ENTRY("OP_INSTANCE_REINSTALL", &opt_print_kickstart),
	{NULL},
};

/* A keyval option given on the command line as an opcode member, null when
 * it was not given. */
static gboolean
set_keyval_or_null(GntCli *cli, JsonObject *op, const gchar *key, const gchar *option,
		   const gchar *text, GError **error)
{
	if (text != NULL)
		return gnt_cli_set_keyval_option(cli, op, key, option, text, error);
	json_object_set_null_member(op, key);
	return TRUE;
}

static JsonObject *
reinstall_opcode(GntCli *cli, const gchar *name, GError **error)
{
	g_autoptr(JsonObject) op = json_object_new();

	json_object_set_string_member(op, "OP_ID", "OP_INSTANCE_REINSTALL");
	json_object_set_string_member(op, "instance_name", name);
	gnt_cli_set_string_or_null(op, "os_type", opt_os);
	json_object_set_boolean_member(op, "force_variant", opt_force_variant);
	/* never printed: the secrets travel in the opcode only */
	if (!set_keyval_or_null(cli, op, "osparams", "-O", opt_osparams, error) ||
	    !set_keyval_or_null(cli, op, "osparams_private", "--os-parameters-private",
				opt_osparams_private, error) ||
	    !gnt_cli_set_secret_option(cli, op, "osparams_secret", opt_osparams_secret,
				       opt_osparams_secret_file, TRUE, error))
		return NULL;
	/* Gantry's: only when given ("" removes the stored one) */
	if (opt_os_image != NULL)
		json_object_set_string_member(op, "os_image", opt_os_image);
	if (opt_os_image_sha256 != NULL)
		json_object_set_string_member(op, "os_image_sha256", opt_os_image_sha256);
	if (!gnt_cli_set_os_package(cli, op, "osparams", opt_os_package, error) ||
	    !gnt_cli_set_safe_install(cli, op, opt_safe_install, error))
		return NULL;
	gnt_cli_set_kickstart(op, opt_ks_template, opt_print_kickstart);
	return g_steal_pointer(&op);
}

/* ReinstallInstance's confirmations: one instance needs -f (or
 * --force-multiple), several --force-multiple; no terminal answers no. */
static gboolean
reinstall_confirm(gchar **names)
{
	g_autofree gchar *os_msg = opt_os != NULL ? g_strdup_printf("change the OS to '%s'", opt_os)
						  : g_strdup("keep the same OS");
	g_autofree gchar *text = NULL;

	if (names[1] != NULL) {
		if (opt_force_multi)
			return TRUE;
		text = g_strdup_printf("Note: this will remove *all* data for the below instances! "
				       "It will %s.\n",
				       os_msg);
		return confirm_many(names, "reinstall", text);
	}
	if (opt_force || opt_force_multi)
		return TRUE;
	text = g_strdup_printf("This will reinstall the instance '%s' (and %s) which removes all "
			       "data. Continue?",
			       names[0], os_msg);
	return gnt_cli_ask_user(text);
}

/* --print-plan: each instance's plan, one job each, nothing changed (so
 * nothing to confirm). */
static gint
reinstall_print_plans(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_auto(GStrv) names = NULL;

	names = expand_names_given(cli, args, &error);
	if (names == NULL)
		return gnt_cli_fail(cli, error);
	for (guint i = 0; names[i] != NULL; i++) {
		JsonObject *op = reinstall_opcode(cli, names[i], &error);
		g_autoptr(JsonArray) ops = json_array_new();
		g_autoptr(JsonArray) results = NULL;

		if (op == NULL)
			return gnt_cli_fail(cli, error);
		gnt_cli_apply_opcode_options(cli, op);
		json_object_set_boolean_member(op, "print_plan", TRUE);
		json_array_add_object_element(ops, op);
		if (!gnt_cli_submit_or_send(cli, g_steal_pointer(&ops), &results, &error))
			return gnt_cli_fail(cli, error);
		if (results != NULL && json_array_get_length(results) > 0)
			gnt_cli_plan_print_result(json_array_get_element(results, 0));
	}
	return 0;
}

static gint
reinstall_instances(GntCli *cli, gchar **args)
{
	if (opt_print_plan)
		return reinstall_print_plans(cli, args);
	return many_ops(cli, args, "reinstall", reinstall_opcode, reinstall_confirm);
}

/* ---- rename ---- */

static gboolean opt_name_check = TRUE;
static gboolean opt_ip_check = TRUE;

static const GOptionEntry rename_entries[] = {
	{"force", 'f', 0, G_OPTION_ARG_NONE, &opt_force, "Do not ask for confirmation", NULL},
	GNT_CLI_NO_NAME_CHECK_ENTRY(&opt_name_check),
	GNT_CLI_NO_IP_CHECK_ENTRY(&opt_ip_check),
	{NULL},
};

/* RenameInstance: OP_INSTANCE_RENAME, then "Instance 'OLD' renamed to
 * 'NEW'" with the name the master answered. */
static gint
rename_instance(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) ops = json_array_new();
	g_autoptr(JsonArray) results = NULL;
	JsonObject *op;
	JsonNode *new_name;

	if (!opt_force && !opt_name_check) {
		g_autofree gchar *question = g_strdup_printf(
			"As you disabled the check of the DNS entry, please verify that '%s' is a "
			"FQDN. Continue?",
			args[1]);

		if (!gnt_cli_ask_user(question))
			return 1;
	}
	op = gnt_cli_new_opcode(cli, "OP_INSTANCE_RENAME");
	json_object_set_string_member(op, "instance_name", args[0]);
	json_object_set_string_member(op, "new_name", args[1]);
	json_object_set_boolean_member(op, "name_check", opt_name_check);
	json_object_set_boolean_member(op, "ip_check", opt_ip_check);
	json_array_add_object_element(ops, op);
	if (!gnt_cli_submit_or_send(cli, g_steal_pointer(&ops), &results, &error))
		return gnt_cli_fail(cli, error);
	new_name = results != NULL && json_array_get_length(results) > 0
			   ? json_array_get_element(results, 0)
			   : NULL;
	if (new_name != NULL && json_node_get_value_type(new_name) == G_TYPE_STRING)
		g_print("Instance '%s' renamed to '%s'\n", args[0], json_node_get_string(new_name));
	return 0;
}

/* ---- modify ---- */

static gchar **opt_disks;
static gboolean opt_offline;
static gboolean opt_online;
static gboolean opt_install_done;
static gchar *opt_communication;
static gchar *opt_user_data;
static gchar **opt_ssh_keys;

static const GOptionEntry modify_entries[] = {
	{"backend-parameters", 'B', 0, G_OPTION_ARG_STRING, &opt_beparams,
	 "Backend parameters (memory, maxmem, minmem, vcpus, auto_balance, always_failover, "
	 "spindle_use; \"default\" goes back to the cluster's value)",
	 "KEY=VAL,..."},
	{"disk", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_disks,
	 "Disk changes: add:size=SIZE[,mode=rw|ro][,name=NAME] adds a disk at the end, as does "
	 "N:add,size=SIZE,... with N the number of disks (repeatable)",
	 "add:size=S,..."},
	{"force", 'f', 0, G_OPTION_ARG_NONE, &opt_force,
	 "Force the operation (skips the OS checks)", NULL},
	{"hypervisor-parameters", 'H', 0, G_OPTION_ARG_STRING, &opt_hvparams,
	 "Change hypervisor parameters (\"default\" goes back to the cluster's value)",
	 "KEY=VAL,..."},
	{"os-type", 'o', 0, G_OPTION_ARG_STRING, &opt_os,
	 "Change the instance's OS without reinstalling the instance", "OS[+VARIANT]"},
	GNT_CLI_FORCE_VARIANT_ENTRY(&opt_force_variant),
	GNT_CLI_OSPARAMS_ENTRY(&opt_osparams),
	GNT_CLI_OSPARAMS_PRIVATE_ENTRY(&opt_osparams_private),
	{"os-parameters-secret", 0, 0, G_OPTION_ARG_STRING, &opt_osparams_secret,
	 "Refused: secret OS parameters are never stored, so modify cannot keep them (give them "
	 "to reinstall)",
	 "KEY=VAL,..."},
	{"install-done", 0, 0, G_OPTION_ARG_NONE, &opt_install_done,
	 "End a self_install's first boot: the next start uses the instance's own parameters",
	 NULL},
	{"offline", 0, 0, G_OPTION_ARG_NONE, &opt_offline,
	 "Mark the instance as offline (it must be stopped)", NULL},
	{"online", 0, 0, G_OPTION_ARG_NONE, &opt_online,
	 "Mark the instance as online (and stopped)", NULL},
	GNT_CLI_COMMUNICATION_ENTRY(&opt_communication),
	GNT_CLI_USER_DATA_ENTRY(&opt_user_data),
	GNT_CLI_SSH_KEY_ENTRY(&opt_ssh_keys),
	{NULL},
};

/* The --disk actions (constants.DDMS_VALUES_WITH_MODIFY); all but "add"
 * are the master's to refuse for now. */
static const gchar *const disk_actions[] = {"add", "attach", "remove", "detach", "modify", NULL};

/* One --disk value of modify as [action, index, params]
 * (_ConvertNicDiskModifications, _ParseDiskSizes): "add:size=S,..." (the
 * legacy form: at the end, index -1), "N:add,size=S,...", "N:remove",
 * "N:key=val" (a modification). (transfer full) */
static JsonArray *
modify_disk_mod(GntCli *cli, const gchar *value, GError **error)
{
	g_autoptr(GError) local = NULL;
	g_autofree gchar *ident = NULL;
	g_autoptr(JsonObject) params = NULL;
	g_autoptr(JsonArray) mod = json_array_new();
	g_autoptr(GString) actions = g_string_new(NULL);
	g_autoptr(GList) keys = NULL;
	const gchar *action = "modify";
	guint index = 0;
	guint count = 0;

	if (!gnt_cli_parse_ident_keyval("--disk", value, &ident, &params, &local)) {
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID, "%s", local->message);
		return NULL;
	}
	if (params == NULL) {
		gnt_cli_set_prereq_error(
			cli, error, GNT_ERROR_INVALID,
			"Invalid --disk value '%s': expected ACTION:key=val,... or "
			"N:ACTION,key=val,...",
			value);
		return NULL;
	}
	if (g_strv_contains(disk_actions, ident)) {
		action = ident;
	} else {
		for (guint i = 0; disk_actions[i] != NULL; i++) {
			g_string_append_printf(actions, "%s%s", i > 0 ? ", " : "", disk_actions[i]);
			if (json_object_has_member(params, disk_actions[i])) {
				action = disk_actions[i];
				json_object_remove_member(params, disk_actions[i]);
				count++;
			}
		}
		if (count > 1) {
			gnt_cli_set_prereq_error(
				cli, error, GNT_ERROR_INVALID,
				"Cannot do more than one of the following operations "
				"at the same time: %s",
				actions->str);
			return NULL;
		}
	}
	if ((g_strcmp0(action, "remove") == 0 || g_strcmp0(action, "detach") == 0) &&
	    json_object_get_size(params) > 0) {
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
					 "Not accepting parameters on removal/detach");
		return NULL;
	}
	keys = json_object_get_members(params);
	for (GList *l = keys; l != NULL; l = l->next) {
		if (!g_strv_contains(gnt_cli_disk_keys, l->data)) {
			gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
						 "Unknown parameter '%s' for disk %s",
						 (const gchar *)l->data, ident);
			return NULL;
		}
	}
	if (json_object_has_member(params, "size")) {
		if (!gnt_cli_parse_disk_size(cli, params, ident, error))
			return NULL;
	} else if (g_strcmp0(action, "add") == 0) {
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
					 "Missing required parameter 'size'");
		return NULL;
	}
	json_array_add_string_element(mod, action);
	if (g_strv_contains(disk_actions, ident))
		json_array_add_int_element(mod, -1);
	else if (gnt_cli_parse_device_index(ident, &index))
		json_array_add_int_element(mod, index);
	else /* a disk's name or UUID */
		json_array_add_string_element(mod, ident);
	json_array_add_object_element(mod, g_steal_pointer(&params));
	return g_steal_pointer(&mod);
}

/* SetInstanceParams: OP_INSTANCE_SET_PARAMS, then "Modified instance x"
 * and the changes the master made. */
static gint
modify_instance(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) ops = json_array_new();
	g_autoptr(JsonArray) results = NULL;
	g_autoptr(JsonObject) op = NULL;
	JsonArray *disks = json_array_new();
	JsonObject *params;

	if (opt_osparams_secret != NULL) {
		json_array_unref(disks);
		gnt_cli_set_prereq_error(cli, &error, GNT_ERROR_INVALID,
					 "secret OS parameters are never stored, so modify cannot "
					 "keep them: give them to gnt-instance reinstall "
					 "(--os-parameters-secret)");
		return gnt_cli_fail(cli, error);
	}
	if (opt_beparams == NULL && opt_hvparams == NULL && opt_disks == NULL && opt_os == NULL &&
	    opt_osparams == NULL && opt_osparams_private == NULL && !opt_offline && !opt_online &&
	    !opt_install_done && opt_communication == NULL && opt_user_data == NULL &&
	    opt_ssh_keys == NULL) {
		json_array_unref(disks);
		g_printerr("Please give at least one of the parameters.\n");
		return 1;
	}
	op = gnt_cli_new_opcode(cli, "OP_INSTANCE_SET_PARAMS");
	json_object_set_string_member(op, "instance_name", args[0]);
	json_object_set_array_member(op, "disks", disks);
	for (guint i = 0; opt_disks != NULL && opt_disks[i] != NULL; i++) {
		JsonArray *mod = modify_disk_mod(cli, opt_disks[i], &error);

		if (mod == NULL)
			return gnt_cli_fail(cli, error);
		json_array_add_array_element(disks, mod);
	}
	if ((params = gnt_cli_parse_beparams(cli, opt_beparams, TRUE, &error)) == NULL)
		return gnt_cli_fail(cli, error);
	json_object_set_object_member(op, "beparams", params);
	if ((params = gnt_cli_parse_keyval_option(cli, "-H", opt_hvparams, &error)) == NULL)
		return gnt_cli_fail(cli, error);
	gnt_cli_normalise_defaults(params);
	json_object_set_object_member(op, "hvparams", params);
	if (!gnt_cli_set_keyval_option(cli, op, "osparams", "-O", opt_osparams, &error) ||
	    !set_keyval_or_null(cli, op, "osparams_private", "--os-parameters-private",
				opt_osparams_private, &error))
		return gnt_cli_fail(cli, error);
	gnt_cli_set_string_or_null(op, "os_name", opt_os);
	json_object_set_boolean_member(op, "force_variant", opt_force_variant);
	json_object_set_boolean_member(op, "force", opt_force);
	if (opt_offline || opt_online)
		json_object_set_boolean_member(op, "offline", opt_offline);
	else
		json_object_set_null_member(op, "offline");
	/* Gantry's: only when given */
	if (opt_install_done)
		json_object_set_boolean_member(op, "install_done", TRUE);
	if (!gnt_cli_set_metadata_options(cli, op, opt_communication, opt_user_data, opt_ssh_keys,
					  &error))
		return gnt_cli_fail(cli, error);
	json_array_add_object_element(ops, g_steal_pointer(&op));
	if (!gnt_cli_submit_or_send(cli, g_steal_pointer(&ops), &results, &error))
		return gnt_cli_fail(cli, error);
	if (!gnt_cli_print_changes("instance", args[0], results))
		return 0;
	g_print("Please don't forget that most parameters take effect only at the next (re)start "
		"of the instance initiated by ganeti; restarting from within the instance will not "
		"be enough.\n");
	if (opt_hvparams != NULL)
		g_print("Note that changing hypervisor parameters without performing a restart might "
			"lead to a crash while performing a live migration. This will be addressed in "
			"future Ganeti versions.\n");
	return 0;
}

/* ---- console ---- */

static gboolean opt_show_command;

static const GOptionEntry console_entries[] = {
	{"show-cmd", 0, 0, G_OPTION_ARG_NONE, &opt_show_command,
	 "Show command instead of executing it", NULL},
	{NULL},
};

/* utils.ShellQuoteArgs. (transfer full) */
static gchar *
shell_quote_args(JsonArray *argv)
{
	g_autoptr(GString) out = g_string_new(NULL);

	for (guint i = 0; i < json_array_get_length(argv); i++) {
		const gchar *arg = json_array_get_string_element(argv, i);
		g_autofree gchar *quoted = NULL;

		if (arg == NULL)
			continue;
		/* utils.ShellQuote: only what is not plain */
		quoted = g_regex_match_simple("^[-.,=:/_+@A-Za-z0-9]+$", arg, 0, 0)
				 ? g_strdup(arg)
				 : g_shell_quote(arg);
		g_string_append_printf(out, "%s%s", out->len > 0 ? " " : "", quoted);
	}
	return g_string_free(g_steal_pointer(&out), FALSE);
}

/* Runs the console command with the terminal; its exit code. */
static gint
console_attach(GntCli *cli, JsonArray *command, const gchar *instance)
{
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_autoptr(GError) error = NULL;
	gint status = 0;

	for (guint i = 0; i < json_array_get_length(command); i++)
		g_ptr_array_add(argv, (gpointer)json_array_get_string_element(command, i));
	g_ptr_array_add(argv, NULL);
	if (!g_spawn_sync(NULL, (gchar **)argv->pdata, NULL,
			  G_SPAWN_SEARCH_PATH | G_SPAWN_CHILD_INHERITS_STDIN, NULL, NULL, NULL,
			  NULL, &status, &error) ||
	    !g_spawn_check_wait_status(status, &error)) {
		g_autofree gchar *text = shell_quote_args(command);

		g_printerr("Console command \"%s\" failed with reason '%s'\n", text,
			   error->message);
		return 1;
	}
	return 0;
}

/* OP_INSTANCE_CONSOLE, then: --show-cmd prints the command; with a
 * terminal it runs it (on the master: the instance's node must be this
 * one); without one the console log's first lines are printed. */
static gint
console_instance(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) ops = json_array_new();
	g_autoptr(JsonArray) results = NULL;
	JsonObject *op = gnt_cli_new_opcode(cli, "OP_INSTANCE_CONSOLE");
	JsonNode *first;
	JsonObject *console;
	JsonArray *command = NULL;
	JsonArray *lines = NULL;
	guint64 job_id = 0;

	json_object_set_string_member(op, "instance_name", args[0]);
	json_array_add_object_element(ops, op);
	if (!gnt_cli_send_job(cli, g_steal_pointer(&ops), &job_id, &error) ||
	    (results = gnt_cli_poll_job(cli, job_id, GNT_CLI_POLL_SILENT, &error)) == NULL)
		return gnt_cli_fail(cli, error);
	first = json_array_get_length(results) > 0 ? json_array_get_element(results, 0) : NULL;
	if (first == NULL || !JSON_NODE_HOLDS_OBJECT(first)) {
		g_set_error(&error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the console job answered a %s, not an object",
			    gnt_json_node_type_name(first));
		return gnt_cli_fail(cli, error);
	}
	console = json_node_get_object(first);
	gnt_json_get_array(console, "command", &command, NULL);
	gnt_json_get_array(console, "lines", &lines, NULL);
	if (command != NULL && json_array_get_length(command) == 0)
		command = NULL;
	if (opt_show_command) {
		g_autofree gchar *text = NULL;

		if (command == NULL) {
			g_print("Instance %s has no interactive console\n", args[0]);
			return 0;
		}
		text = shell_quote_args(command);
		g_print("%s\n", text);
		return 0;
	}
	if (command != NULL && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))
		return console_attach(cli, command, args[0]);
	for (guint i = 0; lines != NULL && i < json_array_get_length(lines); i++) {
		JsonNode *line = json_array_get_element(lines, i);

		if (json_node_get_value_type(line) == G_TYPE_STRING)
			g_print("%s\n", json_node_get_string(line));
	}
	return 0;
}

/* ---- activate-disks, deactivate-disks, grow-disk ---- */

static gboolean opt_ignore_size;
static gboolean opt_wait_for_sync;
static gboolean opt_no_wait_for_sync;
static gboolean opt_absolute;

static const GOptionEntry activate_disks_entries[] = {
	{"ignore-size", 0, 0, G_OPTION_ARG_NONE, &opt_ignore_size,
	 "Ignore the current recorded size (useful for forcing activation when the recorded "
	 "size is wrong)",
	 NULL},
	{"wait-for-sync", 0, 0, G_OPTION_ARG_NONE, &opt_wait_for_sync,
	 "Wait for the disks to synchronize", NULL},
	{NULL},
};

static const GOptionEntry deactivate_disks_entries[] = {
	{"force", 'f', 0, G_OPTION_ARG_NONE, &opt_force, "Force the operation", NULL},
	{NULL},
};

static const GOptionEntry grow_disk_entries[] = {
	{"no-wait-for-sync", 0, 0, G_OPTION_ARG_NONE, &opt_no_wait_for_sync,
	 "Don't wait for sync (DANGEROUS!)", NULL},
	{"absolute", 0, 0, G_OPTION_ARG_NONE, &opt_absolute,
	 "Marks the grow as absolute instead of the (default) relative mode", NULL},
	{NULL},
};

/* Submits the one opcode @op (transfer full); its result in *@result. */
static gboolean
send_one(GntCli *cli, JsonObject *op, JsonNode **result, GError **error)
{
	g_autoptr(JsonArray) ops = json_array_new();
	g_autoptr(JsonArray) results = NULL;

	json_array_add_object_element(ops, op);
	if (!gnt_cli_submit_or_send(cli, g_steal_pointer(&ops), &results, error))
		return FALSE;
	if (result != NULL)
		*result = results != NULL && json_array_get_length(results) > 0
				  ? json_node_copy(json_array_get_element(results, 0))
				  : NULL;
	return TRUE;
}

/* Ganeti's ActivateDisks: "node:disk/0:/path" per disk. */
static gint
activate_disks(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) result = NULL;
	JsonObject *op = gnt_cli_new_opcode(cli, "OP_INSTANCE_ACTIVATE_DISKS");

	json_object_set_string_member(op, "instance_name", args[0]);
	json_object_set_boolean_member(op, "ignore_size", opt_ignore_size);
	json_object_set_boolean_member(op, "wait_for_sync", opt_wait_for_sync);
	if (!send_one(cli, op, &result, &error))
		return gnt_cli_fail(cli, error);
	for (guint i = 0; result != NULL && JSON_NODE_HOLDS_ARRAY(result) &&
			  i < json_array_get_length(json_node_get_array(result));
	     i++) {
		JsonArray *row = json_array_get_array_element(json_node_get_array(result), i);

		if (row != NULL && json_array_get_length(row) == 3)
			g_print("%s:%s:%s\n", json_array_get_string_element(row, 0),
				json_array_get_string_element(row, 1),
				json_array_get_string_element(row, 2));
	}
	return 0;
}

static gint
deactivate_disks(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	JsonObject *op = gnt_cli_new_opcode(cli, "OP_INSTANCE_DEACTIVATE_DISKS");

	json_object_set_string_member(op, "instance_name", args[0]);
	json_object_set_boolean_member(op, "force", opt_force);
	if (!send_one(cli, op, NULL, &error))
		return gnt_cli_fail(cli, error);
	return 0;
}

/* Ganeti's GrowDisk: <instance> <disk index> <amount with a unit>. */
static gint
grow_disk(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GError) parse_error = NULL;
	JsonObject *op;
	gint64 index = 0;
	guint64 amount = 0;

	if (!g_ascii_string_to_signed(args[1], 10, 0, G_MAXINT, &index, &parse_error)) {
		gnt_cli_set_prereq_error(cli, &error, GNT_ERROR_INVALID, "Invalid disk index: %s",
					 parse_error->message);
		return gnt_cli_fail(cli, error);
	}
	if (!gnt_size_parse(args[2], &amount, NULL)) {
		gnt_cli_set_prereq_error(cli, &error, GNT_ERROR_INVALID,
					 "Can't parse the given amount '%s'", args[2]);
		return gnt_cli_fail(cli, error);
	}
	op = gnt_cli_new_opcode(cli, "OP_INSTANCE_GROW_DISK");
	json_object_set_string_member(op, "instance_name", args[0]);
	json_object_set_int_member(op, "disk", index);
	json_object_set_int_member(op, "amount", (gint64)amount);
	json_object_set_boolean_member(op, "absolute", opt_absolute);
	json_object_set_boolean_member(op, "wait_for_sync", !opt_no_wait_for_sync);
	if (!send_one(cli, op, NULL, &error))
		return gnt_cli_fail(cli, error);
	return 0;
}

/* Commands in alphabetical order, as Ganeti lists them; the tag commands
 * join them here. */
static const GntCliCommand commands[] = {
	{"add", add_instance, 1, 1, GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_DRY_RUN,
	 gnt_cli_create_add_entries,
	 "[...] -t disk-type -n node[:secondary-node] -o os-type <instance-name>",
	 "Creates and adds a new instance to the cluster",
	 "Without --disk or -s a disk template other than diskless needs disk information; "
	 "without --net or --no-nics the instance gets one NIC with the cluster's defaults. "
	 "--name-check and --ip-check are accepted for compatibility: Gantry does not resolve "
	 "the instance's name nor ping its IP. --os-parameters-secret values reach the OS "
	 "scripts only: they are neither stored nor printed (a reinstall needs them again). The "
	 "install runs as steps (prepare, write_image, run_os_scripts, personalize, prepare_boot, "
	 "tear_down_appliance, switch_networks, boot), each one's start, end and result in the "
	 "job log; a failed step removes everything made. --install-mode self_install needs no "
	 "OS: the first boot uses --install-hvparams. --os-image (a raw or qcow2 image, a path "
	 "on the node or an http(s) URL) is written onto disk 0 before the OS scripts run."},
	{"activate-disks", activate_disks, 1, 1, GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY,
	 activate_disks_entries, "[--ignore-size] <instance-name>", "Activate an instance's disks",
	 "Prints node:disk/N:path for each disk. Gantry's disks (file images, logical volumes) "
	 "are usable whenever they exist: this checks each one on the node and records the "
	 "disks as active; --ignore-size and --wait-for-sync change nothing."},
	{"console", console_instance, 1, 1, GNT_CLI_OPT_PRIORITY, console_entries,
	 "[--show-cmd] <instance-name>", "Opens a console on the specified instance",
	 "Without a terminal (or for a hypervisor without an interactive console) it prints the "
	 "first lines of the instance's serial console log instead."},
	{"deactivate-disks", deactivate_disks, 1, 1, GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY,
	 deactivate_disks_entries, "[-f] <instance-name>", "Deactivate an instance's disks",
	 "Refused while the instance runs, unless -f. Only the record changes: file images and "
	 "logical volumes have nothing to tear down."},
	{"grow-disk", grow_disk, 3, 3, GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY, grow_disk_entries,
	 "[--absolute] <instance-name> <disk> <size>", "Grow an instance's disk",
	 "Grows disk <disk> (0, 1, ...) by <size> (a unit: 512M, 2G; MiB without one), or to "
	 "<size> with --absolute, which may not be smaller than the disk. The file image (raw or "
	 "qcow2) or logical volume grows on the node, after a check of the free space; a running "
	 "instance sees the new size at its next start."},
	{"info", show_instance_config, 0, -1, GNT_CLI_OPT_NONE, info_entries,
	 "[-s] {--all | <instance-name>...}", "Show information on the specified instance(s)",
	 "Names may be short (\"inst1\" for \"inst1.example.com\"); an unknown name fails. "
	 "Private OS parameters show as <redacted>. Gantry adds an \"Install\" section: the "
	 "install mode and state, the disk image, the names of the secret parameters a reinstall "
	 "needs again, and each step of the last install with its result."},
	{"list", gnt_cli_list_command, 0, -1, GNT_CLI_OPT_FIELDS | GNT_CLI_OPT_TABLE, NULL,
	 "[<instance-name>...]",
	 "Lists the instances and their status. The available fields can be shown using the "
	 "\"list-fields\" command (see the man page for details). The default field list is "
	 "(in order): name, hypervisor, os, pnode, status, oper_ram.",
	 "Live fields (status, oper_ram, ...) are asked from the nodes (5 s at most each); an "
	 "unreachable node shows ERROR_nodedown. Exits 14 if a requested field is unknown.",
	 &list_spec},
	{"list-fields", gnt_cli_list_fields_command, 0, -1, GNT_CLI_OPT_TABLE, NULL, "[fields...]",
	 "Lists all available fields for instances", NULL, &list_spec},
	{"modify", modify_instance, 1, 1,
	 GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_DRY_RUN, modify_entries,
	 "<instance-name>", "Alters the parameters of an instance",
	 "Prints \"Modified instance NAME\" and each change (\" - be/maxmem -> 512\"; private "
	 "OS parameters as <redacted>). -o and -O are checked against the OS definition on the "
	 "instance's node unless -f is given. Of the disk changes only adding disks at the end is "
	 "supported; NICs, the disk template and the primary node cannot be changed yet. Changes "
	 "take effect at the instance's next start. --install-done ends a self_install's first "
	 "boot by hand; --os-parameters-secret is refused (secrets are never stored: give them "
	 "to reinstall)."},
	{"reboot", reboot_instances, 0, -1,
	 GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_DRY_RUN, reboot_entries,
	 "<instance>", "Reboots an instance",
	 "Several instances are rebooted by one job each, after a confirmation (or with "
	 "--force-multiple)."},
	{"reinstall", reinstall_instances, 0, -1,
	 GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_DRY_RUN, reinstall_entries,
	 "[-f] [-o OS] [--os-image PATH|URL] [-O ...] [--os-parameters-private ...] "
	 "[--os-parameters-secret ...] <instance>...",
	 "Reinstall a stopped instance",
	 "Runs the install steps again on the instance's existing disks (the OS create script "
	 "sees INSTANCE_REINSTALL=1), with the stored OS, disk image and public and private "
	 "parameters. -o changes the OS, --os-image the image (\"\" removes it); -O and "
	 "--os-parameters-private are merged into the stored parameters (a value \"default\" "
	 "removes one); secret parameters are not stored, so the ones the last install had must "
	 "be given again (refused otherwise). The instance's OS and parameters change only when "
	 "the install succeeded; a failed one leaves it stopped with its disks, and "
	 "gnt-instance info shows its steps. A self_install instance boots its installer at its "
	 "next start. One instance needs -f, several --force-multiple, or a \"yes\" (without a "
	 "terminal the answer is no)."},
	{"remove", remove_instance, 1, 1,
	 GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_DRY_RUN, remove_entries,
	 "[-f] <instance-name>", "Shuts down the instance and removes it",
	 "Without -f it asks for confirmation; without a terminal the answer is no."},
	{"rename", rename_instance, 2, 2,
	 GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_DRY_RUN, rename_entries,
	 "<old-name> <new-name>", "Rename the instance",
	 "The instance must be stopped and the new name unused. Gantry does not resolve names "
	 "nor ping addresses: --no-name-check and --no-ip-check are sent for compatibility; "
	 "--no-name-check asks to confirm that the new name is a FQDN unless -f is given. Prints "
	 "\"Instance 'OLD' renamed to 'NEW'\"."},
	{"show", show_instance_config, 0, -1, GNT_CLI_OPT_NONE, info_entries,
	 "[-s] {--all | <instance-name>...}", "Alias of \"info\"", NULL},
	{"shutdown", shutdown_instances, 0, -1,
	 GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_DRY_RUN, shutdown_entries,
	 "<instance>", "Stops an instance",
	 "Several instances are stopped by one job each, after a confirmation (or with "
	 "--force-multiple)."},
	{"start", startup_instances, 0, -1,
	 GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_DRY_RUN, startup_entries,
	 "<instance>", "Alias of \"startup\"", NULL},
	{"startup", startup_instances, 0, -1,
	 GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_DRY_RUN, startup_entries,
	 "<instance>", "Starts an instance",
	 "Several instances are started by one job each, after a confirmation (or with "
	 "--force-multiple). -H and -B are accepted; the master does not apply temporary "
	 "parameters yet."},
	{"stop", shutdown_instances, 0, -1,
	 GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_DRY_RUN, shutdown_entries,
	 "<instance>", "Alias of \"shutdown\"", NULL},
	{NULL},
};

int
main(int argc, char **argv)
{
	return gnt_cli_main(commands, argc, argv);
}
