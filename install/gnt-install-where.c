/*
 * Where an install runs the OS's create script: the decision of
 * doc/install.md ("Trusted and untrusted OS scripts"), and its refusals.
 */
#include "gnt-install-where.h"

#include "gnt-error.h"

const gchar *
gnt_install_where_to_string(GntInstallWhere where)
{
	switch (where) {
	case GNT_INSTALL_ON_HOST:
		return "host";
	case GNT_INSTALL_IN_APPLIANCE:
		return "appliance";
	default:
		g_return_val_if_reached(NULL);
	}
}

gboolean
gnt_install_choose_where(const GntOsDefinition *os, const gchar *os_name, gboolean os_trusted,
			 gboolean safe_install, GntInstallWhere *where, gchar **create_script,
			 GError **error)
{
	g_autofree gchar *name = NULL;

	g_return_val_if_fail(os != NULL, FALSE);
	g_return_val_if_fail(where != NULL && create_script != NULL, FALSE);

	gnt_os_split_name(os_name != NULL ? os_name : os->name, &name, NULL);
	if (!safe_install && !os_trusted) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "OS '%s' is not trusted: it can only be installed inside the install "
			    "appliance; mark it trusted with 'gnt-os modify --trusted yes %s' or "
			    "leave safe install on",
			    name, name);
		return FALSE;
	}
	if (!safe_install && !os->has_create) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "OS '%s' has only an untrusted create script ('%s'): it can only be "
			    "installed inside the install appliance; leave safe install on",
			    name, os->untrusted_create != NULL ? os->untrusted_create : "none");
		return FALSE;
	}
	if (!safe_install) {
		*where = GNT_INSTALL_ON_HOST;
		*create_script = g_build_filename(os->path, "create", NULL);
		return TRUE;
	}
	*where = GNT_INSTALL_IN_APPLIANCE;
	*create_script = os->untrusted_create != NULL ? gnt_os_definition_get_untrusted_create(os)
						      : g_build_filename(os->path, "create", NULL);
	return TRUE;
}

gboolean
gnt_install_os_is_trusted(JsonArray *trusted_os, const gchar *os_name)
{
	g_autofree gchar *name = NULL;

	if (trusted_os == NULL || os_name == NULL)
		return FALSE;
	gnt_os_split_name(os_name, &name, NULL);
	for (guint i = 0; i < json_array_get_length(trusted_os); i++) {
		JsonNode *elem = json_array_get_element(trusted_os, i);

		if (JSON_NODE_HOLDS_VALUE(elem) &&
		    json_node_get_value_type(elem) == G_TYPE_STRING &&
		    g_strcmp0(json_node_get_string(elem), name) == 0)
			return TRUE;
	}
	return FALSE;
}

gboolean
gnt_install_safe_install_enabled(JsonNode *op_value, JsonObject *cluster_info)
{
	JsonNode *cluster;

	if (op_value != NULL && JSON_NODE_HOLDS_VALUE(op_value) &&
	    json_node_get_value_type(op_value) == G_TYPE_BOOLEAN)
		return json_node_get_boolean(op_value);
	cluster = cluster_info != NULL ? json_object_get_member(cluster_info, "enable_safe_install")
				       : NULL;
	if (cluster != NULL && JSON_NODE_HOLDS_VALUE(cluster) &&
	    json_node_get_value_type(cluster) == G_TYPE_BOOLEAN)
		return json_node_get_boolean(cluster);
	return TRUE;
}
