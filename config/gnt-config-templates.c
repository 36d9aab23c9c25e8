/*
 * Install templates in config.db: the record, the lookups the install
 * plan and the units use, and the fields of the "installtemplate" query
 * resource. doc/templates.md.
 */
#include "gnt-config-templates.h"

#include "gnt-error.h"
#include "gnt-json.h"

JsonObject *
gnt_install_template_record_new(const gchar *name, JsonArray *steps, const gchar *description)
{
	JsonObject *record = json_object_new();
	JsonArray *copy = json_array_new();

	for (guint i = 0; steps != NULL && i < json_array_get_length(steps); i++)
		json_array_add_element(copy,
				       gnt_json_node_deep_copy(json_array_get_element(steps, i)));
	json_object_set_string_member(record, "name", name);
	json_object_set_array_member(record, "steps", copy);
	json_object_set_string_member(record, "description",
				      description != NULL ? description : "");
	return record;
}

JsonObject *
gnt_config_lookup_install_template(GntConfig *config, const gchar *name, GError **error)
{
	g_autoptr(GError) local = NULL;
	JsonObject *record;

	g_return_val_if_fail(GNT_IS_CONFIG(config) && name != NULL, NULL);

	/* exact names only: the kind has no short names (gnt-config.h) */
	record = gnt_config_dup_object(config, GNT_OBJECT_INSTALL_TEMPLATE, name, &local);
	if (record == NULL)
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND,
			    "Install template '%s' not found", name);
	return record;
}

JsonObject *
gnt_config_dup_install_template(GntConfig *config, const gchar *name)
{
	return gnt_config_lookup_install_template(config, name, NULL);
}

/* ---- the shipped templates ---- */

/* data/install-templates/shipped.json (config/meson.build embeds it) */
extern const char gnt_install_templates_shipped_json[];
extern const unsigned long gnt_install_templates_shipped_json_len;

JsonArray *
gnt_install_templates_shipped(void)
{
	g_autoptr(JsonNode)
		root = gnt_json_parse(gnt_install_templates_shipped_json,
				      (gssize)gnt_install_templates_shipped_json_len, NULL);

	/* ours, checked by tests/config/test-templates.c */
	g_assert(root != NULL && JSON_NODE_HOLDS_ARRAY(root));
	return json_array_ref(json_node_get_array(root));
}

gboolean
gnt_install_template_is_shipped(JsonObject *record)
{
	JsonNode *node = record != NULL ? json_object_get_member(record, "shipped") : NULL;

	return node != NULL && JSON_NODE_HOLDS_VALUE(node) &&
	       json_node_get_value_type(node) == G_TYPE_BOOLEAN && json_node_get_boolean(node);
}

gboolean
gnt_config_ensure_shipped_templates(GntConfig *config, GError **error)
{
	g_autoptr(JsonArray) shipped = gnt_install_templates_shipped();

	for (guint i = 0; i < json_array_get_length(shipped); i++) {
		JsonObject *template = json_array_get_object_element(shipped, i);
		const gchar *name = json_object_get_string_member(template, "name");
		JsonArray *steps = json_object_get_array_member(template, "steps");
		const gchar *description = json_object_get_string_member(template, "description");
		g_autoptr(JsonObject) stored = gnt_config_dup_install_template(config, name);
		g_autoptr(JsonObject) fresh = NULL;

		if (stored != NULL &&
		    (!gnt_install_template_is_shipped(stored) ||
		     (json_node_equal(json_object_get_member(stored, "steps"),
				      json_object_get_member(template, "steps")) &&
		      g_strcmp0(json_object_get_string_member(stored, "description"),
				description) == 0)))
			continue; /* the operator's own, or as shipped */
		fresh = gnt_install_template_record_new(name, steps, description);
		json_object_set_boolean_member(fresh, "shipped", TRUE);
		if (stored != NULL) {
			json_object_set_string_member(
				fresh, "uuid", json_object_get_string_member(stored, "uuid"));
			if (!gnt_config_update_object(config, GNT_OBJECT_INSTALL_TEMPLATE, fresh,
						      error))
				return FALSE;
		} else if (!gnt_config_add_object(config, GNT_OBJECT_INSTALL_TEMPLATE, fresh,
						  error)) {
			return FALSE;
		}
	}
	return TRUE;
}

/* ---- query fields ---- */

/* Member field->key of the record as stored; RS_UNAVAIL when absent. */
static JsonNode *
get_member(const GntQueryField *field, gconstpointer item, gpointer user_data,
	   GntQueryStatus *status)
{
	JsonObject *record = gnt_config_query_item_json(item);

	if (!json_object_has_member(record, field->key)) {
		*status = GNT_QUERY_STATUS_UNAVAIL;
		return NULL;
	}
	return gnt_json_node_deep_copy(json_object_get_member(record, field->key));
}

static JsonNode *
get_step_cnt(gconstpointer item, gpointer user_data, GntQueryStatus *status)
{
	JsonArray *steps = gnt_json_peek_array(gnt_config_query_item_json(item), "steps");

	return gnt_json_node_new_int(steps != NULL ? json_array_get_length(steps) : 0);
}

#define MEMBER(name, title, kind, doc)                                                             \
	{                                                                                          \
		name, title, GNT_QUERY_KIND_##kind, GNT_QUERY_FLAG_NONE, doc, NULL, NULL,          \
			get_member, name, 0                                                        \
	}

/* in natural name order, as every resource lists its fields */
static const GntQueryField fields[] = {
	MEMBER("ctime", "CTime", TIMESTAMP, "Creation timestamp"),
	MEMBER("description", "Description", TEXT, "What the template is for"),
	MEMBER("mtime", "MTime", TIMESTAMP, "Modification timestamp"),
	MEMBER("name", "Template", TEXT,
	       "Template name: the instance tag that selects it (and that the primary node"
	       " must carry)"),
	MEMBER("serial_no", "SerialNo", NUMBER,
	       "Install template object serial number, incremented on each modification"),
	{"step_cnt", "Steps", GNT_QUERY_KIND_NUMBER, GNT_QUERY_FLAG_NONE, "Number of steps",
	 get_step_cnt},
	MEMBER("steps", "StepList", OTHER,
	       "The steps: a list of {interface, step, args, priority}"),
	MEMBER("uuid", "UUID", TEXT, "Install template UUID"),
	{NULL},
};
#undef MEMBER

const GntQueryField *
gnt_install_template_query_fields(void)
{
	return fields;
}
