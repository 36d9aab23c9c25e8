/*
 * appliance_catalogue: the in-band steps this node's install appliance can
 * run (doc/appliance.md "The node's catalogue"), as the master asks when a
 * template naming in-band steps is created or changed. It is the catalogue
 * the appliance carries: build-appliance copies appliance/steps.json into
 * the appliance's directory next to its manifest.json; a node without a
 * built appliance (the fake hypervisor) has the one next to the agent it
 * would run. Both are what the agent posts to metad at its first contact.
 */
#include "gnt-noded-catalogue.h"

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-metadata-steps.h"
#include "gnt-noded-appliance.h"

/* The catalogue's path on this node, NULL with GNT_ERROR_NOT_FOUND when
 * there is none. (transfer full) */
static gchar *
dup_catalogue_path(GntRpcNode *node, GError **error)
{
	g_autofree gchar *dir = gnt_rpc_node_dup_appliance_dir(node);
	g_autofree gchar *built = g_build_filename(dir, "steps.json", NULL);
	g_autofree gchar *agent = gnt_rpc_node_dup_appliance_agent(node);
	g_autofree gchar *agent_dir = g_path_get_dirname(agent);
	g_autofree gchar *beside = g_build_filename(agent_dir, "steps.json", NULL);

	if (g_file_test(built, G_FILE_TEST_IS_REGULAR))
		return g_steal_pointer(&built);
	if (g_file_test(beside, G_FILE_TEST_IS_REGULAR))
		return g_steal_pointer(&beside);
	g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND,
		    "no install appliance catalogue on this node: neither '%s' nor '%s' exists "
		    "(build the appliance with build-appliance %s)",
		    built, beside, dir);
	return NULL;
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
	g_autofree gchar *path = dup_catalogue_path(node, error);
	g_autofree gchar *data = NULL;
	g_autoptr(JsonObject) catalogue = NULL;
	g_autoptr(GError) local = NULL;
	g_autofree gchar *manifest_sha256 = NULL;
	JsonObject *out;
	gsize len = 0;

	if (path == NULL)
		return NULL;
	if (!g_file_get_contents(path, &data, &len, &local)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "cannot read the install appliance catalogue: %s", local->message);
		return NULL;
	}
	catalogue = gnt_metadata_catalogue_parse(data, len, error);
	if (catalogue == NULL) {
		g_prefix_error(error, "the install appliance catalogue '%s': ", path);
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
