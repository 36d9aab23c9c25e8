/*
 * Which install templates an install gets, and its plan (doc/install.md,
 * "Templates and tags"): every instance tag that names a template selects
 * it, if the primary node carries that tag too (the seed's rule: an
 * operator allows a template on a node by tagging the node). The plan is
 * built from them once, before anything changes, and kept in the record.
 */
#include <string.h>

#include "gnt-config-templates.h"
#include "gnt-error.h"
#include "gnt-install-plan.h"
#include "gnt-install-steps-private.h"
#include "gnt-json.h"

static gboolean
tags_contain(JsonArray *tags, const gchar *tag)
{
	for (guint i = 0; tags != NULL && i < json_array_get_length(tags); i++) {
		JsonNode *node = json_array_get_element(tags, i);

		if (JSON_NODE_HOLDS_VALUE(node) &&
		    json_node_get_value_type(node) == G_TYPE_STRING &&
		    strcmp(json_node_get_string(node), tag) == 0)
			return TRUE;
	}
	return FALSE;
}

GPtrArray *
gnt_install_select_templates_full(JsonObject *record, JsonObject *node,
				  GntInstallTemplateLookup lookup, gpointer user_data,
				  GError **error)
{
	g_autoptr(GPtrArray)
		selected = g_ptr_array_new_with_free_func((GDestroyNotify)json_object_unref);
	JsonArray *tags = gnt_json_peek_array(record, "tags");
	JsonArray *node_tags = gnt_json_peek_array(node, "tags");
	const gchar *node_name = json_object_get_string_member_with_default(node, "name", "?");

	for (guint i = 0; tags != NULL && i < json_array_get_length(tags); i++) {
		JsonNode *tag_node = json_array_get_element(tags, i);
		const gchar *tag;
		JsonObject *template;

		if (!JSON_NODE_HOLDS_VALUE(tag_node) ||
		    json_node_get_value_type(tag_node) != G_TYPE_STRING)
			continue;
		tag = json_node_get_string(tag_node);
		template = lookup(tag, user_data);
		if (template == NULL)
			continue; /* a tag like any other */
		g_ptr_array_add(selected, template);
		if (!tags_contain(node_tags, tag)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "instance tag '%s' selects the install template '%s', which "
				    "node '%s' does not allow: it lacks the tag '%s' (gnt-node "
				    "add-tags %s %s)",
				    tag, tag, node_name, tag, node_name, tag);
			return NULL;
		}
	}
	return g_steal_pointer(&selected);
}

static JsonObject *
config_lookup(const gchar *name, gpointer user_data)
{
	return gnt_config_dup_install_template(user_data, name);
}

static GntInstallTemplateLookup test_lookup;
static gpointer test_lookup_data;

void
gnt_install_set_template_lookup(GntInstallTemplateLookup lookup, gpointer user_data)
{
	test_lookup = lookup;
	test_lookup_data = user_data;
}

GPtrArray *
gnt_install_select_templates(GntConfig *config, JsonObject *record, JsonObject *node,
			     GError **error)
{
	if (test_lookup != NULL)
		return gnt_install_select_templates_full(record, node, test_lookup,
							 test_lookup_data, error);
	return gnt_install_select_templates_full(record, node, config_lookup, config, error);
}

JsonObject *
gnt_install_plan_for(JsonObject *record, JsonObject *node, JsonObject *settings,
		     GntInstallTemplateLookup lookup, gpointer user_data, GError **error)
{
	g_autoptr(GPtrArray) templates =
		gnt_install_select_templates_full(record, node, lookup, user_data, error);
	JsonArray *disks = gnt_json_peek_array(record, "disks");
	guint n_disks = disks != NULL ? json_array_get_length(disks) : 0;
	g_autofree guint64 *disk_mib = g_new0(guint64, n_disks + 1);
	GntInstallPlanTarget target = {
		json_object_get_string_member_with_default(record, "hypervisor", NULL),
		n_disks,
		disk_mib,
	};
	g_autoptr(GntInstallPlan) plan = NULL;

	if (templates == NULL)
		return NULL;
	for (guint i = 0; i < n_disks; i++) {
		JsonNode *disk = json_array_get_element(disks, i);
		gint64 size = JSON_NODE_HOLDS_OBJECT(disk)
				      ? json_object_get_int_member_with_default(
						json_node_get_object(disk), "size", 0)
				      : 0;

		disk_mib[i] = size > 0 ? (guint64)size : 0;
	}
	plan = gnt_install_plan_build((JsonObject *const *)templates->pdata, templates->len,
				      settings, &target, error);
	return plan != NULL ? gnt_install_plan_to_json(plan) : NULL;
}

gboolean
gnt_install_attach_plan(GntConfig *config, JsonObject *record, JsonObject *node, GError **error)
{
	g_autoptr(JsonObject) settings = gnt_config_dup_cluster_info(config);
	JsonObject *install = gnt_json_peek_object(record, "install");
	JsonObject *plan;

	g_return_val_if_fail(install != NULL, FALSE);
	plan = test_lookup != NULL
		       ? gnt_install_plan_for(record, node, settings, test_lookup, test_lookup_data,
					      error)
		       : gnt_install_plan_for(record, node, settings, config_lookup, config, error);
	if (plan == NULL)
		return FALSE;
	json_object_set_object_member(install, "plan", plan);
	return TRUE;
}
