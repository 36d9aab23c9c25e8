/*
 * /2/images and /2/images/NAME: Gantry's image catalog (doc/images.md),
 * in the manner of rlib2's group resources: a bulk list from QueryImages,
 * POST to add (OP_IMAGE_ADD, "name" renamed "image_name"), PUT to change
 * (OP_IMAGE_SET_PARAMS with the body's keys) and DELETE to remove
 * (OP_IMAGE_REMOVE); "dry-run" as everywhere.
 */
#include "gnt-rapi-resources-private.h"

/* what bulk=1 and GET /2/images/NAME show */
static const gchar *const image_fields[] = {
	"name",
	"uuid",
	"url",
	"format",
	"sha256",
	"size",
	"os_distro",
	"os_version",
	"installer_kernel",
	"installer_initrd",
	"installer_stage2",
	"ks_template",
	"installer_memory",
	"installer_kernel_args",
	"serial_no",
	"ctime",
	"mtime",
	NULL,
};

static const GntRapiRename add_renames[] = {
	{"name", "image_name"},
	{NULL},
};

/* A job of @op_id: the body (@with_body), the image the path names (NULL:
 * none) and the query's "dry-run". */
static JsonNode *
submit_image_opcode(GntRapiRequest *request, const gchar *op_id, const gchar *resource,
		    gboolean with_body, const GntRapiRename *renames, const gchar *image,
		    GError **error)
{
	g_autoptr(JsonObject) statics = json_object_new();
	JsonObject *body = NULL;
	gboolean dry_run = FALSE;

	if (!gnt_rapi_request_get_flag(request, "dry-run", &dry_run, error) ||
	    (with_body && !gnt_rapi_request_get_body_object(request, FALSE, &body, error)))
		return NULL;
	json_object_set_boolean_member(statics, "dry_run", dry_run);
	if (image != NULL)
		json_object_set_string_member(statics, "image_name", image);
	return gnt_rapi_submit_opcode(request, op_id, resource, body, renames, statics, error);
}

JsonNode *
gnt_rapi_get_images(GntRapiRequest *request, GError **error)
{
	return gnt_rapi_list_objects(request, "QueryImages", image_fields, "/2/images/", "name",
				     NULL, error);
}

JsonNode *
gnt_rapi_post_images(GntRapiRequest *request, GError **error)
{
	return submit_image_opcode(request, "OP_IMAGE_ADD", "images", TRUE, add_renames, NULL,
				   error);
}

JsonNode *
gnt_rapi_get_image(GntRapiRequest *request, GError **error)
{
	return gnt_rapi_get_object(request, "QueryImages", "Image", image_fields, NULL, error);
}

JsonNode *
gnt_rapi_put_image(GntRapiRequest *request, GError **error)
{
	return submit_image_opcode(request, "OP_IMAGE_SET_PARAMS", "images_name", TRUE, NULL,
				   request->args[0], error);
}

JsonNode *
gnt_rapi_delete_image(GntRapiRequest *request, GError **error)
{
	return submit_image_opcode(request, "OP_IMAGE_REMOVE", "images_name", FALSE, NULL,
				   request->args[0], error);
}
