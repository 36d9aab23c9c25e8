/* gnt-node: node-related commands, after Ganeti's lib/client/gnt_node.py. */
#include "gnt-cli-objects.h"
#include "gnt-json.h"

/* ---- list, list-fields ---- */

static const gchar *const list_default_fields[] = {
	"name", "dtotal", "dfree", "mtotal", "mnode", "mfree", "pinst_cnt", "sinst_cnt", NULL,
};

static const GntCliFormatOverride list_overrides[] = {
	{"pinst_list", gnt_cli_format_comma_list, FALSE},
	{"sinst_list", gnt_cli_format_comma_list, FALSE},
	{"tags", gnt_cli_format_comma_list, FALSE},
	{NULL},
};

static gint
list_nodes(GntCli *cli, gchar **args)
{
	return gnt_cli_list_objects(cli, "node", args, list_default_fields, list_overrides);
}

static gint
list_node_fields(GntCli *cli, gchar **args)
{
	return gnt_cli_list_object_fields(cli, "node", args);
}

/* ---- info ---- */

/* The fields of ShowNodeConfig, in its order. */
enum {
	INFO_NAME,
	INFO_PIP,
	INFO_SIP,
	INFO_PINST,
	INFO_SINST,
	INFO_MC,
	INFO_DRAINED,
	INFO_OFFLINE,
	INFO_MASTER_CAPABLE,
	INFO_VM_CAPABLE,
	INFO_POWERED,
	INFO_NDPARAMS,
	INFO_CUSTOM_NDPARAMS,
	INFO_N_FIELDS
};

static const gchar *const info_fields[] = {
	"name",		  "pip",	"sip",	      "pinst_list",	"sinst_list",
	"master_candidate", "drained",	"offline",    "master_capable", "vm_capable",
	"powered",	  "ndparams", "custom_ndparams", NULL,
};
G_STATIC_ASSERT(G_N_ELEMENTS(info_fields) == INFO_N_FIELDS + 1);

static void
add_value(GntCliInfo *info, const gchar *key, JsonNode *value)
{
	gnt_cli_info_add(info, key, NULL, gnt_cli_info_new_json(value));
}

/* _FormatNodeInfo */
static GntCliInfo *
node_info(JsonArray *row)
{
	GntCliInfo *info = gnt_cli_info_new_dict();
	JsonNode *powered = json_array_get_element(row, INFO_POWERED);
	JsonNode *vm_capable = json_array_get_element(row, INFO_VM_CAPABLE);
	g_autoptr(JsonNode) params = gnt_cli_format_params(
		json_array_get_element(row, INFO_CUSTOM_NDPARAMS),
		json_array_get_element(row, INFO_NDPARAMS));

	add_value(info, "Node name", json_array_get_element(row, INFO_NAME));
	add_value(info, "primary ip", json_array_get_element(row, INFO_PIP));
	add_value(info, "secondary ip", json_array_get_element(row, INFO_SIP));
	add_value(info, "master candidate", json_array_get_element(row, INFO_MC));
	add_value(info, "drained", json_array_get_element(row, INFO_DRAINED));
	add_value(info, "offline", json_array_get_element(row, INFO_OFFLINE));
	if (powered != NULL && !JSON_NODE_HOLDS_NULL(powered))
		add_value(info, "powered", powered);
	add_value(info, "master_capable", json_array_get_element(row, INFO_MASTER_CAPABLE));
	add_value(info, "vm_capable", vm_capable);
	if (JSON_NODE_HOLDS_VALUE(vm_capable) &&
	    json_node_get_value_type(vm_capable) == G_TYPE_BOOLEAN &&
	    json_node_get_boolean(vm_capable)) {
		/* the lists come sorted by name (NiceSort) */
		add_value(info, "primary for instances", json_array_get_element(row, INFO_PINST));
		add_value(info, "secondary for instances", json_array_get_element(row, INFO_SINST));
	}
	add_value(info, "node parameters", params);
	return info;
}

static gint
show_node_config(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) call_args = json_array_new();
	g_autoptr(JsonNode) result = NULL;
	g_autoptr(GntCliInfo) container = gnt_cli_info_new_list();
	g_autofree gchar *text = NULL;
	JsonArray *rows;

	json_array_add_array_element(call_args, gnt_cli_strv_to_json(args));
	json_array_add_array_element(call_args, gnt_cli_strv_to_json((gchar **)info_fields));
	json_array_add_boolean_element(call_args, FALSE);
	result = gnt_cli_call_array(cli, "QueryNodes", g_steal_pointer(&call_args), &error);
	if (result == NULL)
		return gnt_cli_fail(cli, error);
	if (!JSON_NODE_HOLDS_ARRAY(result)) {
		g_set_error(&error, GNT_ERROR, GNT_ERROR_INVALID, "QueryNodes answered a %s, not a list",
			    gnt_json_node_type_name(result));
		return gnt_cli_fail(cli, error);
	}
	rows = json_node_get_array(result);
	for (guint r = 0; r < json_array_get_length(rows); r++) {
		JsonNode *row = json_array_get_element(rows, r);

		if (JSON_NODE_HOLDS_ARRAY(row) &&
		    json_array_get_length(json_node_get_array(row)) == INFO_N_FIELDS)
			gnt_cli_info_append(container, node_info(json_node_get_array(row)));
	}
	text = gnt_cli_info_format(container);
	g_print("%s\n", text);
	return 0;
}

/* Commands in alphabetical order, as Ganeti lists them; add, remove,
 * modify and the tag commands join them here. */
static const GntCliCommand commands[] = {
	{"info", show_node_config, 0, -1, GNT_CLI_OPT_NONE, NULL, "[<node_name>...]",
	 "Show information about the node(s)",
	 "Shows the addresses, roles, instances and node parameters of the named nodes (short "
	 "names work), or of every node."},
	{"list", list_nodes, 0, -1, GNT_CLI_OPT_FIELDS | GNT_CLI_OPT_TABLE, NULL,
	 "[<node_name>...]",
	 "Lists the nodes in the cluster. The available fields can be shown using the "
	 "\"list-fields\" command. The default field list is (in order): name, dtotal, dfree, "
	 "mtotal, mnode, mfree, pinst_cnt, sinst_cnt.",
	 "Live fields (dtotal, mfree, ...) show \"?\" until the nodes report them, \"*\" for an "
	 "offline node. Exits 14 if a requested field is unknown."},
	{"list-fields", list_node_fields, 0, -1, GNT_CLI_OPT_TABLE, NULL, "[<fields>...]",
	 "Lists all available fields for nodes", NULL},
	{"show", show_node_config, 0, -1, GNT_CLI_OPT_NONE, NULL, "[<node_name>...]",
	 "Alias of \"info\"", NULL},
	{NULL},
};

int
main(int argc, char **argv)
{
	return gnt_cli_main(commands, argc, argv);
}
