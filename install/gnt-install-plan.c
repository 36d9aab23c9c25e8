/*
 * The plan builder (gnt-install-plan.h): core rows, template rows, the
 * cluster's policy, one sort with a total order. Pure: no config, no node,
 * so tests and the benchmark give it templates as JSON objects.
 */
#include "gnt-install-plan-private.h"

#include <string.h>

#include "gnt-error.h"
#include "gnt-hv-params.h"
#include "gnt-install-registry-private.h"
#include "gnt-install-storage.h"
#include "gnt-json.h"

#define SETTING_DENIED	   "install_denied_steps"
#define SETTING_PRIORITIES "install_step_priorities"

typedef struct {
	const GntInstallStepSpec *spec;
	gint64 priority;
	JsonObject *args;	    /* (nullable) a core row has none */
	const gchar *template_name; /* NULL: a core row; owned by the plan's templates */
	guint position;		    /* 1-based in its template */
	gchar *why;		    /* why it does not run; NULL: it runs */
} PlanRow;

struct _GntInstallPlan {
	GArray *rows;	      /* PlanRow, in the order they run */
	GPtrArray *templates; /* JsonObject, referenced, by name */
};

static void
plan_row_clear(PlanRow *row)
{
	g_clear_pointer(&row->args, json_object_unref);
	g_clear_pointer(&row->why, g_free);
}

void
gnt_install_plan_free(GntInstallPlan *self)
{
	if (self == NULL)
		return;
	g_array_unref(self->rows);
	g_ptr_array_unref(self->templates);
	g_free(self);
}

static const gchar *
template_name(JsonObject *template)
{
	JsonNode *node = json_object_get_member(template, "name");

	return node != NULL && JSON_NODE_HOLDS_VALUE(node) &&
			       json_node_get_value_type(node) == G_TYPE_STRING
		       ? json_node_get_string(node)
		       : NULL;
}

static gint
compare_templates(gconstpointer a, gconstpointer b)
{
	return strcmp(template_name(*(JsonObject *const *)a),
		      template_name(*(JsonObject *const *)b));
}

/* The documented total order: runs first; falling priority; core rows
 * before template rows; template name; position. */
static gint
compare_rows(gconstpointer a, gconstpointer b)
{
	const PlanRow *x = a;
	const PlanRow *y = b;
	gint c;

	if ((x->why == NULL) != (y->why == NULL))
		return x->why == NULL ? -1 : 1;
	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	if ((x->template_name == NULL) != (y->template_name == NULL))
		return x->template_name == NULL ? -1 : 1;
	if (x->template_name == NULL) /* two core rows: the registry's order */
		return x->spec < y->spec ? -1 : (x->spec > y->spec ? 1 : 0);
	c = strcmp(x->template_name, y->template_name);
	if (c != 0)
		return c;
	return x->position < y->position ? -1 : (x->position > y->position ? 1 : 0);
}

static gboolean
array_has_string(JsonArray *array, const gchar *value)
{
	for (guint i = 0; array != NULL && i < json_array_get_length(array); i++) {
		JsonNode *node = json_array_get_element(array, i);

		if (JSON_NODE_HOLDS_VALUE(node) &&
		    json_node_get_value_type(node) == G_TYPE_STRING &&
		    strcmp(json_node_get_string(node), value) == 0)
			return TRUE;
	}
	return FALSE;
}

/* The cluster's default priority for @spec: its override, else the
 * registry's. */
static gint64
default_priority(const GntInstallStepSpec *spec, JsonObject *priorities)
{
	JsonNode *node = priorities != NULL ? json_object_get_member(priorities, spec->name) : NULL;

	return node != NULL && gnt_json_node_is_int(node) ? json_node_get_int(node)
							  : (gint64)spec->default_priority;
}

/* The running rows whose step needs the install appliance's VM, refused
 * on a hypervisor that runs the agent on the node itself. */
static gboolean
check_needs_vm(GArray *given, GPtrArray *template_of, const GntInstallPlanTarget *target,
	       GError **error)
{
	if (!gnt_hv_runs_appliance_on_host(target->hypervisor))
		return TRUE;
	for (guint i = 0; i < given->len; i++) {
		const GntInstallParsedRow *row = &g_array_index(given, GntInstallParsedRow, i);

		if (!row->spec->needs_vm || row->priority <= 0)
			continue;
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "template '%s', step %u (%s): hypervisor '%s' runs the in-band "
			    "steps on the node itself, not in an install appliance VM, and this "
			    "step runs only inside that VM: on the node it would act on the "
			    "node's own disks",
			    (const gchar *)template_of->pdata[i], row->position, row->spec->name,
			    target->hypervisor);
		return FALSE;
	}
	return TRUE;
}

/* What a template row asks of this instance: the disk it names exists,
 * the hypervisor takes the parameters. The message names the problem, the
 * caller the row. */
static gboolean
row_check_target(const GntInstallParsedRow *row, const GntInstallPlanTarget *target, GError **error)
{
	g_autoptr(GError) local = NULL;

	if (target == NULL)
		return TRUE;
	if (strcmp(row->spec->name, "deploy.resize_disk") == 0) {
		gint64 disk = json_object_get_int_member(row->args, "disk");

		if (disk >= target->n_disks) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "the instance has no disk %" G_GINT64_FORMAT " (it has %u)",
				    disk, target->n_disks);
			return FALSE;
		}
	} else if (strcmp(row->spec->name, "hypervisor.apply_settings") == 0 &&
		   target->hypervisor != NULL) {
		g_autoptr(GHashTable) params = gnt_hv_params_from_json(
			target->hypervisor, json_object_get_object_member(row->args, "hvparams"),
			&local);

		if (params == NULL) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "hypervisor '%s' refuses the parameters: %s",
				    target->hypervisor, local->message);
			return FALSE;
		}
	}
	return TRUE;
}

/* The template rows so far (of earlier templates, by name): a row of
 * @template acting on the same thing is refused naming both. */
static gboolean
check_conflicts(GArray *given, const gchar *template, const GntInstallParsedRow *row,
		GPtrArray *template_of, GError **error)
{
	for (guint k = 0; k < given->len; k++) {
		const GntInstallParsedRow *earlier = &g_array_index(given, GntInstallParsedRow, k);
		const gchar *earlier_template = template_of->pdata[k];

		if (earlier_template != template && strcmp(earlier->key, row->key) == 0) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "install templates '%s' (step %u) and '%s' (step %u) both give "
				    "%s: only one template may",
				    earlier_template, earlier->position, template, row->position,
				    row->key);
			return FALSE;
		}
	}
	return TRUE;
}

/* @template's rows (@given from @first on) into the plan. */
static gboolean
add_template_rows(GntInstallPlan *self, const gchar *name, GArray *given, guint first,
		  GPtrArray *template_of, JsonArray *denied, const GntInstallPlanTarget *target,
		  GError **error)
{
	for (guint i = first; i < given->len; i++) {
		const GntInstallParsedRow *parsed = &g_array_index(given, GntInstallParsedRow, i);
		const GntInstallStepSpec *spec = parsed->spec;
		PlanRow row = {0};

		if (!check_conflicts(given, name, parsed, template_of, error))
			return FALSE;
		/* a row that does not run may name a denied step */
		if (parsed->priority > 0 && array_has_string(denied, spec->name)) {
			g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "the step is denied by the cluster policy "
					    "(install_denied_steps)");
			g_prefix_error(error, "template '%s', step %u (%s): ", name,
				       parsed->position, spec->name);
			return FALSE;
		}
		if (!row_check_target(parsed, target, error)) {
			g_prefix_error(error, "template '%s', step %u (%s): ", name,
				       parsed->position, spec->name);
			return FALSE;
		}
		if (gnt_install_step_is_core(spec)) {
			/* priority 0, checked: the core row does not run */
			for (guint k = 0; k < self->rows->len; k++) {
				PlanRow *core = &g_array_index(self->rows, PlanRow, k);

				if (core->spec == spec && core->template_name == NULL &&
				    core->why == NULL)
					core->why = g_strdup_printf("disabled by template '%s' "
								    "(step %u)",
								    name, parsed->position);
			}
			continue;
		}
		row.spec = spec;
		row.priority = parsed->priority;
		row.args = json_object_ref(parsed->args);
		row.template_name = name;
		row.position = parsed->position;
		if (parsed->priority == 0)
			row.why = g_strdup("priority 0 in its template");
		g_array_append_val(self->rows, row);
	}
	return TRUE;
}

/* The step that writes the payload in band when the plan lays the disks
 * out (doc/install.md, "Storage layouts"). */
#define WRITE_IMAGE   "deploy.write_image"
#define WRITE_PAYLOAD "appliance.write_payload"

/* With storage steps in the plan the disks are laid out inside the install
 * appliance, where the host cannot see the layout: the core write_image
 * row becomes appliance.write_payload (at its catalogue's priority), and a
 * template that names deploy.write_image is refused. */
static gboolean
apply_storage_rule(GntInstallPlan *self, GArray *given, GPtrArray *template_of, GError **error)
{
	const GntInstallStepSpec *payload = gnt_install_steps_lookup(WRITE_PAYLOAD);
	const PlanRow *storage = NULL;

	for (guint k = 0; k < self->rows->len && storage == NULL; k++) {
		const PlanRow *row = &g_array_index(self->rows, PlanRow, k);

		if (row->spec->storage && row->why == NULL)
			storage = row;
	}
	if (storage == NULL)
		return TRUE;
	for (guint k = 0; k < given->len; k++) {
		const GntInstallParsedRow *row = &g_array_index(given, GntInstallParsedRow, k);

		if (strcmp(row->spec->name, WRITE_IMAGE) != 0)
			continue;
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "template '%s', step %u (" WRITE_IMAGE
			    "): refused with storage steps in the plan (%s of template '%s'): "
			    "the disks are laid out inside the install appliance, and the host "
			    "cannot write onto a layout it does not see; the image is written "
			    "there by " WRITE_PAYLOAD " (leave " WRITE_IMAGE " out)",
			    (const gchar *)template_of->pdata[k], row->position,
			    storage->spec->name, storage->template_name);
		return FALSE;
	}
	g_assert(payload != NULL); /* the agent's catalogue has it */
	for (guint k = 0; k < self->rows->len; k++) {
		PlanRow *row = &g_array_index(self->rows, PlanRow, k);

		if (row->template_name == NULL && strcmp(row->spec->name, WRITE_IMAGE) == 0 &&
		    row->why == NULL) {
			row->spec = payload;
			row->priority = payload->catalogue_priority;
		}
	}
	return TRUE;
}

GntInstallPlan *
gnt_install_plan_build_full(JsonObject *const *templates, guint n_templates, JsonObject *settings,
			    const GntInstallPlanTarget *target, gboolean allow_test_steps,
			    GError **error)
{
	g_autoptr(GntInstallPlan) self = g_new0(GntInstallPlan, 1);
	g_autoptr(GArray) given = gnt_install_parsed_rows_new();
	g_autoptr(GPtrArray) template_of = g_ptr_array_new(); /* of each row in @given */
	JsonArray *denied = settings != NULL ? gnt_json_peek_array(settings, SETTING_DENIED) : NULL;
	JsonObject *priorities =
		settings != NULL ? gnt_json_peek_object(settings, SETTING_PRIORITIES) : NULL;
	const GntInstallStepSpec *all;
	guint n_all = 0;

	self->rows = g_array_new(FALSE, TRUE, sizeof(PlanRow));
	g_array_set_clear_func(self->rows, (GDestroyNotify)plan_row_clear);
	self->templates = g_ptr_array_new_full(n_templates, (GDestroyNotify)json_object_unref);
	for (guint i = 0; i < n_templates; i++) {
		if (template_name(templates[i]) == NULL) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "install template %u has no name", i + 1);
			return NULL;
		}
		g_ptr_array_add(self->templates, json_object_ref(templates[i]));
	}
	g_ptr_array_sort(self->templates, compare_templates);
	for (guint i = 1; i < self->templates->len; i++) {
		if (compare_templates(&self->templates->pdata[i - 1], &self->templates->pdata[i]) ==
		    0) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "install template '%s' is given twice",
				    template_name(self->templates->pdata[i]));
			return NULL;
		}
	}
	/* 1. the core rows */
	all = gnt_install_steps_get_all(&n_all);
	for (guint i = 0; i < n_all && gnt_install_step_is_core(&all[i]); i++) {
		PlanRow row = {.spec = &all[i], .priority = default_priority(&all[i], priorities)};

		if (array_has_string(denied, all[i].name))
			row.why = g_strdup("denied by the cluster policy (install_denied_steps)");
		else if (row.priority == 0)
			row.why = g_strdup("priority 0 by the cluster policy "
					   "(install_step_priorities)");
		g_array_append_val(self->rows, row);
	}
	/* 2. the templates' rows, checked, template by template in name order */
	for (guint i = 0; i < self->templates->len; i++) {
		JsonObject *template = self->templates->pdata[i];
		const gchar *name = template_name(template);
		guint first = given->len;

		if (!gnt_install_steps_parse(name, gnt_json_peek_array(template, "steps"),
					     allow_test_steps, given, error))
			return NULL;
		for (guint k = first; k < given->len; k++)
			g_ptr_array_add(template_of, (gpointer)name);
		if (!add_template_rows(self, name, given, first, template_of, denied, target,
				       error))
			return NULL;
	}
	/* the storage layout of all the templates together, on this instance's
	 * disks (each template's alone was checked when it was saved) */
	if (target != NULL) {
		GntInstallStorageDisks disks = {target->n_disks, target->disk_mib};

		if (!gnt_install_storage_check_parsed(
			    given, (const gchar *const *)template_of->pdata, &disks, error))
			return NULL;
		/* after the layout's checks: a wrong layout is named as such on
		 * every hypervisor */
		if (!check_needs_vm(given, template_of, target, error))
			return NULL;
	}
	/* 3. storage steps: the payload is written in band */
	if (!apply_storage_rule(self, given, template_of, error))
		return NULL;
	/* 4. one order */
	g_array_sort(self->rows, compare_rows);
	return g_steal_pointer(&self);
}

GntInstallPlan *
gnt_install_plan_build(JsonObject *const *templates, guint n_templates, JsonObject *settings,
		       const GntInstallPlanTarget *target, GError **error)
{
	return gnt_install_plan_build_full(templates, n_templates, settings, target, FALSE, error);
}

gchar *
gnt_install_plan_row_id(const gchar *template_name, guint position, const gchar *step)
{
	return template_name == NULL ? g_strdup(step)
				     : g_strdup_printf("%s#%u", template_name, position);
}

static JsonObject *
row_to_json(const PlanRow *row)
{
	JsonObject *obj = json_object_new();
	gboolean core = row->template_name == NULL;
	gchar *id = gnt_install_plan_row_id(row->template_name, row->position, row->spec->name);

	json_object_set_string_member(obj, "id", id);
	g_free(id);
	json_object_set_string_member(obj, "step", row->spec->name);
	json_object_set_int_member(obj, "priority", row->priority);
	json_object_set_object_member(
		obj, "args", core ? json_object_new() : gnt_json_object_deep_copy(row->args));
	json_object_set_string_member(obj, "origin", core ? "core" : "template");
	json_object_set_member(obj, "template", gnt_json_node_new_string(row->template_name));
	if (core)
		json_object_set_null_member(obj, "position");
	else
		json_object_set_int_member(obj, "position", row->position);
	json_object_set_boolean_member(obj, "runs", row->why == NULL);
	json_object_set_member(obj, "why", gnt_json_node_new_string(row->why));
	return obj;
}

JsonObject *
gnt_install_plan_to_json(const GntInstallPlan *self)
{
	JsonObject *out = json_object_new();
	JsonArray *templates = json_array_new();
	JsonArray *rows = json_array_new();

	for (guint i = 0; i < self->templates->len; i++) {
		JsonObject *template = self->templates->pdata[i];
		JsonObject *applied = json_object_new();
		JsonNode *serial = json_object_get_member(template, "serial_no");

		json_object_set_string_member(applied, "name", template_name(template));
		json_object_set_member(applied, "serial_no",
				       serial != NULL ? json_node_copy(serial)
						      : gnt_json_node_new_null());
		json_array_add_object_element(templates, applied);
	}
	for (guint i = 0; i < self->rows->len; i++)
		json_array_add_object_element(rows,
					      row_to_json(&g_array_index(self->rows, PlanRow, i)));
	json_object_set_array_member(out, "templates", templates);
	json_object_set_array_member(out, "rows", rows);
	return out;
}

JsonObject *
gnt_install_plan_new_core(void)
{
	g_autoptr(GntInstallPlan) plan = gnt_install_plan_build(NULL, 0, NULL, NULL, NULL);

	return gnt_install_plan_to_json(plan);
}

/* The core steps' priorities with @priorities laid over them must still
 * fall strictly (0, disabled, aside): the cluster moves a core step
 * between its neighbours, never past one. */
static gboolean
core_order_check(JsonObject *priorities, GError **error)
{
	const GntInstallStepSpec *all;
	const GntInstallStepSpec *previous = NULL;
	gint64 previous_priority = 0;
	guint n_all = 0;

	all = gnt_install_steps_get_all(&n_all);
	for (guint i = 0; i < n_all && gnt_install_step_is_core(&all[i]); i++) {
		gint64 priority = default_priority(&all[i], priorities);

		if (priority == 0)
			continue;
		if (previous != NULL && priority >= previous_priority) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "install step priorities: %s (%" G_GINT64_FORMAT
				    ") must stay below %s (%" G_GINT64_FORMAT
				    "): core steps keep their order",
				    all[i].name, priority, previous->name, previous_priority);
			return FALSE;
		}
		previous = &all[i];
		previous_priority = priority;
	}
	return TRUE;
}

/* @name names a step operators may use; @what prefixes the message. */
static const GntInstallStepSpec *
policy_step_lookup(const gchar *name, const gchar *what, GError **error)
{
	const GntInstallStepSpec *spec = gnt_install_steps_lookup(name);

	if (spec == NULL || !spec->for_operators) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "%s: unknown install step '%s' (gnt-os list-steps lists them)", what,
			    name);
		return NULL;
	}
	return spec;
}

gboolean
gnt_install_policy_check(JsonArray *denied, JsonObject *priorities, GError **error)
{
	JsonObjectIter iter;
	const gchar *name;
	JsonNode *value;

	for (guint i = 0; denied != NULL && i < json_array_get_length(denied); i++) {
		JsonNode *node = json_array_get_element(denied, i);

		if (!JSON_NODE_HOLDS_VALUE(node) ||
		    json_node_get_value_type(node) != G_TYPE_STRING) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "denied install steps: element %u must be a string, not %s",
				    i + 1, gnt_json_node_type_name(node));
			return FALSE;
		}
		if (policy_step_lookup(json_node_get_string(node), "denied install steps", error) ==
		    NULL)
			return FALSE;
	}
	if (priorities == NULL)
		return TRUE;
	json_object_iter_init_ordered(&iter, priorities);
	while (json_object_iter_next_ordered(&iter, &name, &value)) {
		const GntInstallStepSpec *spec =
			policy_step_lookup(name, "install step priorities", error);
		gint64 priority;

		if (spec == NULL)
			return FALSE;
		if (!gnt_json_node_is_int(value) || json_node_get_int(value) < 0 ||
		    json_node_get_int(value) > GNT_INSTALL_PRIORITY_MAX) {
			g_autofree gchar *shown = gnt_json_to_string(value);

			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "install step priorities: %s: %s is not an integer in 0..%d",
				    name, shown, GNT_INSTALL_PRIORITY_MAX);
			return FALSE;
		}
		priority = json_node_get_int(value);
		for (guint k = 0; priority > 0 && k < spec->n_args; k++) {
			if (spec->args[k].required) {
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "install step priorities: %s needs the argument '%s', "
					    "which only a template gives: it cannot run by default",
					    name, spec->args[k].name);
				return FALSE;
			}
		}
		if (priority > 0 && !gnt_install_step_is_core(spec) &&
		    (priority < spec->min_priority || priority > spec->max_priority)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "install step priorities: %s: %" G_GINT64_FORMAT
				    " is out of range (0 or %u..%u)",
				    name, priority, spec->min_priority, spec->max_priority);
			return FALSE;
		}
	}
	return core_order_check(priorities, error);
}
