/*
 * The install step registry: every step once, as data. The core steps'
 * implementations are in gnt-install-steps.c, looked up by name; this
 * table is what templates, the plan builder and the listings read.
 */
#include "gnt-install-registry-private.h"

#include <string.h>

#include "gnt-install-storage.h"

#include "gnt-error.h"
#include "gnt-hv-params.h"
#include "gnt-json.h"
#include "gnt-size.h"

static const GntInstallArgSpec resize_disk_args[] = {
	{"disk", GNT_INSTALL_ARG_INTEGER, TRUE, TRUE, 0, 15,
	 "the index of the disk to grow (0 is the first)"},
	{"size", GNT_INSTALL_ARG_SIZE, TRUE, FALSE, 0, 0,
	 "the size it must have at least: MiB, or with a unit (\"10G\")"},
};

static const GntInstallArgSpec apply_settings_args[] = {
	{"hvparams", GNT_INSTALL_ARG_HVPARAMS, TRUE, FALSE, 0, 0,
	 "hypervisor parameters for this instance (e.g. {\"cpu_type\": \"host\"}), checked by "
	 "its hypervisor's rules"},
};

static const GntInstallArgSpec test_note_args[] = {
	{"text", GNT_INSTALL_ARG_STRING, TRUE, TRUE, 0, 0, "the line to write to the job log"},
};

static const GntInstallArgSpec test_fail_args[] = {
	{"message", GNT_INSTALL_ARG_STRING, TRUE, FALSE, 0, 0, "the error it fails with"},
};

#define CORE(step_, prio_, runs_, desc_)                                                           \
	{                                                                                          \
		"deploy." step_, "deploy", step_, GNT_INSTALL_RUNS_##runs_, prio_, 0, 0, TRUE,     \
			NULL, 0, desc_                                                             \
	}
#define ARGS(a_) a_, G_N_ELEMENTS(a_)

/* The core steps by falling priority (the runner's order), then the steps
 * templates add. Bands for the others: above 100 runs before the disks
 * exist, 21..99 between making the disks and the boot. */
static const GntInstallStepSpec host_registry[] = {
	CORE("prepare", 100, HOST, "makes the new instance's disks (a reinstall keeps them)"),
	CORE("write_image", 80, HOST, "writes the disk image onto disk 0"),
	CORE("run_os_scripts", 70, HOST,
	     "runs the OS definition's create script, on the node or in the install appliance"),
	CORE("personalize", 65, APPLIANCE,
	     "unpacks the personalization package (os-package) inside the install appliance"),
	CORE("prepare_boot", 60, HOST,
	     "self_install: makes the first boot use the install hypervisor parameters"),
	CORE("tear_down_appliance", 40, HOST,
	     "reports the install appliance's end (the node removed it and its channel)"),
	CORE("switch_networks", 30, HOST, "moves the instance from the install network to its own"),
	CORE("boot", 20, HOST, "starts the new instance (a reinstall leaves it stopped)"),
	{"deploy.resize_disk", "deploy", "resize_disk", GNT_INSTALL_RUNS_HOST, 0, 21, 99, TRUE,
	 ARGS(resize_disk_args), "grows a disk of the instance to at least the given size"},
	{"hypervisor.apply_settings", "hypervisor", "apply_settings", GNT_INSTALL_RUNS_HOST, 0, 21,
	 GNT_INSTALL_PRIORITY_MAX, TRUE, ARGS(apply_settings_args),
	 "sets hypervisor parameters of the instance (CPU flags, boot firmware, ...) before it "
	 "boots"},
	{"test.note", "test", "note", GNT_INSTALL_RUNS_HOST, 0, 1, GNT_INSTALL_PRIORITY_MAX, FALSE,
	 ARGS(test_note_args), "writes a line to the job log (tests only)"},
	{"test.fail", "test", "fail", GNT_INSTALL_RUNS_HOST, 0, 1, GNT_INSTALL_PRIORITY_MAX, FALSE,
	 ARGS(test_fail_args), "fails (tests only)"},
};

static const gchar *const runs_on_names[] = {
	[GNT_INSTALL_RUNS_HOST] = "host",
	[GNT_INSTALL_RUNS_APPLIANCE] = "appliance",
};
G_STATIC_ASSERT(G_N_ELEMENTS(runs_on_names) == GNT_INSTALL_RUNS_LAST);

static const gchar *const arg_type_names[] = {
	[GNT_INSTALL_ARG_STRING] = "string",	 [GNT_INSTALL_ARG_INTEGER] = "integer",
	[GNT_INSTALL_ARG_BOOLEAN] = "boolean",	 [GNT_INSTALL_ARG_SIZE] = "size",
	[GNT_INSTALL_ARG_HVPARAMS] = "hvparams", [GNT_INSTALL_ARG_JSON] = "json",
};
G_STATIC_ASSERT(G_N_ELEMENTS(arg_type_names) == GNT_INSTALL_ARG_LAST);

/* ---- the appliance's steps: its catalogue, built in ---- */

/* appliance/steps.json, the catalogue the agent reports and the appliance
 * image carries (install/meson.build embeds it). */
extern const char gnt_appliance_steps_catalogue[];
extern const unsigned long gnt_appliance_steps_catalogue_len;

static const GntInstallArgType catalogue_arg_types[] = {GNT_INSTALL_ARG_STRING,
							GNT_INSTALL_ARG_INTEGER,
							GNT_INSTALL_ARG_BOOLEAN,
							GNT_INSTALL_ARG_JSON};
static const gchar *const catalogue_arg_type_names[] = {"string", "integer", "boolean", "json"};

static GntInstallArgSpec *
catalogue_args(JsonArray *args, guint *n_args)
{
	guint n = json_array_get_length(args);
	GntInstallArgSpec *out = g_new0(GntInstallArgSpec, n + 1);

	/* every in-band step may have its own timeout (doc/install.md) */
	out[n] = (GntInstallArgSpec){GNT_INSTALL_STEP_TIMEOUT_ARG,
				     GNT_INSTALL_ARG_INTEGER,
				     FALSE,
				     FALSE,
				     1,
				     GNT_INSTALL_STEP_TIMEOUT_MAX,
				     "seconds the step may take inside the install appliance "
				     "(default: the cluster's install timeout)"};
	*n_args = n + 1;
	for (guint i = 0; i < n; i++) {
		JsonObject *arg = json_array_get_object_element(args, i);
		const gchar *type = json_object_get_string_member(arg, "type");

		out[i].name = g_strdup(json_object_get_string_member(arg, "name"));
		out[i].required = json_object_get_boolean_member(arg, "required");
		out[i].identity = json_object_get_boolean_member(arg, "identity");
		out[i].description = g_strdup(json_object_get_string_member(arg, "description"));
		out[i].min = 0;
		out[i].max = G_MAXINT32;
		for (guint k = 0; k < G_N_ELEMENTS(catalogue_arg_types); k++) {
			if (g_strcmp0(type, catalogue_arg_type_names[k]) == 0)
				out[i].type = catalogue_arg_types[k];
		}
	}
	return out;
}

/* The host's steps, then the appliance's from its catalogue as
 * "appliance.NAME" (its core steps, run_os_scripts and personalize, are
 * the deploy.* rows above). Built once, kept for the process's life. The
 * catalogue is ours, checked by tests/install/test-install-registry.c
 * with metad's own parser (gnt_metadata_catalogue_parse()). */
static GArray *
all_steps(void)
{
	static gsize once;
	static GArray *steps;

	if (g_once_init_enter(&once)) {
		g_autoptr(JsonNode)
			root = gnt_json_parse(gnt_appliance_steps_catalogue,
					      (gssize)gnt_appliance_steps_catalogue_len, NULL);
		JsonArray *catalogue = NULL;
		GArray *out = g_array_new(FALSE, TRUE, sizeof(GntInstallStepSpec));

		g_array_append_vals(out, host_registry, G_N_ELEMENTS(host_registry));
		g_assert(root != NULL && JSON_NODE_HOLDS_OBJECT(root));
		catalogue = json_object_get_array_member(json_node_get_object(root), "steps");
		for (guint i = 0; i < json_array_get_length(catalogue); i++) {
			JsonObject *step = json_array_get_object_element(catalogue, i);
			const gchar *name = json_object_get_string_member(step, "name");
			GntInstallStepSpec spec = {0};

			if (json_object_get_boolean_member(step, "core"))
				continue;
			spec.name = g_strconcat(GNT_INSTALL_APPLIANCE_INTERFACE ".", name, NULL);
			spec.interface = GNT_INSTALL_APPLIANCE_INTERFACE;
			spec.step = g_strdup(name);
			spec.runs_on = GNT_INSTALL_RUNS_APPLIANCE;
			spec.min_priority = GNT_INSTALL_APPLIANCE_MIN_PRIORITY;
			spec.max_priority = GNT_INSTALL_APPLIANCE_MAX_PRIORITY;
			spec.for_operators = json_object_get_boolean_member(step, "for_operators");
			spec.args = catalogue_args(json_object_get_array_member(step, "args"),
						   &spec.n_args);
			spec.description =
				g_strdup(json_object_get_string_member(step, "description"));
			spec.reboot_requested =
				json_object_get_boolean_member(step, "reboot_requested");
			spec.catalogue_priority =
				(guint)json_object_get_int_member(step, "priority");
			spec.storage =
				json_object_get_boolean_member_with_default(step, "storage", FALSE);
			spec.needs_vm = json_object_get_boolean_member_with_default(
				step, "needs_vm", FALSE);
			g_array_append_val(out, spec);
		}
		steps = out;
		g_once_init_leave(&once, 1);
	}
	return steps;
}

const GntInstallStepSpec *
gnt_install_steps_get_all(guint *n_steps)
{
	GArray *steps = all_steps();

	g_return_val_if_fail(n_steps != NULL, NULL);
	*n_steps = steps->len;
	return (const GntInstallStepSpec *)(gpointer)steps->data;
}

const GntInstallStepSpec *
gnt_install_steps_lookup(const gchar *name)
{
	guint n = 0;
	const GntInstallStepSpec *steps = gnt_install_steps_get_all(&n);

	for (guint i = 0; name != NULL && i < n; i++) {
		if (strcmp(steps[i].name, name) == 0)
			return &steps[i];
	}
	return NULL;
}

gboolean
gnt_install_step_is_core(const GntInstallStepSpec *spec)
{
	return spec->default_priority > 0;
}

const gchar *
gnt_install_runs_on_to_string(GntInstallRunsOn runs_on)
{
	g_return_val_if_fail(runs_on < GNT_INSTALL_RUNS_LAST, NULL);
	return runs_on_names[runs_on];
}

const gchar *
gnt_install_arg_type_to_string(GntInstallArgType type)
{
	g_return_val_if_fail(type < GNT_INSTALL_ARG_LAST, NULL);
	return arg_type_names[type];
}

static JsonObject *
step_to_json(const GntInstallStepSpec *spec)
{
	JsonObject *obj = json_object_new();
	JsonArray *args = json_array_new();

	json_object_set_string_member(obj, "name", spec->name);
	json_object_set_string_member(obj, "interface", spec->interface);
	json_object_set_string_member(obj, "step", spec->step);
	json_object_set_string_member(obj, "runs_on", runs_on_names[spec->runs_on]);
	json_object_set_int_member(obj, "default_priority", spec->default_priority);
	json_object_set_boolean_member(obj, "core", gnt_install_step_is_core(spec));
	if (gnt_install_step_is_core(spec)) {
		json_object_set_null_member(obj, "priorities");
	} else {
		JsonArray *range = json_array_new();

		json_array_add_int_element(range, spec->min_priority);
		json_array_add_int_element(range, spec->max_priority);
		json_object_set_array_member(obj, "priorities", range);
	}
	json_object_set_string_member(obj, "description", spec->description);
	for (guint i = 0; i < spec->n_args; i++) {
		JsonObject *arg = json_object_new();

		json_object_set_string_member(arg, "name", spec->args[i].name);
		json_object_set_string_member(arg, "type", arg_type_names[spec->args[i].type]);
		json_object_set_boolean_member(arg, "required", spec->args[i].required);
		json_object_set_string_member(arg, "description", spec->args[i].description);
		json_array_add_object_element(args, arg);
	}
	json_object_set_array_member(obj, "args", args);
	return obj;
}

JsonArray *
gnt_install_steps_list(void)
{
	JsonArray *out = json_array_new();

	guint n = 0;
	const GntInstallStepSpec *steps = gnt_install_steps_get_all(&n);

	for (guint i = 0; i < n; i++) {
		if (steps[i].for_operators)
			json_array_add_object_element(out, step_to_json(&steps[i]));
	}
	return out;
}

/* ---- checking a template's steps ---- */

/* @value of hvparams: every name known to some hypervisor, with a value
 * that hypervisor takes; which one the instance has is the plan's check. */
static gboolean
hvparams_check(JsonNode *value, GError **error)
{
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *member;

	if (!JSON_NODE_HOLDS_OBJECT(value)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "must be an object, not %s",
			    gnt_json_node_type_name(value));
		return FALSE;
	}
	if (json_object_get_size(json_node_get_object(value)) == 0) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "must name at least one hypervisor parameter");
		return FALSE;
	}
	json_object_iter_init(&iter, json_node_get_object(value));
	while (json_object_iter_next(&iter, &key, &member)) {
		const gchar *const *hvs = gnt_hv_list_names();
		g_autoptr(GError) first = NULL;
		gboolean known = FALSE;

		for (guint i = 0; hvs[i] != NULL; i++) {
			g_autoptr(JsonObject) one = json_object_new();
			g_autoptr(GHashTable) table = NULL;

			if (gnt_hv_params_lookup(hvs[i], key) == NULL)
				continue;
			known = TRUE;
			json_object_set_member(one, key, json_node_copy(member));
			table = gnt_hv_params_from_json(hvs[i], one, first == NULL ? &first : NULL);
			if (table != NULL) {
				g_clear_error(&first);
				break;
			}
		}
		if (!known) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "'%s' is not a parameter of any hypervisor", key);
			return FALSE;
		}
		if (first != NULL) {
			g_propagate_error(error, g_steal_pointer(&first));
			return FALSE;
		}
	}
	return TRUE;
}

static gboolean
holds_value(JsonNode *node, GType type)
{
	return JSON_NODE_HOLDS_VALUE(node) && json_node_get_value_type(node) == type;
}

static gboolean
arg_value_check(const GntInstallStepSpec *spec, const GntInstallArgSpec *arg, JsonNode *value,
		GError **error)
{
	guint64 mib;
	gint64 n;

	switch (arg->type) {
	case GNT_INSTALL_ARG_STRING:
		if (!holds_value(value, G_TYPE_STRING))
			break;
		return TRUE;
	case GNT_INSTALL_ARG_INTEGER:
		if (!gnt_json_node_is_int(value))
			break;
		n = json_node_get_int(value);
		if (n < arg->min || n > arg->max) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "%" G_GINT64_FORMAT " is out of range (%" G_GINT64_FORMAT
				    "..%" G_GINT64_FORMAT ")",
				    n, arg->min, arg->max);
			return FALSE;
		}
		return TRUE;
	case GNT_INSTALL_ARG_BOOLEAN:
		if (!holds_value(value, G_TYPE_BOOLEAN))
			break;
		return TRUE;
	case GNT_INSTALL_ARG_SIZE:
		if (gnt_json_node_is_int(value)) {
			if (json_node_get_int(value) <= 0 ||
			    (guint64)json_node_get_int(value) > GNT_SIZE_MAX_MIB) {
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "%" G_GINT64_FORMAT " MiB is out of range",
					    json_node_get_int(value));
				return FALSE;
			}
			return TRUE;
		}
		if (!holds_value(value, G_TYPE_STRING))
			break;
		if (!gnt_size_parse(json_node_get_string(value), &mib, error))
			return FALSE;
		if (mib == 0) {
			g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "must be above zero");
			return FALSE;
		}
		return TRUE;
	case GNT_INSTALL_ARG_HVPARAMS:
		return hvparams_check(value, error);
	case GNT_INSTALL_ARG_JSON:
		return gnt_install_storage_arg_check(spec, arg->name, value, error);
	case GNT_INSTALL_ARG_LAST:
		break;
	}
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "must be %s %s, not %s",
		    arg->type == GNT_INSTALL_ARG_INTEGER ? "an" : "a",
		    arg->type == GNT_INSTALL_ARG_SIZE ? "size (MiB or a string with a unit)"
						      : arg_type_names[arg->type],
		    gnt_json_node_type_name(value));
	return FALSE;
}

static const GntInstallArgSpec *
arg_lookup(const GntInstallStepSpec *spec, const gchar *name)
{
	for (guint i = 0; i < spec->n_args; i++) {
		if (strcmp(spec->args[i].name, name) == 0)
			return &spec->args[i];
	}
	return NULL;
}

/* @args against @spec; the message names the argument, not the row. */
static gboolean
args_check(const GntInstallStepSpec *spec, JsonObject *args, GError **error)
{
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	json_object_iter_init_ordered(&iter, args);
	while (json_object_iter_next_ordered(&iter, &key, &value)) {
		const GntInstallArgSpec *arg = arg_lookup(spec, key);
		g_autoptr(GError) local = NULL;

		if (arg == NULL) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "unknown argument '%s' (%s takes %s)", key, spec->name,
				    spec->n_args == 0 ? "none" : "other ones");
			return FALSE;
		}
		if (!arg_value_check(spec, arg, value, &local)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "argument '%s' %s", key,
				    local->message);
			return FALSE;
		}
	}
	for (guint i = 0; i < spec->n_args; i++) {
		if (spec->args[i].required && !json_object_has_member(args, spec->args[i].name)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "missing argument '%s' (%s)", spec->args[i].name,
				    spec->args[i].description);
			return FALSE;
		}
	}
	return TRUE;
}

gboolean
gnt_install_args_check(const GntInstallStepSpec *spec, JsonObject *args, const gchar *what,
		       GError **error)
{
	if (args_check(spec, args, error))
		return TRUE;
	g_prefix_error(error, "%s: ", what);
	return FALSE;
}

gchar *
gnt_install_row_key(const GntInstallStepSpec *spec, JsonObject *args)
{
	GString *key = NULL;

	for (guint i = 0; i < spec->n_args; i++) {
		JsonNode *value;

		if (!spec->args[i].identity)
			continue;
		if (key == NULL)
			key = g_string_new(spec->name);
		value = args != NULL ? json_object_get_member(args, spec->args[i].name) : NULL;
		g_string_append_c(key, ' ');
		g_string_append(key, spec->args[i].name);
		g_string_append_c(key, '=');
		if (value != NULL)
			gnt_json_append(key, value);
	}
	return key != NULL ? g_string_free(key, FALSE) : g_strdup(spec->name);
}

/* The row's priority: a JSON integer, 0 or (for a non-core step) within
 * the step's range. "010", 1e3, -1 and 2^63 are all refused. */
static gboolean
priority_check(const GntInstallStepSpec *spec, JsonNode *node, gint64 *out, GError **error)
{
	gint64 priority;

	if (!gnt_json_node_is_int(node)) {
		g_autofree gchar *shown = gnt_json_to_string(node);

		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "priority %s is not an integer (0..%d)", shown,
			    GNT_INSTALL_PRIORITY_MAX);
		return FALSE;
	}
	priority = json_node_get_int(node);
	*out = priority;
	if (priority == 0)
		return TRUE;
	if (gnt_install_step_is_core(spec)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "priority %" G_GINT64_FORMAT
			    " not allowed: %s is a core step, which a template may only disable "
			    "(priority 0)",
			    priority, spec->name);
		return FALSE;
	}
	if (priority < spec->min_priority || priority > spec->max_priority) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "priority %" G_GINT64_FORMAT " is out of range (0 or %u..%u)", priority,
			    spec->min_priority, spec->max_priority);
		return FALSE;
	}
	return TRUE;
}

/* The step named @interface and @step, without building its name. */
static const GntInstallStepSpec *
lookup_parts(const gchar *interface, const gchar *step)
{
	guint n = 0;
	const GntInstallStepSpec *steps = gnt_install_steps_get_all(&n);

	for (guint i = 0; i < n; i++) {
		if (strcmp(steps[i].step, step) == 0 && strcmp(steps[i].interface, interface) == 0)
			return &steps[i];
	}
	return NULL;
}

static const gchar *const row_members[] = {"interface", "step", "args", "priority"};

/* One row: its members, step, args and priority, into @out. The message
 * names what is wrong, not the row: the caller says which (and @out->spec,
 * once known, its step). */
static gboolean
row_check(JsonNode *node, gboolean allow_test_steps, GntInstallParsedRow *out, GError **error)
{
	JsonNode *members[G_N_ELEMENTS(row_members)] = {NULL};
	const GntInstallStepSpec *spec;
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;
	JsonObject *row;

	if (!JSON_NODE_HOLDS_OBJECT(node)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "must be an object {\"interface\", \"step\", \"args\", "
			    "\"priority\"}, not %s",
			    gnt_json_node_type_name(node));
		return FALSE;
	}
	row = json_node_get_object(node);
	/* one pass over the members: each known one into its slot */
	json_object_iter_init_ordered(&iter, row);
	while (json_object_iter_next_ordered(&iter, &key, &value)) {
		guint slot = 0;

		while (slot < G_N_ELEMENTS(row_members) && strcmp(row_members[slot], key) != 0)
			slot++;
		if (slot == G_N_ELEMENTS(row_members)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "unknown member '%s' (a step has interface, step, args and "
				    "priority)",
				    key);
			return FALSE;
		}
		members[slot] = value;
	}
	for (guint i = 0; i < G_N_ELEMENTS(row_members); i++) {
		if (members[i] == NULL) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "'%s' is missing%s",
				    row_members[i],
				    strcmp(row_members[i], "args") == 0 ? " (give {} for none)"
									: "");
			return FALSE;
		}
	}
	for (guint i = 0; i < 2; i++) {
		if (!holds_value(members[i], G_TYPE_STRING)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "'%s' must be a string, not %s", row_members[i],
				    gnt_json_node_type_name(members[i]));
			return FALSE;
		}
	}
	spec = lookup_parts(json_node_get_string(members[0]), json_node_get_string(members[1]));
	if (spec == NULL || (!spec->for_operators && !allow_test_steps)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "unknown install step '%s.%s' (gnt-os list-steps lists them)",
			    json_node_get_string(members[0]), json_node_get_string(members[1]));
		return FALSE;
	}
	out->spec = spec;
	if (!JSON_NODE_HOLDS_OBJECT(members[2])) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "'args' must be an object, not %s",
			    gnt_json_node_type_name(members[2]));
		return FALSE;
	}
	out->args = json_node_get_object(members[2]);
	/* a core step is only ever disabled: it takes no arguments */
	return priority_check(spec, members[3], &out->priority, error) &&
	       args_check(spec, out->args, error);
}

static void
parsed_row_clear(GntInstallParsedRow *row)
{
	g_clear_pointer(&row->key, g_free);
}

GArray *
gnt_install_parsed_rows_new(void)
{
	GArray *rows = g_array_new(FALSE, TRUE, sizeof(GntInstallParsedRow));

	g_array_set_clear_func(rows, (GDestroyNotify)parsed_row_clear);
	return rows;
}

gboolean
gnt_install_steps_parse(const gchar *template_name, JsonArray *steps, gboolean allow_test_steps,
			GArray *rows, GError **error)
{
	guint first = rows->len;
	guint n;

	g_return_val_if_fail(template_name != NULL, FALSE);
	if (steps == NULL || json_array_get_length(steps) == 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "template '%s' has no steps",
			    template_name);
		return FALSE;
	}
	n = json_array_get_length(steps);
	if (n > GNT_INSTALL_TEMPLATE_MAX_STEPS) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "template '%s' has %u steps, more than %d", template_name, n,
			    GNT_INSTALL_TEMPLATE_MAX_STEPS);
		return FALSE;
	}
	for (guint i = 0; i < n; i++) {
		GntInstallParsedRow row = {.position = i + 1};

		if (!row_check(json_array_get_element(steps, i), allow_test_steps, &row, error)) {
			if (row.spec != NULL)
				g_prefix_error(error,
					       "template '%s', step %u (%s): ", template_name,
					       i + 1, row.spec->name);
			else
				g_prefix_error(error, "template '%s', step %u: ", template_name,
					       i + 1);
			g_array_set_size(rows, first);
			return FALSE;
		}
		row.key = gnt_install_row_key(row.spec, row.args);
		/* at most 64 rows: a scan is cheaper than a table */
		for (guint k = first; k < rows->len; k++) {
			GntInstallParsedRow *earlier = &g_array_index(rows, GntInstallParsedRow, k);

			if (strcmp(earlier->key, row.key) == 0) {
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "template '%s', step %u (%s): repeats step %u (the "
					    "same step on the same thing)",
					    template_name, i + 1, row.key, earlier->position);
				g_free(row.key);
				g_array_set_size(rows, first);
				return FALSE;
			}
		}
		g_array_append_val(rows, row);
	}
	return TRUE;
}

gboolean
gnt_install_steps_validate_full(const gchar *template_name, JsonArray *steps,
				gboolean allow_test_steps, GError **error)
{
	g_autoptr(GArray) rows = gnt_install_parsed_rows_new();
	g_autofree const gchar **names = NULL;

	if (!gnt_install_steps_parse(template_name, steps, allow_test_steps, rows, error))
		return FALSE;
	/* the storage layout of this template alone: no instance, no disks */
	names = g_new0(const gchar *, rows->len + 1);
	for (guint i = 0; i < rows->len; i++)
		names[i] = template_name;
	return gnt_install_storage_check_parsed(rows, names, NULL, error);
}

gboolean
gnt_install_steps_validate(const gchar *template_name, JsonArray *steps, GError **error)
{
	return gnt_install_steps_validate_full(template_name, steps, FALSE, error);
}
