/*
 * Ganeti's ssconf files, written from the config (gnt-ssconf.h). The
 * values are those of Ganeti's mkSSConf, from what the config answers
 * QueryClusterInfo and from the node and instance records.
 */
#include "gnt-ssconf.h"

#include <errno.h>
#include <string.h>

#include "gnt-error.h"
#include "gnt-json.h"

#define SSCONF_PREFIX "ssconf_"
/* Ganeti's ReadSsconfFile refuses larger files */
#define SSCONF_MAX_SIZE (128 * 1024)

static const gchar *const keys[] = {
	"cluster_name",
	"cluster_tags",
	"enabled_user_shutdown",
	"file_storage_dir",
	"gluster_storage_dir",
	"hvparams_fake",
	"hvparams_kvm",
	"hypervisor_list",
	"instance_list",
	"maintain_node_health",
	"master_candidates",
	"master_candidates_ips",
	"master_ip",
	"master_netdev",
	"master_netmask",
	"master_node",
	"node_list",
	"node_primary_ips",
	"node_secondary_ips",
	"node_vm_capable",
	"offline_nodes",
	"online_nodes",
	"primary_ip_family",
	"release_version",
	"shared_file_storage_dir",
	"uid_pool",
	NULL,
};

const gchar *const *
gnt_ssconf_keys(void)
{
	return keys;
}

/* Python's str() of a bool, as Ganeti's files hold them */
static const gchar *
py_bool(gboolean value)
{
	return value ? "True" : "False";
}

static void
string_free(gpointer text)
{
	g_string_free(text, TRUE);
}

static void
add_line(GHashTable *files, const gchar *key, const gchar *line)
{
	GString *text = g_hash_table_lookup(files, key);

	g_return_if_fail(text != NULL);
	g_string_append_printf(text, "%s\n", line);
}

/* A string, a number or a bool of @info as one line; nothing for null. */
static void
add_info_value(GHashTable *files, const gchar *key, JsonObject *info, const gchar *member)
{
	JsonNode *value = json_object_get_member(info, member);
	g_autofree gchar *text = NULL;

	if (value == NULL || JSON_NODE_HOLDS_NULL(value) || !JSON_NODE_HOLDS_VALUE(value))
		return;
	if (json_node_get_value_type(value) == G_TYPE_STRING)
		text = g_strdup(json_node_get_string(value));
	else if (json_node_get_value_type(value) == G_TYPE_BOOLEAN)
		text = g_strdup(py_bool(json_node_get_boolean(value)));
	else
		text = gnt_json_to_string(value);
	add_line(files, key, text);
}

/* One line per string of the list @member of @info. */
static void
add_info_list(GHashTable *files, const gchar *key, JsonObject *info, const gchar *member)
{
	JsonArray *list = NULL;

	if (!gnt_json_get_array(info, member, &list, NULL))
		return;
	for (guint i = 0; i < json_array_get_length(list); i++) {
		JsonNode *item = json_array_get_element(list, i);
		g_autofree gchar *text = JSON_NODE_HOLDS_VALUE(item) &&
							 json_node_get_value_type(item) ==
								 G_TYPE_STRING
						 ? g_strdup(json_node_get_string(item))
						 : gnt_json_to_string(item);

		add_line(files, key, text);
	}
}

/* hvparams_<hv>: "name=value" lines of the cluster's parameters. */
static void
add_hvparams(GHashTable *files, JsonObject *info, const gchar *hv)
{
	g_autofree gchar *key = g_strconcat("hvparams_", hv, NULL);
	JsonObject *hvparams = NULL;
	JsonObject *params = NULL;
	g_autoptr(GList) names = NULL;

	if (!gnt_json_get_object(info, "hvparams", &hvparams, NULL) ||
	    !gnt_json_get_object(hvparams, hv, &params, NULL))
		return;
	names = g_list_sort(json_object_get_members(params), (GCompareFunc)g_strcmp0);
	for (GList *l = names; l != NULL; l = l->next) {
		JsonNode *value = json_object_get_member(params, l->data);
		g_autofree gchar *text = JSON_NODE_HOLDS_VALUE(value) &&
							 json_node_get_value_type(value) ==
								 G_TYPE_STRING
						 ? g_strdup(json_node_get_string(value))
						 : gnt_json_to_string(value);
		g_autofree gchar *line = g_strdup_printf("%s=%s", (const gchar *)l->data, text);

		add_line(files, key, line);
	}
}

static gboolean
record_bool(JsonObject *record, const gchar *member)
{
	gboolean value = FALSE;

	gnt_json_get_bool(record, member, &value, NULL);
	return value;
}

static const gchar *
record_string(JsonObject *record, const gchar *member)
{
	const gchar *value = NULL;

	gnt_json_get_string(record, member, &value, NULL);
	return value != NULL ? value : "";
}

static void
add_nodes(GHashTable *files, GPtrArray *nodes, const gchar *master)
{
	for (guint i = 0; i < nodes->len; i++) {
		JsonObject *node = g_ptr_array_index(nodes, i);
		const gchar *name = record_string(node, "name");
		g_autofree gchar *pip =
			g_strdup_printf("%s %s", name, record_string(node, "primary_ip"));
		g_autofree gchar *sip =
			g_strdup_printf("%s %s", name, record_string(node, "secondary_ip"));
		g_autofree gchar *vm =
			g_strdup_printf("%s=%s", name, py_bool(record_bool(node, "vm_capable")));

		add_line(files, "node_list", name);
		add_line(files, "node_primary_ips", pip);
		add_line(files, "node_secondary_ips", sip);
		add_line(files, "node_vm_capable", vm);
		add_line(files, record_bool(node, "offline") ? "offline_nodes" : "online_nodes",
			 name);
		if (record_bool(node, "master_candidate")) {
			add_line(files, "master_candidates", name);
			add_line(files, "master_candidates_ips", record_string(node, "primary_ip"));
		}
		/* Gantry has no separate cluster IP: the master's own */
		if (g_strcmp0(name, master) == 0)
			add_line(files, "master_ip", record_string(node, "primary_ip"));
	}
}

/* instance_list: the names only, read without making each instance's JSON */
static gboolean
add_instance_name_cb(GntConfigRecord *record, gpointer user_data)
{
	const gchar *name = gnt_config_record_get_name(record);

	add_line(user_data, "instance_list", name != NULL ? name : "");
	return TRUE;
}

GHashTable *
gnt_ssconf_build(GntConfig *config)
{
	g_autoptr(GHashTable)
		files = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, string_free);
	g_autoptr(JsonObject) info = gnt_config_dup_cluster_info(config);
	g_autoptr(GPtrArray) nodes = gnt_config_dup_objects(config, GNT_OBJECT_NODE);
	GHashTable *out;
	GHashTableIter iter;
	gpointer key;
	gpointer value;
	gint64 family = 4;

	g_return_val_if_fail(GNT_IS_CONFIG(config), NULL);

	for (guint i = 0; keys[i] != NULL; i++)
		g_hash_table_insert(files, (gpointer)keys[i], g_string_new(NULL));
	add_info_value(files, "cluster_name", info, "name");
	add_info_list(files, "cluster_tags", info, "tags");
	add_info_value(files, "enabled_user_shutdown", info, "enabled_user_shutdown");
	add_info_value(files, "file_storage_dir", info, "file_storage_dir");
	add_info_value(files, "gluster_storage_dir", info, "gluster_storage_dir");
	add_info_value(files, "shared_file_storage_dir", info, "shared_file_storage_dir");
	add_hvparams(files, info, "fake");
	add_hvparams(files, info, "kvm");
	add_info_list(files, "hypervisor_list", info, "enabled_hypervisors");
	add_info_value(files, "maintain_node_health", info, "maintain_node_health");
	add_info_value(files, "master_netdev", info, "master_netdev");
	add_info_value(files, "master_netmask", info, "master_netmask");
	add_info_value(files, "master_node", info, "master");
	add_info_value(files, "release_version", info, "software_version");
	add_info_list(files, "uid_pool", info, "uid_pool");
	/* Ganeti writes the address family: AF_INET 2, AF_INET6 10 */
	gnt_json_get_int(info, "primary_ip_version", &family, NULL);
	add_line(files, "primary_ip_family", family == 6 ? "10" : "2");
	add_nodes(files, nodes, record_string(info, "master"));
	gnt_config_foreach_record(config, GNT_OBJECT_INSTANCE, add_instance_name_cb, files);

	out = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
	g_hash_table_iter_init(&iter, files);
	while (g_hash_table_iter_next(&iter, &key, &value))
		g_hash_table_insert(out, key, g_strdup(((GString *)value)->str));
	return out;
}

static gchar *
dup_path(const gchar *dir, const gchar *key)
{
	g_autofree gchar *name = g_strconcat(SSCONF_PREFIX, key, NULL);

	return g_build_filename(dir, name, NULL);
}

gboolean
gnt_ssconf_write(GntConfig *config, const gchar *dir, GError **error)
{
	g_autoptr(GHashTable) files = NULL;

	g_return_val_if_fail(GNT_IS_CONFIG(config) && dir != NULL, FALSE);

	files = gnt_ssconf_build(config);
	for (guint i = 0; keys[i] != NULL; i++) {
		const gchar *text = g_hash_table_lookup(files, keys[i]);
		g_autofree gchar *path = dup_path(dir, keys[i]);
		g_autofree gchar *old = NULL;
		gsize old_len = 0;

		if (g_file_get_contents(path, &old, &old_len, NULL) && g_strcmp0(old, text) == 0)
			continue;
		/* g_file_set_contents_full: a temporary file renamed over the
		 * old one, so a reader never sees half a file */
		if (!g_file_set_contents_full(path, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0644,
					      error)) {
			gnt_error_convert(error);
			g_prefix_error(error, "writing ssconf file '%s': ", path);
			return FALSE;
		}
	}
	return TRUE;
}

gchar *
gnt_ssconf_read(const gchar *dir, const gchar *key, GError **error)
{
	g_autofree gchar *path = NULL;
	g_autofree gchar *text = NULL;
	g_autoptr(GError) local = NULL;
	gsize len = 0;

	g_return_val_if_fail(dir != NULL && key != NULL, NULL);

	if (!g_strv_contains(keys, key)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "unknown ssconf key '%s'", key);
		return NULL;
	}
	path = dup_path(dir, key);
	if (!g_file_get_contents(path, &text, &len, &local)) {
		g_set_error(error, GNT_ERROR,
			    g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_NOENT)
				    ? GNT_ERROR_NOT_FOUND
				    : GNT_ERROR_ENVIRONMENT,
			    "Can't read ssconf file %s: %s", path, local->message);
		return NULL;
	}
	if (len > SSCONF_MAX_SIZE) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "File '%s' has a size of %" G_GSIZE_FORMAT " bytes (up to %d allowed)",
			    path, len, SSCONF_MAX_SIZE);
		return NULL;
	}
	while (len > 0 && text[len - 1] == '\n')
		text[--len] = '\0';
	return g_steal_pointer(&text);
}

/* ---- keeping them current ---- */

struct _GntSsconfWatch {
	GntConfig *config;
	gchar *dir;
	GMainContext *context;
	GMutex lock;	 /* guards source */
	GSource *source; /* the pending write, NULL: none */
};

static gboolean
watch_write(gpointer data)
{
	GntSsconfWatch *self = data;
	g_autoptr(GError) error = NULL;

	g_mutex_lock(&self->lock);
	g_clear_pointer(&self->source, g_source_unref);
	g_mutex_unlock(&self->lock);
	/* a change after this point schedules the next write */
	if (!gnt_ssconf_write(self->config, self->dir, &error))
		g_warning("%s", error->message);
	return G_SOURCE_REMOVE;
}

/* The config's change hook: runs with the config locked, on any thread,
 * so it only schedules. */
static void
watch_changed(gpointer data)
{
	GntSsconfWatch *self = data;

	g_mutex_lock(&self->lock);
	if (self->source == NULL) {
		self->source = g_idle_source_new();
		g_source_set_callback(self->source, watch_write, self, NULL);
		g_source_attach(self->source, self->context);
	}
	g_mutex_unlock(&self->lock);
}

GntSsconfWatch *
gnt_ssconf_watch_new(GntConfig *config, const gchar *dir, GError **error)
{
	g_autoptr(GntSsconfWatch) self = g_new0(GntSsconfWatch, 1);

	g_return_val_if_fail(GNT_IS_CONFIG(config) && dir != NULL, NULL);

	self->config = g_object_ref(config);
	self->dir = g_strdup(dir);
	self->context = g_main_context_ref_thread_default();
	g_mutex_init(&self->lock);
	if (!gnt_ssconf_write(config, dir, error))
		return NULL;
	gnt_config_set_changed_func(config, watch_changed, self);
	return g_steal_pointer(&self);
}

void
gnt_ssconf_watch_free(GntSsconfWatch *self)
{
	if (self == NULL)
		return;
	gnt_config_set_changed_func(self->config, NULL, NULL);
	g_mutex_lock(&self->lock);
	if (self->source != NULL) {
		g_source_destroy(self->source);
		g_clear_pointer(&self->source, g_source_unref);
	}
	g_mutex_unlock(&self->lock);
	g_mutex_clear(&self->lock);
	g_clear_object(&self->config);
	g_main_context_unref(self->context);
	g_free(self->dir);
	g_free(self);
}
