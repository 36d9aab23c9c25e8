/*
 * The image catalog's records (gnt-config-images.h, doc/images.md): what
 * each key holds and how it is checked, the lookups the units and the
 * kickstart templates use, and the "image" query resource.
 */
#include "gnt-config-images.h"

#include <string.h>

#include "gnt-error.h"
#include "gnt-json.h"

#define NAME_MAX_LEN	    63
#define LOCATION_MAX_LEN    4096
#define TOKEN_MAX_LEN	    32
#define KERNEL_ARGS_MAX_LEN 1024
/* what an installer needs at least, and a sane upper bound (1 TiB) */
#define INSTALLER_MEMORY_MIN_MIB 256
#define INSTALLER_MEMORY_MAX_MIB (1024 * 1024)

/* the keys every record has besides its fields */
static const gchar *const identity_keys[] = {
	"uuid", "name", "serial_no", "ctime", "mtime", "properties", NULL,
};

static const gchar *const formats[] = {"raw", "qcow2", "tarball", NULL};

static gboolean
invalid(GError **error, const gchar *key, const gchar *format, ...) G_GNUC_PRINTF(3, 4);

static gboolean
invalid(GError **error, const gchar *key, const gchar *format, ...)
{
	g_autofree gchar *reason = NULL;
	va_list args;

	va_start(args, format);
	reason = g_strdup_vprintf(format, args);
	va_end(args);
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "image %s: %s", key, reason);
	return FALSE;
}

/* printable ASCII without white space runs that a command line or a URL
 * would not carry: no control characters at all */
static gboolean
has_control(const gchar *text)
{
	for (const gchar *p = text; *p != '\0'; p++) {
		if ((guchar)*p < 0x20 || (guchar)*p == 0x7f)
			return TRUE;
	}
	return FALSE;
}

/* @text as a URL of one of @schemes (file:// only when listed) or, with
 * @paths, an absolute path; never with credentials. */
static gboolean
check_location(const gchar *key, const gchar *text, const gchar *const *schemes, gboolean paths,
	       GError **error)
{
	g_autoptr(GUri) uri = NULL;
	g_autofree gchar *list = g_strjoinv(", ", (gchar **)schemes);

	if (*text == '\0' || strlen(text) > LOCATION_MAX_LEN || has_control(text) ||
	    !g_utf8_validate(text, -1, NULL))
		return invalid(error, key, "'%s' must be 1 to %d printable characters", text,
			       LOCATION_MAX_LEN);
	if (text[0] == '/') {
		if (!paths)
			return invalid(error, key, "'%s' must be a URL (%s)", text, list);
		if (strstr(text, "/../") != NULL || g_str_has_suffix(text, "/..") ||
		    strstr(text, "/./") != NULL || g_str_has_suffix(text, "/."))
			return invalid(error, key, "'%s' must be a normalised absolute path", text);
		return TRUE;
	}
	uri = g_uri_parse(text, G_URI_FLAGS_NONE, NULL);
	if (uri == NULL || !g_strv_contains(schemes, g_uri_get_scheme(uri)))
		return invalid(error, key, "'%s' must be %s URL (%s)", text,
			       paths ? "an absolute path on the nodes or a" : "a", list);
	if (g_uri_get_userinfo(uri) != NULL) {
		g_autofree gchar *shown = g_uri_to_string_partial(uri, G_URI_HIDE_USERINFO);

		return invalid(error, key,
			       "credentials in a URL are refused (anyone who may list images "
			       "would see them): '%s'",
			       shown);
	}
	if (g_strcmp0(g_uri_get_scheme(uri), "file") == 0) {
		if (g_uri_get_host(uri) != NULL && *g_uri_get_host(uri) != '\0')
			return invalid(error, key, "a file:// URL names no host: '%s'", text);
		return TRUE;
	}
	if (g_uri_get_host(uri) == NULL || *g_uri_get_host(uri) == '\0')
		return invalid(error, key, "'%s' names no host", text);
	return TRUE;
}

static gboolean
check_image_location(const gchar *key, JsonNode *value, GError **error)
{
	static const gchar *const schemes[] = {"http", "https", NULL};

	return check_location(key, json_node_get_string(value), schemes, TRUE, error);
}

static gboolean
check_ks_template(const gchar *key, JsonNode *value, GError **error)
{
	static const gchar *const schemes[] = {"file", "http", "https", NULL};

	return check_location(key, json_node_get_string(value), schemes, FALSE, error);
}

static gboolean
check_format(const gchar *key, JsonNode *value, GError **error)
{
	if (!g_strv_contains(formats, json_node_get_string(value)))
		return invalid(error, key,
			       "'%s' is not a known format: raw, qcow2 or tarball (a root "
			       "filesystem tarball)",
			       json_node_get_string(value));
	return TRUE;
}

static gboolean
check_sha256(const gchar *key, JsonNode *value, GError **error)
{
	const gchar *text = json_node_get_string(value);

	if (strlen(text) != 64 || strspn(text, "0123456789abcdefABCDEF") != 64)
		return invalid(error, key, "'%s' must be 64 hexadecimal digits", text);
	return TRUE;
}

static gboolean
check_size(const gchar *key, JsonNode *value, GError **error)
{
	if (json_node_get_int(value) < 1)
		return invalid(error, key, "%" G_GINT64_FORMAT " must be a number of bytes >= 1",
			       json_node_get_int(value));
	return TRUE;
}

/* os_distro, os_version: "Rocky", "9.4", "AlmaLinux", "40" */
static gboolean
check_token(const gchar *key, JsonNode *value, GError **error)
{
	const gchar *text = json_node_get_string(value);
	gsize len = strlen(text);

	if (len == 0 || len > TOKEN_MAX_LEN || !g_ascii_isalnum(text[0]) ||
	    strspn(text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
		    len)
		return invalid(error, key,
			       "'%s' must be 1 to %d letters, digits, '.', '-' or '_', starting "
			       "with a letter or digit",
			       text, TOKEN_MAX_LEN);
	return TRUE;
}

static gboolean
check_memory(const gchar *key, JsonNode *value, GError **error)
{
	gint64 mib = json_node_get_int(value);

	if (mib < INSTALLER_MEMORY_MIN_MIB || mib > INSTALLER_MEMORY_MAX_MIB)
		return invalid(error, key, "%" G_GINT64_FORMAT " MiB is not between %d and %d MiB",
			       mib, INSTALLER_MEMORY_MIN_MIB, INSTALLER_MEMORY_MAX_MIB);
	return TRUE;
}

/* a kickstart installer's clock (doc/kickstart.md "Running the
 * installer"): seconds, at most a week */
static gboolean
check_clock(const gchar *key, JsonNode *value, GError **error)
{
	gint64 seconds = json_node_get_int(value);

	if (seconds < 1 || seconds > 7 * 24 * 3600)
		return invalid(error, key, "%" G_GINT64_FORMAT " s is not between 1 and 604800 s",
			       seconds);
	return TRUE;
}

/* a kernel command line fragment: one line of printable ASCII */
static gboolean
check_kernel_args(const gchar *key, JsonNode *value, GError **error)
{
	const gchar *text = json_node_get_string(value);

	for (const gchar *p = text; *p != '\0'; p++) {
		if ((guchar)*p < 0x20 || (guchar)*p > 0x7e)
			return invalid(error, key,
				       "'%s' must be printable ASCII on one line (no control or "
				       "non-ASCII characters)",
				       text);
	}
	if (strlen(text) > KERNEL_ARGS_MAX_LEN)
		return invalid(error, key, "longer than %d characters", KERNEL_ARGS_MAX_LEN);
	return TRUE;
}

/* clang-format off */
#define S GNT_IMAGE_VALUE_STRING
#define I GNT_IMAGE_VALUE_INT
const GntImageField gnt_image_fields[] = {
	{"url", FALSE, S, check_image_location, "URL", "Where the image is: a path on the nodes or an http(s) URL"},
	{"format", FALSE, S, check_format, "Format", "raw, qcow2 or tarball (a root filesystem tarball)"},
	{"sha256", FALSE, S, check_sha256, "SHA256", "SHA-256 of the image's bytes"},
	{"size", FALSE, I, check_size, "Size", "Size of the image in bytes"},
	{"os_distro", TRUE, S, check_token, "OsDistro", "OS distribution (RHEL, CentOS, Rocky, AlmaLinux, Fedora, ...)"},
	{"os_version", TRUE, S, check_token, "OsVersion", "OS version (9.4, 40, ...)"},
	{"installer_kernel", TRUE, S, check_image_location, "InstallerKernel", "The installer's kernel (path or http(s) URL)"},
	{"installer_initrd", TRUE, S, check_image_location, "InstallerInitrd", "The installer's initrd (path or http(s) URL)"},
	{"installer_stage2", TRUE, S, check_image_location, "InstallerStage2", "The installer's stage2 (inst.stage2, path or http(s) URL)"},
	{"ks_template", TRUE, S, check_ks_template, "KsTemplate", "Kickstart template (file:// or http(s) URL)"},
	{"installer_memory", TRUE, I, check_memory, "InstallerMemory", "Memory (MiB) the installer runs with"},
	{"installer_kernel_args", TRUE, S, check_kernel_args, "InstallerKernelArgs", "Extra kernel arguments of the installer"},
	{"installer_start_timeout", TRUE, I, check_clock, "InstallerStartTimeout", "Seconds the installer has to report start (overrides the cluster's)"},
	{"installer_end_timeout", TRUE, I, check_clock, "InstallerEndTimeout", "Seconds the installer has from start to end (overrides the cluster's)"},
	{NULL},
};
#undef S
#undef I
/* clang-format on */

const GntImageField *
gnt_image_field_lookup(const gchar *key)
{
	for (guint i = 0; key != NULL && gnt_image_fields[i].key != NULL; i++) {
		if (strcmp(gnt_image_fields[i].key, key) == 0)
			return &gnt_image_fields[i];
	}
	return NULL;
}

gboolean
gnt_image_check_value(const gchar *key, JsonNode *value, GError **error)
{
	const GntImageField *field = gnt_image_field_lookup(key);
	gboolean typed;

	if (field == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "unknown image key '%s'", key);
		return FALSE;
	}
	typed = field->type == GNT_IMAGE_VALUE_INT
			? value != NULL && gnt_json_node_is_int(value)
			: value != NULL && JSON_NODE_HOLDS_VALUE(value) &&
				  json_node_get_value_type(value) == G_TYPE_STRING;
	if (!typed)
		return invalid(error, key, "must be %s, not %s",
			       field->type == GNT_IMAGE_VALUE_INT ? "an integer" : "a string",
			       value != NULL ? gnt_json_node_type_name(value) : "missing");
	return field->check(key, value, error);
}

gboolean
gnt_image_is_name(const gchar *text)
{
	gsize len = text != NULL ? strlen(text) : 0;

	return len > 0 && len <= NAME_MAX_LEN && g_ascii_isalnum(text[0]) &&
	       strspn(text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
		       len;
}

gboolean
gnt_image_check_name(const gchar *name, GError **error)
{
	if (!gnt_image_is_name(name)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "invalid image name '%s': 1 to %d letters, digits, '.', '-' or '_', "
			    "starting with a letter or digit",
			    name != NULL ? name : "", NAME_MAX_LEN);
		return FALSE;
	}
	return TRUE;
}

static gboolean
check_members(JsonObject *obj, gboolean properties, GError **error)
{
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	json_object_iter_init(&iter, obj);
	while (json_object_iter_next(&iter, &key, &value)) {
		const GntImageField *field = gnt_image_field_lookup(key);

		if (!properties && g_strv_contains(identity_keys, key))
			continue;
		if (field == NULL || field->property != properties) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "unknown image %s '%s'",
				    properties ? "property" : "key", key);
			return FALSE;
		}
		/* an image's size may be unknown */
		if (JSON_NODE_HOLDS_NULL(value) && strcmp(key, "size") == 0)
			continue;
		if (!gnt_image_check_value(key, value, error))
			return FALSE;
	}
	return TRUE;
}

gboolean
gnt_image_record_check(JsonObject *record, GError **error)
{
	static const gchar *const required[] = {"url", "format", "sha256"};
	const gchar *name = json_object_get_string_member_with_default(record, "name", NULL);
	JsonObject *properties = NULL;

	if (!gnt_image_check_name(name, error))
		return FALSE;
	for (guint i = 0; i < G_N_ELEMENTS(required); i++) {
		if (!json_object_has_member(record, required[i])) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "image '%s': its %s is missing", name, required[i]);
			return FALSE;
		}
	}
	if (json_object_has_member(record, "properties") &&
	    !gnt_json_get_object(record, "properties", &properties, error)) {
		g_prefix_error(error, "image '%s': ", name);
		return FALSE;
	}
	if (!check_members(record, FALSE, error) ||
	    (properties != NULL && !check_members(properties, TRUE, error))) {
		g_prefix_error(error, "image '%s': ", name);
		return FALSE;
	}
	return TRUE;
}

JsonObject *
gnt_config_dup_image(GntConfig *config, const gchar *name)
{
	g_autoptr(JsonObject) image = NULL;

	g_return_val_if_fail(GNT_IS_CONFIG(config), NULL);

	if (name == NULL)
		return NULL;
	image = gnt_config_dup_object(config, GNT_OBJECT_IMAGE, name, NULL);
	/* exactly: the objects' short names ("rocky" for "rocky.9") are
	 * hostnames' and would make a catalog name ambiguous */
	if (image == NULL || (g_strcmp0(json_object_get_string_member(image, "name"), name) != 0 &&
			      g_strcmp0(json_object_get_string_member(image, "uuid"), name) != 0))
		return NULL;
	return g_steal_pointer(&image);
}

typedef struct {
	const gchar *name;
	GPtrArray *users;
} UsersCtx;

static gboolean
users_cb(JsonObject *record, gpointer user_data)
{
	UsersCtx *ctx = user_data;
	JsonObject *install = gnt_json_peek_object(record, "install");
	JsonNode *named = install != NULL ? json_object_get_member(install, GNT_IMAGE_INSTALL_KEY)
					  : NULL;

	if (named != NULL && JSON_NODE_HOLDS_VALUE(named) &&
	    json_node_get_value_type(named) == G_TYPE_STRING &&
	    g_strcmp0(json_node_get_string(named), ctx->name) == 0)
		g_ptr_array_add(ctx->users,
				g_strdup(json_object_get_string_member(record, "name")));
	return TRUE;
}

GPtrArray *
gnt_config_dup_image_users(GntConfig *config, const gchar *name)
{
	UsersCtx ctx = {name, g_ptr_array_new_with_free_func(g_free)};

	g_return_val_if_fail(GNT_IS_CONFIG(config) && name != NULL, NULL);

	gnt_config_foreach_object(config, GNT_OBJECT_INSTANCE, users_cb, &ctx);
	g_ptr_array_add(ctx.users, NULL);
	g_ptr_array_set_size(ctx.users, ctx.users->len - 1);
	return ctx.users;
}

JsonNode *
gnt_image_get_property(JsonObject *record, const gchar *key)
{
	JsonObject *properties = gnt_json_peek_object(record, "properties");

	return properties != NULL && json_object_has_member(properties, key)
		       ? json_object_get_member(properties, key)
		       : NULL;
}

/* ---- the query resource ---- */

/* A member of the record (or of its properties) named by the field. */
static JsonNode *
get_member(const GntQueryField *field, gconstpointer item, gpointer user_data,
	   GntQueryStatus *status)
{
	JsonObject *record = gnt_config_query_item_json(item);
	const GntImageField *image_field = gnt_image_field_lookup(field->key);
	JsonNode *value = image_field != NULL && image_field->property
				  ? gnt_image_get_property(record, field->key)
				  : (json_object_has_member(record, field->key)
					     ? json_object_get_member(record, field->key)
					     : NULL);

	if (value == NULL) {
		/* a property not set, or a record without the key */
		*status = image_field != NULL ? GNT_QUERY_STATUS_NORMAL : GNT_QUERY_STATUS_UNAVAIL;
		return image_field != NULL ? gnt_json_node_new_null() : NULL;
	}
	return gnt_json_node_deep_copy(value);
}

#define MEMBER(name, title, kind, doc)                                                             \
	{                                                                                          \
		(name), (title), GNT_QUERY_KIND_##kind, GNT_QUERY_FLAG_NONE, (doc), NULL, NULL,    \
			get_member, (name), 0                                                      \
	}

/* clang-format off */
static const GntQueryField identity_fields[] = {
	MEMBER("name", "Image", TEXT, "Image name"),
	MEMBER("uuid", "UUID", TEXT, "Image UUID"),
	MEMBER("serial_no", "SerialNo", NUMBER, "Image object serial number, incremented on each modification"),
	MEMBER("ctime", "CTime", TIMESTAMP, "Creation timestamp"),
	MEMBER("mtime", "MTime", TIMESTAMP, "Modification timestamp"),
	MEMBER("properties", "Properties", OTHER, "The image's properties"),
};
/* clang-format on */

static gint
field_compare(gconstpointer a, gconstpointer b)
{
	return strcmp(((const GntQueryField *)a)->name, ((const GntQueryField *)b)->name);
}

const GntQueryField *
gnt_image_query_table(void)
{
	static gsize table = 0;

	if (g_once_init_enter(&table)) {
		GArray *fields = g_array_new(TRUE, TRUE, sizeof(GntQueryField));

		g_array_append_vals(fields, identity_fields, G_N_ELEMENTS(identity_fields));
		for (guint i = 0; gnt_image_fields[i].key != NULL; i++) {
			const GntImageField *image_field = &gnt_image_fields[i];
			GntQueryField field = MEMBER(image_field->key, image_field->title, TEXT,
						     image_field->doc);

			if (image_field->type == GNT_IMAGE_VALUE_INT)
				field.kind = GNT_QUERY_KIND_NUMBER;
			g_array_append_val(fields, field);
		}
		g_array_sort(fields, field_compare);
		/* the zero-terminated array ends with {NULL} */
		g_once_init_leave(&table, (gsize)g_array_free(fields, FALSE));
	}
	return (const GntQueryField *)table;
}
