/* gnt-group: node group commands, after Ganeti's lib/client/gnt_group.py
 * (doc/groups.md). */
#include <string.h>

#include "gnt-cli-create.h"
#include "gnt-cli-objects.h"
#include "gnt-cli-tags.h"
#include "gnt-json.h"
#include "gnt-size.h"

/* ---- list, list-fields ---- */

static const gchar *const list_default_fields[] = {
	"name", "node_cnt", "pinst_cnt", "alloc_policy", "ndparams", NULL,
};

/* gnt_group._FmtDict: "key=value, ..." or "(empty)" */
static gchar *
format_dict(JsonNode *value)
{
	g_autoptr(GString) out = g_string_new(NULL);
	JsonObject *dict = JSON_NODE_HOLDS_OBJECT(value) ? json_node_get_object(value) : NULL;
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *member;

	if (dict == NULL || json_object_get_size(dict) == 0)
		return g_strdup("(empty)");
	json_object_iter_init_ordered(&iter, dict);
	while (json_object_iter_next_ordered(&iter, &key, &member)) {
		g_autofree gchar *text = gnt_cli_py_str(member);

		g_string_append_printf(out, "%s%s=%s", out->len > 0 ? ", " : "", key, text);
	}
	return g_strdup(out->str);
}

static const GntCliFormatOverride list_overrides[] = {
	{"node_list", gnt_cli_format_comma_list, FALSE},
	{"pinst_list", gnt_cli_format_comma_list, FALSE},
	{"ndparams", format_dict, FALSE},
	{NULL},
};

static const GntCliListSpec list_spec = {"group", list_default_fields, list_overrides};

/* ---- info ---- */

enum {
	INFO_NAME,
	INFO_NDPARAMS,
	INFO_CUSTOM_NDPARAMS,
	INFO_DISKPARAMS,
	INFO_CUSTOM_DISKPARAMS,
	INFO_IPOLICY,
	INFO_CUSTOM_IPOLICY,
	INFO_N_FIELDS
};

/* GroupInfo's fields, in its order */
static const gchar *const info_fields[] = {
	"name",
	"ndparams",
	"custom_ndparams",
	"diskparams",
	"custom_diskparams",
	"ipolicy",
	"custom_ipolicy",
	NULL,
};
G_STATIC_ASSERT(G_N_ELEMENTS(info_fields) == INFO_N_FIELDS + 1);

static JsonNode *
dict_member(JsonNode *dict, const gchar *key)
{
	return dict != NULL && JSON_NODE_HOLDS_OBJECT(dict) &&
			       json_object_has_member(json_node_get_object(dict), key)
		       ? json_object_get_member(json_node_get_object(dict), key)
		       : NULL;
}

/* utils.CommaJoin of a list of names. */
static gchar *
comma_join(JsonNode *list)
{
	g_autoptr(GString) out = g_string_new(NULL);
	JsonArray *array = list != NULL && JSON_NODE_HOLDS_ARRAY(list) ? json_node_get_array(list)
								       : NULL;

	for (guint i = 0; array != NULL && i < json_array_get_length(array); i++) {
		g_autofree gchar *item = gnt_cli_py_str(json_array_get_element(array, i));

		g_string_append_printf(out, "%s%s", i > 0 ? ", " : "", item);
	}
	return g_strdup(out->str);
}

/* FormatPolicyInfo(custom, effective, iscluster=False): the group's own
 * values, else "default (VALUE)". */
static GntCliInfo *
policy_info(JsonNode *custom, JsonNode *effective)
{
	static const gchar *const minmax_keys[] = {"max", "min"};
	static const gchar *const parameters[] = {"spindle-ratio", "vcpu-ratio"};
	GntCliInfo *dict = gnt_cli_info_new_dict();
	GntCliInfo *bounds = gnt_cli_info_new_list();
	JsonNode *own_minmax = dict_member(custom, "minmax");
	gboolean own = own_minmax != NULL && JSON_NODE_HOLDS_ARRAY(own_minmax) &&
		       json_array_get_length(json_node_get_array(own_minmax)) > 0;
	JsonNode *minmax = own ? own_minmax : dict_member(effective, "minmax");
	JsonNode *templates = dict_member(custom, "disk-templates");
	g_autofree gchar *templates_text = NULL;

	for (guint i = 0; minmax != NULL && JSON_NODE_HOLDS_ARRAY(minmax) &&
			  i < json_array_get_length(json_node_get_array(minmax));
	     i++) {
		JsonNode *pair = json_array_get_element(json_node_get_array(minmax), i);
		GntCliInfo *specs = gnt_cli_info_new_dict();

		for (guint k = 0; k < G_N_ELEMENTS(minmax_keys); k++) {
			g_autofree gchar *label = g_strdup_printf("%s/%u", minmax_keys[k], i);
			JsonNode *spec = dict_member(pair, minmax_keys[k]);
			g_autoptr(JsonNode) text = gnt_cli_format_params(own ? spec : NULL, spec);

			gnt_cli_info_add(specs, label, NULL, gnt_cli_info_new_json(text));
		}
		gnt_cli_info_append(bounds, specs);
	}
	gnt_cli_info_add(dict, "bounds specs", NULL, bounds);
	if (templates != NULL && !JSON_NODE_HOLDS_NULL(templates)) {
		templates_text = comma_join(templates);
	} else {
		g_autofree gchar *inherited = comma_join(dict_member(effective, "disk-templates"));

		templates_text = g_strdup_printf("default (%s)", inherited);
	}
	gnt_cli_info_add_text(dict, "allowed disk templates", templates_text);
	for (guint i = 0; i < G_N_ELEMENTS(parameters); i++) {
		JsonNode *value = dict_member(custom, parameters[i]);
		g_autofree gchar *text = NULL;

		if (value != NULL) {
			text = gnt_cli_py_str(value);
		} else {
			g_autofree gchar *inherited =
				gnt_cli_py_str(dict_member(effective, parameters[i]));

			text = g_strdup_printf("default (%s)", inherited);
		}
		gnt_cli_info_add_text(dict, parameters[i], text);
	}
	return dict;
}

/* _FormatGroupInfo */
static GntCliInfo *
group_info(JsonArray *row)
{
	GntCliInfo *info = gnt_cli_info_new_dict();
	g_autoptr(JsonNode)
		ndparams = gnt_cli_format_params(json_array_get_element(row, INFO_CUSTOM_NDPARAMS),
						 json_array_get_element(row, INFO_NDPARAMS));
	g_autoptr(JsonNode) diskparams =
		gnt_cli_format_params(json_array_get_element(row, INFO_CUSTOM_DISKPARAMS),
				      json_array_get_element(row, INFO_DISKPARAMS));

	gnt_cli_info_add(info, "Node group", NULL,
			 gnt_cli_info_new_json(json_array_get_element(row, INFO_NAME)));
	gnt_cli_info_add(info, "Node parameters", NULL, gnt_cli_info_new_json(ndparams));
	gnt_cli_info_add(info, "Disk parameters", NULL, gnt_cli_info_new_json(diskparams));
	gnt_cli_info_add(info, "Instance policy", NULL,
			 policy_info(json_array_get_element(row, INFO_CUSTOM_IPOLICY),
				     json_array_get_element(row, INFO_IPOLICY)));
	return info;
}

static gint
show_group_info(GntCli *cli, gchar **args)
{
	return gnt_cli_show_info(cli, "QueryGroups", args, info_fields, group_info);
}

/* ---- add, modify: their parameters ---- */

static gchar *opt_alloc_policy;
static gchar *opt_ndparams;
static gchar **opt_diskparams;
static gchar *opt_bounds_specs;
static gchar *opt_disk_templates;
static gchar *opt_vcpu_ratio;
static gchar *opt_spindle_ratio;

static const GOptionEntry param_entries[] = {
	{"alloc-policy", 0, 0, G_OPTION_ARG_STRING, &opt_alloc_policy,
	 "Allocation policy for the node group (preferred, last_resort, unallocable)", "POLICY"},
	{"node-parameters", 'N', 0, G_OPTION_ARG_STRING, &opt_ndparams,
	 "Node parameters (ndparams)", "key=val,..."},
	{"disk-parameters", 'D', 0, G_OPTION_ARG_STRING_ARRAY, &opt_diskparams,
	 "Disk template parameters, repeatable", "TEMPLATE:key=val,..."},
	{"ipolicy-bounds-specs", 0, 0, G_OPTION_ARG_STRING, &opt_bounds_specs,
	 "Complete instance specs limits", "min:key=val,.../max:key=val,...[//...]"},
	{"ipolicy-disk-templates", 0, 0, G_OPTION_ARG_STRING, &opt_disk_templates,
	 "Comma-separated list of enabled disk templates", "TEMPLATES"},
	{"ipolicy-vcpu-ratio", 0, 0, G_OPTION_ARG_STRING, &opt_vcpu_ratio,
	 "The maximum allowed vcpu-to-cpu ratio", "RATIO"},
	{"ipolicy-spindle-ratio", 0, 0, G_OPTION_ARG_STRING, &opt_spindle_ratio,
	 "The maximum allowed instances to spindle ratio", "RATIO"},
	{NULL},
};

/* constants.ISPECS_PARAMETERS with the sizes that take units */
static const struct {
	const gchar *name;
	gboolean size;
} spec_params[] = {
	{"cpu-count", FALSE},  {"disk-count", FALSE}, {"disk-size", TRUE},
	{"memory-size", TRUE}, {"nic-count", FALSE},  {"spindle-use", FALSE},
};

/* _ParseISpec(required=True): every parameter, as integers (sizes in MiB,
 * units allowed). (transfer full) */
static JsonObject *
parse_spec(JsonObject *given, const gchar *key, GError **error)
{
	g_autoptr(JsonObject) spec = json_object_new();

	for (guint i = 0; i < G_N_ELEMENTS(spec_params); i++) {
		JsonNode *value = json_object_get_member(given, spec_params[i].name);
		const gchar *text = value != NULL &&
						    json_node_get_value_type(value) == G_TYPE_STRING
					    ? json_node_get_string(value)
					    : NULL;
		guint64 number = 0;
		gboolean ok;

		if (value == NULL) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Missing parameters in ipolicy spec %s: %s", key,
				    spec_params[i].name);
			return NULL;
		}
		ok = text != NULL &&
		     (spec_params[i].size
			      ? gnt_size_parse(text, &number, NULL)
			      : g_ascii_string_to_unsigned(text, 10, 0, G_MAXINT64, &number, NULL));
		if (!ok) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Invalid parameter %s (%s) in %s instance specs",
				    spec_params[i].name, text != NULL ? text : "", key);
			return NULL;
		}
		json_object_set_int_member(spec, spec_params[i].name, (gint64)number);
	}
	if (json_object_get_size(given) != G_N_ELEMENTS(spec_params)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "Invalid parameters in %s instance specs: the parameters are cpu-count,"
			    " disk-count, disk-size, memory-size, nic-count and spindle-use",
			    key);
		return NULL;
	}
	return g_steal_pointer(&spec);
}

/* --ipolicy-bounds-specs: pairs separated by "//", each "min:.../max:...";
 * "default" (for modify) goes back to the cluster's. (transfer full) */
static JsonNode *
parse_bounds_specs(const gchar *text, GError **error)
{
	g_auto(GStrv) pairs = NULL;
	g_autoptr(JsonArray) minmax = json_array_new();

	if (g_strcmp0(text, "default") == 0)
		return gnt_json_node_new_string("default");
	pairs = g_strsplit(text, "//", -1);
	for (guint p = 0; pairs[p] != NULL; p++) {
		g_auto(GStrv) halves = g_strsplit(pairs[p], "/", -1);
		g_autoptr(JsonObject) pair = json_object_new();

		for (guint h = 0; halves[h] != NULL; h++) {
			g_autofree gchar *key = NULL;
			g_autoptr(JsonObject) given = NULL;
			JsonObject *spec;

			if (!gnt_cli_parse_ident_keyval("--ipolicy-bounds-specs", halves[h], &key,
							&given, error))
				return NULL;
			if ((g_strcmp0(key, "min") != 0 && g_strcmp0(key, "max") != 0) ||
			    given == NULL || json_object_has_member(pair, key)) {
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "Invalid key in bounds instance specifications: %s",
					    key != NULL ? key : "");
				return NULL;
			}
			spec = parse_spec(given, key, error);
			if (spec == NULL)
				return NULL;
			json_object_set_object_member(pair, key, spec);
		}
		json_array_add_object_element(minmax, g_steal_pointer(&pair));
	}
	return gnt_json_node_new_array(g_steal_pointer(&minmax));
}

/* A ratio option: a number > 0, or "default" (modify). */
static JsonNode *
parse_ratio(const gchar *option, const gchar *text, GError **error)
{
	gchar *end = NULL;
	gdouble value;

	if (g_strcmp0(text, "default") == 0)
		return gnt_json_node_new_string("default");
	value = g_ascii_strtod(text, &end);
	if (*text == '\0' || *end != '\0' || !(value > 0)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "Invalid value '%s' for %s: expected a number > 0", text, option);
		return NULL;
	}
	return gnt_json_node_new_double(value);
}

/* CreateIPolicyFromOpts(group_ipolicy=True): the options given, or NULL
 * for none. (transfer full) */
static JsonObject *
ipolicy_from_options(GError **error)
{
	g_autoptr(JsonObject) ipolicy = json_object_new();
	const struct {
		const gchar *option;
		const gchar *text;
		const gchar *key;
	} ratios[] = {
		{"--ipolicy-vcpu-ratio", opt_vcpu_ratio, "vcpu-ratio"},
		{"--ipolicy-spindle-ratio", opt_spindle_ratio, "spindle-ratio"},
	};

	if (opt_bounds_specs != NULL) {
		JsonNode *minmax = parse_bounds_specs(opt_bounds_specs, error);

		if (minmax == NULL)
			return NULL;
		json_object_set_member(ipolicy, "minmax", minmax);
	}
	if (opt_disk_templates != NULL) {
		g_auto(GStrv) names = g_strsplit(opt_disk_templates, ",", -1);
		JsonArray *list = json_array_new();

		for (guint i = 0; names[i] != NULL; i++) {
			if (names[i][0] != '\0')
				json_array_add_string_element(list, g_strstrip(names[i]));
		}
		json_object_set_array_member(ipolicy, "disk-templates", list);
	}
	for (guint i = 0; i < G_N_ELEMENTS(ratios); i++) {
		JsonNode *value;

		if (ratios[i].text == NULL)
			continue;
		value = parse_ratio(ratios[i].option, ratios[i].text, error);
		if (value == NULL)
			return NULL;
		json_object_set_member(ipolicy, ratios[i].key, value);
	}
	return g_steal_pointer(&ipolicy);
}

/* -D TEMPLATE:key=val,... (repeatable) as diskparams. (transfer full) */
static JsonObject *
diskparams_from_options(GError **error)
{
	g_autoptr(JsonObject) diskparams = json_object_new();

	for (guint i = 0; opt_diskparams != NULL && opt_diskparams[i] != NULL; i++) {
		g_autofree gchar *template = NULL;
		g_autoptr(JsonObject) params = NULL;

		if (!gnt_cli_parse_ident_keyval("-D", opt_diskparams[i], &template, &params, error))
			return NULL;
		if (params == NULL || json_object_has_member(diskparams, template)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Invalid value '%s' for -D: one TEMPLATE:key=val,... per"
				    " template",
				    opt_diskparams[i]);
			return NULL;
		}
		json_object_set_object_member(diskparams, template, g_steal_pointer(&params));
	}
	return g_steal_pointer(&diskparams);
}

/* The parameters of the options on @op; *@any tells whether one was given. */
static gboolean
set_param_options(GntCli *cli, JsonObject *op, gboolean *any, GError **error)
{
	g_autoptr(GError) local = NULL;
	g_autoptr(JsonObject) ipolicy = ipolicy_from_options(&local);
	g_autoptr(JsonObject) diskparams = ipolicy != NULL ? diskparams_from_options(&local) : NULL;

	if (diskparams == NULL) {
		gnt_cli_set_prereq_error(cli, error, GNT_ERROR_INVALID, "%s", local->message);
		return FALSE;
	}
	*any = opt_alloc_policy != NULL || opt_ndparams != NULL ||
	       json_object_get_size(diskparams) > 0 || json_object_get_size(ipolicy) > 0;
	if (opt_alloc_policy != NULL)
		json_object_set_string_member(op, "alloc_policy", opt_alloc_policy);
	if (opt_ndparams != NULL &&
	    !gnt_cli_set_keyval_option(cli, op, "ndparams", "-N", opt_ndparams, error))
		return FALSE;
	json_object_set_object_member(op, "diskparams", g_steal_pointer(&diskparams));
	json_object_set_object_member(op, "ipolicy", g_steal_pointer(&ipolicy));
	return TRUE;
}

static gint
add_group(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) op = gnt_cli_new_opcode(cli, "OP_GROUP_ADD");
	gboolean any = FALSE;

	json_object_set_string_member(op, "group_name", args[0]);
	if (!set_param_options(cli, op, &any, &error))
		return gnt_cli_fail(cli, error);
	return gnt_cli_submit_opcode(cli, g_steal_pointer(&op), NULL);
}

static gint
modify_group(GntCli *cli, gchar **args)
{
	return gnt_cli_modify_object(cli, "OP_GROUP_SET_PARAMS", "group_name", args[0],
				     "node group", set_param_options);
}

/* ---- rename, remove, assign-nodes ---- */

static gint
rename_group(GntCli *cli, gchar **args)
{
	JsonObject *op = gnt_cli_new_opcode(cli, "OP_GROUP_RENAME");

	json_object_set_string_member(op, "group_name", args[0]);
	json_object_set_string_member(op, "new_name", args[1]);
	return gnt_cli_submit_opcode(cli, op, NULL);
}

static gint
remove_group(GntCli *cli, gchar **args)
{
	JsonObject *op = gnt_cli_new_opcode(cli, "OP_GROUP_REMOVE");

	json_object_set_string_member(op, "group_name", args[0]);
	return gnt_cli_submit_opcode(cli, op, NULL);
}

static gboolean opt_force;

static const GOptionEntry assign_entries[] = {
	{"force", 'f', 0, G_OPTION_ARG_NONE, &opt_force,
	 "Move the nodes even when that splits instances between groups", NULL},
	{NULL},
};

static gint
assign_nodes(GntCli *cli, gchar **args)
{
	JsonObject *op = gnt_cli_new_opcode(cli, "OP_GROUP_ASSIGN_NODES");

	json_object_set_string_member(op, "group_name", args[0]);
	json_object_set_array_member(op, "nodes", gnt_cli_strv_to_json(args + 1));
	json_object_set_boolean_member(op, "force", opt_force);
	return gnt_cli_submit_opcode(cli, op, NULL);
}

/* ---- tags ---- */

#define SUBMIT_OPTS (GNT_CLI_OPT_SUBMIT | GNT_CLI_OPT_PRIORITY | GNT_CLI_OPT_DRY_RUN)

/* Commands in alphabetical order, as Ganeti lists them. */
static const GntCliCommand commands[] = {
	{"add", add_group, 1, 1, SUBMIT_OPTS, param_entries, "<group-name>",
	 "Add a new node group to the cluster",
	 "New nodes join a group with \"gnt-node add --node-group\"; existing ones move with "
	 "\"gnt-group assign-nodes\"."},
	GNT_CLI_ADD_TAGS_COMMAND("nodegroup", "<group>", "group"),
	{"assign-nodes", assign_nodes, 2, -1, SUBMIT_OPTS, assign_entries,
	 "<group-name> <node-name>...", "Assign nodes to a group",
	 "Refused when it would split an instance's nodes between groups, unless --force."},
	{"info", show_group_info, 0, -1, GNT_CLI_OPT_NONE, NULL, "[<group>...]",
	 "Show group information",
	 "Node and disk parameters and the instance policy of the named groups (or all): the "
	 "group's own values, or \"default (VALUE)\" inherited from the cluster."},
	{"list", gnt_cli_list_command, 0, -1, GNT_CLI_OPT_FIELDS | GNT_CLI_OPT_TABLE, NULL,
	 "[<group-name>...]",
	 "Lists the node groups in the cluster. The available fields can be shown using the "
	 "\"list-fields\" command. The default list is (in order): name, node_cnt, pinst_cnt, "
	 "alloc_policy, ndparams.",
	 NULL, &list_spec},
	{"list-fields", gnt_cli_list_fields_command, 0, -1, GNT_CLI_OPT_TABLE, NULL, "[fields...]",
	 "Lists all available fields for node groups", NULL, &list_spec},
	GNT_CLI_LIST_TAGS_COMMAND("nodegroup", "<group>", "group"),
	{"modify", modify_group, 1, 1, SUBMIT_OPTS, param_entries, "<group>",
	 "Alters the parameters of a node group",
	 "A value \"default\" (-N key=default, --ipolicy-vcpu-ratio default, ...) goes back to "
	 "the cluster's."},
	{"remove", remove_group, 1, 1, SUBMIT_OPTS, NULL, "[--dry-run] <group>",
	 "Remove an (empty) node group from the cluster",
	 "Refused while the group has nodes, and for the last group."},
	GNT_CLI_REMOVE_TAGS_COMMAND("nodegroup", "<group>", "group"),
	{"rename", rename_group, 2, 2, SUBMIT_OPTS, NULL, "[--dry-run] <old-name> <new-name>",
	 "Rename a node group", NULL},
	{NULL},
};

int
main(int argc, char **argv)
{
	return gnt_cli_main(commands, argc, argv);
}
