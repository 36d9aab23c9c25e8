/*
 * A template's in-band steps against the nodes' install appliances
 * (gnt-lu-template-nodes.h). The master's registry holds the catalogue
 * compiled into it; a node runs the one its appliance carries, which may
 * be older or newer (a node upgraded later, an appliance built from
 * another tree). A template naming a step some node's appliance cannot
 * run would fail only when an install reaches that node, so it is refused
 * when made.
 */
#include "gnt-lu-template-nodes.h"

#include "gnt-error.h"
#include "gnt-hv-params.h"
#include "gnt-install-registry.h"
#include "gnt-json.h"
#include "gnt-lu-instance-spec.h"
#include "gnt-node-calls.h"

/* The object of @list (a catalogue's steps, or a step's args) whose
 * "name" is @name, or NULL. */
static JsonObject *
find_named(JsonArray *list, const gchar *name)
{
	for (guint i = 0; list != NULL && i < json_array_get_length(list); i++) {
		JsonObject *item = json_array_get_object_element(list, i);

		if (g_strcmp0(json_object_get_string_member(item, "name"), name) == 0)
			return item;
	}
	return NULL;
}

/* Why @catalogue cannot run the agent step @name with @args, NULL when
 * it can. (transfer full) */
static gchar *
why_not(JsonObject *catalogue, const gchar *name, JsonObject *args)
{
	JsonObject *step = find_named(gnt_json_peek_array(catalogue, "steps"), name);
	JsonArray *known = step != NULL ? gnt_json_peek_array(step, "args") : NULL;
	g_autoptr(GList) given = args != NULL ? json_object_get_members(args) : NULL;

	if (step == NULL)
		return g_strdup_printf("its install appliance has no step '%s'", name);
	for (GList *l = given; l != NULL; l = l->next) {
		if (!g_str_equal(l->data, GNT_INSTALL_STEP_TIMEOUT_ARG) &&
		    find_named(known, l->data) == NULL)
			return g_strdup_printf("its install appliance's step '%s' has no argument "
					       "'%s'",
					       name, (const gchar *)l->data);
	}
	for (guint i = 0; known != NULL && i < json_array_get_length(known); i++) {
		JsonObject *arg = json_array_get_object_element(known, i);
		const gchar *arg_name = json_object_get_string_member(arg, "name");

		if (json_object_get_boolean_member(arg, "required") &&
		    (args == NULL || !json_object_has_member(args, arg_name)))
			return g_strdup_printf("its install appliance's step '%s' needs the "
					       "argument '%s'",
					       name, arg_name);
	}
	return NULL;
}

/* The registry's in-band step of @row, or NULL for a host row. */
static const GntInstallStepSpec *
row_in_band_spec(JsonObject *row)
{
	g_autofree gchar *name = g_strdup_printf("%s.%s",
						 json_object_get_string_member(row, "interface"),
						 json_object_get_string_member(row, "step"));
	const GntInstallStepSpec *spec = gnt_install_steps_lookup(name);

	return spec != NULL && spec->runs_on == GNT_INSTALL_RUNS_APPLIANCE ? spec : NULL;
}

/* Checks @steps' in-band rows against one node's @catalogue. */
static gboolean
check_catalogue(const gchar *template_name, JsonArray *steps, const gchar *node_name,
		JsonObject *catalogue, GError **error)
{
	for (guint i = 0; i < json_array_get_length(steps); i++) {
		JsonObject *row = json_array_get_object_element(steps, i);
		const GntInstallStepSpec *spec = row_in_band_spec(row);
		g_autofree gchar *reason = NULL;

		if (spec == NULL)
			continue;
		reason = why_not(catalogue, spec->step, gnt_json_peek_object(row, "args"));
		if (reason != NULL) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "install template '%s', step %u (%s): node '%s' cannot run it: "
				    "%s (catalogue version %s)",
				    template_name, i + 1, spec->name, node_name, reason,
				    json_object_get_string_member(catalogue, "version"));
			return FALSE;
		}
	}
	return TRUE;
}

/* Whether one of @enabled (the cluster's hypervisors) boots the install
 * appliance as a VM. */
static gboolean
any_boots_appliance_vm(JsonArray *enabled)
{
	for (guint i = 0; enabled != NULL && i < json_array_get_length(enabled); i++) {
		const gchar *name = json_array_get_string_element(enabled, i);

		if (gnt_hv_check_name(name, NULL) && !gnt_hv_runs_appliance_on_host(name))
			return TRUE;
	}
	return FALSE;
}

/* A row of @steps that needs the appliance's VM while no hypervisor the
 * cluster enables boots one (the fake hypervisor alone): a warning, not a
 * refusal, since a hypervisor may be enabled later; until then the plan
 * refuses every install with the template, before anything changes. */
static void
warn_needs_vm(GntLu *lu, const gchar *template_name, JsonArray *steps)
{
	g_autoptr(JsonObject) info = gnt_config_dup_cluster_info(lu_config(lu));
	const gchar *const *known = gnt_hv_list_names();
	g_autoptr(GString) vm_known = g_string_new(NULL);

	if (any_boots_appliance_vm(gnt_json_peek_array(info, "enabled_hypervisors")))
		return;
	for (guint i = 0; known[i] != NULL; i++) {
		if (!gnt_hv_runs_appliance_on_host(known[i]))
			g_string_append_printf(vm_known, "%s%s", vm_known->len > 0 ? ", " : "",
					       known[i]);
	}
	for (guint i = 0; i < json_array_get_length(steps); i++) {
		JsonObject *row = json_array_get_object_element(steps, i);
		const GntInstallStepSpec *spec = row_in_band_spec(row);

		if (spec == NULL || !spec->needs_vm ||
		    json_object_get_int_member_with_default(row, "priority", 0) <= 0)
			continue;
		gnt_lu_feedback(lu,
				"WARNING: install template '%s', step %u (%s) runs only inside "
				"the install appliance's VM, and no hypervisor the cluster enables "
				"boots one: installs with this template are refused until one "
				"that does is enabled (%s)",
				template_name, i + 1, spec->name, vm_known->str);
		return;
	}
}

gboolean
gnt_lu_template_check_nodes(GntLu *lu, const gchar *template_name, JsonArray *steps, GError **error)
{
	g_autoptr(GPtrArray) nodes = NULL;
	GntRpcClient *rpc;
	gboolean in_band = FALSE;
	guint answered = 0;

	for (guint i = 0; steps != NULL && i < json_array_get_length(steps); i++)
		in_band |= row_in_band_spec(json_array_get_object_element(steps, i)) != NULL;
	if (!in_band)
		return TRUE;
	warn_needs_vm(lu, template_name, steps);
	rpc = gnt_lu_get_rpc(lu, error);
	if (rpc == NULL)
		return FALSE;
	nodes = gnt_lu_dup_vm_nodes(lu_config(lu));
	for (guint i = 0; i < nodes->len; i++) {
		JsonObject *node = g_ptr_array_index(nodes, i);
		const gchar *name = json_object_get_string_member(node, "name");
		g_autoptr(GError) node_error = NULL;
		g_autoptr(JsonNode) answer = gnt_node_call_procedure(
			rpc, node, "appliance_catalogue", NULL, 0, NULL, &node_error);
		JsonObject *catalogue =
			answer != NULL && JSON_NODE_HOLDS_OBJECT(answer)
				? gnt_json_peek_object(json_node_get_object(answer), "catalogue")
				: NULL;

		if (answer == NULL &&
		    g_error_matches(node_error, GNT_ERROR, GNT_ERROR_ENVIRONMENT)) {
			/* unreachable: its installs fail at the step if it
			 * cannot run it */
			gnt_lu_feedback(lu,
					"WARNING: install template '%s': node %s left out of the "
					"check of its in-band steps: %s",
					template_name, name, node_error->message);
			continue;
		}
		if (catalogue == NULL) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "install template '%s': node '%s' cannot say which in-band "
				    "steps it can run: %s",
				    template_name, name,
				    node_error != NULL ? node_error->message
						       : "its answer holds no catalogue");
			return FALSE;
		}
		if (!check_catalogue(template_name, steps, name, catalogue, error))
			return FALSE;
		answered++;
	}
	if (answered == 0)
		gnt_lu_feedback(lu,
				"WARNING: install template '%s': no node answered; its in-band "
				"steps were checked against the master's catalogue only",
				template_name);
	return TRUE;
}
