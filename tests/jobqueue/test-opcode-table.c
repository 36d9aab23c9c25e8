/*
 * The opcode table's self-test: every row of every part of the table, and
 * every OP_ID and parameter name the CLI (tools/) and RAPI (rapi/) write in
 * their sources. A row that breaks one of the table's own rules fails here,
 * before any client or unit trips over it: /opcode-table/check-can-fail
 * shows each rule refusing a broken row.
 */
#include <string.h>

#include "gnt-cmdlib.h"
#include "gnt-cluster-settings.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-opcode-private.h"

/* What one row must be; the first broken rule is the error. */
static gboolean
check_param(const GntParamDef *pdef, GError **error)
{
	g_autoptr(JsonNode) dflt = NULL;
	g_auto(GStrv) choices = NULL;

	if (pdef->default_json != NULL) {
		dflt = gnt_json_parse(pdef->default_json, -1, error);
		if (dflt == NULL) {
			g_prefix_error(error, "default '%s' does not parse: ", pdef->default_json);
			return FALSE;
		}
		if (JSON_NODE_HOLDS_NULL(dflt) && !pdef->nullable) {
			g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "its default is null but it does not accept null");
			return FALSE;
		}
		if (!JSON_NODE_HOLDS_NULL(dflt) && !gnt_param_def_check_value(pdef, dflt, error)) {
			g_prefix_error(error, "default %s: ", pdef->default_json);
			return FALSE;
		}
	}
	if (pdef->choices != NULL) {
		if (pdef->type != GNT_PARAM_TYPE_STRING) {
			g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "only a string may have choices");
			return FALSE;
		}
		choices = g_strsplit(pdef->choices, "|", -1);
		for (guint i = 0; choices[i] != NULL; i++) {
			g_autoptr(JsonNode) choice = gnt_json_node_new_string(choices[i]);

			if (*choices[i] == '\0' ||
			    g_strv_contains((const gchar *const *)&choices[i + 1], choices[i])) {
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "choice '%s' is empty or written twice", choices[i]);
				return FALSE;
			}
			if (!gnt_param_def_check_value(pdef, choice, error)) {
				g_prefix_error(error, "choice '%s': ", choices[i]);
				return FALSE;
			}
		}
	}
	if (pdef->client_default != NULL) {
		g_autoptr(JsonNode) value = gnt_json_node_new_string(pdef->client_default);

		if (pdef->default_json != NULL || pdef->type != GNT_PARAM_TYPE_STRING) {
			g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "only a required string has a client default");
			return FALSE;
		}
		if (!gnt_param_def_check_value(pdef, value, error)) {
			g_prefix_error(error, "client default '%s': ", pdef->client_default);
			return FALSE;
		}
	}
	if (pdef->help != NULL && (*pdef->help == '\0' || g_str_has_suffix(pdef->help, "."))) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "its help must be a phrase without a final full stop");
		return FALSE;
	}
	return TRUE;
}

/* The unit cmdlib's list names for @op_id (the rows name none). */
static const GntLuClass *
unit_of(const gchar *op_id)
{
	for (const GntLuUnit *u = gnt_cmdlib_units; u->op_id != NULL; u++) {
		if (g_strcmp0(u->op_id, op_id) == 0)
			return u->lu;
	}
	return NULL;
}

static gboolean
check_op(const GntOpDef *def, GError **error)
{
	const GntParamDef *tables[GNT_OP_DEF_N_PARAM_TABLES];
	g_autoptr(GHashTable) names = g_hash_table_new(g_str_hash, g_str_equal);
	gboolean summary_found = def->summary_param == NULL;

	if (!g_str_has_prefix(def->id, "OP_")) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "'%s' is not an OP_ID", def->id);
		return FALSE;
	}
	if (unit_of(def->id) == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "%s has no logical unit", def->id);
		return FALSE;
	}
	if (gnt_op_def_lookup(def->id) != def) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "%s is not the table's row of that OP_ID (missing, or there twice)",
			    def->id);
		return FALSE;
	}
	gnt_op_def_get_param_tables(def, tables);
	for (guint t = 0; t < G_N_ELEMENTS(tables); t++) {
		for (const GntParamDef *p = tables[t]; p->name != NULL; p++) {
			if (!g_hash_table_add(names, (gpointer)p->name)) {
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "%s: parameter '%s' is written twice", def->id,
					    p->name);
				return FALSE;
			}
			if (!check_param(p, error)) {
				g_prefix_error(error, "%s: parameter '%s': ", def->id, p->name);
				return FALSE;
			}
			summary_found |= g_strcmp0(p->name, def->summary_param) == 0;
		}
	}
	if (!summary_found) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "%s: its summary parameter '%s' is not one of its parameters", def->id,
			    def->summary_param);
		return FALSE;
	}
	return TRUE;
}

static void
test_every_row(void)
{
	guint ops = 0;

	for (const GntParamDef *p = gnt_op_common_params; p->name != NULL; p++) {
		g_autoptr(GError) error = NULL;

		if (!check_param(p, &error))
			g_error("common parameter '%s': %s", p->name, error->message);
	}
	for (guint t = 0; gnt_op_tables[t] != NULL; t++) {
		for (guint i = 0; gnt_op_tables[t][i] != NULL; i++) {
			g_autoptr(GError) error = NULL;

			if (!check_op(gnt_op_tables[t][i], &error))
				g_error("%s", error->message);
			ops++;
		}
	}
	g_assert_cmpuint(ops, >=, 30); /* the walk saw the whole table */
}

/* Each rule refuses a row that breaks it: the walk above can fail. */
static void
test_check_can_fail(void)
{
	static const GntParamDef broken[] = {
		{.name = "bad_json", .type = GNT_PARAM_TYPE_INT, .default_json = "12x"},
		{.name = "wrong_type", .type = GNT_PARAM_TYPE_BOOL, .default_json = "120"},
		{.name = "null_refused", .type = GNT_PARAM_TYPE_STRING, .default_json = "null"},
		{.name = "default_not_a_choice",
		 .type = GNT_PARAM_TYPE_STRING,
		 .default_json = "\"warm\"",
		 .choices = "soft|hard"},
		{.name = "choice_twice", .type = GNT_PARAM_TYPE_STRING, .choices = "a|b|a"},
		{.name = "choice_on_int", .type = GNT_PARAM_TYPE_INT, .choices = "1|2"},
		{.name = "client_default_not_a_choice",
		 .type = GNT_PARAM_TYPE_STRING,
		 .choices = "soft|hard",
		 .client_default = "warm"},
		{.name = "client_default_with_default",
		 .type = GNT_PARAM_TYPE_STRING,
		 .default_json = "\"a\"",
		 .client_default = "a"},
		{.name = "help_sentence", .type = GNT_PARAM_TYPE_INT, .help = "A sentence."},
		{NULL},
	};
	static const GntParamDef fine[] = {{.name = "x", .type = GNT_PARAM_TYPE_INT}, {NULL}};
	static const GntParamDef twice[] = {
		{.name = "x", .type = GNT_PARAM_TYPE_INT},
		{.name = "x", .type = GNT_PARAM_TYPE_INT},
		{NULL},
	};
	static const GntParamDef common_again[] = {
		{.name = "priority", .type = GNT_PARAM_TYPE_INT, .default_json = "0"},
		{NULL},
	};
	/* OP_TEST_DUMMY's id, so that only the rule under test breaks */
	static const GntOpDef broken_ops[] = {
		{.id = "OP_NO_UNIT", .params = fine},	 /* no unit in cmdlib's list */
		{.id = "OP_TEST_DUMMY", .params = fine}, /* not the table's row */
		{.id = "OP_TEST_DUMMY", .params = twice},
		{.id = "OP_TEST_DUMMY", .params = common_again},
		{.id = "OP_TEST_DUMMY", .summary_param = "nothing", .params = fine},
	};

	for (const GntParamDef *p = broken; p->name != NULL; p++) {
		g_autoptr(GError) error = NULL;

		g_test_message("%s", p->name);
		g_assert_false(check_param(p, &error));
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	}
	for (guint i = 0; i < G_N_ELEMENTS(broken_ops); i++) {
		g_autoptr(GError) error = NULL;

		g_assert_false(check_op(&broken_ops[i], &error));
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_test_message("%s", error->message);
	}
}

/* The cluster settings table: each setting's default has the type of the
 * OP_CLUSTER_SET_PARAMS row built from it, each parameter and label is
 * written once, and the opcode has a row for every setting it changes. */
static void
test_cluster_settings(void)
{
	const GntOpDef *def = gnt_op_def_lookup("OP_CLUSTER_SET_PARAMS");
	g_autoptr(GHashTable) labels = g_hash_table_new(g_str_hash, g_str_equal);
	g_autoptr(GHashTable) options = g_hash_table_new(g_str_hash, g_str_equal);
	guint changed = 0;

	g_assert_nonnull(def);
	for (const GntClusterSetting *s = gnt_cluster_settings; s->key != NULL; s++) {
		const gchar *param = gnt_cluster_setting_get_param(s);
		const GntParamDef *row = param != NULL ? gnt_op_def_find_param(def, param) : NULL;
		g_autoptr(JsonNode) dflt = NULL;
		g_autoptr(GError) error = NULL;

		g_test_message("setting %s", s->key);
		g_assert_true(s->label == NULL || g_hash_table_add(labels, (gpointer)s->label));
		/* an option the table defines: help, a name once, a type the CLI
		 * converts by itself, a parameter to set */
		if (s->option != NULL) {
			g_assert_nonnull(s->help);
			g_assert_true(g_hash_table_add(options, (gpointer)s->option));
			g_assert_true(s->type == GNT_SETTING_INT || s->type == GNT_SETTING_STRING ||
				      s->type == GNT_SETTING_STRING_OR_NULL ||
				      s->type == GNT_SETTING_STRING_LIST ||
				      s->type == GNT_SETTING_BOOL || s->type == GNT_SETTING_OBJECT);
			g_assert_nonnull(param);
		}
		g_assert_true(s->default_json != NULL || s->dir != GNT_SETTING_DIR_NONE);
		if (s->default_json != NULL) {
			dflt = gnt_json_parse(s->default_json, -1, &error);
			g_assert_no_error(error);
		}
		if (param == NULL)
			continue;
		g_assert_nonnull(row);
		changed++;
		if (dflt != NULL && !JSON_NODE_HOLDS_NULL(dflt) &&
		    s->change != GNT_SETTING_CHANGE_LIST_MODS) {
			gboolean ok = gnt_param_def_check_value(row, dflt, &error);

			g_assert_no_error(
				error); /* names the setting's default and what it lacks */
			g_assert_true(ok);
		}
	}
	g_assert_cmpuint(changed, >=, 40);
}

/* The "OP_X" literals of one source file, and the parameters it names
 * through gnt_op_param_*("OP_X", "name", ...) and GNT_CLI_PARAM_HELP. */
static void
check_source(const gchar *path, guint *op_ids, guint *params)
{
	g_autofree gchar *text = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(GRegex) op_re = g_regex_new("\"(OP_[A-Z0-9_]+)\"", 0, 0, NULL);
	g_autoptr(GRegex) param_re = g_regex_new(
		"(gnt_op_param_\\w+|GNT_CLI_PARAM_HELP)\\(\\s*\"(OP_[A-Z0-9_]+)\"\\s*,\\s*\"(\\w+)\"",
		0, 0, NULL);
	g_autoptr(GRegex)
		setting_re = g_regex_new("GNT_CLI_SETTING_HELP\\(\\s*\"(\\w+)\"\\)", 0, 0, NULL);
	g_autoptr(GMatchInfo) match = NULL;

	g_assert_true(g_file_get_contents(path, &text, NULL, &error));
	g_assert_no_error(error);
	g_regex_match(op_re, text, 0, &match);
	for (; g_match_info_matches(match); g_match_info_next(match, NULL)) {
		g_autofree gchar *op_id = g_match_info_fetch(match, 1);

		if (g_strcmp0(op_id, "OP_ID") == 0)
			continue;
		if (gnt_op_def_lookup(op_id) == NULL)
			g_error("%s names opcode '%s', which the table lacks", path, op_id);
		(*op_ids)++;
	}
	g_clear_pointer(&match, g_match_info_unref);
	g_regex_match(setting_re, text, 0, &match);
	for (; g_match_info_matches(match); g_match_info_next(match, NULL)) {
		g_autofree gchar *key = g_match_info_fetch(match, 1);
		const GntClusterSetting *setting = gnt_cluster_setting_lookup(key);

		if (setting == NULL || setting->help == NULL)
			g_error("%s: the option of cluster setting '%s' has no help in the "
				"settings table",
				path, key);
		(*params)++;
	}
	g_clear_pointer(&match, g_match_info_unref);
	g_regex_match(param_re, text, 0, &match);
	for (; g_match_info_matches(match); g_match_info_next(match, NULL)) {
		g_autofree gchar *how = g_match_info_fetch(match, 1);
		g_autofree gchar *op_id = g_match_info_fetch(match, 2);
		g_autofree gchar *name = g_match_info_fetch(match, 3);
		const GntOpDef *def = gnt_op_def_lookup(op_id);
		const GntParamDef *pdef = def != NULL ? gnt_op_def_find_param(def, name) : NULL;

		if (pdef == NULL)
			g_error("%s: %s names parameter '%s' of %s, which the table lacks", path,
				how, name, op_id);
		if (g_strcmp0(how, "GNT_CLI_PARAM_HELP") == 0 && pdef->help == NULL)
			g_error("%s: %s's '%s' has no help in the table for its option", path,
				op_id, name);
		(*params)++;
	}
}

static void
test_clients_name_real_opcodes(void)
{
	const gchar *const dirs[] = {"tools", "rapi"};
	guint op_ids = 0;
	guint params = 0;

	for (guint d = 0; d < G_N_ELEMENTS(dirs); d++) {
		g_autofree gchar *dir_path = g_build_filename(GNT_SOURCE_ROOT, dirs[d], NULL);
		g_autoptr(GDir) dir = g_dir_open(dir_path, 0, NULL);
		const gchar *name;

		g_assert_nonnull(dir);
		while ((name = g_dir_read_name(dir)) != NULL) {
			g_autofree gchar *path = g_build_filename(dir_path, name, NULL);

			if (g_str_has_suffix(name, ".c"))
				check_source(path, &op_ids, &params);
		}
	}
	/* the sources were read: gnt-instance alone names a dozen opcodes */
	g_assert_cmpuint(op_ids, >=, 30);
	g_assert_cmpuint(params, >=, 10);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	gnt_opcode_register_table(&gnt_cmdlib_op_table);
	g_test_add_func("/opcode-table/every-row", test_every_row);
	g_test_add_func("/opcode-table/check-can-fail", test_check_can_fail);
	g_test_add_func("/opcode-table/cluster-settings", test_cluster_settings);
	g_test_add_func("/opcode-table/clients-name-real-opcodes", test_clients_name_real_opcodes);
	return g_test_run();
}
