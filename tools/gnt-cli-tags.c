/* The tag commands, after Ganeti's lib/cli.py (ListTags, AddTags, RemoveTags). */
#include "gnt-cli-tags.h"

#include <stdio.h>

#include "gnt-cli-objects.h"
#include "gnt-json.h"

static gchar *opt_tags_source;

const GOptionEntry gnt_cli_tags_entries[] = {
	{"from", 0, 0, G_OPTION_ARG_FILENAME, &opt_tags_source, "File with tag names", "FILE"},
	{NULL},
};

static gint
compare_strings(gconstpointer a, gconstpointer b)
{
	return g_strcmp0(*(const gchar *const *)a, *(const gchar *const *)b);
}

/* The tags of a node, instance or node group: the "tags" field of its
 * Query row (the tag kind "nodegroup" is the query resource "group"). */
static JsonArray *
query_object_tags(GntCli *cli, const gchar *kind, const gchar *name, GError **error)
{
	gchar *names[] = {(gchar *)name, NULL};
	gchar *fields[] = {"tags", NULL};
	gboolean group = g_strcmp0(kind, "nodegroup") == 0;
	g_autoptr(JsonObject) response = gnt_cli_query(cli, group ? "group" : kind, fields,
						       gnt_cli_name_filter(names), error);
	JsonArray *data = NULL;
	JsonNode *tags;

	if (response == NULL)
		return NULL;
	if (!gnt_json_get_array(response, "data", &data, error))
		return NULL;
	if (json_array_get_length(data) == 0 ||
	    !JSON_NODE_HOLDS_ARRAY(json_array_get_element(data, 0))) {
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_NOT_FOUND, "%s '%s' does not exist",
					 group				? "Group"
					 : g_strcmp0(kind, "node") == 0 ? "Node"
									: "Instance",
					 name);
		return NULL;
	}
	tags = gnt_cli_row_value(json_array_get_array_element(data, 0), 0);
	if (tags == NULL || !JSON_NODE_HOLDS_ARRAY(tags))
		return json_array_new();
	return json_array_ref(json_node_get_array(tags));
}

static gint
list_tags(GntCli *cli, const gchar *kind, const gchar *name)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) tags = NULL;
	g_autoptr(GPtrArray) sorted = g_ptr_array_new();

	if (g_strcmp0(kind, "cluster") == 0) {
		g_autoptr(JsonArray) args = json_array_new();
		g_autoptr(JsonNode) result = NULL;

		json_array_add_string_element(args, kind);
		json_array_add_null_element(args);
		result = gnt_cli_call_array(cli, "QueryTags", g_steal_pointer(&args), &error);
		if (result != NULL && JSON_NODE_HOLDS_ARRAY(result))
			tags = json_array_ref(json_node_get_array(result));
	} else {
		tags = query_object_tags(cli, kind, name, &error);
	}
	if (tags == NULL) {
		if (error == NULL)
			g_set_error_literal(&error, GNT_ERROR, GNT_ERROR_INVALID,
					    "QueryTags did not answer a list");
		return gnt_cli_fail(cli, error);
	}
	for (guint i = 0; i < json_array_get_length(tags); i++)
		g_ptr_array_add(sorted, (gpointer)json_array_get_string_element(tags, i));
	g_ptr_array_sort(sorted, compare_strings);
	for (guint i = 0; i < sorted->len; i++)
		g_print("%s\n", (const gchar *)g_ptr_array_index(sorted, i));
	return 0;
}

/* _ExtendTags: the lines of --from, stripped. */
static gboolean
read_tags_source(JsonArray *tags, GError **error)
{
	g_autofree gchar *contents = NULL;
	g_auto(GStrv) lines = NULL;

	if (opt_tags_source == NULL)
		return TRUE;
	if (g_strcmp0(opt_tags_source, "-") == 0) {
		g_autoptr(GString) in = g_string_new(NULL);
		gchar buffer[4096];
		gsize n;

		while ((n = fread(buffer, 1, sizeof(buffer), stdin)) > 0)
			g_string_append_len(in, buffer, (gssize)n);
		contents = g_string_free(g_steal_pointer(&in), FALSE);
	} else if (!g_file_get_contents(opt_tags_source, &contents, NULL, error)) {
		gnt_error_convert(error);
		return FALSE;
	}
	lines = g_strsplit(contents, "\n", -1);
	for (guint i = 0; lines[i] != NULL; i++) {
		/* Ganeti keeps every line read, the last one only when it is not empty */
		if (lines[i + 1] == NULL && lines[i][0] == '\0')
			break;
		json_array_add_string_element(tags, g_strstrip(lines[i]));
	}
	return TRUE;
}

static gint
change_tags(GntCli *cli, gboolean add, const gchar *kind, const gchar *name, gchar **tags)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) ops = json_array_new();
	JsonObject *op = gnt_cli_new_opcode(cli, add ? "OP_TAGS_SET" : "OP_TAGS_DEL");
	JsonArray *list = gnt_cli_strv_to_json(tags);

	json_array_add_object_element(ops, op);
	json_object_set_string_member(op, "kind", kind);
	if (name != NULL)
		json_object_set_string_member(op, "name", name);
	else
		json_object_set_null_member(op, "name");
	json_object_set_array_member(op, "tags", list);
	if (!read_tags_source(list, &error))
		return gnt_cli_fail(cli, error);
	if (json_array_get_length(list) == 0) {
		gnt_cli_set_prereq_error(cli, &error, GNT_ERROR_INVALID, "No tags to be %s",
					 add ? "added" : "removed");
		return gnt_cli_fail(cli, error);
	}
	if (!gnt_cli_submit_or_send(cli, g_steal_pointer(&ops), NULL, &error))
		return gnt_cli_fail(cli, error);
	return 0;
}

/* The object the arguments name: NULL for the cluster, else the first. */
static const gchar *
object_name(const gchar *kind, gchar **args)
{
	return g_strcmp0(kind, "cluster") == 0 ? NULL : args[0];
}

/* The tags among the arguments: those after the object's name. */
static gchar **
tags_of(const gchar *kind, gchar **args)
{
	return object_name(kind, args) != NULL ? args + 1 : args;
}

gint
gnt_cli_list_tags_command(GntCli *cli, gchar **args)
{
	const gchar *kind = gnt_cli_get_command_data(cli);

	return list_tags(cli, kind, object_name(kind, args));
}

gint
gnt_cli_add_tags_command(GntCli *cli, gchar **args)
{
	const gchar *kind = gnt_cli_get_command_data(cli);

	return change_tags(cli, TRUE, kind, object_name(kind, args), tags_of(kind, args));
}

gint
gnt_cli_remove_tags_command(GntCli *cli, gchar **args)
{
	const gchar *kind = gnt_cli_get_command_data(cli);

	return change_tags(cli, FALSE, kind, object_name(kind, args), tags_of(kind, args));
}
