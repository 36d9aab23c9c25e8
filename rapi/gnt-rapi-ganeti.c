/*
 * Ganeti's RAPI v2 resources, all of them (lib/rapi/connector.py's map
 * and the methods of each rlib2 class, Ganeti 3.0), and the route table
 * gantry-rapi serves: Gantry's handlers first, then every path and method
 * of Ganeti's that has no handler, which the server answers with 501
 * naming the resource. A handler added to the routes of
 * gnt-rapi-resources.c removes its 501 by itself: nothing here changes.
 */
#include "gnt-rapi-ganeti.h"

typedef struct {
	const gchar *pattern;
	const gchar *resource; /* rlib2's class */
	const gchar *methods;  /* "GET|PUT" */
} GanetiResource;

/* clang-format off */
static const GanetiResource ganeti_resources[] = {
	{"/", "R_root", "GET"},
	{"/2", "R_2", "GET"},
	{"/version", "R_version", "GET"},
	{"/2/info", "R_2_info", "GET"},
	{"/2/features", "R_2_features", "GET"},
	{"/2/os", "R_2_os", "GET"},
	{"/2/redistribute-config", "R_2_redist_config", "PUT"},
	{"/2/modify", "R_2_cluster_modify", "PUT"},
	{"/2/tags", "R_2_tags", "GET|PUT|DELETE"},
	{"/2/filters", "R_2_filters", "GET|POST"},
	{"/2/filters/{uuid}", "R_2_filters_uuid", "GET|PUT|DELETE"},

	{"/2/jobs", "R_2_jobs", "GET"},
	{"/2/jobs/{id}", "R_2_jobs_id", "GET|DELETE"},
	{"/2/jobs/{id}/wait", "R_2_jobs_id_wait", "GET"},

	{"/2/nodes", "R_2_nodes", "GET"},
	{"/2/nodes/{name}", "R_2_nodes_name", "GET"},
	{"/2/nodes/{name}/powercycle", "R_2_nodes_name_powercycle", "POST"},
	{"/2/nodes/{name}/role", "R_2_nodes_name_role", "GET|PUT"},
	{"/2/nodes/{name}/evacuate", "R_2_nodes_name_evacuate", "POST"},
	{"/2/nodes/{name}/migrate", "R_2_nodes_name_migrate", "POST"},
	{"/2/nodes/{name}/modify", "R_2_nodes_name_modify", "POST"},
	{"/2/nodes/{name}/storage", "R_2_nodes_name_storage", "GET"},
	{"/2/nodes/{name}/storage/modify", "R_2_nodes_name_storage_modify", "PUT"},
	{"/2/nodes/{name}/storage/repair", "R_2_nodes_name_storage_repair", "PUT"},
	{"/2/nodes/{name}/tags", "R_2_nodes_name_tags", "GET|PUT|DELETE"},

	{"/2/instances", "R_2_instances", "GET|POST"},
	{"/2/instances-multi-alloc", "R_2_instances_multi_alloc", "POST"},
	{"/2/instances/{name}", "R_2_instances_name", "GET|DELETE"},
	{"/2/instances/{name}/info", "R_2_instances_name_info", "GET"},
	{"/2/instances/{name}/tags", "R_2_instances_name_tags", "GET|PUT|DELETE"},
	{"/2/instances/{name}/reboot", "R_2_instances_name_reboot", "POST"},
	{"/2/instances/{name}/reinstall", "R_2_instances_name_reinstall", "POST"},
	{"/2/instances/{name}/replace-disks", "R_2_instances_name_replace_disks", "POST"},
	{"/2/instances/{name}/shutdown", "R_2_instances_name_shutdown", "PUT"},
	{"/2/instances/{name}/startup", "R_2_instances_name_startup", "PUT"},
	{"/2/instances/{name}/activate-disks", "R_2_instances_name_activate_disks", "PUT"},
	{"/2/instances/{name}/deactivate-disks", "R_2_instances_name_deactivate_disks", "PUT"},
	{"/2/instances/{name}/recreate-disks", "R_2_instances_name_recreate_disks", "POST"},
	{"/2/instances/{name}/prepare-export", "R_2_instances_name_prepare_export", "PUT"},
	{"/2/instances/{name}/export", "R_2_instances_name_export", "PUT|DELETE"},
	{"/2/instances/{name}/migrate", "R_2_instances_name_migrate", "PUT"},
	{"/2/instances/{name}/failover", "R_2_instances_name_failover", "PUT"},
	{"/2/instances/{name}/rename", "R_2_instances_name_rename", "PUT"},
	{"/2/instances/{name}/modify", "R_2_instances_name_modify", "PUT"},
	{"/2/instances/{name}/disk/{index}/grow", "R_2_instances_name_disk_grow", "POST"},
	{"/2/instances/{name}/console", "R_2_instances_name_console", "GET"},

	{"/2/groups", "R_2_groups", "GET|POST"},
	{"/2/groups/{name}", "R_2_groups_name", "GET|DELETE"},
	{"/2/groups/{name}/modify", "R_2_groups_name_modify", "PUT"},
	{"/2/groups/{name}/rename", "R_2_groups_name_rename", "PUT"},
	{"/2/groups/{name}/assign-nodes", "R_2_groups_name_assign_nodes", "PUT"},
	{"/2/groups/{name}/tags", "R_2_groups_name_tags", "GET|PUT|DELETE"},

	{"/2/networks", "R_2_networks", "GET|POST"},
	{"/2/networks/{name}", "R_2_networks_name", "GET|DELETE"},
	{"/2/networks/{name}/connect", "R_2_networks_name_connect", "PUT"},
	{"/2/networks/{name}/disconnect", "R_2_networks_name_disconnect", "PUT"},
	{"/2/networks/{name}/rename", "R_2_networks_name_rename", "PUT"},
	{"/2/networks/{name}/modify", "R_2_networks_name_modify", "PUT"},
	{"/2/networks/{name}/tags", "R_2_networks_name_tags", "GET|PUT|DELETE"},

	{"/2/query/{resource}", "R_2_query", "GET|PUT"},
	{"/2/query/{resource}/fields", "R_2_query_fields", "GET"},
};
/* clang-format on */

static gboolean
has_route(const GntRapiRoute *routes, const gchar *pattern, const gchar *method)
{
	for (guint i = 0; routes[i].pattern != NULL; i++) {
		if (g_str_equal(routes[i].pattern, pattern) &&
		    g_str_equal(routes[i].method, method))
			return TRUE;
	}
	return FALSE;
}

const gchar *
gnt_rapi_ganeti_resource(const gchar *pattern)
{
	g_return_val_if_fail(pattern != NULL, NULL);

	for (guint i = 0; i < G_N_ELEMENTS(ganeti_resources); i++) {
		if (g_str_equal(ganeti_resources[i].pattern, pattern))
			return ganeti_resources[i].resource;
	}
	return NULL;
}

gboolean
gnt_rapi_ganeti_has(const gchar *pattern, const gchar *method)
{
	g_return_val_if_fail(pattern != NULL && method != NULL, FALSE);

	for (guint i = 0; i < G_N_ELEMENTS(ganeti_resources); i++) {
		g_auto(GStrv) methods = NULL;

		if (!g_str_equal(ganeti_resources[i].pattern, pattern))
			continue;
		methods = g_strsplit(ganeti_resources[i].methods, "|", -1);
		return g_strv_contains((const gchar *const *)methods, method);
	}
	return FALSE;
}

GntRapiRoute *
gnt_rapi_ganeti_routes_new(const GntRapiRoute *gantry)
{
	g_autoptr(GArray) all = g_array_new(TRUE, TRUE, sizeof(GntRapiRoute));

	g_return_val_if_fail(gantry != NULL, NULL);

	for (guint i = 0; gantry[i].pattern != NULL; i++)
		g_array_append_val(all, gantry[i]);
	for (guint i = 0; i < G_N_ELEMENTS(ganeti_resources); i++) {
		g_auto(GStrv) methods = g_strsplit(ganeti_resources[i].methods, "|", -1);

		for (guint j = 0; methods[j] != NULL; j++) {
			GntRapiRoute missing = {
				.pattern = ganeti_resources[i].pattern,
				/* the strings of the table are static; the split ones are
				 * interned so that the route may keep them */
				.method = g_intern_string(methods[j]),
				.access = GNT_RAPI_ACCESS_NONE,
				.handler = NULL,
				.resource = ganeti_resources[i].resource,
			};

			if (!has_route(gantry, missing.pattern, missing.method))
				g_array_append_val(all, missing);
		}
	}
	return (GntRapiRoute *)g_array_free(g_steal_pointer(&all), FALSE);
}
