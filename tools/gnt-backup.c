/*
 * gnt-backup: instance exports and imports, after Ganeti's
 * lib/client/gnt_backup.py. Exports are local (onto the instance's primary
 * node); doc/backup.md says what is supported.
 */
#include "gnt-cli-create.h"
#include "gnt-json.h"

/* ---- export ---- */

static gchar *opt_node;
static gboolean opt_shutdown = TRUE;
static gint opt_shutdown_timeout = GNT_CLI_INT_UNSET;
static gboolean opt_remove_instance;
static gboolean opt_ignore_remove_failures;
static gchar *opt_compress;
static gboolean opt_zero_free_space;
static gboolean opt_long_sleep;
static gboolean opt_force;

static const GOptionEntry export_entries[] = {
	{"node", 'n', 0, G_OPTION_ARG_STRING, &opt_node,
	 "Target node (the instance's primary node: exports are local)", "NODE"},
	{"noshutdown", 0, G_OPTION_FLAG_REVERSE, G_OPTION_ARG_NONE, &opt_shutdown,
	 "Do not shutdown the instance before the export (its disks may change while they are "
	 "read)",
	 NULL},
	{"shutdown-timeout", 0, 0, G_OPTION_ARG_INT, &opt_shutdown_timeout,
	 GNT_CLI_PARAM_HELP("OP_BACKUP_EXPORT", "shutdown_timeout"), "SECONDS"},
	{"remove-instance", 0, 0, G_OPTION_ARG_NONE, &opt_remove_instance,
	 "Remove the instance from the cluster after the export", NULL},
	{"ignore-remove-failures", 0, 0, G_OPTION_ARG_NONE, &opt_ignore_remove_failures,
	 "Remove the instance from the cluster configuration even if there are failures "
	 "during the removal process",
	 NULL},
	{"compress", 0, 0, G_OPTION_ARG_STRING, &opt_compress,
	 "Compression of the disk dumps: none (default) or gzip", "TOOL"},
	{"transport-compression", 0, 0, G_OPTION_ARG_STRING, &opt_compress,
	 "Alias of --compress (Ganeti 3.0's name)", "TOOL"},
	{"zero-free-space", 0, 0, G_OPTION_ARG_NONE, &opt_zero_free_space,
	 "Zero the free space of the disks first (not supported: refused)", NULL},
	{"long-sleep", 0, 0, G_OPTION_ARG_NONE, &opt_long_sleep,
	 "Allow long shutdowns when backing up instances (accepted)", NULL},
	{"force", 'f', 0, G_OPTION_ARG_NONE, &opt_force, "Force the operation (accepted)", NULL},
	{NULL},
};

static gint
export_instance(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) ops = json_array_new();
	JsonObject *op;

	if (opt_node == NULL) {
		gnt_cli_set_prereq_error(cli, &error, GNT_ERROR_INVALID,
					 "Target node must be specified");
		return gnt_cli_fail(cli, error);
	}
	op = gnt_cli_new_opcode(cli, "OP_BACKUP_EXPORT");
	json_object_set_string_member(op, "instance_name", args[0]);
	json_object_set_string_member(op, "target_node", opt_node);
	if (opt_compress != NULL) /* else the opcode table's default */
		json_object_set_string_member(op, "compress", opt_compress);
	json_object_set_boolean_member(op, "shutdown", opt_shutdown);
	gnt_cli_set_int_if_given(op, "shutdown_timeout", opt_shutdown_timeout);
	json_object_set_boolean_member(op, "remove_instance", opt_remove_instance);
	json_object_set_boolean_member(op, "ignore_remove_failures", opt_ignore_remove_failures);
	json_object_set_boolean_member(op, "zero_free_space", opt_zero_free_space);
	json_object_set_boolean_member(op, "long_sleep", opt_long_sleep);
	json_array_add_object_element(ops, op);
	if (!gnt_cli_submit_or_send(cli, g_steal_pointer(&ops), NULL, &error))
		return gnt_cli_fail(cli, error);
	return 0;
}

/* ---- import ---- */

static gint
import_instance(GntCli *cli, gchar **args)
{
	return gnt_cli_create_instance(cli, GNT_CLI_CREATE_MODE_IMPORT, args[0]);
}

/* ---- list ---- */

static gchar **opt_nodes;

static const GOptionEntry list_entries[] = {
	{"node", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opt_nodes,
	 "Node to list the exports of (repeatable; all nodes when not given)", "NODE"},
	{NULL},
};

static const gchar *const list_default_fields[] = {"node", "export", NULL};

/* The cells of one export for the -o fields. (transfer full) */
static gchar **
export_row(gchar **fields, const gchar *node, const gchar *export)
{
	guint n = g_strv_length(fields);
	gchar **row = g_new0(gchar *, n + 1);

	for (guint i = 0; i < n; i++)
		row[i] = g_strdup(g_strcmp0(fields[i], "node") == 0 ? node : export);
	return row;
}

/* OP_BACKUP_QUERY as Ganeti 3.0's "Node Export" table (the export query
 * resource's fields "node" and "export"); a node that could not be asked
 * is reported on stderr and makes the exit code 1. */
static gint
list_exports(GntCli *cli, gchar **args)
{
	const GntCliOptions *opts = gnt_cli_get_options(cli);
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) ops = json_array_new();
	g_autoptr(JsonArray) results = NULL;
	g_auto(GStrv) fields = gnt_cli_parse_fields(opts->output, list_default_fields);
	g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
	g_autoptr(GPtrArray) lines = NULL;
	g_autoptr(GList) nodes = NULL;
	g_autofree GntCliColumn *columns = NULL;
	JsonObject *op = gnt_cli_new_opcode(cli, "OP_BACKUP_QUERY");
	JsonNode *answer;
	gint status = 0;

	for (guint i = 0; fields[i] != NULL; i++) {
		if (g_strcmp0(fields[i], "node") != 0 && g_strcmp0(fields[i], "export") != 0) {
			json_object_unref(op);
			g_printerr("Warning: Queried for unknown fields %s\n", fields[i]);
			return GNT_CLI_EXIT_UNKNOWN_FIELD;
		}
	}
	json_object_set_array_member(op, "nodes", gnt_cli_strv_to_json(opt_nodes));
	json_object_set_boolean_member(op, "use_locking", FALSE);
	json_array_add_object_element(ops, op);
	/* the job's warnings (a node that did not answer) are printed */
	if (!gnt_cli_submit_or_send(cli, g_steal_pointer(&ops), &results, &error))
		return gnt_cli_fail(cli, error);
	answer = json_array_get_length(results) > 0 ? json_array_get_element(results, 0) : NULL;
	if (answer == NULL || !JSON_NODE_HOLDS_OBJECT(answer)) {
		g_set_error_literal(&error, GNT_ERROR, GNT_ERROR_INVALID,
				    "the export query's answer is not an object");
		return gnt_cli_fail(cli, error);
	}
	nodes = json_object_get_members(json_node_get_object(answer));
	nodes = g_list_sort(nodes, (GCompareFunc)g_strcmp0);
	for (GList *l = nodes; l != NULL; l = l->next) {
		JsonNode *exports = json_object_get_member(json_node_get_object(answer), l->data);

		if (!JSON_NODE_HOLDS_ARRAY(exports)) {
			g_printerr("Could not get the exports of node %s\n",
				   (const gchar *)l->data);
			status = 1;
			continue;
		}
		for (guint i = 0; i < json_array_get_length(json_node_get_array(exports)); i++)
			g_ptr_array_add(rows, export_row(fields, l->data,
							 json_array_get_string_element(
								 json_node_get_array(exports), i)));
	}
	columns = g_new0(GntCliColumn, g_strv_length(fields));
	for (guint i = 0; fields[i] != NULL; i++)
		columns[i].title = g_strcmp0(fields[i], "node") == 0 ? "Node" : "Export";
	lines = gnt_cli_format_table(columns, g_strv_length(fields), rows, !opts->no_headers,
				     opts->separator);
	for (guint i = 0; i < lines->len; i++)
		g_print("%s\n", (const gchar *)g_ptr_array_index(lines, i));
	return status;
}

/* ---- remove ---- */

static gint
remove_export(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) ops = json_array_new();
	JsonObject *op = gnt_cli_new_opcode(cli, "OP_BACKUP_REMOVE");

	json_object_set_string_member(op, "instance_name", args[0]);
	json_array_add_object_element(ops, op);
	if (!gnt_cli_submit_or_send(cli, g_steal_pointer(&ops), NULL, &error))
		return gnt_cli_fail(cli, error);
	return 0;
}

static const GntCliCommand commands[] = {
	{"export", export_instance, 1, 1,
	 GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_DRY_RUN, export_entries,
	 "-n <target_node> [opts...] <name>", "Exports an instance to an image",
	 "The instance is shut down first (unless --noshutdown) and started again afterwards if "
	 "it was running; its OS export script dumps each disk into "
	 "<root>/srv/gantry/export/<name> on the target node, with a config.ini describing the "
	 "instance. Only local exports onto the instance's primary node are supported; an older "
	 "export of the instance is replaced, and removed from the other nodes."},
	{"import", import_instance, 1, 1,
	 GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_DRY_RUN,
	 gnt_cli_create_import_entries, "[...] -t disk-type -n node[:secondary-node] <name>",
	 "Imports an instance from an exported image",
	 "The export is read on --src-node (default: the new instance's primary node, which it "
	 "must be) from --src-dir (default: the instance's name). The OS is the export's; disks, "
	 "NICs, tags and the hypervisor are the export's unless given, hypervisor, backend and "
	 "OS parameters the export's under those given. The OS import script fills each disk, "
	 "then the rename script runs for a new name. The instance is not started."},
	{"list", list_exports, 0, 0, GNT_CLI_OPT_FIELDS | GNT_CLI_OPT_TABLE, list_entries, "",
	 "Lists instance exports available in the ganeti cluster",
	 "Fields: node, export (the default, in that order). A node that does not answer is "
	 "named on stderr and makes the exit code 1."},
	{"remove", remove_export, 1, 1,
	 GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_DRY_RUN, NULL, "<name>",
	 "Remove exports of named instance from the filesystem.",
	 "An export of an instance that no longer exists is named by its full name."},
	{NULL},
};

int
main(int argc, char **argv)
{
	return gnt_cli_main(commands, argc, argv);
}
