/*
 * /2/groups and below: rlib2's R_2_groups, R_2_groups_name and its
 * modify, rename and assign-nodes resources (Ganeti 3.0), from
 * QueryGroups and the OP_GROUP_* opcodes (doc/groups.md). Its tags are
 * the shared tags handlers' (gnt-rapi-resources.c).
 */
#include "gnt-rapi-resources-private.h"

/* rlib2.G_FIELDS (with _COMMON_FIELDS) */
static const gchar *const group_fields[] = {
	"alloc_policy", "name",
	"node_cnt",	"node_list",
	"ipolicy",	"custom_ipolicy",
	"diskparams",	"custom_diskparams",
	"ndparams",	"custom_ndparams",
	"ctime",	"mtime",
	"uuid",		"serial_no",
	"tags",		NULL,
};

/* R_2_groups' POST_RENAME */
static const GntRapiRename add_renames[] = {
	{"name", "group_name"},
	{NULL},
};

/* R_2_groups_name_modify's PUT_RENAME */
static const GntRapiRename modify_renames[] = {
	{"custom_ndparams", "ndparams"},
	{"custom_ipolicy", "ipolicy"},
	{"custom_diskparams", "diskparams"},
	{NULL},
};

/* The static parameters: the group the path names (NULL: none), and the
 * query's flags "dry-run" and (with @force) "force". */
static JsonObject *
group_statics(GntRapiRequest *request, const gchar *group, gboolean force, GError **error)
{
	g_autoptr(JsonObject) statics = json_object_new();
	gboolean value = FALSE;

	if (group != NULL)
		json_object_set_string_member(statics, "group_name", group);
	if (!gnt_rapi_request_get_flag(request, "dry-run", &value, error))
		return NULL;
	json_object_set_boolean_member(statics, "dry_run", value);
	if (force) {
		if (!gnt_rapi_request_get_flag(request, "force", &value, error))
			return NULL;
		json_object_set_boolean_member(statics, "force", value);
	}
	return g_steal_pointer(&statics);
}

/* A job of @op_id made of the request's body (@with_body) and statics. */
static JsonNode *
submit_group_opcode(GntRapiRequest *request, const gchar *op_id, const gchar *resource,
		    gboolean with_body, const GntRapiRename *renames, const gchar *group,
		    gboolean force, GError **error)
{
	g_autoptr(JsonObject) statics = group_statics(request, group, force, error);
	JsonObject *body = NULL;

	if (statics == NULL ||
	    (with_body && !gnt_rapi_request_get_body_object(request, FALSE, &body, error)))
		return NULL;
	return gnt_rapi_submit_opcode(request, op_id, resource, body, renames, statics, error);
}

JsonNode *
gnt_rapi_get_groups(GntRapiRequest *request, GError **error)
{
	return gnt_rapi_list_objects(request, "QueryGroups", group_fields, "/2/groups/", "name",
				     NULL, error);
}

JsonNode *
gnt_rapi_post_groups(GntRapiRequest *request, GError **error)
{
	return submit_group_opcode(request, "OP_GROUP_ADD", "groups", TRUE, add_renames, NULL,
				   FALSE, error);
}

JsonNode *
gnt_rapi_get_group(GntRapiRequest *request, GError **error)
{
	return gnt_rapi_get_object(request, "QueryGroups", "Group", group_fields, NULL, error);
}

JsonNode *
gnt_rapi_delete_group(GntRapiRequest *request, GError **error)
{
	return submit_group_opcode(request, "OP_GROUP_REMOVE", "groups_name", FALSE, NULL,
				   request->args[0], FALSE, error);
}

JsonNode *
gnt_rapi_put_group_modify(GntRapiRequest *request, GError **error)
{
	g_autoptr(JsonObject) statics = json_object_new();
	JsonObject *body = NULL;

	/* rlib2 passes no dry-run here */
	json_object_set_string_member(statics, "group_name", request->args[0]);
	if (!gnt_rapi_request_get_body_object(request, FALSE, &body, error))
		return NULL;
	return gnt_rapi_submit_opcode(request, "OP_GROUP_SET_PARAMS", "groups_name_modify", body,
				      modify_renames, statics, error);
}

JsonNode *
gnt_rapi_put_group_rename(GntRapiRequest *request, GError **error)
{
	return submit_group_opcode(request, "OP_GROUP_RENAME", "groups_name_rename", TRUE, NULL,
				   request->args[0], FALSE, error);
}

JsonNode *
gnt_rapi_put_group_assign_nodes(GntRapiRequest *request, GError **error)
{
	return submit_group_opcode(request, "OP_GROUP_ASSIGN_NODES", "groups_name_assign_nodes",
				   TRUE, NULL, request->args[0], TRUE, error);
}
