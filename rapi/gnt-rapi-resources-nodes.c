/*
 * /2/nodes and /2/nodes/{name}: rlib2's R_2_nodes and R_2_nodes_name
 * (Ganeti 3.0), from QueryNodes. Its tags are the shared tags handlers'
 * (gnt-rapi-resources.c).
 */
#include "gnt-rapi-resources-private.h"

#include "gnt-error.h"
#include "gnt-json.h"

/* rlib2.N_FIELDS */
static const gchar *const node_fields[] = {
	"name",
	"offline",
	"master_candidate",
	"drained",
	"dtotal",
	"dfree",
	"sptotal",
	"spfree",
	"mtotal",
	"mnode",
	"mfree",
	"pinst_cnt",
	"sinst_cnt",
	"ctotal",
	"cnos",
	"cnodes",
	"csockets",
	"pip",
	"sip",
	"role",
	"pinst_list",
	"sinst_list",
	"master_capable",
	"vm_capable",
	"ndparams",
	"group.uuid",
	"ctime",
	"mtime",
	"uuid",
	"serial_no",
	"tags",
	NULL,
};

/* rlib2's GET_ALIASES of R_2_nodes_name: "secondary_ip" is "sip". */
static void
add_secondary_ip(JsonObject *node)
{
	JsonNode *sip = json_object_get_member(node, "sip");

	if (sip != NULL && !json_object_has_member(node, "secondary_ip"))
		json_object_set_member(node, "secondary_ip", json_node_ref(sip));
}

JsonNode *
gnt_rapi_get_nodes(GntRapiRequest *request, GError **error)
{
	return gnt_rapi_list_objects(request, "QueryNodes", node_fields, "/2/nodes/", "id",
				     add_secondary_ip, error);
}

JsonNode *
gnt_rapi_get_node(GntRapiRequest *request, GError **error)
{
	return gnt_rapi_get_object(request, "QueryNodes", "Node", node_fields, add_secondary_ip,
				   error);
}
