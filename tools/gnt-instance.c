/* gnt-instance: instance-related commands, after Ganeti's
 * lib/client/gnt_instance.py. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gnt-cli-objects.h"
#include "gnt-hv-params.h"
#include "gnt-json.h"
#include "gnt-size.h"

/* Ganeti's DEFAULT_SHUTDOWN_TIMEOUT, in seconds */
#define DEFAULT_SHUTDOWN_TIMEOUT 120

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

/* ---- add ---- */

static gchar *opt_disk_template;
static gchar **opt_disks;
static gchar *opt_os_size;
static gchar **opt_nets;
static gboolean opt_no_nics;
static gchar *opt_os;
static gboolean opt_force_variant;
static gchar *opt_osparams;
static gchar *opt_osparams_private;
static gchar *opt_osparams_secret;
static gchar *opt_hypervisor;
static gchar *opt_beparams;
static gchar *opt_node;
static gboolean opt_no_install;
static gboolean opt_no_start;
static gboolean opt_name_check = TRUE;
static gboolean opt_ip_check = TRUE;
static gchar *opt_tags;

static const GOptionEntry add_entries[] = {
	{"disk-template", 't', 0, G_OPTION_ARG_STRING, &opt_disk_template,
	 "Custom disk setup (diskless, file, sharedfile, plain, blockdev, drbd, rbd, ext, "
	 "gluster; the cluster's first enabled one when not given)",
	 "TEMPL"},
	{"disk", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_disks,
	 "Disk parameters: N:size=SIZE[,mode=rw|ro][,name=NAME] (repeatable; sizes in MiB unless "
	 "a unit is given: 512M, 10G)",
	 "N:size=S,..."},
	{"os-size", 's', 0, G_OPTION_ARG_STRING, &opt_os_size,
	 "Enforces a single-disk configuration using the given disk size, in MiB unless a suffix "
	 "is used",
	 "SIZE"},
	{"net", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_nets,
	 "NIC parameters: N:mac=MAC,ip=IP,mode=MODE,link=LINK,name=NAME (repeatable; without "
	 "--net or --no-nics one NIC with the cluster's defaults)",
	 "N:key=val,..."},
	{"no-nics", 0, 0, G_OPTION_ARG_NONE, &opt_no_nics,
	 "Do not create any network cards for the instance", NULL},
	{"os-type", 'o', 0, G_OPTION_ARG_STRING, &opt_os, "What OS to run", "OS[+VARIANT]"},
	{"force-variant", 0, 0, G_OPTION_ARG_NONE, &opt_force_variant, "Force an unknown variant",
	 NULL},
	{"os-parameters", 'O', 0, G_OPTION_ARG_STRING, &opt_osparams, "OS parameters",
	 "KEY=VAL,..."},
	{"os-parameters-private", 0, 0, G_OPTION_ARG_STRING, &opt_osparams_private,
	 "Private OS parameters (won't be logged)", "KEY=VAL,..."},
	{"os-parameters-secret", 0, 0, G_OPTION_ARG_STRING, &opt_osparams_secret,
	 "Secret OS parameters (won't be logged or saved; you must supply these for every "
	 "operation.)",
	 "KEY=VAL,..."},
	{"hypervisor-parameters", 'H', 0, G_OPTION_ARG_STRING, &opt_hypervisor,
	 "Hypervisor and hypervisor options, in the format hypervisor:option=value,option=value,"
	 "...",
	 "HV:KEY=VAL,..."},
	{"backend-parameters", 'B', 0, G_OPTION_ARG_STRING, &opt_beparams,
	 "Backend parameters (memory, maxmem, minmem, vcpus, auto_balance, always_failover, "
	 "spindle_use)",
	 "KEY=VAL,..."},
	{"node", 'n', 0, G_OPTION_ARG_STRING, &opt_node,
	 "Target node and optional secondary node", "PNODE[:SNODE]"},
	{"no-install", 0, 0, G_OPTION_ARG_NONE, &opt_no_install,
	 "Do not install the OS (will enable no-start)", NULL},
	{"no-start", 0, 0, G_OPTION_ARG_NONE, &opt_no_start,
	 "Don't start the instance after creation", NULL},
	{"name-check", 0, 0, G_OPTION_ARG_NONE, &opt_name_check,
	 "Check that the instance's name is resolvable (accepted; not checked)", NULL},
	{"no-name-check", 0, G_OPTION_FLAG_REVERSE, G_OPTION_ARG_NONE, &opt_name_check,
	 "Don't check that the instance's name is resolvable", NULL},
	{"ip-check", 0, 0, G_OPTION_ARG_NONE, &opt_ip_check,
	 "Check that the instance's IP is alive (accepted; not checked)", NULL},
	{"no-ip-check", 0, G_OPTION_FLAG_REVERSE, G_OPTION_ARG_NONE, &opt_ip_check,
	 "Don't check that the instance's IP is alive", NULL},
	{"tags", 0, 0, G_OPTION_ARG_STRING, &opt_tags, "Comma-separated list of instance tags",
	 "TAG,..."},
	{NULL},
};

/* constants.DISK_TEMPLATES, the choices of -t */
static const gchar *const disk_templates[] = {
	"diskless", "file", "sharedfile", "plain", "blockdev", "drbd", "rbd", "ext", "gluster", NULL,
};
/* constants.IDISK_PARAMS and INIC_PARAMS */
static const gchar *const disk_keys[] = {
	"size", "spindles", "mode", "adopt", "vg", "metavg", "provider", "name", "access", NULL,
};
static const gchar *const nic_keys[] = {
	"mac", "ip", "mode", "link", "network", "name", "vlan", "bridge", NULL,
};
/* constants.BES_PARAMETER_COMPAT's booleans */
static const gchar *const be_flags[] = {"auto_balance", "always_failover", NULL};

/* The index of an "N:..." option value; FALSE when N is not a number. */
static gboolean
parse_index(const gchar *ident, guint *index)
{
	guint64 value = 0;

	if (!g_ascii_string_to_unsigned(ident, 10, 0, 1023, &value, NULL))
		return FALSE;
	*index = (guint)value;
	return TRUE;
}

/* --disk or --net values as the opcode's list: one object per index, the
 * gaps empty (Ganeti's [{}] * max). @what: "disk" or "nic". */
static JsonArray *
parse_indexed(GntCli *cli, const gchar *option, const gchar *what, gchar **values,
	      const gchar *const *keys, GError **error)
{
	g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func((GDestroyNotify)json_object_unref);
	g_autoptr(JsonArray) list = json_array_new();

	for (guint i = 0; values[i] != NULL; i++) {
		g_autofree gchar *ident = NULL;
		g_autoptr(JsonObject) params = NULL;
		g_autoptr(GError) local = NULL;
		JsonObjectIter iter;
		const gchar *key;
		JsonNode *value;
		guint index = 0;

		if (!gnt_cli_parse_ident_keyval(option, values[i], &ident, &params, &local)) {
			gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID, "%s", local->message);
			return NULL;
		}
		if (!parse_index(ident, &index)) {
			gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
						 "Invalid %s index passed: '%s'",
						 g_strcmp0(what, "nic") == 0 ? "NIC" : what, ident);
			return NULL;
		}
		if (params == NULL) {
			gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
						 "Invalid %s/%u value: expected dict, got False",
						 what, index);
			return NULL;
		}
		json_object_iter_init(&iter, params);
		while (json_object_iter_next(&iter, &key, &value)) {
			if (!g_strv_contains(keys, key)) {
				gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
							 "Unknown parameter '%s' for %s %u", key,
							 what, index);
				return NULL;
			}
		}
		while (items->len <= index)
			g_ptr_array_add(items, json_object_new());
		json_object_unref(g_ptr_array_index(items, index));
		g_ptr_array_index(items, index) = g_steal_pointer(&params);
	}
	for (guint i = 0; i < items->len; i++)
		json_array_add_object_element(list, json_object_ref(g_ptr_array_index(items, i)));
	return g_steal_pointer(&list);
}

/* Ganeti's disk checks of GenericInstanceCreate: a size (with a unit) each,
 * no adoption. */
static gboolean
check_disks(GntCli *cli, JsonArray *disks, GError **error)
{
	for (guint i = 0; i < json_array_get_length(disks); i++) {
		JsonObject *disk = json_array_get_object_element(disks, i);
		JsonNode *size = json_object_get_member(disk, "size");
		g_autoptr(GError) local = NULL;
		guint64 mib = 0;

		if (json_object_has_member(disk, "adopt")) {
			gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
						 "Disk adoption is not supported (disk %u)", i);
			return FALSE;
		}
		if (size == NULL) {
			gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
						 "Missing size or adoption source for disk %u", i);
			return FALSE;
		}
		if (json_node_get_value_type(size) != G_TYPE_STRING ||
		    !gnt_size_parse(json_node_get_string(size), &mib, &local)) {
			gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
						 "Invalid disk size for disk %u: %s", i,
						 local != NULL ? local->message
							       : "a size needs a value");
			return FALSE;
		}
		json_object_set_int_member(disk, "size", (gint64)mib);
	}
	return TRUE;
}

static gboolean
parse_bool(const gchar *text, gboolean *out)
{
	static const gchar *const yes[] = {"true", "yes", "on", "1", NULL};
	static const gchar *const no[] = {"false", "no", "off", "0", NULL};
	g_autofree gchar *lower = g_ascii_strdown(text, -1);

	*out = g_strv_contains(yes, lower);
	return *out || g_strv_contains(no, lower);
}

/* -B as the opcode's beparams: the booleans as booleans (ForceDictType); the
 * master checks the rest. */
static JsonObject *
parse_beparams(GntCli *cli, const gchar *text, GError **error)
{
	g_autoptr(GError) local = NULL;
	g_autoptr(JsonObject) params = gnt_cli_parse_keyval("-B", text, &local);
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	if (params == NULL) {
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID, "%s", local->message);
		return NULL;
	}
	json_object_iter_init(&iter, params);
	while (json_object_iter_next(&iter, &key, &value)) {
		gboolean flag = FALSE;

		if (!g_strv_contains(be_flags, key) || json_node_get_value_type(value) != G_TYPE_STRING)
			continue;
		if (!parse_bool(json_node_get_string(value), &flag)) {
			gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
						 "backend parameter '%s' must be a boolean, not '%s'",
						 key, json_node_get_string(value));
			return NULL;
		}
		json_node_set_boolean(value, flag);
	}
	return g_steal_pointer(&params);
}

/* A keyval option (-O, -H of startup, ...) as an object, failing as an
 * OpPrereqError. */
static JsonObject *
parse_keyval_option(GntCli *cli, const gchar *option, const gchar *text, GError **error)
{
	g_autoptr(GError) local = NULL;
	JsonObject *params = gnt_cli_parse_keyval(option, text, &local);

	if (params == NULL)
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID, "%s", local->message);
	return params;
}

static void
set_string_or_null(JsonObject *op, const gchar *key, const gchar *value)
{
	if (value != NULL)
		json_object_set_string_member(op, key, value);
	else
		json_object_set_null_member(op, key);
}

/* The disks of GenericInstanceCreate: --disk or -s, none for diskless. */
static JsonArray *
add_disks(GntCli *cli, GError **error)
{
	gboolean has_disks = opt_disks != NULL && opt_disks[0] != NULL;
	g_autoptr(JsonArray) disks = NULL;

	if (g_strcmp0(opt_disk_template, "diskless") == 0) {
		if (has_disks || opt_os_size != NULL) {
			gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
						 "Diskless instance but disk information passed");
			return NULL;
		}
		return json_array_new();
	}
	if (!has_disks && opt_os_size == NULL) {
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
					 "No disk information specified");
		return NULL;
	}
	if (has_disks && opt_os_size != NULL) {
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
					 "Please use either the '--disk' or '-s' option");
		return NULL;
	}
	if (opt_os_size != NULL) {
		JsonObject *disk = json_object_new();

		json_object_set_string_member(disk, "size", opt_os_size);
		disks = json_array_new();
		json_array_add_object_element(disks, disk);
	} else {
		disks = parse_indexed(cli, "--disk", "disk", opt_disks, disk_keys, error);
	}
	if (disks == NULL || !check_disks(cli, disks, error))
		return NULL;
	return g_steal_pointer(&disks);
}

/* -H HV:k=v,...: the hypervisor (checked here, so that a typo is named
 * before anything is sent) and its parameters. */
static gboolean
add_hypervisor(GntCli *cli, JsonObject *op, GError **error)
{
	g_autoptr(GError) local = NULL;
	g_autofree gchar *hv = NULL;
	g_autoptr(JsonObject) hvparams = NULL;

	if (opt_hypervisor == NULL) {
		json_object_set_null_member(op, "hypervisor");
		json_object_set_object_member(op, "hvparams", json_object_new());
		return TRUE;
	}
	if (gnt_cli_parse_ident_keyval("-H", opt_hypervisor, &hv, &hvparams, &local) &&
	    hvparams == NULL)
		g_set_error(&local, GNT_ERROR, GNT_ERROR_INVALID,
			    "Invalid hypervisor value '%s': expected HV[:key=val,...]",
			    opt_hypervisor);
	if (local != NULL || !gnt_hv_check_name(hv, &local)) {
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID, "%s", local->message);
		return FALSE;
	}
	json_object_set_string_member(op, "hypervisor", hv);
	json_object_set_object_member(op, "hvparams", g_steal_pointer(&hvparams));
	return TRUE;
}

/* GenericInstanceCreate in create mode: OP_INSTANCE_CREATE. */
static JsonObject *
add_build_opcode(GntCli *cli, const gchar *name, GError **error)
{
	g_autoptr(JsonObject) op = gnt_cli_new_opcode(cli, "OP_INSTANCE_CREATE");
	g_autoptr(JsonArray) disks = NULL;
	g_autoptr(JsonArray) nics = NULL;
	JsonObject *params;
	g_auto(GStrv) nodes = NULL;

	if (opt_disk_template != NULL && !g_strv_contains(disk_templates, opt_disk_template)) {
		g_autofree gchar *choices = g_strjoinv(", ", (gchar **)disk_templates);

		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID,
					 "Unknown disk template '%s' (choose from %s)",
					 opt_disk_template, choices);
		return NULL;
	}
	disks = add_disks(cli, error);
	if (disks == NULL)
		return NULL;
	if (opt_nets != NULL && opt_nets[0] != NULL) {
		nics = parse_indexed(cli, "--net", "nic", opt_nets, nic_keys, error);
		if (nics == NULL)
			return NULL;
	} else {
		nics = json_array_new();
		if (!opt_no_nics) /* one NIC, all defaults */
			json_array_add_object_element(nics, json_object_new());
	}
	json_object_set_string_member(op, "instance_name", name);
	json_object_set_string_member(op, "mode", "create");
	json_object_set_array_member(op, "disks", g_steal_pointer(&disks));
	set_string_or_null(op, "disk_template", opt_disk_template);
	json_object_set_array_member(op, "nics", g_steal_pointer(&nics));
	if (opt_node != NULL) {
		nodes = g_strsplit(opt_node, ":", 2);
		json_object_set_string_member(op, "pnode", nodes[0]);
		set_string_or_null(op, "snode", nodes[0] != NULL ? nodes[1] : NULL);
	}
	if (!add_hypervisor(cli, op, error))
		return NULL;
	if ((params = parse_beparams(cli, opt_beparams, error)) == NULL)
		return NULL;
	json_object_set_object_member(op, "beparams", params);
	if ((params = parse_keyval_option(cli, "-O", opt_osparams, error)) == NULL)
		return NULL;
	json_object_set_object_member(op, "osparams", params);
	if ((params = parse_keyval_option(cli, "--os-parameters-private", opt_osparams_private,
					  error)) == NULL)
		return NULL;
	json_object_set_object_member(op, "osparams_private", params);
	/* never printed: it travels in the opcode only */
	if ((params = parse_keyval_option(cli, "--os-parameters-secret", opt_osparams_secret,
					  error)) == NULL)
		return NULL;
	json_object_set_object_member(op, "osparams_secret", params);
	set_string_or_null(op, "os_type", opt_os);
	json_object_set_boolean_member(op, "force_variant", opt_force_variant);
	json_object_set_boolean_member(op, "start", !opt_no_start);
	json_object_set_boolean_member(op, "no_install", opt_no_install);
	json_object_set_boolean_member(op, "name_check", opt_name_check);
	json_object_set_boolean_member(op, "ip_check", opt_ip_check);
	if (opt_tags != NULL) {
		g_auto(GStrv) tags = g_strsplit(opt_tags, ",", -1);

		json_object_set_array_member(op, "tags", gnt_cli_strv_to_json(tags));
	} else {
		json_object_set_array_member(op, "tags", json_array_new());
	}
	return g_steal_pointer(&op);
}

static gint
add_instance(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	JsonObject *op = add_build_opcode(cli, args[0], &error);
	g_autoptr(JsonArray) ops = json_array_new();

	if (op == NULL)
		return gnt_cli_fail(cli, error);
	json_array_add_object_element(ops, op);
	if (!gnt_cli_submit_or_send(cli, g_steal_pointer(&ops), NULL, &error))
		return gnt_cli_fail(cli, error);
	return 0;
}

/* ---- remove ---- */

static gboolean opt_force;
static gint opt_shutdown_timeout = DEFAULT_SHUTDOWN_TIMEOUT;
static gboolean opt_ignore_failures;

static const GOptionEntry remove_entries[] = {
	{"force", 'f', 0, G_OPTION_ARG_NONE, &opt_force, "Force the operation", NULL},
	{"shutdown-timeout", 0, 0, G_OPTION_ARG_INT, &opt_shutdown_timeout,
	 "Maximum time (in seconds) to wait for instance shutdown (default 120)", "SECONDS"},
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
						 json_array_get_length(json_node_get_array(row)) == 1
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
	json_object_set_int_member(op, "shutdown_timeout", opt_shutdown_timeout);
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
static gint opt_timeout = DEFAULT_SHUTDOWN_TIMEOUT;
static gchar *opt_reboot_type;
static gboolean opt_ignore_secondaries;

#define FORCE_MULTI_ENTRY                                                                        \
	{"force-multiple", 0, 0, G_OPTION_ARG_NONE, &opt_force_multi,                            \
	 "Do not ask for confirmation when more than one instance is affected", NULL}
#define IGNORE_OFFLINE_ENTRY                                                                     \
	{"ignore-offline", 0, 0, G_OPTION_ARG_NONE, &opt_ignore_offline,                         \
	 "Ignore offline nodes and do as much as possible", NULL}
#define NO_REMEMBER_ENTRY                                                                        \
	{"no-remember", 0, 0, G_OPTION_ARG_NONE, &opt_no_remember,                               \
	 "Perform but do not record the change in the configuration", NULL}

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
	 "Maximum time (in seconds) to wait for the guest to shut down before it is destroyed "
	 "(default 120)",
	 "SECONDS"},
	{NULL},
};

static const GOptionEntry reboot_entries[] = {
	FORCE_MULTI_ENTRY,
	{"type", 't', 0, G_OPTION_ARG_STRING, &opt_reboot_type,
	 "Type of reboot: soft/hard/full (default hard)", "REBOOT"},
	{"ignore-secondaries", 0, 0, G_OPTION_ARG_NONE, &opt_ignore_secondaries,
	 "Ignore errors from secondaries", NULL},
	{"shutdown-timeout", 0, 0, G_OPTION_ARG_INT, &opt_shutdown_timeout,
	 "Maximum time (in seconds) to wait for instance shutdown (default 120)", "SECONDS"},
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
		if ((params = parse_keyval_option(cli, "-H", opt_hvparams, error)) == NULL)
			return NULL;
		json_object_set_object_member(op, "hvparams", params);
	}
	if (opt_beparams != NULL) {
		if ((params = parse_beparams(cli, opt_beparams, error)) == NULL)
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
	json_object_set_int_member(op, "timeout", opt_timeout);
	json_object_set_boolean_member(op, "ignore_offline_nodes", opt_ignore_offline);
	json_object_set_boolean_member(op, "no_remember", opt_no_remember);
	return op;
}

static const gchar *const reboot_types[] = {"soft", "hard", "full", NULL};

static JsonObject *
reboot_opcode(GntCli *cli, const gchar *name, GError **error)
{
	JsonObject *op = json_object_new();

	json_object_set_string_member(op, "OP_ID", "OP_INSTANCE_REBOOT");
	json_object_set_string_member(op, "instance_name", name);
	json_object_set_string_member(op, "reboot_type",
				      opt_reboot_type != NULL ? opt_reboot_type : "hard");
	json_object_set_boolean_member(op, "ignore_secondaries", opt_ignore_secondaries);
	json_object_set_int_member(op, "shutdown_timeout", opt_shutdown_timeout);
	return op;
}

/* ConfirmOperation for several instances; no terminal answers no. */
static gboolean
confirm_many(gchar **names, const gchar *operation)
{
	guint count = g_strv_length(names);
	g_autoptr(GString) question = g_string_new(NULL);

	g_string_printf(question, "The %s will operate on %u instances.\nDo you want to continue?",
			operation, count);
	if (count <= 20) {
		g_string_append(question, "\nAffected instances:");
		for (guint i = 0; i < count; i++)
			g_string_append_printf(question, "\n  %s", names[i]);
	}
	return gnt_cli_ask_user(question->str);
}

/* GenericManyOps: the named instances (short names expanded), confirmed
 * when there are several, one job each, all submitted at once. */
static gint
many_ops(GntCli *cli, gchar **args, const gchar *operation, ManyOpsFunc func)
{
	g_autoptr(GError) error = NULL;
	g_auto(GStrv) names = NULL;
	g_autoptr(GntCliJobExecutor) executor = NULL;
	gboolean multi;
	gboolean all_ok = FALSE;

	if (args[0] == NULL) {
		gnt_cli_set_prereq_error(cli, &error, GNT_ERROR_INVALID, "No instance names passed");
		return gnt_cli_fail(cli, error);
	}
	names = expand_names(cli, args, &error);
	if (names == NULL)
		return gnt_cli_fail(cli, error);
	if (names[0] == NULL) {
		gnt_cli_set_prereq_error(cli, &error, GNT_ERROR_INVALID,
					 "Selection filter does not match any instances");
		return gnt_cli_fail(cli, error);
	}
	multi = names[1] != NULL;
	if (multi && !opt_force_multi && !confirm_many(names, operation))
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
	return many_ops(cli, args, "startup", startup_opcode);
}

static gint
shutdown_instances(GntCli *cli, gchar **args)
{
	return many_ops(cli, args, "shutdown", shutdown_opcode);
}

static gint
reboot_instances(GntCli *cli, gchar **args)
{
	if (opt_reboot_type != NULL && !g_strv_contains(reboot_types, opt_reboot_type)) {
		g_printerr("%s reboot: error: option -t: invalid choice: '%s' (choose from 'soft', "
			   "'hard', 'full')\n",
			   gnt_cli_get_binary(cli), opt_reboot_type);
		return GNT_CLI_EXIT_USAGE;
	}
	return many_ops(cli, args, "reboot", reboot_opcode);
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
			  G_SPAWN_SEARCH_PATH | G_SPAWN_CHILD_INHERITS_STDIN, NULL, NULL, NULL, NULL,
			  &status, &error) ||
	    !g_spawn_check_wait_status(status, &error)) {
		g_autofree gchar *text = shell_quote_args(command);

		g_printerr("Console command \"%s\" failed with reason '%s'\n", text, error->message);
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

/* Commands in alphabetical order, as Ganeti lists them; rename, modify and
 * the tag commands join them here. */
static const GntCliCommand commands[] = {
	{"add", add_instance, 1, 1, GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_DRY_RUN,
	 add_entries, "[...] -t disk-type -n node[:secondary-node] -o os-type <instance-name>",
	 "Creates and adds a new instance to the cluster",
	 "Without --disk or -s a disk template other than diskless needs disk information; "
	 "without --net or --no-nics the instance gets one NIC with the cluster's defaults. "
	 "--name-check and --ip-check are accepted for compatibility: Gantry does not resolve "
	 "the instance's name nor ping its IP. --os-parameters-secret values reach the OS "
	 "scripts only: they are neither stored nor printed."},
	{"console", console_instance, 1, 1, GNT_CLI_OPT_PRIORITY, console_entries,
	 "[--show-cmd] <instance-name>", "Opens a console on the specified instance",
	 "Without a terminal (or for a hypervisor without an interactive console) it prints the "
	 "first lines of the instance's serial console log instead."},
	{"info", show_instance_config, 0, -1, GNT_CLI_OPT_NONE, info_entries,
	 "[-s] {--all | <instance-name>...}", "Show information on the specified instance(s)",
	 "Names may be short (\"inst1\" for \"inst1.example.com\"); an unknown name fails."},
	{"list", list_instances, 0, -1, GNT_CLI_OPT_FIELDS | GNT_CLI_OPT_TABLE, NULL,
	 "[<instance-name>...]",
	 "Lists the instances and their status. The available fields can be shown using the "
	 "\"list-fields\" command (see the man page for details). The default field list is "
	 "(in order): name, hypervisor, os, pnode, status, oper_ram.",
	 "Live fields (status, oper_ram, ...) are asked from the nodes (5 s at most each); an "
	 "unreachable node shows ERROR_nodedown. Exits 14 if a requested field is unknown."},
	{"list-fields", list_instance_fields, 0, -1, GNT_CLI_OPT_TABLE, NULL, "[fields...]",
	 "Lists all available fields for instances", NULL},
	{"reboot", reboot_instances, 0, -1,
	 GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_DRY_RUN, reboot_entries,
	 "<instance>", "Reboots an instance",
	 "Several instances are rebooted by one job each, after a confirmation (or with "
	 "--force-multiple)."},
	{"remove", remove_instance, 1, 1,
	 GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_DRY_RUN, remove_entries,
	 "[-f] <instance-name>", "Shuts down the instance and removes it",
	 "Without -f it asks for confirmation; without a terminal the answer is no."},
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
