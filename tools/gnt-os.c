/* gnt-os: OS definitions, after Ganeti's lib/client/gnt_os.py (OP_OS_DIAGNOSE). */
#include <string.h>

#include "gnt-cli-create.h"
#include "gnt-cli.h"
#include "gnt-install-registry.h"
#include "gnt-json.h"

/* Runs OP_OS_DIAGNOSE for @fields and returns its rows. (transfer full) */
static JsonArray *
diagnose(GntCli *cli, const gchar *const *fields, GError **error)
{
	g_autoptr(JsonArray) ops = json_array_new();
	g_autoptr(JsonArray) results = NULL;
	JsonObject *op = gnt_cli_new_opcode(cli, "OP_OS_DIAGNOSE");
	JsonNode *rows;

	json_array_add_object_element(ops, op);
	json_object_set_array_member(op, "output_fields", gnt_cli_strv_to_json((gchar **)fields));
	json_object_set_array_member(op, "names", json_array_new());
	if (!gnt_cli_submit_or_send(cli, g_steal_pointer(&ops), &results, error))
		return NULL;
	if (results == NULL) /* --submit */
		return NULL;
	rows = json_array_get_length(results) > 0 ? json_array_get_element(results, 0) : NULL;
	if (rows == NULL || !JSON_NODE_HOLDS_ARRAY(rows)) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID, "Can't get the OS list");
		return NULL;
	}
	return json_array_ref(json_node_get_array(rows));
}

/* Row @row of @rows, which must have @n_fields cells; NULL otherwise. */
static JsonArray *
row_at(JsonArray *rows, guint row, guint n_fields)
{
	JsonNode *node = json_array_get_element(rows, row);

	if (!JSON_NODE_HOLDS_ARRAY(node) ||
	    json_array_get_length(json_node_get_array(node)) != n_fields)
		return NULL;
	return json_node_get_array(node);
}

static gboolean
cell_bool(JsonArray *row, guint index)
{
	JsonNode *node = json_array_get_element(row, index);

	return JSON_NODE_HOLDS_VALUE(node) && json_node_get_value_type(node) == G_TYPE_BOOLEAN &&
	       json_node_get_boolean(node);
}

static JsonArray *
cell_list(JsonArray *row, guint index)
{
	JsonNode *node = json_array_get_element(row, index);

	return JSON_NODE_HOLDS_ARRAY(node) ? json_node_get_array(node) : NULL;
}

/* utils.CommaJoin of the str() of each item. */
static gchar *
comma_join(JsonArray *list)
{
	g_autoptr(GString) out = g_string_new(NULL);

	for (guint i = 0; list != NULL && i < json_array_get_length(list); i++) {
		g_autofree gchar *text = gnt_cli_py_str(json_array_get_element(list, i));
		g_string_append_printf(out, "%s%s", i > 0 ? ", " : "", text);
	}
	return g_string_free(g_steal_pointer(&out), FALSE);
}

/* ---- list ---- */

static gboolean opt_show_trusted;

static const GOptionEntry list_entries[] = {
	{"show-trusted", 0, 0, G_OPTION_ARG_NONE, &opt_show_trusted,
	 "Add a column saying whether each OS is trusted (its scripts may run on the nodes)", NULL},
	{NULL},
};

static gint
list_os(GntCli *cli, gchar **args)
{
	static const gchar *const fields[] = {"name", "variants", "trusted", NULL};
	static const GntCliColumn columns[] = {{"Name", FALSE}, {"Trusted", FALSE}};
	const GntCliOptions *opts = gnt_cli_get_options(cli);
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) rows = diagnose(cli, fields, &error);
	g_autoptr(GPtrArray) table = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
	g_autoptr(GPtrArray) lines = NULL;

	if (rows == NULL)
		return error != NULL ? gnt_cli_fail(cli, error) : 0;
	for (guint i = 0; i < json_array_get_length(rows); i++) {
		JsonArray *row = row_at(rows, i, 3);
		const gchar *trusted = row != NULL && cell_bool(row, 2) ? "Y" : "N";
		JsonArray *variants = row != NULL ? cell_list(row, 1) : NULL;
		const gchar *name = row != NULL ? json_array_get_string_element(row, 0) : NULL;

		if (name == NULL)
			continue;
		/* CalculateOSNames */
		if (variants == NULL || json_array_get_length(variants) == 0) {
			gchar **cells = g_new0(gchar *, 3);
			cells[0] = g_strdup(name);
			cells[1] = opt_show_trusted ? g_strdup(trusted) : NULL;
			g_ptr_array_add(table, cells);
		}
		for (guint v = 0; variants != NULL && v < json_array_get_length(variants); v++) {
			gchar **cells = g_new0(gchar *, 3);
			cells[0] = g_strdup_printf("%s+%s", name,
						   json_array_get_string_element(variants, v));
			cells[1] = opt_show_trusted ? g_strdup(trusted) : NULL;
			g_ptr_array_add(table, cells);
		}
	}
	lines = gnt_cli_format_table(columns, opt_show_trusted ? 2 : 1, table, !opts->no_headers,
				     opts->separator);
	for (guint i = 0; i < lines->len; i++)
		g_print("%s\n", (const gchar *)g_ptr_array_index(lines, i));
	return 0;
}

/* ---- info ---- */

enum {
	INFO_NAME,
	INFO_VALID,
	INFO_VARIANTS,
	INFO_PARAMETERS,
	INFO_API_VERSIONS,
	INFO_BLACKLISTED,
	INFO_HIDDEN,
	INFO_OS_HVP,
	INFO_OSPARAMS,
	INFO_TRUSTED,
	INFO_UNTRUSTED_SCRIPTS,
	INFO_N_FIELDS
};

static const gchar *const info_fields[] = {
	"name",	  "valid",  "variants", "parameters", "api_versions",	   "blacklisted",
	"hidden", "os_hvp", "osparams", "trusted",    "untrusted_scripts", NULL,
};
G_STATIC_ASSERT(G_N_ELEMENTS(info_fields) == INFO_N_FIELDS + 1);

static const gchar *
py_bool(gboolean value)
{
	return value ? "True" : "False";
}

static gint
compare_json_ints(gconstpointer a, gconstpointer b)
{
	gint64 x = json_node_get_int(*(JsonNode *const *)a);
	gint64 y = json_node_get_int(*(JsonNode *const *)b);

	return x < y ? -1 : x > y;
}

static void
print_os_info(JsonArray *row)
{
	gboolean valid = cell_bool(row, INFO_VALID);

	g_print("%s:\n", json_array_get_string_element(row, INFO_NAME));
	g_print("  - valid: %s\n", py_bool(valid));
	g_print("  - hidden: %s\n", py_bool(cell_bool(row, INFO_HIDDEN)));
	g_print("  - blacklisted: %s\n", py_bool(cell_bool(row, INFO_BLACKLISTED)));
	if (valid) {
		JsonArray *versions = cell_list(row, INFO_API_VERSIONS);
		JsonArray *variants = cell_list(row, INFO_VARIANTS);
		JsonArray *parameters = cell_list(row, INFO_PARAMETERS);
		g_autoptr(GPtrArray) sorted = g_ptr_array_new();

		for (guint i = 0; versions != NULL && i < json_array_get_length(versions); i++) {
			if (gnt_json_node_is_int(json_array_get_element(versions, i)))
				g_ptr_array_add(sorted, json_array_get_element(versions, i));
		}
		g_ptr_array_sort(sorted, compare_json_ints);
		g_print("  - API versions:\n");
		for (guint i = 0; i < sorted->len; i++)
			g_print("    - %" G_GINT64_FORMAT "\n",
				json_node_get_int(g_ptr_array_index(sorted, i)));
		g_print("  - variants:\n");
		for (guint i = 0; variants != NULL && i < json_array_get_length(variants); i++)
			g_print("    - %s\n", json_array_get_string_element(variants, i));
		g_print("  - parameters:\n");
		for (guint i = 0; parameters != NULL && i < json_array_get_length(parameters);
		     i++) {
			JsonNode *pair = json_array_get_element(parameters, i);
			JsonArray *items = JSON_NODE_HOLDS_ARRAY(pair) ? json_node_get_array(pair)
								       : NULL;

			if (items != NULL && json_array_get_length(items) == 2)
				g_print("    - %s: %s\n", json_array_get_string_element(items, 0),
					json_array_get_string_element(items, 1));
		}
	}
	g_print("  - trusted: %s\n", py_bool(cell_bool(row, INFO_TRUSTED)));
	/* Gantry's: scripts that run only inside the install appliance */
	{
		JsonArray *untrusted = cell_list(row, INFO_UNTRUSTED_SCRIPTS);

		g_print("  - untrusted scripts:\n");
		for (guint i = 0; untrusted != NULL && i < json_array_get_length(untrusted); i++)
			g_print("    - %s\n", json_array_get_string_element(untrusted, i));
	}
	g_print("\n");
}

static gint
show_os_info(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) rows = diagnose(cli, info_fields, &error);
	g_autoptr(JsonObject) os_hvp = json_object_new();
	g_autoptr(JsonObject) osparams = json_object_new();
	g_autoptr(GPtrArray) wanted = g_ptr_array_new();

	if (rows == NULL)
		return error != NULL ? gnt_cli_fail(cli, error) : 0;
	for (guint i = 0; args[i] != NULL; i++)
		g_ptr_array_add(wanted, args[i]);
	for (guint i = 0; i < json_array_get_length(rows); i++) {
		JsonArray *row = row_at(rows, i, INFO_N_FIELDS);
		const gchar *name = row != NULL ? json_array_get_string_element(row, INFO_NAME)
						: NULL;
		guint index = 0;

		if (name == NULL)
			continue;
		for (guint k = 0; k < 2; k++) {
			JsonNode *dict =
				json_array_get_element(row, k == 0 ? INFO_OS_HVP : INFO_OSPARAMS);

			if (JSON_NODE_HOLDS_OBJECT(dict))
				gnt_json_object_overlay(k == 0 ? os_hvp : osparams,
							json_node_get_object(dict));
		}
		if (args[0] != NULL) {
			if (!g_ptr_array_find_with_equal_func(wanted, name, g_str_equal, &index))
				continue;
			g_ptr_array_remove_index(wanted, index);
		}
		print_os_info(row);
	}
	/* names left: variants ("os+variant") with their own parameters */
	for (guint i = 0; i < wanted->len; i++) {
		const gchar *name = g_ptr_array_index(wanted, i);

		if (!json_object_has_member(os_hvp, name) &&
		    !json_object_has_member(osparams, name)) {
			g_print("%s: \n", name);
		} else {
			g_autoptr(GntCliInfo) info = gnt_cli_info_new_dict();
			GntCliInfo *params = gnt_cli_info_new_dict();
			g_autofree gchar *text = NULL;
			JsonNode *hvp = json_object_get_member(os_hvp, name);
			JsonNode *osp = json_object_get_member(osparams, name);
			g_autoptr(JsonNode) empty = gnt_json_node_new_object(json_object_new());

			gnt_cli_info_add(params, "OS-specific hypervisor parameters", NULL,
					 gnt_cli_info_new_json(hvp != NULL ? hvp : empty));
			gnt_cli_info_add(params, "OS parameters", NULL,
					 gnt_cli_info_new_json(osp != NULL ? osp : empty));
			gnt_cli_info_add(info, name, NULL, params);
			text = gnt_cli_info_format(info);
			g_print("%s\n", text);
		}
		g_print("\n");
	}
	return 0;
}

/* ---- diagnose ---- */

enum {
	DIAG_NAME,
	DIAG_VALID,
	DIAG_VARIANTS,
	DIAG_NODE_STATUS,
	DIAG_HIDDEN,
	DIAG_BLACKLISTED,
	DIAG_N_FIELDS
};

/* _OsStatus */
static gchar *
os_status(gboolean valid, const gchar *diagnose_text)
{
	return valid ? g_strdup("valid") : g_strdup_printf("invalid - %s", diagnose_text);
}

static gint64
max_int(JsonArray *list)
{
	gint64 max = 0;

	for (guint i = 0; list != NULL && i < json_array_get_length(list); i++) {
		JsonNode *item = json_array_get_element(list, i);
		if (gnt_json_node_is_int(item))
			max = MAX(max, json_node_get_int(item));
	}
	return max;
}

/* The message about a node's first definition of an OS. */
static gchar *
first_definition_message(JsonArray *def)
{
	const gchar *path = json_array_get_string_element(def, 0);
	gboolean valid = cell_bool(def, 1);
	g_autofree gchar *status = os_status(valid, json_array_get_string_element(def, 2));
	JsonArray *variants = cell_list(def, 3);
	JsonArray *params = cell_list(def, 4);
	JsonArray *api = cell_list(def, 5);
	GString *msg = g_string_new(NULL);
	gint64 max_api = max_int(api);

	g_string_append_printf(msg, "%s (path: %s)", status, path);
	if (api != NULL && json_array_get_length(api) > 0) {
		g_autofree gchar *versions = comma_join(api);
		g_string_append_printf(msg, " [API versions: %s]", versions);
	} else {
		g_string_append(msg, " [no API versions declared]");
	}
	if (max_api >= 15) {
		g_autofree gchar *names = comma_join(variants);
		if (variants != NULL && json_array_get_length(variants) > 0)
			g_string_append_printf(msg, " [variants: %s]", names);
		else
			g_string_append(msg, " [no variants]");
	}
	if (max_api >= 20) {
		if (params != NULL && json_array_get_length(params) > 0) {
			g_autoptr(JsonArray) names = json_array_new();
			g_autofree gchar *text = NULL;
			for (guint i = 0; i < json_array_get_length(params); i++) {
				JsonArray *pair = cell_list(params, i);
				if (pair != NULL && json_array_get_length(pair) > 0)
					json_array_add_string_element(
						names, json_array_get_string_element(pair, 0));
			}
			text = comma_join(names);
			g_string_append_printf(msg, " [parameters: %s]", text);
		} else {
			g_string_append(msg, " [no parameters]");
		}
	}
	g_string_append(msg, cell_bool(def, 6) ? " [trusted]" : " [untrusted]");
	return g_string_free(msg, FALSE);
}

static gint
compare_strings(gconstpointer a, gconstpointer b)
{
	return g_strcmp0(*(const gchar *const *)a, *(const gchar *const *)b);
}

static void
print_node_messages(GHashTable *messages, GHashTable *hidden)
{
	g_autofree gpointer *names = g_hash_table_get_keys_as_array(messages, NULL);
	guint n = g_hash_table_size(messages);

	qsort(names, n, sizeof(gpointer), compare_strings);
	for (guint i = 0; i < n; i++) {
		GPtrArray *lines = g_hash_table_lookup(hidden, names[i]);

		g_print("  Node: %s, status: %s\n", (const gchar *)names[i],
			(const gchar *)g_hash_table_lookup(messages, names[i]));
		for (guint k = 0; lines != NULL && k < lines->len; k++)
			g_print("%s\n", (const gchar *)g_ptr_array_index(lines, k));
	}
}

static gint
diagnose_os(GntCli *cli, gchar **args)
{
	static const gchar *const fields[] = {
		"name", "valid", "variants", "node_status", "hidden", "blacklisted", NULL,
	};
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) rows = diagnose(cli, fields, &error);
	gboolean has_bad = FALSE;

	if (rows == NULL)
		return error != NULL ? gnt_cli_fail(cli, error) : 0;
	for (guint i = 0; i < json_array_get_length(rows); i++) {
		JsonArray *row = row_at(rows, i, DIAG_N_FIELDS);
		JsonNode *status_node = row != NULL ? json_array_get_element(row, DIAG_NODE_STATUS)
						    : NULL;
		g_autoptr(GHashTable)
			valid = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
		g_autoptr(GHashTable)
			bad = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
		g_autoptr(GHashTable) hidden = g_hash_table_new_full(
			g_str_hash, g_str_equal, NULL, (GDestroyNotify)g_ptr_array_unref);
		JsonObjectIter iter;
		const gchar *node_name;
		JsonNode *defs;
		const gchar *status;
		JsonArray *variants;

		if (row == NULL || status_node == NULL || !JSON_NODE_HOLDS_OBJECT(status_node))
			continue;
		json_object_iter_init_ordered(&iter, json_node_get_object(status_node));
		while (json_object_iter_next_ordered(&iter, &node_name, &defs)) {
			JsonArray *list = JSON_NODE_HOLDS_ARRAY(defs) ? json_node_get_array(defs)
								      : NULL;
			GPtrArray *lines = g_ptr_array_new_with_free_func(g_free);
			JsonArray *first = list != NULL && json_array_get_length(list) > 0
						   ? cell_list(list, 0)
						   : NULL;

			g_hash_table_insert(hidden, (gpointer)node_name, lines);
			if (first == NULL || json_array_get_length(first) < 7) {
				g_hash_table_insert(bad, (gpointer)node_name,
						    g_strdup("OS not found"));
				continue;
			}
			g_hash_table_insert(cell_bool(first, 1) ? valid : bad, (gpointer)node_name,
					    first_definition_message(first));
			for (guint k = 1; k < json_array_get_length(list); k++) {
				JsonArray *other = cell_list(list, k);
				g_autofree gchar *other_status = NULL;

				if (other == NULL || json_array_get_length(other) < 3)
					continue;
				other_status = os_status(cell_bool(other, 1),
							 json_array_get_string_element(other, 2));
				g_ptr_array_add(
					lines,
					g_strdup_printf("    [hidden] path: %s, status: %s",
							json_array_get_string_element(other, 0),
							other_status));
			}
		}
		if (g_hash_table_size(valid) > 0 && g_hash_table_size(bad) == 0) {
			status = "valid";
		} else if (g_hash_table_size(valid) == 0 && g_hash_table_size(bad) > 0) {
			status = "invalid";
			has_bad = TRUE;
		} else {
			status = "partial valid";
			has_bad = TRUE;
		}
		g_print("OS: %s [global status: %s]%s%s\n",
			json_array_get_string_element(row, DIAG_NAME), status,
			cell_bool(row, DIAG_HIDDEN) ? " [hidden]" : "",
			cell_bool(row, DIAG_BLACKLISTED) ? " [blacklisted]" : "");
		variants = cell_list(row, DIAG_VARIANTS);
		if (variants != NULL && json_array_get_length(variants) > 0) {
			g_autofree gchar *text = comma_join(variants);
			g_print("  Variants: [%s]\n", text);
		}
		print_node_messages(valid, hidden);
		print_node_messages(bad, hidden);
		g_print("\n");
	}
	return has_bad ? 1 : 0;
}

/* ---- modify ---- */

static gchar *opt_trusted;
static gchar *opt_hidden;
static gchar *opt_blacklisted;

static const GOptionEntry modify_entries[] = {
	{"trusted", 0, 0, G_OPTION_ARG_STRING, &opt_trusted,
	 "Whether the OS is trusted: its scripts may then run on the nodes (with safe install "
	 "off); an OS not trusted is installed only inside the install appliance",
	 "yes|no"},
	{"hidden", 0, 0, G_OPTION_ARG_STRING, &opt_hidden, "Whether the OS is hidden", "yes|no"},
	{"blacklisted", 0, 0, G_OPTION_ARG_STRING, &opt_blacklisted,
	 "Whether the OS is blacklisted", "yes|no"},
	{NULL},
};

/* Ganeti's ModifyOS: OP_CLUSTER_SET_PARAMS with hidden_os and blacklisted_os
 * as [["add"|"remove", name]], and Gantry's trusted_os likewise (an OS is
 * trusted whatever its variant, so the variant is dropped). */
static gint
modify_os(GntCli *cli, gchar **args)
{
	const struct {
		const gchar *option;
		const gchar *text;
		const gchar *member;
	} flags[] = {
		{"--trusted", opt_trusted, "trusted_os"},
		{"--hidden", opt_hidden, "hidden_os"},
		{"--blacklisted", opt_blacklisted, "blacklisted_os"},
	};
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) ops = json_array_new();
	g_autoptr(JsonObject) op = gnt_cli_new_opcode(cli, "OP_CLUSTER_SET_PARAMS");
	g_autofree gchar *name = NULL;
	gboolean any = FALSE;

	for (guint i = 0; i < G_N_ELEMENTS(flags); i++) {
		JsonArray *mods;
		JsonArray *mod;
		gboolean on = FALSE;

		g_free(name);
		/* trusted: the OS whatever its variant; hidden, blacklisted: as given */
		name = i == 0 ? g_strndup(args[0], strcspn(args[0], "+")) : g_strdup(args[0]);
		if (flags[i].text == NULL)
			continue;
		if (!gnt_cli_parse_yes_no(cli, flags[i].option, flags[i].text, &on, &error))
			return gnt_cli_fail(cli, error);
		mod = json_array_new();
		json_array_add_string_element(mod, on ? "add" : "remove");
		json_array_add_string_element(mod, name);
		mods = json_array_new();
		json_array_add_array_element(mods, mod);
		json_object_set_array_member(op, flags[i].member, mods);
		any = TRUE;
	}
	if (!any) {
		g_printerr("At least one of OS parameters or hypervisor parameters must be "
			   "passed\n");
		return 1;
	}
	json_array_add_object_element(ops, g_steal_pointer(&op));
	if (!gnt_cli_submit_or_send(cli, g_steal_pointer(&ops), NULL, &error))
		return gnt_cli_fail(cli, error);
	return 0;
}

/* ---- list-steps ---- */

/* The install steps operators may use (install/gnt-install-registry.c):
 * the registry is linked in, so this needs no master. */
static const struct {
	const gchar *field;
	const gchar *title;
	gboolean align_right;
} step_fields[] = {
	{"name", "Step", FALSE},
	{"priority", "Priority", TRUE},
	{"runs_on", "RunsOn", FALSE},
	{"core", "Core", FALSE},
	{"priorities", "Priorities", FALSE},
	{"args", "Arguments", FALSE},
	{"description", "Description", FALSE},
};

/* "disk:integer*, size:size*" (* required). (transfer full) */
static gchar *
step_args_text(JsonArray *args)
{
	GString *out = g_string_new(NULL);

	for (guint i = 0; i < json_array_get_length(args); i++) {
		JsonObject *arg = json_array_get_object_element(args, i);

		g_string_append_printf(out, "%s%s:%s%s", i > 0 ? ", " : "",
				       json_object_get_string_member(arg, "name"),
				       json_object_get_string_member(arg, "type"),
				       json_object_get_boolean_member(arg, "required") ? "*" : "");
	}
	if (out->len == 0)
		g_string_append(out, "-");
	return g_string_free(out, FALSE);
}

static gchar *
step_cell(JsonObject *step, const gchar *field)
{
	JsonArray *range = gnt_json_peek_array(step, "priorities");

	if (g_str_equal(field, "priority"))
		return g_strdup_printf("%" G_GINT64_FORMAT,
				       json_object_get_int_member(step, "default_priority"));
	if (g_str_equal(field, "core"))
		return g_strdup(json_object_get_boolean_member(step, "core") ? "Y" : "N");
	if (g_str_equal(field, "priorities"))
		return range != NULL ? g_strdup_printf("0,%" G_GINT64_FORMAT "-%" G_GINT64_FORMAT,
						       json_array_get_int_element(range, 0),
						       json_array_get_int_element(range, 1))
				     : g_strdup("0");
	if (g_str_equal(field, "args"))
		return step_args_text(json_object_get_array_member(step, "args"));
	return g_strdup(json_object_get_string_member(step, field));
}

static gint
list_steps(GntCli *cli, gchar **args)
{
	static const gchar *const defaults[] = {"name", "priority",    "runs_on",
						"args", "description", NULL};
	const GntCliOptions *opts = gnt_cli_get_options(cli);
	g_auto(GStrv) selected = gnt_cli_parse_fields(opts->output, defaults);
	guint n = g_strv_length(selected);
	g_autofree GntCliColumn *columns = g_new0(GntCliColumn, n);
	g_autofree guint *which = g_new0(guint, n);
	g_autoptr(JsonArray) steps = gnt_install_steps_list();
	g_autoptr(GPtrArray) table = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
	g_autoptr(GPtrArray) lines = NULL;
	g_autoptr(GError) error = NULL;

	for (guint i = 0; i < n; i++) {
		guint k = 0;

		while (k < G_N_ELEMENTS(step_fields) &&
		       !g_str_equal(step_fields[k].field, selected[i]))
			k++;
		if (k == G_N_ELEMENTS(step_fields)) {
			gnt_cli_set_prereq_error(
				cli, &error, GNT_ERROR_INVALID,
				"Unknown output field '%s' (fields: name, priority, "
				"runs_on, core, priorities, args, description)",
				selected[i]);
			return gnt_cli_fail(cli, error);
		}
		which[i] = k;
		columns[i] = (GntCliColumn){step_fields[k].title, step_fields[k].align_right};
	}
	for (guint r = 0; r < json_array_get_length(steps); r++) {
		gchar **cells = g_new0(gchar *, n + 1);

		for (guint i = 0; i < n; i++)
			cells[i] = step_cell(json_array_get_object_element(steps, r),
					     step_fields[which[i]].field);
		g_ptr_array_add(table, cells);
	}
	lines = gnt_cli_format_table(columns, n, table, !opts->no_headers, opts->separator);
	for (guint i = 0; i < lines->len; i++)
		g_print("%s\n", (const gchar *)g_ptr_array_index(lines, i));
	return 0;
}

static const GntCliCommand commands[] = {
	{"diagnose", diagnose_os, 0, 0, GNT_CLI_OPT_PRIORITY, NULL, "",
	 "Diagnose all operating systems",
	 "Shows, per OS, what each online node has (its first definition along the OS search "
	 "path and those it hides); exits 1 when an OS is not valid everywhere."},
	{"info", show_os_info, 0, -1, GNT_CLI_OPT_PRIORITY, NULL, "[<os_name>...]",
	 "Show detailed information about operating systems", NULL},
	{"modify", modify_os, 1, 1, GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY, modify_entries,
	 "[--trusted yes|no] [--hidden yes|no] [--blacklisted yes|no] <os_name>",
	 "Modify the OS parameters",
	 "--trusted yes lets the OS's scripts run on the nodes when safe install is off "
	 "(gnt-cluster modify --enable-safe-install no, or gnt-instance add/reinstall "
	 "--enable-safe-install no); an OS not trusted is only ever installed inside the "
	 "install appliance."},
	{"list", list_os, 0, 0, GNT_CLI_OPT_TABLE | GNT_CLI_OPT_PRIORITY, list_entries, "",
	 "Lists all valid operating systems on the cluster",
	 "An OS is listed when it is valid on every online node; one with variants is listed "
	 "once per variant (os+variant)."},
	{"list-steps", list_steps, 0, 0, GNT_CLI_OPT_TABLE | GNT_CLI_OPT_FIELDS, NULL, "",
	 "Lists the install steps install templates may use",
	 "Each step: its name (interface.step), its default priority (0: it runs only when an "
	 "install template gives it one), where it runs, its arguments (* required) and what it "
	 "does; -o also takes core (a core step runs on every install and can only be "
	 "disabled) and priorities (what a template may give it). See doc/install.md."},
	{NULL},
};

int
main(int argc, char **argv)
{
	return gnt_cli_main(commands, argc, argv);
}
