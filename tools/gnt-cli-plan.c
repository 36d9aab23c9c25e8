/*
 * The install plan as the CLI shows it (gnt-cli-plan.h): one layout for
 * --print-plan and gnt-instance info.
 */
#include "gnt-cli-plan.h"

#include "gnt-json.h"

static const gchar *
row_string(JsonObject *row, const gchar *key)
{
	JsonNode *node = json_object_get_member(row, key);

	return node != NULL && JSON_NODE_HOLDS_VALUE(node) &&
			       json_node_get_value_type(node) == G_TYPE_STRING
		       ? json_node_get_string(node)
		       : NULL;
}

gchar *
gnt_cli_plan_format_args(JsonObject *args)
{
	g_autoptr(JsonNode) node = NULL;
	g_autofree gchar *text = NULL;

	if (args == NULL || json_object_get_size(args) == 0)
		return g_strdup("");
	node = gnt_json_node_new_object(json_object_ref(args));
	text = gnt_json_to_string(node);
	return g_strconcat(" ", text, NULL);
}

/* "90 deploy.resize_disk [CUSTOM_RAID#1] {"disk":0,"size":"10G"}"; a core
 * row is named by its step alone. */
static gchar *
row_line(JsonObject *row)
{
	const gchar *step = row_string(row, "step");
	const gchar *id = row_string(row, "id");
	g_autofree gchar *args = gnt_cli_plan_format_args(gnt_json_peek_object(row, "args"));
	gboolean core = g_strcmp0(row_string(row, "origin"), "core") == 0;

	return g_strdup_printf("%" G_GINT64_FORMAT " %s%s%s%s%s",
			       json_object_get_int_member_with_default(row, "priority", 0),
			       step != NULL ? step : "?", core ? "" : " [", core ? "" : id,
			       core ? "" : "]", args);
}

GntCliInfo *
gnt_cli_plan_info(JsonObject *plan)
{
	GntCliInfo *info = gnt_cli_info_new_dict();
	JsonArray *templates = gnt_json_peek_array(plan, "templates");
	JsonArray *rows = gnt_json_peek_array(plan, "rows");
	GntCliInfo *runs = gnt_cli_info_new_list();
	g_autoptr(GntCliInfo) not_run = gnt_cli_info_new_list();
	g_autoptr(GString) applied = g_string_new(NULL);
	guint n_not_run = 0;

	for (guint i = 0; templates != NULL && i < json_array_get_length(templates); i++) {
		JsonObject *template = json_array_get_object_element(templates, i);
		JsonNode *serial = json_object_get_member(template, "serial_no");

		g_string_append_printf(applied, "%s%s", i > 0 ? ", " : "",
				       row_string(template, "name"));
		if (serial != NULL && gnt_json_node_is_int(serial))
			g_string_append_printf(applied, " (serial %" G_GINT64_FORMAT ")",
					       json_node_get_int(serial));
	}
	gnt_cli_info_add_text(info, "templates", applied->len > 0 ? applied->str : "none");
	for (guint i = 0; rows != NULL && i < json_array_get_length(rows); i++) {
		JsonObject *row = json_array_get_object_element(rows, i);
		g_autofree gchar *line = row_line(row);

		if (json_object_get_boolean_member_with_default(row, "runs", FALSE)) {
			gnt_cli_info_append(runs, gnt_cli_info_new_text(line));
		} else {
			g_autofree gchar *why =
				g_strdup_printf("%s: %s", line, row_string(row, "why"));

			gnt_cli_info_append(not_run, gnt_cli_info_new_text(why));
			n_not_run++;
		}
	}
	gnt_cli_info_add(info, "steps in order", NULL, runs);
	if (n_not_run > 0)
		gnt_cli_info_add(info, "not run", NULL, g_steal_pointer(&not_run));
	return info;
}

void
gnt_cli_plan_print_result(JsonNode *result)
{
	JsonObject *answer = result != NULL && JSON_NODE_HOLDS_OBJECT(result)
				     ? json_node_get_object(result)
				     : NULL;
	JsonObject *plan = answer != NULL ? gnt_json_peek_object(answer, "plan") : NULL;
	const gchar *name = answer != NULL ? row_string(answer, "instance") : NULL;
	g_autoptr(GntCliInfo) info = NULL;
	g_autofree gchar *text = NULL;

	if (plan == NULL) {
		g_print("Instance %s installs nothing: no install plan\n",
			name != NULL ? name : "?");
		return;
	}
	info = gnt_cli_plan_info(plan);
	text = gnt_cli_info_format(info);
	g_print("Install plan of %s (nothing was changed):\n%s\n", name != NULL ? name : "?", text);
}
