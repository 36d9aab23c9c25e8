/* libFuzzer target: the install template steps checker
 * (gnt_install_steps_validate()) and the plan builder on what it accepts.
 * Any bytes: what is not a JSON array is the parser's business. A crash, a
 * plan from steps the checker refused, or a plan that breaks the rules
 * (an operator's template bringing in a test step, a core step moved, rows
 * out of order) is a bug. */
#include <string.h>

#include "gnt-install-plan-private.h"
#include "gnt-install-registry-private.h"
#include "gnt-json.h"

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size);

/* The plan's rows keep the documented order and the core steps theirs. */
static void
check_plan(JsonObject *plan)
{
	JsonArray *rows = json_object_get_array_member(plan, "rows");
	gint64 last_priority = G_MAXINT64;
	gint64 last_core = G_MAXINT64;
	gboolean runs_done = FALSE;

	for (guint i = 0; i < json_array_get_length(rows); i++) {
		JsonObject *row = json_array_get_object_element(rows, i);
		const GntInstallStepSpec *spec =
			gnt_install_steps_lookup(json_object_get_string_member(row, "step"));
		gint64 priority = json_object_get_int_member(row, "priority");
		gboolean runs = json_object_get_boolean_member(row, "runs");

		if (spec == NULL || !spec->for_operators)
			__builtin_trap();
		if (!runs) {
			runs_done = TRUE;
			continue;
		}
		if (runs_done || priority > last_priority || priority <= 0 ||
		    priority > GNT_INSTALL_PRIORITY_MAX)
			__builtin_trap();
		last_priority = priority;
		if (g_strcmp0(json_object_get_string_member(row, "origin"), "core") == 0) {
			if (priority >= last_core)
				__builtin_trap();
			last_core = priority;
		} else if (gnt_install_step_is_core(spec)) {
			__builtin_trap(); /* a template may only disable a core step */
		}
	}
}

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size)
{
	g_autoptr(JsonNode) node = gnt_json_parse((const gchar *)data, (gssize)size, NULL);
	g_autoptr(JsonObject) template = NULL;
	g_autoptr(GntInstallPlan) plan = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) json = NULL;
	GntInstallPlanTarget target = {"kvm", 16};
	JsonObject *templates[1];
	gboolean ok;

	if (node == NULL || !JSON_NODE_HOLDS_ARRAY(node))
		return 0;
	ok = gnt_install_steps_validate("CUSTOM_FUZZ", json_node_get_array(node), &error);
	/* the same answer twice, and a message that names the template */
	if (ok != gnt_install_steps_validate("CUSTOM_FUZZ", json_node_get_array(node), NULL))
		__builtin_trap();
	if (!ok && (error == NULL || strstr(error->message, "'CUSTOM_FUZZ'") == NULL))
		__builtin_trap();
	template = json_object_new();
	json_object_set_string_member(template, "name", "CUSTOM_FUZZ");
	json_object_set_array_member(template, "steps", json_array_ref(json_node_get_array(node)));
	templates[0] = template;
	plan = gnt_install_plan_build(templates, 1, NULL, &target, NULL);
	if (plan == NULL)
		return 0;
	if (!ok) /* built from steps the checker refused */
		__builtin_trap();
	json = gnt_install_plan_to_json(plan);
	check_plan(json);
	return 0;
}
