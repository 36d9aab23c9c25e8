/* gnt-instance: instance-related commands, after Ganeti's
 * lib/client/gnt_instance.py. */
#include "gnt-cli-objects.h"
#include "gnt-json.h"

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

static gint
list_instances(GntCli *cli, gchar **args)
{
	return gnt_cli_list_objects(cli, "instance", args, list_default_fields, list_overrides);
}

static gint
list_instance_fields(GntCli *cli, gchar **args)
{
	return gnt_cli_list_object_fields(cli, "instance", args);
}

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
	"name",		    "uuid",	      "serial_no",	   "ctime",
	"mtime",	    "admin_state",    "oper_state",	   "pnode",
	"pnode.group",	    "pnode.group.uuid", "snodes",	   "snodes.group",
	"snodes.group.uuid", "os",	      "custom_osparams",   "osparams",
	"network_port",	    "hypervisor",     "custom_hvparams",   "hvparams",
	"custom_beparams",  "beparams",	      "nic.macs",	   "nic.ips",
	"nic.modes",	    "nic.links",      "nic.vlans",	   "nic.networks.names",
	"nic.uuids",	    "nic.names",      "disk_template",	   "disk.sizes",
	"disk.names",	    "disk.uuids",     NULL,
};
G_STATIC_ASSERT(G_N_ELEMENTS(info_fields) == INFO_N_FIELDS + 1);

/* Element @index of the list @values holds, or NULL. */
static JsonNode *
list_item(JsonNode **values, guint field, guint index)
{
	JsonNode *list = values[field];
	JsonArray *array = list != NULL && JSON_NODE_HOLDS_ARRAY(list) ? json_node_get_array(list)
								       : NULL;

	return array != NULL && index < json_array_get_length(array)
		       ? json_array_get_element(array, index)
		       : NULL;
}

static guint
list_length(JsonNode **values, guint field)
{
	JsonNode *list = values[field];

	return list != NULL && JSON_NODE_HOLDS_ARRAY(list)
		       ? json_array_get_length(json_node_get_array(list))
		       : 0;
}

static void
add_str(GntCliInfo *info, const gchar *key, JsonNode *value)
{
	g_autofree gchar *text = gnt_cli_py_str(value);

	gnt_cli_info_add_text(info, key, text);
}

static void
add_time(GntCliInfo *info, const gchar *key, JsonNode *value)
{
	g_autofree gchar *text = value != NULL && gnt_json_node_is_number(value)
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
	for (guint i = 0; i < list_length(values, INFO_SNODES); i++) {
		g_autofree gchar *name = gnt_cli_py_str(list_item(values, INFO_SNODES, i));
		g_autofree gchar *sgroup = gnt_cli_py_str(list_item(values, INFO_SNODES_GROUP, i));
		g_autofree gchar *suuid =
			gnt_cli_py_str(list_item(values, INFO_SNODES_GROUP_UUID, i));

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
		{"MAC", INFO_NIC_MACS},		{"IP", INFO_NIC_IPS},
		{"mode", INFO_NIC_MODES},	{"link", INFO_NIC_LINKS},
		{"vlan", INFO_NIC_VLANS},	{"network", INFO_NIC_NETWORKS},
		{"UUID", INFO_NIC_UUIDS},	{"name", INFO_NIC_NAMES},
	};
	GntCliInfo *nics = gnt_cli_info_new_list();

	for (guint i = 0; i < list_length(values, INFO_NIC_MACS); i++) {
		GntCliInfo *nic = gnt_cli_info_new_dict();
		g_autofree gchar *header = g_strdup_printf("nic/%u", i);

		gnt_cli_info_add_text(nic, header, "");
		for (guint k = 0; k < G_N_ELEMENTS(nic_keys); k++)
			add_str(nic, nic_keys[k].key, list_item(values, nic_keys[k].field, i));
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
					json_node_get_value_type(values[INFO_DISK_TEMPLATE]) ==
						G_TYPE_STRING
				? json_node_get_string(values[INFO_DISK_TEMPLATE])
				: "?";

	for (guint i = 0; i < list_length(values, INFO_DISK_SIZES); i++) {
		GntCliInfo *disk = gnt_cli_info_new_dict();
		JsonNode *size = list_item(values, INFO_DISK_SIZES, i);
		g_autofree gchar *header = g_strdup_printf("disk/%u", i);
		g_autofree gchar *nice_size = size != NULL && gnt_json_node_is_int(size)
						      ? gnt_cli_format_unit(
								(gdouble)json_node_get_int(size), 'h')
						      : gnt_cli_py_str(size);

		gnt_cli_info_add_printf(disk, header, "%s, size %s", template, nice_size);
		add_str(disk, "name", list_item(values, INFO_DISK_NAMES, i));
		add_str(disk, "UUID", list_item(values, INFO_DISK_UUIDS, i));
		gnt_cli_info_append(disks, disk);
	}
	return disks;
}

/* _FormatInstanceInfo */
static GntCliInfo *
instance_info(JsonNode **values)
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
	if (!opt_static && oper_state != NULL &&
	    json_node_get_value_type(oper_state) == G_TYPE_BOOLEAN)
		gnt_cli_info_add_printf(info, "State", "configured to be %s, actual state is %s",
					admin_state,
					json_node_get_boolean(oper_state) ? "running" : "down");
	else
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
	return info;
}

static gint
show_instance_config(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) response = NULL;
	g_autoptr(GntCliInfo) container = gnt_cli_info_new_list();
	g_autofree gchar *text = NULL;
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
	for (guint r = 0; r < json_array_get_length(rows); r++) {
		JsonNode *row = json_array_get_element(rows, r);
		JsonNode *values[INFO_N_FIELDS];

		if (!JSON_NODE_HOLDS_ARRAY(row) ||
		    json_array_get_length(json_node_get_array(row)) != INFO_N_FIELDS)
			continue;
		for (guint f = 0; f < INFO_N_FIELDS; f++)
			values[f] = gnt_cli_row_value(json_node_get_array(row), f);
		gnt_cli_info_append(container, instance_info(values));
	}
	text = gnt_cli_info_format(container);
	g_print("%s\n", text);
	return 0;
}

/* Commands in alphabetical order, as Ganeti lists them; add, remove,
 * startup, shutdown, reboot, rename, modify and the tag commands join them
 * here. */
static const GntCliCommand commands[] = {
	{"info", show_instance_config, 0, -1, GNT_CLI_OPT_NONE, info_entries,
	 "[-s] {--all | <instance-name>...}", "Show information on the specified instance(s)",
	 "Names may be short (\"inst1\" for \"inst1.example.com\"); an unknown name fails."},
	{"list", list_instances, 0, -1, GNT_CLI_OPT_FIELDS | GNT_CLI_OPT_TABLE, NULL,
	 "[<instance-name>...]",
	 "Lists the instances and their status. The available fields can be shown using the "
	 "\"list-fields\" command (see the man page for details). The default field list is "
	 "(in order): name, hypervisor, os, pnode, status, oper_ram.",
	 "Live fields (status, oper_ram, ...) show \"?\" until the nodes report them. Exits 14 "
	 "if a requested field is unknown."},
	{"list-fields", list_instance_fields, 0, -1, GNT_CLI_OPT_TABLE, NULL, "[fields...]",
	 "Lists all available fields for instances", NULL},
	{"show", show_instance_config, 0, -1, GNT_CLI_OPT_NONE, info_entries,
	 "[-s] {--all | <instance-name>...}", "Alias of \"info\"", NULL},
	{NULL},
};

int
main(int argc, char **argv)
{
	return gnt_cli_main(commands, argc, argv);
}
