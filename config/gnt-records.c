/*
 * Typed records: the enumerations' one table of names each, and every
 * record's JSON reading and writing (gnt-records.h). Optional members read
 * as "missing or null"; a member of the wrong type is an error naming it.
 */
#include "gnt-records.h"

#include "gnt-records-private.h"

#include "gnt-enum.h"
#include "gnt-error.h"
#include "gnt-json.h"

/* --- enumerations --------------------------------------------------------- */

static const gchar *const admin_state_names[] = {
	[GNT_ADMIN_STATE_UP] = "up",
	[GNT_ADMIN_STATE_DOWN] = "down",
	[GNT_ADMIN_STATE_OFFLINE] = "offline",
};
G_STATIC_ASSERT(G_N_ELEMENTS(admin_state_names) == GNT_ADMIN_STATE_LAST);

static const gchar *const admin_state_source_names[] = {
	[GNT_ADMIN_STATE_SOURCE_ADMIN] = "admin",
	[GNT_ADMIN_STATE_SOURCE_USER] = "user",
};
G_STATIC_ASSERT(G_N_ELEMENTS(admin_state_source_names) == GNT_ADMIN_STATE_SOURCE_LAST);

static const gchar *const disk_template_names[] = {
	[GNT_DISK_TEMPLATE_DISKLESS] = "diskless",
	[GNT_DISK_TEMPLATE_FILE] = "file",
	[GNT_DISK_TEMPLATE_PLAIN] = "plain",
};
G_STATIC_ASSERT(G_N_ELEMENTS(disk_template_names) == GNT_DISK_TEMPLATE_LAST);

static const gchar *const disk_mode_names[] = {
	[GNT_DISK_MODE_RW] = "rw",
	[GNT_DISK_MODE_RO] = "ro",
};
G_STATIC_ASSERT(G_N_ELEMENTS(disk_mode_names) == GNT_DISK_MODE_LAST);

GNT_DEFINE_ENUM_STRINGS(GntAdminState, gnt_admin_state, admin_state_names, "admin state")
GNT_DEFINE_ENUM_STRINGS(GntAdminStateSource, gnt_admin_state_source, admin_state_source_names,
			"admin state source")
GNT_DEFINE_ENUM_STRINGS(GntDiskTemplate, gnt_disk_template, disk_template_names, "disk template")
GNT_DEFINE_ENUM_STRINGS(GntDiskMode, gnt_disk_mode, disk_mode_names, "disk mode")

/* The index in @names of string member @key of @record, or @fallback. */
static guint
record_get_enum(JsonObject *record, const gchar *key, const gchar *const *names, guint n,
		guint fallback)
{
	JsonNode *node = json_object_get_member(record, key);
	guint value = fallback;

	if (node == NULL || !JSON_NODE_HOLDS_VALUE(node) ||
	    json_node_get_value_type(node) != G_TYPE_STRING ||
	    !gnt_enum_from_string(names, n, NULL, json_node_get_string(node), &value, NULL))
		return fallback;
	return value;
}

GntAdminState
gnt_record_get_admin_state(JsonObject *record)
{
	return record_get_enum(record, "admin_state", admin_state_names,
			       G_N_ELEMENTS(admin_state_names), GNT_ADMIN_STATE_DOWN);
}

GntAdminStateSource
gnt_record_get_admin_state_source(JsonObject *record)
{
	return record_get_enum(record, "admin_state_source", admin_state_source_names,
			       G_N_ELEMENTS(admin_state_source_names),
			       GNT_ADMIN_STATE_SOURCE_ADMIN);
}

GntDiskTemplate
gnt_record_get_disk_template(JsonObject *record)
{
	return record_get_enum(record, "disk_template", disk_template_names,
			       G_N_ELEMENTS(disk_template_names), GNT_DISK_TEMPLATE_DISKLESS);
}

gboolean
gnt_record_get_flag(JsonObject *record, const gchar *flag, gboolean missing)
{
	JsonNode *value = json_object_get_member(record, flag);

	if (value == NULL || !JSON_NODE_HOLDS_VALUE(value) ||
	    json_node_get_value_type(value) != G_TYPE_BOOLEAN)
		return missing;
	return json_node_get_boolean(value);
}

/* --- reading helpers ------------------------------------------------------ */

gboolean
gnt_records_dup_optional_string(JsonObject *obj, const gchar *key, gchar **out, GError **error)
{
	JsonNode *node = json_object_get_member(obj, key);

	g_clear_pointer(out, g_free);
	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return TRUE;
	return gnt_json_dup_string(obj, key, out, error);
}

/* An object member, a copy; missing or null gives an empty object. */
static gboolean
dup_object_or_empty(JsonObject *obj, const gchar *key, JsonObject **out, GError **error)
{
	JsonNode *node = json_object_get_member(obj, key);
	JsonObject *value = NULL;

	if (node != NULL && !JSON_NODE_HOLDS_NULL(node) &&
	    !gnt_json_get_object(obj, key, &value, error))
		return FALSE;
	g_clear_pointer(out, json_object_unref);
	*out = value != NULL ? gnt_json_object_deep_copy(value) : json_object_new();
	return TRUE;
}

/* An object member, a copy; missing or null gives NULL. */
static gboolean
dup_optional_object(JsonObject *obj, const gchar *key, JsonObject **out, GError **error)
{
	JsonNode *node = json_object_get_member(obj, key);

	g_clear_pointer(out, json_object_unref);
	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return TRUE;
	return dup_object_or_empty(obj, key, out, error);
}

gboolean
gnt_records_dup_optional_strv(JsonObject *obj, const gchar *key, GStrv *out, GError **error)
{
	JsonNode *node = json_object_get_member(obj, key);
	JsonArray *array = NULL;
	g_autoptr(GStrvBuilder) builder = g_strv_builder_new();

	g_clear_pointer(out, g_strfreev);
	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return TRUE;
	if (!gnt_json_get_array(obj, key, &array, error))
		return FALSE;
	for (guint i = 0; i < json_array_get_length(array); i++) {
		const gchar *value = NULL;
		g_autofree gchar *what = g_strdup_printf("element %u of '%s'", i, key);

		if (!gnt_json_node_get_string(json_array_get_element(array, i), what, &value,
					      error))
			return FALSE;
		g_strv_builder_add(builder, value);
	}
	*out = g_strv_builder_end(builder);
	return TRUE;
}

static gboolean
get_optional_bool(JsonObject *obj, const gchar *key, gboolean *out, GError **error)
{
	JsonNode *node = json_object_get_member(obj, key);

	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return TRUE;
	return gnt_json_get_bool(obj, key, out, error);
}

/* An enumeration member given by its name; missing keeps *@out. */
#define GET_OPTIONAL_ENUM(obj, key, prefix, out, error)                                            \
	({                                                                                         \
		const gchar *name_ = NULL;                                                         \
		!json_object_has_member(obj, key) ||                                               \
			(gnt_json_get_string(obj, key, &name_, error) &&                           \
			 (prefix##_from_string(name_, out, error) ||                               \
			  (g_prefix_error(error, "'%s': ", key), FALSE)));                         \
	})

/* The identity every stored record has: name, uuid, serial_no, ctime,
 * mtime (all but the name optional: a record not yet stored has none). */
static gboolean
read_identity(JsonObject *obj, gchar **uuid, gchar **name, gint64 *serial_no, gdouble *ctime,
	      gdouble *mtime, GError **error)
{
	return gnt_json_dup_string(obj, "name", name, error) &&
	       gnt_records_dup_optional_string(obj, "uuid", uuid, error) &&
	       (!json_object_has_member(obj, "serial_no") ||
		gnt_json_get_int(obj, "serial_no", serial_no, error)) &&
	       (!json_object_has_member(obj, "ctime") ||
		gnt_json_get_double(obj, "ctime", ctime, error)) &&
	       (!json_object_has_member(obj, "mtime") ||
		gnt_json_get_double(obj, "mtime", mtime, error));
}

/* --- writing helpers ------------------------------------------------------ */

static void
add_string(JsonBuilder *builder, const gchar *key, const gchar *value)
{
	json_builder_set_member_name(builder, key);
	if (value != NULL)
		json_builder_add_string_value(builder, value);
	else
		json_builder_add_null_value(builder);
}

static void
add_int(JsonBuilder *builder, const gchar *key, gint64 value)
{
	json_builder_set_member_name(builder, key);
	json_builder_add_int_value(builder, value);
}

static void
add_double(JsonBuilder *builder, const gchar *key, gdouble value)
{
	json_builder_set_member_name(builder, key);
	json_builder_add_double_value(builder, value);
}

static void
add_bool(JsonBuilder *builder, const gchar *key, gboolean value)
{
	json_builder_set_member_name(builder, key);
	json_builder_add_boolean_value(builder, value);
}

static void
add_object(JsonBuilder *builder, const gchar *key, JsonObject *value)
{
	json_builder_set_member_name(builder, key);
	json_builder_add_value(builder, gnt_json_node_new_object(gnt_json_object_deep_copy(value)));
}

static void
add_strv(JsonBuilder *builder, const gchar *key, const gchar *const *values)
{
	json_builder_set_member_name(builder, key);
	json_builder_begin_array(builder);
	for (guint i = 0; values != NULL && values[i] != NULL; i++)
		json_builder_add_string_value(builder, values[i]);
	json_builder_end_array(builder);
}

static void
add_identity(JsonBuilder *builder, const gchar *uuid, const gchar *name, gint64 serial_no,
	     gdouble ctime, gdouble mtime)
{
	if (uuid != NULL)
		add_string(builder, "uuid", uuid);
	add_string(builder, "name", name);
	add_int(builder, "serial_no", serial_no);
	add_double(builder, "ctime", ctime);
	add_double(builder, "mtime", mtime);
}

/* The object @builder holds once its outermost object ended. (transfer full) */
static JsonObject *
builder_dup_object(JsonBuilder *builder)
{
	g_autoptr(JsonNode) root = json_builder_get_root(builder);

	return json_object_ref(json_node_get_object(root));
}

/* --- disks ---------------------------------------------------------------- */

GntDisk *
gnt_disk_new(void)
{
	return g_new0(GntDisk, 1);
}

GntDisk *
gnt_disk_copy(const GntDisk *self)
{
	GntDisk *copy = g_memdup2(self, sizeof(*self));

	copy->uuid = g_strdup(self->uuid);
	copy->name = g_strdup(self->name);
	copy->iv_name = g_strdup(self->iv_name);
	return copy;
}

void
gnt_disk_free(GntDisk *self)
{
	if (self == NULL)
		return;
	g_free(self->uuid);
	g_free(self->name);
	g_free(self->iv_name);
	g_free(self);
}

GntDisk *
gnt_disk_from_json(JsonObject *obj, GError **error)
{
	g_autoptr(GntDisk) disk = gnt_disk_new();

	if (!gnt_json_dup_string(obj, "uuid", &disk->uuid, error) ||
	    !gnt_records_dup_optional_string(obj, "name", &disk->name, error) ||
	    !gnt_json_get_int(obj, "size", &disk->size_mib, error) ||
	    !GET_OPTIONAL_ENUM(obj, "mode", gnt_disk_mode, &disk->mode, error) ||
	    !gnt_records_dup_optional_string(obj, "iv_name", &disk->iv_name, error))
		return NULL;
	if (disk->size_mib <= 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "'size' must be positive, not %" G_GINT64_FORMAT, disk->size_mib);
		return NULL;
	}
	disk->has_format = json_object_has_member(obj, "format") &&
			   !JSON_NODE_HOLDS_NULL(json_object_get_member(obj, "format"));
	if (disk->has_format &&
	    !GET_OPTIONAL_ENUM(obj, "format", gnt_disk_format, &disk->format, error))
		return NULL;
	return g_steal_pointer(&disk);
}

void
gnt_disk_to_json(const GntDisk *self, JsonBuilder *builder)
{
	json_builder_begin_object(builder);
	add_string(builder, "uuid", self->uuid);
	add_string(builder, "name", self->name);
	add_int(builder, "size", self->size_mib);
	add_string(builder, "mode", gnt_disk_mode_to_string(self->mode));
	if (self->iv_name != NULL)
		add_string(builder, "iv_name", self->iv_name);
	if (self->has_format)
		add_string(builder, "format", gnt_disk_format_to_string(self->format));
	json_builder_end_object(builder);
}

/* --- NICs ----------------------------------------------------------------- */

GntNic *
gnt_nic_new(void)
{
	return g_new0(GntNic, 1);
}

GntNic *
gnt_nic_copy(const GntNic *self)
{
	GntNic *copy = g_memdup2(self, sizeof(*self));

	copy->uuid = g_strdup(self->uuid);
	copy->name = g_strdup(self->name);
	copy->mac = g_strdup(self->mac);
	copy->ip = g_strdup(self->ip);
	copy->link = g_strdup(self->link);
	copy->vlan = g_strdup(self->vlan);
	copy->network = g_strdup(self->network);
	return copy;
}

void
gnt_nic_free(GntNic *self)
{
	if (self == NULL)
		return;
	g_free(self->uuid);
	g_free(self->name);
	g_free(self->mac);
	g_free(self->ip);
	g_free(self->link);
	g_free(self->vlan);
	g_free(self->network);
	g_free(self);
}

static gboolean
nic_read_params(GntNic *nic, JsonObject *params, GError **error)
{
	nic->has_mode = json_object_has_member(params, "mode") &&
			!JSON_NODE_HOLDS_NULL(json_object_get_member(params, "mode"));
	if (nic->has_mode && !GET_OPTIONAL_ENUM(params, "mode", gnt_nic_mode, &nic->mode, error))
		return FALSE;
	if (!gnt_records_dup_optional_string(params, "link", &nic->link, error) ||
	    !gnt_records_dup_optional_string(params, "vlan", &nic->vlan, error)) {
		g_prefix_error(error, "nicparams: ");
		return FALSE;
	}
	return TRUE;
}

GntNic *
gnt_nic_from_json(JsonObject *obj, GError **error)
{
	g_autoptr(GntNic) nic = gnt_nic_new();
	JsonObject *params = gnt_json_peek_object(obj, "nicparams");

	if (!gnt_json_dup_string(obj, "uuid", &nic->uuid, error) ||
	    !gnt_records_dup_optional_string(obj, "name", &nic->name, error) ||
	    !gnt_json_dup_string(obj, "mac", &nic->mac, error) ||
	    !gnt_records_dup_optional_string(obj, "ip", &nic->ip, error) ||
	    !gnt_records_dup_optional_string(obj, "network", &nic->network, error))
		return NULL;
	if (params != NULL && !nic_read_params(nic, params, error))
		return NULL;
	return g_steal_pointer(&nic);
}

void
gnt_nic_to_json(const GntNic *self, JsonBuilder *builder)
{
	json_builder_begin_object(builder);
	add_string(builder, "uuid", self->uuid);
	add_string(builder, "name", self->name);
	add_string(builder, "mac", self->mac);
	add_string(builder, "ip", self->ip);
	json_builder_set_member_name(builder, "nicparams");
	json_builder_begin_object(builder);
	if (self->has_mode)
		add_string(builder, "mode", gnt_nic_mode_to_string(self->mode));
	if (self->link != NULL)
		add_string(builder, "link", self->link);
	if (self->vlan != NULL)
		add_string(builder, "vlan", self->vlan);
	json_builder_end_object(builder);
	add_string(builder, "network", self->network);
	json_builder_end_object(builder);
}

/* --- lists of records ----------------------------------------------------- */

typedef gpointer (*RecordFromJson)(JsonObject *obj, GError **error);

/* Each element of array @key read by @from_json into @out (missing or
 * null: empty); failures name the element ("disk 2: ..."). */
static gboolean
read_list(JsonObject *obj, const gchar *key, const gchar *what, RecordFromJson from_json,
	  GPtrArray *out, GError **error)
{
	JsonNode *node = json_object_get_member(obj, key);
	JsonArray *array = NULL;

	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return TRUE;
	if (!gnt_json_get_array(obj, key, &array, error))
		return FALSE;
	for (guint i = 0; i < json_array_get_length(array); i++) {
		JsonNode *element = json_array_get_element(array, i);
		gpointer record = NULL;

		if (!JSON_NODE_HOLDS_OBJECT(element)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "%s %u must be an object",
				    what, i);
			return FALSE;
		}
		record = from_json(json_node_get_object(element), error);
		if (record == NULL) {
			g_prefix_error(error, "%s %u: ", what, i);
			return FALSE;
		}
		g_ptr_array_add(out, record);
	}
	return TRUE;
}

static GPtrArray *
copy_list(GPtrArray *list, GCopyFunc copy, GDestroyNotify free_func)
{
	GPtrArray *out = g_ptr_array_new_full(list->len, free_func);

	for (guint i = 0; i < list->len; i++)
		g_ptr_array_add(out, copy(g_ptr_array_index(list, i), NULL));
	return out;
}

static gpointer
disk_copy_func(gconstpointer src, gpointer data)
{
	return gnt_disk_copy(src);
}

static gpointer
nic_copy_func(gconstpointer src, gpointer data)
{
	return gnt_nic_copy(src);
}

/* --- instances ------------------------------------------------------------ */

GntInstance *
gnt_instance_new(void)
{
	GntInstance *self = g_new0(GntInstance, 1);

	self->hvparams = json_object_new();
	self->beparams = json_object_new();
	self->osparams = json_object_new();
	self->osparams_private = json_object_new();
	self->admin_state = GNT_ADMIN_STATE_DOWN;
	self->admin_state_source = GNT_ADMIN_STATE_SOURCE_ADMIN;
	self->disk_template = GNT_DISK_TEMPLATE_DISKLESS;
	self->disks = g_ptr_array_new_with_free_func((GDestroyNotify)gnt_disk_free);
	self->nics = g_ptr_array_new_with_free_func((GDestroyNotify)gnt_nic_free);
	self->tags = g_new0(gchar *, 1);
	self->network_port = -1;
	return self;
}

static JsonObject *
object_copy_or_null(JsonObject *obj)
{
	return obj != NULL ? gnt_json_object_deep_copy(obj) : NULL;
}

GntInstance *
gnt_instance_copy(const GntInstance *self)
{
	GntInstance *copy = g_memdup2(self, sizeof(*self));

	copy->uuid = g_strdup(self->uuid);
	copy->name = g_strdup(self->name);
	copy->primary_node = g_strdup(self->primary_node);
	copy->os = g_strdup(self->os);
	copy->hypervisor = g_strdup(self->hypervisor);
	copy->hvparams = gnt_json_object_deep_copy(self->hvparams);
	copy->beparams = gnt_json_object_deep_copy(self->beparams);
	copy->osparams = gnt_json_object_deep_copy(self->osparams);
	copy->osparams_private = gnt_json_object_deep_copy(self->osparams_private);
	copy->disks = copy_list(self->disks, disk_copy_func, (GDestroyNotify)gnt_disk_free);
	copy->nics = copy_list(self->nics, nic_copy_func, (GDestroyNotify)gnt_nic_free);
	copy->tags = g_strdupv(self->tags);
	copy->communication_mac = g_strdup(self->communication_mac);
	copy->communication_ip = g_strdup(self->communication_ip);
	copy->user_data = g_strdup(self->user_data);
	copy->ssh_keys = g_strdupv(self->ssh_keys);
	copy->install = object_copy_or_null(self->install);
	copy->half_done = object_copy_or_null(self->half_done);
	return copy;
}

void
gnt_instance_free(GntInstance *self)
{
	if (self == NULL)
		return;
	g_free(self->uuid);
	g_free(self->name);
	g_free(self->primary_node);
	g_free(self->os);
	g_free(self->hypervisor);
	g_clear_pointer(&self->hvparams, json_object_unref);
	g_clear_pointer(&self->beparams, json_object_unref);
	g_clear_pointer(&self->osparams, json_object_unref);
	g_clear_pointer(&self->osparams_private, json_object_unref);
	g_clear_pointer(&self->disks, g_ptr_array_unref);
	g_clear_pointer(&self->nics, g_ptr_array_unref);
	g_strfreev(self->tags);
	g_free(self->communication_mac);
	g_free(self->communication_ip);
	g_free(self->user_data);
	g_strfreev(self->ssh_keys);
	g_clear_pointer(&self->install, json_object_unref);
	g_clear_pointer(&self->half_done, json_object_unref);
	g_free(self);
}

static gboolean
instance_read_communication(GntInstance *self, JsonObject *obj, GError **error)
{
	JsonObject *nic = gnt_json_peek_object(obj, "communication_nic");

	if (!get_optional_bool(obj, "communication", &self->communication, error))
		return FALSE;
	if (nic == NULL)
		return TRUE;
	if (!gnt_json_dup_string(nic, "mac", &self->communication_mac, error) ||
	    !gnt_json_dup_string(nic, "ip", &self->communication_ip, error)) {
		g_prefix_error(error, "'communication_nic': ");
		return FALSE;
	}
	return TRUE;
}

static gboolean
instance_read_params(GntInstance *self, JsonObject *obj, GError **error)
{
	return dup_object_or_empty(obj, "hvparams", &self->hvparams, error) &&
	       dup_object_or_empty(obj, "beparams", &self->beparams, error) &&
	       dup_object_or_empty(obj, "osparams", &self->osparams, error) &&
	       dup_object_or_empty(obj, "osparams_private", &self->osparams_private, error);
}

static gboolean
instance_read(GntInstance *self, JsonObject *obj, GError **error)
{
	JsonNode *port = json_object_get_member(obj, "network_port");
	GStrv tags = NULL;

	if (!gnt_json_dup_string(obj, "primary_node", &self->primary_node, error) ||
	    !gnt_records_dup_optional_string(obj, "os", &self->os, error) ||
	    !gnt_json_dup_string(obj, "hypervisor", &self->hypervisor, error) ||
	    !instance_read_params(self, obj, error) ||
	    !GET_OPTIONAL_ENUM(obj, "admin_state", gnt_admin_state, &self->admin_state, error) ||
	    !GET_OPTIONAL_ENUM(obj, "admin_state_source", gnt_admin_state_source,
			       &self->admin_state_source, error) ||
	    !GET_OPTIONAL_ENUM(obj, "disk_template", gnt_disk_template, &self->disk_template,
			       error) ||
	    !read_list(obj, "disks", "disk", (RecordFromJson)gnt_disk_from_json, self->disks,
		       error) ||
	    !read_list(obj, "nics", "nic", (RecordFromJson)gnt_nic_from_json, self->nics, error) ||
	    !gnt_records_dup_optional_strv(obj, "tags", &tags, error) ||
	    (port != NULL && !JSON_NODE_HOLDS_NULL(port) &&
	     !gnt_json_get_int(obj, "network_port", &self->network_port, error)) ||
	    !get_optional_bool(obj, "disks_active", &self->disks_active, error) ||
	    !instance_read_communication(self, obj, error) ||
	    !gnt_records_dup_optional_string(obj, "user_data", &self->user_data, error) ||
	    !gnt_records_dup_optional_strv(obj, "ssh_keys", &self->ssh_keys, error) ||
	    !dup_optional_object(obj, "install", &self->install, error) ||
	    !dup_optional_object(obj, "half_done", &self->half_done, error))
		return FALSE;
	if (tags != NULL) {
		g_strfreev(self->tags);
		self->tags = tags;
	}
	return TRUE;
}

GntInstance *
gnt_instance_from_json(JsonObject *obj, GError **error)
{
	g_autoptr(GntInstance) self = gnt_instance_new();

	if (!read_identity(obj, &self->uuid, &self->name, &self->serial_no, &self->ctime,
			   &self->mtime, error)) {
		g_prefix_error(error, "instance: ");
		return NULL;
	}
	if (!instance_read(self, obj, error)) {
		g_prefix_error(error, "instance '%s': ", self->name);
		return NULL;
	}
	return g_steal_pointer(&self);
}

static void
instance_write_lists(const GntInstance *self, JsonBuilder *builder)
{
	json_builder_set_member_name(builder, "disks");
	json_builder_begin_array(builder);
	for (guint i = 0; i < self->disks->len; i++)
		gnt_disk_to_json(g_ptr_array_index(self->disks, i), builder);
	json_builder_end_array(builder);
	json_builder_set_member_name(builder, "nics");
	json_builder_begin_array(builder);
	for (guint i = 0; i < self->nics->len; i++)
		gnt_nic_to_json(g_ptr_array_index(self->nics, i), builder);
	json_builder_end_array(builder);
}

static void
instance_write_gantry(const GntInstance *self, JsonBuilder *builder)
{
	add_bool(builder, "communication", self->communication);
	if (self->communication_mac != NULL) {
		json_builder_set_member_name(builder, "communication_nic");
		json_builder_begin_object(builder);
		add_string(builder, "mac", self->communication_mac);
		add_string(builder, "ip", self->communication_ip);
		json_builder_end_object(builder);
	}
	if (self->user_data != NULL)
		add_string(builder, "user_data", self->user_data);
	if (self->ssh_keys != NULL)
		add_strv(builder, "ssh_keys", (const gchar *const *)self->ssh_keys);
	if (self->install != NULL)
		add_object(builder, "install", self->install);
	if (self->half_done != NULL)
		add_object(builder, "half_done", self->half_done);
}

JsonObject *
gnt_instance_to_json(const GntInstance *self)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();

	json_builder_begin_object(builder);
	add_identity(builder, self->uuid, self->name, self->serial_no, self->ctime, self->mtime);
	add_string(builder, "primary_node", self->primary_node);
	add_string(builder, "os", self->os);
	add_string(builder, "hypervisor", self->hypervisor);
	add_object(builder, "hvparams", self->hvparams);
	add_object(builder, "beparams", self->beparams);
	add_object(builder, "osparams", self->osparams);
	add_object(builder, "osparams_private", self->osparams_private);
	add_string(builder, "admin_state", gnt_admin_state_to_string(self->admin_state));
	add_string(builder, "admin_state_source",
		   gnt_admin_state_source_to_string(self->admin_state_source));
	add_string(builder, "disk_template", gnt_disk_template_to_string(self->disk_template));
	instance_write_lists(self, builder);
	add_strv(builder, "tags", (const gchar *const *)self->tags);
	json_builder_set_member_name(builder, "network_port");
	if (self->network_port >= 0)
		json_builder_add_int_value(builder, self->network_port);
	else
		json_builder_add_null_value(builder);
	add_bool(builder, "disks_active", self->disks_active);
	instance_write_gantry(self, builder);
	json_builder_end_object(builder);
	return builder_dup_object(builder);
}

/* --- nodes ---------------------------------------------------------------- */

GntNode *
gnt_node_new(void)
{
	GntNode *self = g_new0(GntNode, 1);

	self->ndparams = json_object_new();
	self->tags = g_new0(gchar *, 1);
	self->master_capable = TRUE;
	self->vm_capable = TRUE;
	return self;
}

GntNode *
gnt_node_copy(const GntNode *self)
{
	GntNode *copy = g_memdup2(self, sizeof(*self));

	copy->uuid = g_strdup(self->uuid);
	copy->name = g_strdup(self->name);
	copy->primary_ip = g_strdup(self->primary_ip);
	copy->secondary_ip = g_strdup(self->secondary_ip);
	copy->group = g_strdup(self->group);
	copy->ndparams = gnt_json_object_deep_copy(self->ndparams);
	copy->tags = g_strdupv(self->tags);
	return copy;
}

void
gnt_node_free(GntNode *self)
{
	if (self == NULL)
		return;
	g_free(self->uuid);
	g_free(self->name);
	g_free(self->primary_ip);
	g_free(self->secondary_ip);
	g_free(self->group);
	g_clear_pointer(&self->ndparams, json_object_unref);
	g_strfreev(self->tags);
	g_free(self);
}

static gboolean
node_read(GntNode *self, JsonObject *obj, GError **error)
{
	GStrv tags = NULL;

	if (!gnt_json_dup_string(obj, "primary_ip", &self->primary_ip, error) ||
	    !gnt_records_dup_optional_string(obj, "secondary_ip", &self->secondary_ip, error) ||
	    !gnt_json_get_int(obj, "rpc_port", &self->rpc_port, error) ||
	    !get_optional_bool(obj, "master_candidate", &self->master_candidate, error) ||
	    !get_optional_bool(obj, "master_capable", &self->master_capable, error) ||
	    !get_optional_bool(obj, "vm_capable", &self->vm_capable, error) ||
	    !get_optional_bool(obj, "offline", &self->offline, error) ||
	    !get_optional_bool(obj, "drained", &self->drained, error) ||
	    !gnt_records_dup_optional_string(obj, "group", &self->group, error) ||
	    !dup_object_or_empty(obj, "ndparams", &self->ndparams, error) ||
	    !gnt_records_dup_optional_strv(obj, "tags", &tags, error))
		return FALSE;
	if (tags != NULL) {
		g_strfreev(self->tags);
		self->tags = tags;
	}
	if (self->rpc_port < 0 || self->rpc_port > 65535) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "'rpc_port' must be 0 to 65535, not %" G_GINT64_FORMAT, self->rpc_port);
		return FALSE;
	}
	return TRUE;
}

GntNode *
gnt_node_from_json(JsonObject *obj, GError **error)
{
	g_autoptr(GntNode) self = gnt_node_new();

	if (!read_identity(obj, &self->uuid, &self->name, &self->serial_no, &self->ctime,
			   &self->mtime, error)) {
		g_prefix_error(error, "node: ");
		return NULL;
	}
	if (!node_read(self, obj, error)) {
		g_prefix_error(error, "node '%s': ", self->name);
		return NULL;
	}
	return g_steal_pointer(&self);
}

JsonObject *
gnt_node_to_json(const GntNode *self)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();

	json_builder_begin_object(builder);
	add_identity(builder, self->uuid, self->name, self->serial_no, self->ctime, self->mtime);
	add_string(builder, "primary_ip", self->primary_ip);
	add_string(builder, "secondary_ip", self->secondary_ip);
	add_int(builder, "rpc_port", self->rpc_port);
	add_bool(builder, "master_candidate", self->master_candidate);
	add_bool(builder, "master_capable", self->master_capable);
	add_bool(builder, "vm_capable", self->vm_capable);
	add_bool(builder, "offline", self->offline);
	add_bool(builder, "drained", self->drained);
	add_string(builder, "group", self->group);
	add_object(builder, "ndparams", self->ndparams);
	add_strv(builder, "tags", (const gchar *const *)self->tags);
	json_builder_end_object(builder);
	return builder_dup_object(builder);
}
