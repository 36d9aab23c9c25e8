/* gnt-template: install templates (doc/templates.md), in the manner of
 * gnt-group: add, modify, remove, list, list-fields, info. */
#include <stdio.h>
#include <string.h>

#include "gnt-cli-objects.h"
#include "gnt-json.h"

#define RESOURCE "installtemplate"

/* ---- list, list-fields ---- */

static const gchar *const list_default_fields[] = {
	"name", "step_cnt", "serial_no", "description", NULL,
};

static const GntCliListSpec list_spec = {RESOURCE, list_default_fields, NULL};

/* ---- info ---- */

enum {
	INFO_NAME,
	INFO_UUID,
	INFO_DESCRIPTION,
	INFO_SERIAL,
	INFO_CTIME,
	INFO_MTIME,
	INFO_STEPS
};

static const gchar *const info_fields[] = {
	"name", "uuid", "description", "serial_no", "ctime", "mtime", "steps", NULL,
};

static gchar *
format_float_time(JsonNode *value)
{
	gdouble seconds = 0;

	if (!gnt_json_node_get_number(value, "a time", &seconds, NULL))
		return g_strdup("?");
	return gnt_cli_format_time((gint64)seconds, -1);
}

/* Each step: its name and priority, then its arguments one per line. */
static GntCliInfo *
steps_info(JsonNode *steps)
{
	GntCliInfo *list = gnt_cli_info_new_list();

	for (guint i = 0; i < gnt_cli_list_length(steps); i++) {
		JsonNode *step = gnt_cli_list_item(steps, i);
		JsonObject *obj = JSON_NODE_HOLDS_OBJECT(step) ? json_node_get_object(step) : NULL;
		GntCliInfo *dict = gnt_cli_info_new_dict();
		JsonNode *args = obj != NULL ? json_object_get_member(obj, "args") : NULL;
		g_autofree gchar *priority = gnt_cli_py_str(
			obj != NULL ? json_object_get_member(obj, "priority") : NULL);
		g_autofree gchar *args_text = args != NULL ? gnt_json_to_string(args) : NULL;

		gnt_cli_info_add_printf(
			dict, "step", "%s.%s",
			obj != NULL
				? json_object_get_string_member_with_default(obj, "interface", "?")
				: "?",
			obj != NULL ? json_object_get_string_member_with_default(obj, "step", "?")
				    : "?");
		gnt_cli_info_add_text(dict, "priority", priority);
		gnt_cli_info_add_text(dict, "args", args_text != NULL ? args_text : "{}");
		gnt_cli_info_append(list, dict);
	}
	return list;
}

static GntCliInfo *
template_info(JsonArray *row)
{
	GntCliInfo *info = gnt_cli_info_new_dict();
	g_autofree gchar *ctime = format_float_time(json_array_get_element(row, INFO_CTIME));
	g_autofree gchar *mtime = format_float_time(json_array_get_element(row, INFO_MTIME));
	g_autofree gchar *serial = gnt_cli_py_str(json_array_get_element(row, INFO_SERIAL));

	gnt_cli_info_add(info, "Install template", NULL,
			 gnt_cli_info_new_json(json_array_get_element(row, INFO_NAME)));
	gnt_cli_info_add(info, "UUID", NULL,
			 gnt_cli_info_new_json(json_array_get_element(row, INFO_UUID)));
	gnt_cli_info_add(info, "Description", NULL,
			 gnt_cli_info_new_json(json_array_get_element(row, INFO_DESCRIPTION)));
	gnt_cli_info_add_text(info, "Serial number", serial);
	gnt_cli_info_add_text(info, "Creation time", ctime);
	gnt_cli_info_add_text(info, "Modification time", mtime);
	gnt_cli_info_add(info, "Steps", NULL, steps_info(json_array_get_element(row, INFO_STEPS)));
	return info;
}

static gint
show_info(GntCli *cli, gchar **args)
{
	return gnt_cli_show_info(cli, "QueryInstallTemplates", args, info_fields, template_info);
}

/* ---- add, modify ---- */

static gchar *opt_steps;
static gchar *opt_description;
static gchar *opt_new_name;

#define STEPS_ENTRY                                                                                            \
	{                                                                                                      \
		"steps", 0, 0, G_OPTION_ARG_STRING, &opt_steps,                                                \
			"The steps: a file holding their JSON list, - for standard input, or the JSON itself", \
			"FILE|-|JSON"                                                                          \
	}
#define DESCRIPTION_ENTRY(op_id)                                                                   \
	{                                                                                          \
		"description", 0, 0, G_OPTION_ARG_STRING, &opt_description,                        \
			GNT_CLI_PARAM_HELP(op_id, "description"), "TEXT"                           \
	}

static const GOptionEntry add_entries[] = {
	STEPS_ENTRY,
	DESCRIPTION_ENTRY("OP_INSTALL_TEMPLATE_ADD"),
	{NULL},
};

static const GOptionEntry modify_entries[] = {
	STEPS_ENTRY,
	DESCRIPTION_ENTRY("OP_INSTALL_TEMPLATE_SET_PARAMS"),
	{"new-name", 0, 0, G_OPTION_ARG_STRING, &opt_new_name,
	 GNT_CLI_PARAM_HELP("OP_INSTALL_TEMPLATE_SET_PARAMS", "new_name"), "NAME"},
	{NULL},
};

/*
 * --steps as Ironic's client reads it: "-" is standard input, text that
 * starts with "[" or "{" (after blanks) the JSON itself, anything else a file.
 * The JSON must be a list. (transfer full)
 */
static JsonNode *
read_steps(const gchar *value, GError **error)
{
	g_autofree gchar *text = NULL;
	const gchar *start = value;
	JsonNode *steps;
	gsize len = 0;

	while (g_ascii_isspace(*start))
		start++;
	if (*start == '[' || *start == '{') {
		text = g_strdup(start);
	} else if (g_strcmp0(value, "-") == 0) {
		g_autoptr(GIOChannel) in = g_io_channel_unix_new(fileno(stdin));

		if (g_io_channel_read_to_end(in, &text, &len, error) != G_IO_STATUS_NORMAL) {
			g_prefix_error(error, "--steps -: ");
			return NULL;
		}
	} else if (!g_file_get_contents(value, &text, &len, error)) {
		return NULL;
	}
	steps = gnt_json_parse(text, -1, error);
	if (steps == NULL) {
		g_prefix_error(error, "--steps: ");
		return NULL;
	}
	if (!JSON_NODE_HOLDS_ARRAY(steps)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "--steps: the steps must be a JSON list, not %s",
			    gnt_json_node_type_name(steps));
		json_node_unref(steps);
		return NULL;
	}
	return steps;
}

/* The options given on @op; *@any tells whether one was. */
static gboolean
set_options(GntCli *cli, JsonObject *op, gboolean *any, GError **error)
{
	g_autoptr(GError) local = NULL;

	*any = opt_steps != NULL || opt_description != NULL || opt_new_name != NULL;
	if (opt_steps != NULL) {
		JsonNode *steps = read_steps(opt_steps, &local);

		if (steps == NULL) {
			gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID, "%s",
						 local->message);
			return FALSE;
		}
		json_object_set_member(op, "steps", steps);
	}
	if (opt_description != NULL)
		json_object_set_string_member(op, "description", opt_description);
	if (opt_new_name != NULL)
		json_object_set_string_member(op, "new_name", opt_new_name);
	return TRUE;
}

static gint
add_template(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) op = gnt_cli_new_opcode(cli, "OP_INSTALL_TEMPLATE_ADD");
	gboolean any = FALSE;

	json_object_set_string_member(op, "template_name", args[0]);
	if (opt_steps == NULL) {
		g_printerr("gnt-template add: --steps is required\n");
		return GNT_CLI_EXIT_USAGE;
	}
	if (!set_options(cli, op, &any, &error))
		return gnt_cli_fail(cli, error);
	return gnt_cli_submit_opcode(cli, g_steal_pointer(&op), NULL);
}

static gint
modify_template(GntCli *cli, gchar **args)
{
	return gnt_cli_modify_object(cli, "OP_INSTALL_TEMPLATE_SET_PARAMS", "template_name",
				     args[0], "install template", set_options);
}

static gint
remove_template(GntCli *cli, gchar **args)
{
	JsonObject *op = gnt_cli_new_opcode(cli, "OP_INSTALL_TEMPLATE_REMOVE");

	json_object_set_string_member(op, "template_name", args[0]);
	return gnt_cli_submit_opcode(cli, op, NULL);
}

#define SUBMIT_OPTS (GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_DRY_RUN)

/* Commands in alphabetical order, as Ganeti lists them. */
static const GntCliCommand commands[] = {
	{"add", add_template, 1, 1, SUBMIT_OPTS, add_entries,
	 "--steps FILE|-|JSON [--description TEXT] <name>", "Add an install template",
	 "The name is the instance tag that selects the template (an instance's primary node "
	 "must carry it too): a tag, and CUSTOM_[A-Z0-9_]+ when it starts with custom_. The "
	 "steps are checked against the install step registry (gnt-os list-steps)."},
	{"info", show_info, 0, -1, GNT_CLI_OPT_NONE, NULL, "[<name>...]",
	 "Show install template information",
	 "The named templates (or all) with their steps, serial number and times."},
	{"list", gnt_cli_list_command, 0, -1, GNT_CLI_OPT_FIELDS | GNT_CLI_OPT_TABLE, NULL,
	 "[<name>...]",
	 "Lists the install templates. The available fields can be shown using the "
	 "\"list-fields\" command. The default list is (in order): name, step_cnt, serial_no, "
	 "description.",
	 NULL, &list_spec},
	{"list-fields", gnt_cli_list_fields_command, 0, -1, GNT_CLI_OPT_TABLE, NULL, "[fields...]",
	 "Lists all available fields for install templates", NULL, &list_spec},
	{"modify", modify_template, 1, 1, SUBMIT_OPTS, modify_entries,
	 "[--steps FILE|-|JSON] [--description TEXT] [--new-name NAME] <name>",
	 "Change an install template", "The steps given replace the template's whole list."},
	{"remove", remove_template, 1, 1, SUBMIT_OPTS, NULL, "[--dry-run] <name>",
	 "Remove an install template",
	 "Installs already running keep the steps they started with."},
	{NULL},
};

int
main(int argc, char **argv)
{
	return gnt_cli_main(commands, argc, argv);
}
