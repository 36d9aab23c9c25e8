#include "gnt-os-env.h"

#include <stdlib.h>
#include <string.h>

#include "gnt-json.h"

typedef enum {
	PARAM_PUBLIC,
	PARAM_PRIVATE,
	PARAM_SECRET,
} ParamKind;

typedef struct {
	ParamKind kind;
	gchar *value;	   /* public */
	GntSecret *secret; /* private and secret */
} Param;

struct _GntOsEnv {
	gchar *os_name; /* as given: INSTANCE_OS */
	gchar *os_base; /* OS_NAME */
	gchar *variant; /* OS_VARIANT */
	guint api_version;
	guint debug_level;
	gchar *instance_name;
	gchar *instance_uuid;
	gchar *hypervisor;
	gdouble ctime;
	gdouble mtime;
	gchar *primary_node;
	gchar *secondary_nodes; /* space-separated */
	JsonObject *hvparams;
	JsonObject *beparams;
	GPtrArray *disks;   /* GntOsDisk */
	GPtrArray *nics;    /* GntOsNic */
	GHashTable *params; /* name -> Param */
	gboolean reinstall;
	gchar *old_name;
	gint disk_index;
	GHashTable *extras; /* key -> value */
};

GntOsDisk *
gnt_os_disk_new(void)
{
	return g_new0(GntOsDisk, 1);
}

void
gnt_os_disk_free(GntOsDisk *self)
{
	if (self == NULL)
		return;
	g_free(self->path);
	g_free(self->uri);
	g_free(self->access);
	g_free(self->uuid);
	g_free(self->name);
	g_free(self->backend_type);
	g_free(self->format);
	g_free(self);
}

GntOsDisk *
gnt_os_disk_copy(const GntOsDisk *self)
{
	GntOsDisk *copy;

	g_return_val_if_fail(self != NULL, NULL);

	copy = gnt_os_disk_new();
	copy->path = g_strdup(self->path);
	copy->uri = g_strdup(self->uri);
	copy->access = g_strdup(self->access);
	copy->uuid = g_strdup(self->uuid);
	copy->name = g_strdup(self->name);
	copy->size_mib = self->size_mib;
	copy->backend_type = g_strdup(self->backend_type);
	copy->format = g_strdup(self->format);
	return copy;
}

GntOsNic *
gnt_os_nic_new(void)
{
	return g_new0(GntOsNic, 1);
}

void
gnt_os_nic_free(GntOsNic *self)
{
	if (self == NULL)
		return;
	g_free(self->mac);
	g_free(self->uuid);
	g_free(self->name);
	g_free(self->ip);
	g_free(self->link);
	g_free(self);
}

GntOsNic *
gnt_os_nic_copy(const GntOsNic *self)
{
	GntOsNic *copy;

	g_return_val_if_fail(self != NULL, NULL);

	copy = gnt_os_nic_new();
	copy->mac = g_strdup(self->mac);
	copy->uuid = g_strdup(self->uuid);
	copy->name = g_strdup(self->name);
	copy->ip = g_strdup(self->ip);
	copy->mode = self->mode;
	copy->link = g_strdup(self->link);
	return copy;
}

static void
param_free(gpointer data)
{
	Param *param = data;

	g_free(param->value);
	g_clear_pointer(&param->secret, gnt_secret_free);
	g_free(param);
}

/* Values may hold secrets: zeroed before they are freed. */
static void
value_free(gpointer data)
{
	gnt_secret_wipe_string(data);
	g_free(data);
}

GntOsEnv *
gnt_os_env_new(const GntOsDefinition *os, const gchar *os_name, guint debug_level)
{
	GntOsEnv *self;

	g_return_val_if_fail(os != NULL && os->valid && os_name != NULL, NULL);

	self = g_new0(GntOsEnv, 1);
	self->os_name = g_strdup(os_name);
	self->os_base = g_strdup(os->name);
	self->variant = g_strdup(gnt_os_definition_get_variant(os, os_name));
	self->api_version = os->api_version;
	self->debug_level = debug_level;
	self->disks = g_ptr_array_new_with_free_func((GDestroyNotify)gnt_os_disk_free);
	self->nics = g_ptr_array_new_with_free_func((GDestroyNotify)gnt_os_nic_free);
	self->params = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, param_free);
	self->extras = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, value_free);
	self->disk_index = -1;
	return self;
}

void
gnt_os_env_free(GntOsEnv *self)
{
	if (self == NULL)
		return;
	g_free(self->os_name);
	g_free(self->os_base);
	g_free(self->variant);
	g_free(self->instance_name);
	g_free(self->instance_uuid);
	g_free(self->hypervisor);
	g_free(self->primary_node);
	g_free(self->secondary_nodes);
	g_clear_pointer(&self->hvparams, json_object_unref);
	g_clear_pointer(&self->beparams, json_object_unref);
	g_ptr_array_unref(self->disks);
	g_ptr_array_unref(self->nics);
	g_hash_table_unref(self->params);
	g_free(self->old_name);
	g_hash_table_unref(self->extras);
	g_free(self);
}

void
gnt_os_env_set_instance(GntOsEnv *self, const gchar *name, const gchar *uuid,
			const gchar *hypervisor)
{
	g_return_if_fail(self != NULL && name != NULL);

	g_free(self->instance_name);
	self->instance_name = g_strdup(name);
	g_free(self->instance_uuid);
	self->instance_uuid = g_strdup(uuid);
	g_free(self->hypervisor);
	self->hypervisor = g_strdup(hypervisor);
}

void
gnt_os_env_set_times(GntOsEnv *self, gdouble ctime, gdouble mtime)
{
	g_return_if_fail(self != NULL);

	self->ctime = ctime;
	self->mtime = mtime;
}

void
gnt_os_env_set_nodes(GntOsEnv *self, const gchar *primary, const gchar *const *secondaries)
{
	g_return_if_fail(self != NULL);

	g_free(self->primary_node);
	self->primary_node = g_strdup(primary);
	g_free(self->secondary_nodes);
	self->secondary_nodes = secondaries != NULL ? g_strjoinv(" ", (gchar **)secondaries) : NULL;
}

void
gnt_os_env_set_hvparams(GntOsEnv *self, JsonObject *hvparams)
{
	g_return_if_fail(self != NULL);

	g_clear_pointer(&self->hvparams, json_object_unref);
	if (hvparams != NULL)
		self->hvparams = gnt_json_object_deep_copy(hvparams);
}

void
gnt_os_env_set_beparams(GntOsEnv *self, JsonObject *beparams)
{
	g_return_if_fail(self != NULL);

	g_clear_pointer(&self->beparams, json_object_unref);
	if (beparams != NULL)
		self->beparams = gnt_json_object_deep_copy(beparams);
}

void
gnt_os_env_add_disk(GntOsEnv *self, const GntOsDisk *disk)
{
	g_return_if_fail(self != NULL && disk != NULL);

	g_ptr_array_add(self->disks, gnt_os_disk_copy(disk));
}

void
gnt_os_env_add_nic(GntOsEnv *self, const GntOsNic *nic)
{
	g_return_if_fail(self != NULL && nic != NULL);

	g_ptr_array_add(self->nics, gnt_os_nic_copy(nic));
}

static void
set_param(GntOsEnv *self, const gchar *name, Param *param)
{
	g_hash_table_replace(self->params, g_strdup(name), param);
}

void
gnt_os_env_set_param(GntOsEnv *self, const gchar *name, const gchar *value)
{
	Param *param;

	g_return_if_fail(self != NULL && name != NULL && value != NULL);

	param = g_new0(Param, 1);
	param->kind = PARAM_PUBLIC;
	param->value = g_strdup(value);
	set_param(self, name, param);
}

void
gnt_os_env_set_param_private(GntOsEnv *self, const gchar *name, const gchar *value)
{
	Param *param;

	g_return_if_fail(self != NULL && name != NULL && value != NULL);

	param = g_new0(Param, 1);
	param->kind = PARAM_PRIVATE;
	param->secret = gnt_secret_new(value, -1);
	set_param(self, name, param);
}

void
gnt_os_env_set_param_secret(GntOsEnv *self, const gchar *name, const GntSecret *value)
{
	Param *param;

	g_return_if_fail(self != NULL && name != NULL && value != NULL);

	param = g_new0(Param, 1);
	param->kind = PARAM_SECRET;
	param->secret = gnt_secret_copy(value);
	set_param(self, name, param);
}

/* qsort() over an array of strings */
static int
compare_strings(const void *a, const void *b)
{
	return strcmp(*(const gchar *const *)a, *(const gchar *const *)b);
}

GStrv
gnt_os_env_dup_param_names(const GntOsEnv *self)
{
	g_autofree const gchar **keys = NULL;
	guint n = 0;
	GStrv names;

	g_return_val_if_fail(self != NULL, NULL);

	keys = (const gchar **)g_hash_table_get_keys_as_array(self->params, &n);
	names = g_new0(gchar *, n + 1);
	for (guint i = 0; i < n; i++)
		names[i] = g_strdup(keys[i]);
	qsort(names, n, sizeof(gchar *), compare_strings);
	return names;
}

void
gnt_os_env_set_reinstall(GntOsEnv *self, gboolean reinstall)
{
	g_return_if_fail(self != NULL);

	self->reinstall = reinstall;
}

void
gnt_os_env_set_old_name(GntOsEnv *self, const gchar *old_name)
{
	g_return_if_fail(self != NULL);

	g_free(self->old_name);
	self->old_name = g_strdup(old_name);
}

void
gnt_os_env_set_disk_index(GntOsEnv *self, guint index)
{
	g_return_if_fail(self != NULL && index <= G_MAXINT);

	self->disk_index = (gint)index;
}

gint
gnt_os_env_get_disk_index(const GntOsEnv *self)
{
	g_return_val_if_fail(self != NULL, -1);

	return self->disk_index;
}

const gchar *
gnt_os_env_get_instance_name(const GntOsEnv *self)
{
	g_return_val_if_fail(self != NULL, NULL);

	return self->instance_name;
}

const gchar *
gnt_os_env_get_old_name(const GntOsEnv *self)
{
	g_return_val_if_fail(self != NULL, NULL);

	return self->old_name;
}

const gchar *
gnt_os_env_get_os_name(const GntOsEnv *self)
{
	g_return_val_if_fail(self != NULL, NULL);

	return self->os_name;
}

void
gnt_os_env_set_extra(GntOsEnv *self, const gchar *key, const gchar *value)
{
	g_return_if_fail(self != NULL && key != NULL && value != NULL);

	g_hash_table_replace(self->extras, g_strdup(key), g_strdup(value));
}

/* Python's repr() of a string, as str() of a list or dict shows it. */
static void
append_py_repr_string(GString *out, const gchar *value)
{
	g_string_append_c(out, '\'');
	for (const gchar *p = value; *p != '\0'; p++) {
		if (*p == '\\' || *p == '\'')
			g_string_append_c(out, '\\');
		g_string_append_c(out, *p);
	}
	g_string_append_c(out, '\'');
}

/* Python's str() of a JSON value: True, 3, 0.5, None, ['a'], {'k': 1}. */
static void
append_py_str(GString *out, JsonNode *node, gboolean nested)
{
	switch (JSON_NODE_TYPE(node)) {
	case JSON_NODE_NULL:
		g_string_append(out, "None");
		return;
	case JSON_NODE_ARRAY: {
		JsonArray *array = json_node_get_array(node);

		g_string_append_c(out, '[');
		for (guint i = 0; i < json_array_get_length(array); i++) {
			if (i > 0)
				g_string_append(out, ", ");
			append_py_str(out, json_array_get_element(array, i), TRUE);
		}
		g_string_append_c(out, ']');
		return;
	}
	case JSON_NODE_OBJECT: {
		JsonObjectIter iter;
		const gchar *key;
		JsonNode *member;
		gboolean first = TRUE;

		g_string_append_c(out, '{');
		json_object_iter_init(&iter, json_node_get_object(node));
		while (json_object_iter_next(&iter, &key, &member)) {
			if (!first)
				g_string_append(out, ", ");
			first = FALSE;
			append_py_repr_string(out, key);
			g_string_append(out, ": ");
			append_py_str(out, member, TRUE);
		}
		g_string_append_c(out, '}');
		return;
	}
	case JSON_NODE_VALUE:
		break;
	}
	switch (json_node_get_value_type(node)) {
	case G_TYPE_BOOLEAN:
		g_string_append(out, json_node_get_boolean(node) ? "True" : "False");
		break;
	case G_TYPE_INT64:
		g_string_append_printf(out, "%" G_GINT64_FORMAT, json_node_get_int(node));
		break;
	case G_TYPE_DOUBLE: {
		g_autofree gchar *text = gnt_json_format_double(json_node_get_double(node));

		g_string_append(out, text);
		break;
	}
	default:
		if (nested)
			append_py_repr_string(out, json_node_get_string(node));
		else
			g_string_append(out, json_node_get_string(node));
		break;
	}
}

static gchar *
py_str(JsonNode *node)
{
	GString *out = g_string_new(NULL);

	append_py_str(out, node, FALSE);
	return g_string_free(out, FALSE);
}

static gchar *
py_float(gdouble value)
{
	return gnt_json_format_double(value);
}

/* OSP_<NAME>: upper-cased, '-' and '.' to '_'. */
static gchar *
osp_key(const gchar *name)
{
	gchar *key = g_strconcat("OSP_", name, NULL);

	for (gchar *p = key + 4; *p != '\0'; p++) {
		if (*p == '-' || *p == '.')
			*p = '_';
		else
			*p = g_ascii_toupper(*p);
	}
	return key;
}

static void
put(GHashTable *vars, gchar *key, gchar *value)
{
	g_hash_table_replace(vars, key, value);
}

static void
put_printf(GHashTable *vars, const gchar *value, const gchar *key_format, ...) G_GNUC_PRINTF(3, 4);

static void
put_printf(GHashTable *vars, const gchar *value, const gchar *key_format, ...)
{
	va_list args;
	gchar *key;

	va_start(args, key_format);
	key = g_strdup_vprintf(key_format, args);
	va_end(args);
	put(vars, key, g_strdup(value));
}

static void
add_core(const GntOsEnv *self, GHashTable *vars, gboolean redact)
{
	GHashTableIter iter;
	gpointer name;
	gpointer data;

	put(vars, g_strdup("OS_API_VERSION"), g_strdup_printf("%u", self->api_version));
	put(vars, g_strdup("OS_NAME"), g_strdup(self->os_base));
	put(vars, g_strdup("OS_VARIANT"), g_strdup(self->variant));
	put(vars, g_strdup("DEBUG_LEVEL"), g_strdup_printf("%u", self->debug_level));
	g_hash_table_iter_init(&iter, self->params);
	while (g_hash_table_iter_next(&iter, &name, &data)) {
		const Param *param = data;
		const gchar *value;

		if (param->kind == PARAM_PUBLIC)
			value = param->value;
		else if (redact)
			value = GNT_SECRET_REDACTED;
		else
			value = gnt_secret_get(param->secret);
		put(vars, osp_key(name), g_strdup(value));
	}
	put(vars, g_strdup("PATH"), g_strdup(GNT_OS_ENV_PATH));
}

static void
add_params_dump(GHashTable *vars, JsonObject *params, const gchar *kind)
{
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *value;

	if (params == NULL)
		return;
	json_object_iter_init(&iter, params);
	while (json_object_iter_next(&iter, &key, &value))
		put(vars, g_strdup_printf("INSTANCE_%s_%s", kind, key), py_str(value));
}

/* hvparams[@key] as str(), or NULL when absent. */
static gchar *
dup_hvparam(const GntOsEnv *self, const gchar *key)
{
	JsonNode *node;

	if (self->hvparams == NULL)
		return NULL;
	node = json_object_get_member(self->hvparams, key);
	return node != NULL ? py_str(node) : NULL;
}

static void
add_disks(const GntOsEnv *self, GHashTable *vars)
{
	g_autofree gchar *frontend = dup_hvparam(self, "disk_type");

	put(vars, g_strdup("DISK_COUNT"), g_strdup_printf("%u", self->disks->len));
	for (guint i = 0; i < self->disks->len; i++) {
		const GntOsDisk *disk = g_ptr_array_index(self->disks, i);

		put_printf(vars, disk->access != NULL ? disk->access : "rw", "DISK_%u_ACCESS", i);
		put_printf(vars, disk->uuid != NULL ? disk->uuid : "", "DISK_%u_UUID", i);
		put(vars, g_strdup_printf("DISK_%u_SIZE", i),
		    g_strdup_printf("%" G_GUINT64_FORMAT, disk->size_mib));
		if (disk->path != NULL)
			put_printf(vars, disk->path, "DISK_%u_PATH", i);
		if (disk->uri != NULL)
			put_printf(vars, disk->uri, "DISK_%u_URI", i);
		if (disk->name != NULL && *disk->name != '\0')
			put_printf(vars, disk->name, "DISK_%u_NAME", i);
		if (frontend != NULL)
			put_printf(vars, frontend, "DISK_%u_FRONTEND_TYPE", i);
		if (disk->backend_type != NULL)
			put_printf(vars, disk->backend_type, "DISK_%u_BACKEND_TYPE", i);
		if (disk->format != NULL)
			put_printf(vars, disk->format, "DISK_%u_FORMAT", i);
	}
}

static void
add_nics(const GntOsEnv *self, GHashTable *vars)
{
	g_autofree gchar *frontend = dup_hvparam(self, "nic_type");

	put(vars, g_strdup("NIC_COUNT"), g_strdup_printf("%u", self->nics->len));
	for (guint i = 0; i < self->nics->len; i++) {
		const GntOsNic *nic = g_ptr_array_index(self->nics, i);

		put_printf(vars, nic->mac != NULL ? nic->mac : "", "NIC_%u_MAC", i);
		put_printf(vars, nic->uuid != NULL ? nic->uuid : "", "NIC_%u_UUID", i);
		if (nic->name != NULL && *nic->name != '\0')
			put_printf(vars, nic->name, "NIC_%u_NAME", i);
		if (nic->ip != NULL && *nic->ip != '\0')
			put_printf(vars, nic->ip, "NIC_%u_IP", i);
		put_printf(vars, gnt_nic_mode_to_string(nic->mode), "NIC_%u_MODE", i);
		if (nic->mode == GNT_NIC_MODE_BRIDGED)
			put_printf(vars, nic->link != NULL ? nic->link : "", "NIC_%u_BRIDGE", i);
		if (nic->link != NULL && *nic->link != '\0')
			put_printf(vars, nic->link, "NIC_%u_LINK", i);
		if (frontend != NULL)
			put_printf(vars, frontend, "NIC_%u_FRONTEND_TYPE", i);
	}
}

static void
add_instance(const GntOsEnv *self, GHashTable *vars)
{
	put(vars, g_strdup("INSTANCE_NAME"), g_strdup(self->instance_name));
	put(vars, g_strdup("INSTANCE_OS"), g_strdup(self->os_name));
	put(vars, g_strdup("INSTANCE_UUID"),
	    g_strdup(self->instance_uuid ? self->instance_uuid : ""));
	put(vars, g_strdup("INSTANCE_CTIME"), py_float(self->ctime));
	put(vars, g_strdup("INSTANCE_MTIME"), py_float(self->mtime));
	put(vars, g_strdup("INSTANCE_PRIMARY_NODE"),
	    g_strdup(self->primary_node ? self->primary_node : ""));
	put(vars, g_strdup("INSTANCE_SECONDARY_NODES"),
	    g_strdup(self->secondary_nodes ? self->secondary_nodes : ""));
	put(vars, g_strdup("HYPERVISOR"), g_strdup(self->hypervisor ? self->hypervisor : ""));
	add_disks(self, vars);
	add_nics(self, vars);
	add_params_dump(vars, self->beparams, "BE");
	add_params_dump(vars, self->hvparams, "HV");
}

/* IMPORT_* or EXPORT_* for the selected disk. */
static void
add_transfer(const GntOsEnv *self, GHashTable *vars, const gchar *prefix)
{
	const GntOsDisk *disk;

	g_return_if_fail(self->disk_index >= 0 && (guint)self->disk_index < self->disks->len);

	disk = g_ptr_array_index(self->disks, self->disk_index);
	if (disk->path != NULL) {
		put_printf(vars, disk->path, "%s_DEVICE", prefix);
		put_printf(vars, disk->path, "%s_DISK_PATH", prefix);
	}
	if (disk->uri != NULL)
		put_printf(vars, disk->uri, "%s_DISK_URI", prefix);
	put(vars, g_strdup_printf("%s_INDEX", prefix), g_strdup_printf("%d", self->disk_index));
}

gchar **
gnt_os_env_build(const GntOsEnv *self, GntOsScript script, gboolean redact)
{
	g_autoptr(GHashTable) vars = NULL;
	g_autofree gpointer *keys = NULL;
	GHashTableIter iter;
	gpointer key;
	gpointer value;
	gchar **envp;
	guint n = 0;

	g_return_val_if_fail(self != NULL && script < GNT_OS_SCRIPT_LAST, NULL);
	g_return_val_if_fail(script == GNT_OS_SCRIPT_VERIFY || self->instance_name != NULL, NULL);

	vars = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, value_free);
	add_core(self, vars, redact);
	switch (script) {
	case GNT_OS_SCRIPT_VERIFY:
	case GNT_OS_SCRIPT_LAST:
		break;
	case GNT_OS_SCRIPT_CREATE:
		add_instance(self, vars);
		if (self->reinstall)
			put(vars, g_strdup("INSTANCE_REINSTALL"), g_strdup("1"));
		break;
	case GNT_OS_SCRIPT_RENAME:
		add_instance(self, vars);
		if (self->old_name != NULL)
			put(vars, g_strdup("OLD_INSTANCE_NAME"), g_strdup(self->old_name));
		break;
	case GNT_OS_SCRIPT_IMPORT:
		add_instance(self, vars);
		add_transfer(self, vars, "IMPORT");
		break;
	case GNT_OS_SCRIPT_EXPORT:
		add_instance(self, vars);
		add_transfer(self, vars, "EXPORT");
		break;
	}
	g_hash_table_iter_init(&iter, self->extras);
	while (g_hash_table_iter_next(&iter, &key, &value))
		put(vars, g_strdup(key), g_strdup(value));

	keys = g_hash_table_get_keys_as_array(vars, &n);
	qsort(keys, n, sizeof(gpointer), compare_strings);
	envp = g_new0(gchar *, n + 1);
	for (guint i = 0; i < n; i++)
		envp[i] = g_strconcat(keys[i], "=", g_hash_table_lookup(vars, keys[i]), NULL);
	return envp;
}

void
gnt_os_envp_free(gchar **envp)
{
	if (envp == NULL)
		return;
	for (guint i = 0; envp[i] != NULL; i++)
		gnt_secret_wipe_string(envp[i]);
	g_strfreev(envp);
}
