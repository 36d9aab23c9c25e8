/*
 * Gantry's /2/install-steps and /2/install-steps/{name}: the install steps
 * install templates may use (install/gnt-install-registry.c, linked in:
 * no LUXI call), as `gnt-os list-steps` shows them. GET only, for anyone,
 * as /2/os. See doc/rapi.md.
 */
#include "gnt-rapi-resources-private.h"

#include "gnt-error.h"
#include "gnt-install-registry.h"
#include "gnt-json.h"

/* [{"name", "uri"}], or with ?bulk=1 every step's whole entry. */
JsonNode *
gnt_rapi_get_install_steps(GntRapiRequest *request, GError **error)
{
	g_autoptr(JsonArray) steps = gnt_install_steps_list();
	g_autoptr(JsonArray) rows = NULL;
	gboolean bulk = FALSE;

	if (!gnt_rapi_request_get_flag(request, "bulk", &bulk, error))
		return NULL;
	if (bulk)
		return gnt_json_node_new_array(g_steal_pointer(&steps));
	rows = json_array_new();
	for (guint i = 0; i < json_array_get_length(steps); i++) {
		JsonArray *row = json_array_new();

		json_array_add_string_element(
			row, json_object_get_string_member(json_array_get_object_element(steps, i),
							   "name"));
		json_array_add_array_element(rows, row);
	}
	return gnt_rapi_uri_list(rows, "/2/install-steps/", "name");
}

JsonNode *
gnt_rapi_get_install_step(GntRapiRequest *request, GError **error)
{
	g_autoptr(JsonArray) steps = gnt_install_steps_list();
	const gchar *name = request->args[0];

	for (guint i = 0; i < json_array_get_length(steps); i++) {
		JsonObject *step = json_array_get_object_element(steps, i);

		if (g_strcmp0(json_object_get_string_member(step, "name"), name) == 0)
			return gnt_json_node_new_object(json_object_ref(step));
	}
	g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND,
		    "install step '%s' does not exist (GET /2/install-steps lists them)", name);
	return NULL;
}
