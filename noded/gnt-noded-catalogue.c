/*
 * appliance_catalogue: the in-band steps this node's install appliance can
 * run (doc/appliance.md "The node's catalogue"), as the master asks when a
 * template naming in-band steps is created or changed. It is the catalogue
 * the appliance carries: build-appliance puts appliance/steps.json into
 * appliance.img for the agent and into manifest.json ("steps") for the
 * node; a node without a built appliance (the fake hypervisor) has the
 * steps.json next to the agent it would run. Either is what the agent
 * posts to metad at its first contact.
 */
#include "gnt-noded-catalogue.h"

#include <string.h>

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-metadata-steps.h"
#include "gnt-noded-appliance.h"

/* The catalogue's text in the built appliance's @manifest (its "steps"),
 * NULL with GNT_ERROR_NOT_FOUND when it holds none. (transfer full) */
static gchar *
dup_manifest_catalogue(const gchar *manifest, const gchar *data, gsize len, GError **error)
{
	g_autoptr(JsonNode) root = gnt_json_parse(data, (gssize)len, error);
	JsonNode *steps;

	if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the install appliance's manifest '%s' is not a JSON object", manifest);
		return NULL;
	}
	steps = json_object_get_member(json_node_get_object(root), "steps");
	if (steps == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND,
			    "the install appliance's manifest '%s' holds no catalogue of steps "
			    "(built before in-band steps: build it again with build-appliance)",
			    manifest);
		return NULL;
	}
	return gnt_json_to_string(steps);
}

/* The catalogue's text on this node and where it was read (*@path), NULL
 * with GNT_ERROR_NOT_FOUND when there is none. (transfer full) */
static gchar *
dup_catalogue_text(GntRpcNode *node, gchar **path, gsize *len, GError **error)
{
	g_autofree gchar *dir = gnt_rpc_node_dup_appliance_dir(node);
	g_autofree gchar *manifest = g_build_filename(dir, "manifest.json", NULL);
	g_autofree gchar *agent = gnt_rpc_node_dup_appliance_agent(node);
	g_autofree gchar *agent_dir = g_path_get_dirname(agent);
	g_autofree gchar *beside = g_build_filename(agent_dir, "steps.json", NULL);
	g_autofree gchar *data = NULL;
	g_autoptr(GError) local = NULL;
	gchar *text;

	if (g_file_get_contents(manifest, &data, len, NULL)) {
		text = dup_manifest_catalogue(manifest, data, *len, error);
		if (text == NULL)
			return NULL;
		*len = strlen(text);
		*path = g_steal_pointer(&manifest);
		return text;
	}
	if (!g_file_test(beside, G_FILE_TEST_IS_REGULAR)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND,
			    "no install appliance catalogue on this node: neither '%s' nor '%s' "
			    "exists (build the appliance with build-appliance %s)",
			    manifest, beside, dir);
		return NULL;
	}
	if (!g_file_get_contents(beside, &text, len, &local)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "cannot read the install appliance catalogue: %s", local->message);
		return NULL;
	}
	*path = g_steal_pointer(&beside);
	return text;
}

/* The SHA-256 of the built appliance's manifest.json, NULL when there is
 * none. (transfer full) */
static gchar *
dup_manifest_sha256(GntRpcNode *node)
{
	g_autofree gchar *dir = gnt_rpc_node_dup_appliance_dir(node);
	g_autofree gchar *manifest = g_build_filename(dir, "manifest.json", NULL);
	g_autofree gchar *data = NULL;
	gsize len = 0;

	if (!g_file_get_contents(manifest, &data, &len, NULL))
		return NULL;
	return g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)data, len);
}

static JsonNode *
appliance_catalogue_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	GntRpcNode *node = user_data;
	g_autofree gchar *path = NULL;
	g_autofree gchar *manifest_sha256 = NULL;
	g_autoptr(JsonObject) catalogue = NULL;
	gsize len = 0;
	g_autofree gchar *text = dup_catalogue_text(node, &path, &len, error);
	JsonObject *out;

	if (text == NULL)
		return NULL;
	catalogue = gnt_metadata_catalogue_parse(text, len, error);
	if (catalogue == NULL) {
		g_prefix_error(error, "the install appliance catalogue in '%s': ", path);
		return NULL;
	}
	out = json_object_new();
	json_object_set_object_member(out, "catalogue", g_steal_pointer(&catalogue));
	json_object_set_string_member(out, "path", path);
	manifest_sha256 = dup_manifest_sha256(node);
	json_object_set_member(out, "manifest_sha256", gnt_json_node_new_string(manifest_sha256));
	return gnt_json_node_new_object(out);
}

const GntRpcProcedure gnt_rpc_node_catalogue_procedures[] = {
	{"appliance_catalogue", appliance_catalogue_procedure},
	{NULL},
};
