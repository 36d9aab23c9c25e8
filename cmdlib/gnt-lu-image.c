/*
 * The image catalog's units (doc/images.md): add, set-params (a change of
 * the image or its properties, or properties removed) and remove (refused
 * while an instance's install parameters name the image); and what the
 * create and reinstall units ask of the catalog for `--os-image NAME`.
 */
#include "gnt-lu-image.h"

#include "gnt-config-images.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-lu-instance-spec.h"

static const gchar *
op_image_name(GntLu *lu)
{
	return gnt_opcode_get_string(gnt_lu_get_opcode(lu), "image_name");
}

/* The image the opcode names. (transfer full) */
static JsonObject *
dup_op_image(GntLu *lu, GError **error)
{
	JsonObject *image = gnt_config_dup_image(lu_config(lu), op_image_name(lu));

	if (image == NULL)
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND, "image '%s' does not exist",
			    op_image_name(lu));
	return image;
}

/* The value of @field the opcode gives, or NULL. */
static JsonNode *
op_value(GntLu *lu, const GntImageField *field)
{
	JsonNode *value = gnt_opcode_get_param(gnt_lu_get_opcode(lu), field->key);

	return value != NULL && !JSON_NODE_HOLDS_NULL(value) ? value : NULL;
}

/* Sets the values the opcode gives on @image (a property under
 * "properties"); with @changes, Ganeti's [key, value] pair for each. */
static void
apply_op_values(GntLu *lu, JsonObject *image, JsonArray *changes)
{
	JsonObject *properties = gnt_json_peek_object(image, "properties");

	for (guint i = 0; gnt_image_fields[i].key != NULL; i++) {
		const GntImageField *field = &gnt_image_fields[i];
		JsonNode *value = op_value(lu, field);
		JsonNode *stored;
		JsonArray *pair;

		if (value == NULL)
			continue;
		stored = gnt_json_node_deep_copy(value);
		/* one spelling of a checksum: the one the writer compares */
		if (g_strcmp0(field->key, "sha256") == 0) {
			g_autofree gchar *lower = g_ascii_strdown(json_node_get_string(value), -1);

			json_node_set_string(stored, lower);
		}
		json_object_set_member(field->property ? properties : image, field->key, stored);
		if (changes == NULL)
			continue;
		pair = json_array_new();
		json_array_add_string_element(pair, field->key);
		json_array_add_element(pair, gnt_json_node_deep_copy(stored));
		json_array_add_array_element(changes, pair);
	}
}

/* ---- OP_IMAGE_ADD ---- */

static gboolean
add_check_prereq(GntLu *lu, GError **error)
{
	g_autoptr(JsonObject) existing = gnt_config_dup_image(lu_config(lu), op_image_name(lu));
	g_autoptr(JsonObject) image = json_object_new();

	if (existing != NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_EXISTS, "image '%s' already exists",
			    op_image_name(lu));
		return FALSE;
	}
	json_object_set_string_member(image, "name", op_image_name(lu));
	json_object_set_null_member(image, "size");
	json_object_set_object_member(image, "properties", json_object_new());
	apply_op_values(lu, image, NULL);
	if (!gnt_image_record_check(image, error))
		return FALSE;
	gnt_lu_set_data(lu, g_steal_pointer(&image), (GDestroyNotify)json_object_unref);
	return TRUE;
}

static JsonNode *
add_exec(GntLu *lu, GError **error)
{
	JsonObject *image = gnt_lu_get_data(lu);

	gnt_lu_feedback(lu, "Adding image %s", op_image_name(lu));
	if (!gnt_config_add_object(lu_config(lu), GNT_OBJECT_IMAGE, image, error))
		return NULL;
	return gnt_json_node_new_null();
}

const GntLuClass gnt_lu_image_add = {
	.check_prereq = add_check_prereq,
	.exec = add_exec,
};

/* ---- OP_IMAGE_SET_PARAMS ---- */

static gboolean
set_params_check_args(GntLu *lu, GError **error)
{
	JsonNode *removals = gnt_opcode_get_param(gnt_lu_get_opcode(lu), "remove_properties");
	JsonArray *names = json_node_get_array(removals);
	gboolean given = json_array_get_length(names) > 0;

	for (guint i = 0; i < json_array_get_length(names); i++) {
		const gchar *key = json_array_get_string_element(names, i);
		const GntImageField *field = gnt_image_field_lookup(key);

		if (field == NULL || !field->property) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "cannot remove '%s': it is not an image property", key);
			return FALSE;
		}
		if (op_value(lu, field) != NULL) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "property '%s' is both set and removed", key);
			return FALSE;
		}
	}
	for (guint i = 0; gnt_image_fields[i].key != NULL; i++)
		given |= op_value(lu, &gnt_image_fields[i]) != NULL;
	if (!given) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "Please pass at least one modification");
		return FALSE;
	}
	return TRUE;
}

typedef struct {
	JsonObject *image;
	JsonArray *changes;
} ImageChange;

static void
image_change_free(ImageChange *change)
{
	g_clear_pointer(&change->image, json_object_unref);
	g_clear_pointer(&change->changes, json_array_unref);
	g_free(change);
}

static gboolean
set_params_check_prereq(GntLu *lu, GError **error)
{
	JsonArray *removals = json_node_get_array(
		gnt_opcode_get_param(gnt_lu_get_opcode(lu), "remove_properties"));
	g_autoptr(JsonObject) image = dup_op_image(lu, error);
	ImageChange *change;
	JsonObject *properties;

	if (image == NULL)
		return FALSE;
	if (gnt_json_peek_object(image, "properties") == NULL)
		json_object_set_object_member(image, "properties", json_object_new());
	properties = gnt_json_peek_object(image, "properties");
	change = g_new0(ImageChange, 1);
	change->changes = json_array_new();
	apply_op_values(lu, image, change->changes);
	for (guint i = 0; i < json_array_get_length(removals); i++) {
		const gchar *key = json_array_get_string_element(removals, i);
		JsonArray *pair;

		if (!json_object_has_member(properties, key))
			continue;
		json_object_remove_member(properties, key);
		pair = json_array_new();
		json_array_add_string_element(pair, key);
		json_array_add_null_element(pair);
		json_array_add_array_element(change->changes, pair);
	}
	change->image = g_steal_pointer(&image);
	gnt_lu_set_data(lu, change, (GDestroyNotify)image_change_free);
	return gnt_image_record_check(change->image, error);
}

static JsonNode *
set_params_exec(GntLu *lu, GError **error)
{
	ImageChange *change = gnt_lu_get_data(lu);

	/* read under the exclusive cluster lock: no stale serial_no check */
	json_object_remove_member(change->image, "serial_no");
	if (!gnt_config_update_object(lu_config(lu), GNT_OBJECT_IMAGE, change->image, error))
		return NULL;
	return gnt_json_node_new_array(json_array_ref(change->changes));
}

const GntLuClass gnt_lu_image_set_params = {
	.check_args = set_params_check_args,
	.check_prereq = set_params_check_prereq,
	.exec = set_params_exec,
};

/* ---- OP_IMAGE_REMOVE ---- */

static gboolean
remove_check_prereq(GntLu *lu, GError **error)
{
	g_autoptr(JsonObject) image = dup_op_image(lu, error);
	g_autoptr(GPtrArray) users = NULL;

	if (image == NULL)
		return FALSE;
	users = gnt_config_dup_image_users(lu_config(lu),
					   json_object_get_string_member(image, "name"));
	if (users->len > 0) {
		g_autofree gchar *list = g_strjoinv(", ", (gchar **)users->pdata);

		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
			    "image '%s' is named by the install parameters of instance%s %s; "
			    "reinstall %s from another image first",
			    json_object_get_string_member(image, "name"), users->len > 1 ? "s" : "",
			    list, users->len > 1 ? "them" : "it");
		return FALSE;
	}
	gnt_lu_set_data(lu, g_steal_pointer(&image), (GDestroyNotify)json_object_unref);
	return TRUE;
}

static JsonNode *
remove_exec(GntLu *lu, GError **error)
{
	JsonObject *image = gnt_lu_get_data(lu);

	gnt_lu_feedback(lu, "Removing image %s", json_object_get_string_member(image, "name"));
	if (!gnt_config_remove_object(lu_config(lu), GNT_OBJECT_IMAGE,
				      json_object_get_string_member(image, "uuid"), error))
		return NULL;
	return gnt_json_node_new_null();
}

const GntLuClass gnt_lu_image_remove = {
	.check_prereq = remove_check_prereq,
	.exec = remove_exec,
};

/* ---- --os-image NAME ---- */

gboolean
gnt_lu_image_resolve_install(GntLu *lu, JsonObject *install, const gchar *given,
			     const gchar *given_sha256, GError **error)
{
	g_autoptr(JsonObject) image = NULL;
	const gchar *sha256;

	g_return_val_if_fail(install != NULL, FALSE);

	if (given == NULL)
		return TRUE; /* the stored image stays, and so does its name */
	if (!gnt_image_is_name(given)) {
		json_object_remove_member(install, GNT_IMAGE_INSTALL_KEY);
		return TRUE;
	}
	image = gnt_config_dup_image(lu_config(lu), given);
	if (image == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND,
			    "OS image '%s' is neither an absolute path on the node, an http(s) "
			    "URL nor an image of the catalog (gnt-image list)",
			    given);
		return FALSE;
	}
	/* a tarball is a kickstart install's liveimg or a storage layout's
	 * payload: deploy.write_image refuses it (gnt-install-steps.c) */
	sha256 = json_object_get_string_member(image, "sha256");
	if (given_sha256 != NULL && g_ascii_strcasecmp(given_sha256, sha256) != 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the SHA-256 given (%s) is not the one of image '%s' (%s)",
			    given_sha256, given, sha256);
		return FALSE;
	}
	json_object_set_string_member(install, "os_image",
				      json_object_get_string_member(image, "url"));
	json_object_set_string_member(install, "os_image_sha256", sha256);
	json_object_set_string_member(install, "os_image_format",
				      json_object_get_string_member(image, "format"));
	json_object_set_string_member(install, GNT_IMAGE_INSTALL_KEY,
				      json_object_get_string_member(image, "name"));
	return TRUE;
}
