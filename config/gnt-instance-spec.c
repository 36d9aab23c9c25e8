/*
 * The instance spec's one encoder and one decoder (gnt-instance-spec.h):
 * the master writes what noded reads, from the same struct.
 */
#include "gnt-instance-spec.h"

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-records-private.h"

/* A positive integer of @obj up to @max; 0 in *@out when @key is missing
 * and @optional. */
static gboolean
get_positive(JsonObject *obj, const gchar *key, guint64 max, gboolean optional, guint64 *out,
	     GError **error)
{
	gint64 value = 0;

	*out = 0;
	if (optional && !json_object_has_member(obj, key))
		return TRUE;
	if (!gnt_json_get_int(obj, key, &value, error))
		return FALSE;
	if (value <= 0 || (guint64)value > max) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "'%s' must be 1 to %" G_GUINT64_FORMAT ", not %" G_GINT64_FORMAT, key,
			    max, value);
		return FALSE;
	}
	*out = (guint64)value;
	return TRUE;
}

GntInstanceSpec *
gnt_instance_spec_new(GntInstance *instance, JsonObject *hvparams, JsonObject *beparams)
{
	GntInstanceSpec *self = g_new0(GntInstanceSpec, 1);
	guint64 vcpus = 0;

	self->instance = instance;
	self->hvparams = hvparams;
	self->beparams = beparams;
	get_positive(beparams, "maxmem", G_MAXUINT32, TRUE, &self->memory_mib, NULL);
	get_positive(beparams, "vcpus", 4096, TRUE, &vcpus, NULL);
	self->vcpus = (guint)vcpus;
	return self;
}

void
gnt_instance_spec_free(GntInstanceSpec *self)
{
	if (self == NULL)
		return;
	g_clear_pointer(&self->instance, gnt_instance_free);
	g_clear_pointer(&self->hvparams, json_object_unref);
	g_clear_pointer(&self->beparams, json_object_unref);
	g_free(self->volume_group_name);
	g_free(self->file_storage_dir);
	g_strfreev(self->os_search_path);
	g_free(self);
}

static JsonNode *
string_or_null(const gchar *value)
{
	return value != NULL ? gnt_json_node_new_string(value) : gnt_json_node_new_null();
}

JsonObject *
gnt_instance_spec_to_json(const GntInstanceSpec *self)
{
	JsonObject *spec = json_object_new();
	JsonObject *storage = json_object_new();

	json_object_set_object_member(spec, "instance", gnt_instance_to_json(self->instance));
	json_object_set_object_member(spec, "hvparams", gnt_json_object_deep_copy(self->hvparams));
	json_object_set_object_member(spec, "beparams", gnt_json_object_deep_copy(self->beparams));
	json_object_set_member(storage, "volume_group_name",
			       string_or_null(self->volume_group_name));
	json_object_set_member(storage, "file_storage_dir", string_or_null(self->file_storage_dir));
	if (self->file_preallocate)
		json_object_set_boolean_member(storage, "file_preallocate", TRUE);
	json_object_set_object_member(spec, "storage", storage);
	if (self->os_search_path != NULL) {
		JsonObject *os = json_object_new();
		JsonArray *dirs = json_array_new();

		for (guint i = 0; self->os_search_path[i] != NULL; i++)
			json_array_add_string_element(dirs, self->os_search_path[i]);
		json_object_set_array_member(os, "search_path", dirs);
		json_object_set_object_member(spec, "os", os);
	}
	return spec;
}

static gboolean
spec_read_storage(GntInstanceSpec *self, JsonObject *storage, GError **error)
{
	if (!gnt_records_dup_optional_string(storage, "volume_group_name", &self->volume_group_name,
					     error) ||
	    !gnt_records_dup_optional_string(storage, "file_storage_dir", &self->file_storage_dir,
					     error) ||
	    (json_object_has_member(storage, "file_preallocate") &&
	     !gnt_json_get_bool(storage, "file_preallocate", &self->file_preallocate, error))) {
		g_prefix_error(error, "storage: ");
		return FALSE;
	}
	return TRUE;
}

static gboolean
spec_read_os(GntInstanceSpec *self, JsonObject *obj, GError **error)
{
	JsonObject *os = NULL;

	if (!json_object_has_member(obj, "os"))
		return TRUE;
	if (!gnt_json_get_object(obj, "os", &os, error) ||
	    !gnt_records_dup_optional_strv(os, "search_path", &self->os_search_path, error))
		return FALSE;
	if (self->os_search_path == NULL) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "'os': 'search_path' is missing");
		return FALSE;
	}
	return TRUE;
}

static gboolean
spec_read(GntInstanceSpec *self, JsonObject *obj, GError **error)
{
	JsonObject *hvparams = NULL;
	JsonObject *beparams = NULL;
	JsonObject *storage = NULL;
	guint64 vcpus = 0;

	if (!gnt_json_get_object(obj, "hvparams", &hvparams, error) ||
	    !gnt_json_get_object(obj, "beparams", &beparams, error) ||
	    !get_positive(beparams, "maxmem", G_MAXUINT32, FALSE, &self->memory_mib, error) ||
	    !get_positive(beparams, "vcpus", 4096, FALSE, &vcpus, error) ||
	    !gnt_json_get_object(obj, "storage", &storage, error) ||
	    !spec_read_storage(self, storage, error) || !spec_read_os(self, obj, error))
		return FALSE;
	self->vcpus = (guint)vcpus;
	self->hvparams = gnt_json_object_deep_copy(hvparams);
	self->beparams = gnt_json_object_deep_copy(beparams);
	return TRUE;
}

GntInstanceSpec *
gnt_instance_spec_from_json(JsonObject *obj, GError **error)
{
	g_autoptr(GntInstanceSpec) self = g_new0(GntInstanceSpec, 1);
	JsonObject *record = NULL;
	const gchar *name = NULL;

	if (!gnt_json_get_object(obj, "instance", &record, error) ||
	    !gnt_json_get_string(record, "name", &name, error)) {
		g_prefix_error(error, "instance spec: ");
		return NULL;
	}
	self->instance = gnt_instance_from_json(record, error);
	if (self->instance == NULL) {
		g_prefix_error(error, "instance spec: ");
		return NULL;
	}
	if (self->instance->uuid == NULL) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID, "'uuid' is missing");
		g_prefix_error(error, "instance spec of '%s': ", name);
		return NULL;
	}
	if (!spec_read(self, obj, error)) {
		g_prefix_error(error, "instance spec of '%s': ", name);
		return NULL;
	}
	return g_steal_pointer(&self);
}
