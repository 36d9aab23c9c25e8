/*
 * noded/gnt-noded-metad.c: noded's metad_push and metad_remove, forwarded
 * to gantry-metad's control socket (doc/metad.md).
 */
#include "gnt-noded-metad.h"

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-metad-client.h"
#include "gnt-metad-server.h"
#include "gnt-metadata.h"
#include "gnt-noded-private.h"
#include "gnt-os-definition.h"
#include "gnt-package.h"

gboolean
gnt_rpc_node_metad_give_package(const gchar *control, const gchar *name, const gchar *url,
				const gchar *username, const gchar *password, GError **error)
{
	g_autoptr(GBytes) tarball = NULL;
	g_autoptr(GBytes) clean = NULL;

	tarball = gnt_package_fetch(url, username, password, GNT_PACKAGE_MAX_BYTES, error);
	if (tarball != NULL)
		clean = gnt_package_sanitize(tarball, error);
	if (clean == NULL || !gnt_metad_client_put_package(control, name, clean, error)) {
		g_prefix_error(error, "personalization package of instance '%s': ", name);
		return FALSE;
	}
	return TRUE;
}

void
gnt_rpc_node_metad_add_os_scripts(JsonObject *record, const gchar *name, gboolean for_appliance)
{
	const gchar *os = NULL;
	JsonArray *dirs = NULL;
	g_autoptr(GPtrArray) search_path = g_ptr_array_new();
	g_autoptr(GntOsDefinition) definition = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *untrusted = NULL;
	JsonObject *scripts = NULL;

	if (json_object_has_member(record, "os_scripts") ||
	    !json_object_has_member(record, "os_search_path") ||
	    !gnt_json_get_string(record, "os", &os, NULL) ||
	    !gnt_json_get_array(record, "os_search_path", &dirs, NULL))
		return;
	for (guint i = 0; i < json_array_get_length(dirs); i++) {
		const gchar *dir = NULL;

		if (gnt_json_node_get_string(json_array_get_element(dirs, i), "os_search_path",
					     &dir, NULL))
			g_ptr_array_add(search_path, (gpointer)dir);
	}
	g_ptr_array_add(search_path, NULL);
	definition = gnt_os_definition_find((const gchar *const *)search_path->pdata, os, &error);
	if (definition == NULL) {
		g_message("metad: instance '%s' gets no OS scripts: %s", name, error->message);
		return;
	}
	scripts = json_object_new();
	for (guint s = 0; s < GNT_OS_SCRIPT_LAST; s++) {
		g_autofree gchar *text = NULL;

		if (definition->scripts[s] == NULL ||
		    !g_file_get_contents(definition->scripts[s], &text, NULL, NULL) ||
		    !g_utf8_validate(text, -1, NULL))
			continue;
		json_object_set_string_member(scripts, gnt_os_script_to_string(s), text);
	}
	/* the appliance runs the untrusted create script where there is one */
	untrusted = for_appliance ? gnt_os_definition_get_untrusted_create(definition) : NULL;
	if (untrusted != NULL) {
		g_autofree gchar *text = NULL;

		if (g_file_get_contents(untrusted, &text, NULL, NULL) &&
		    g_utf8_validate(text, -1, NULL))
			json_object_set_string_member(scripts, "create", text);
		else
			json_object_remove_member(scripts, "create");
	}
	json_object_set_object_member(record, "os_scripts", scripts);
}

static JsonNode *
metad_push_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	GntRpcNode *node = user_data;
	const gchar *name = gnt_rpc_args_get_string(args, "name");
	JsonObject *record = gnt_rpc_args_get_object(args, "record");
	g_autofree gchar *control = gnt_metad_dup_control_socket(node->paths);
	gboolean ok = FALSE;

	if (!gnt_rpc_node_check_name(name, "instance", error))
		return NULL;
	gnt_rpc_node_metad_add_os_scripts(record, name, FALSE);
	ok = gnt_metad_client_push(control, name, record, error);
	gnt_metadata_wipe_secrets(record);
	if (!ok)
		return NULL;
	return gnt_json_node_new_null();
}

static JsonNode *
metad_remove_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	GntRpcNode *node = user_data;
	const gchar *name = gnt_rpc_args_get_string(args, "name");
	g_autofree gchar *control = gnt_metad_dup_control_socket(node->paths);
	g_autoptr(GError) local_error = NULL;

	if (!gnt_rpc_node_check_name(name, "instance", error))
		return NULL;
	if (!gnt_metad_client_remove(control, name, &local_error) &&
	    !g_error_matches(local_error, GNT_ERROR, GNT_ERROR_NOT_FOUND)) {
		g_propagate_error(error, g_steal_pointer(&local_error));
		return NULL;
	}
	return gnt_json_node_new_null();
}

const GntRpcProcedure gnt_rpc_node_metad_procedures[] = {
	{"metad_push", metad_push_procedure},
	{"metad_remove", metad_remove_procedure},
	{NULL},
};
