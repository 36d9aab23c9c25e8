/*
 * metadata/gnt-metadata.c: metad's per-instance store and the Ganeti,
 * OpenStack and EC2 trees it answers (doc/metad.md). Answers are built as
 * text here, in a fixed member order, so tests can compare them byte for
 * byte; buffers that held private or secret values are wiped.
 */
#include "gnt-metadata.h"
#include "gnt-metadata-steps.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-metadata-tree.h"
#include "gnt-secret.h"

#define JSON_TYPE  "application/json"
#define TEXT_TYPE  GNT_METADATA_TEXT_TYPE
#define BYTES_TYPE "application/octet-stream"
#define GZIP_TYPE  "application/gzip"
#define SHELL_TYPE "text/x-shellscript; charset=utf-8"

typedef enum {
	VISIBILITY_PUBLIC,
	VISIBILITY_PRIVATE,
	VISIBILITY_SECRET,
	VISIBILITY_COUNT,
} Visibility;

static const gchar *const visibility_names[] = {"public", "private", "secret"};
static const gchar *const visibility_members[] = {"osparams", "osparams_private",
						  "osparams_secret"};
G_STATIC_ASSERT(G_N_ELEMENTS(visibility_names) == VISIBILITY_COUNT);
G_STATIC_ASSERT(G_N_ELEMENTS(visibility_members) == VISIBILITY_COUNT);

/* OpenStack's dated versions cloud-init knows, besides "latest". */
static const gchar *const openstack_versions[] = {
	"2012-08-10", "2013-04-04", "2013-10-17", "2015-10-15", "2016-06-30",
	"2016-10-06", "2017-02-22", "2018-08-27", "latest",	NULL,
};
/* EC2's versions: the oldest dated one cloud-init falls back on, the ones
 * DataSourceEc2 tries first (extended_metadata_versions), and latest. */
static const gchar *const ec2_versions[] = {"2009-04-04", "2016-09-02", "2018-09-24",
					    "2021-03-23", "latest",	NULL};

typedef struct {
	gchar *mac;
	gchar *ip;
	gchar *netmask;
	gboolean channel; /* the NIC to metad itself */
} Nic;

static void
nic_free(Nic *self)
{
	g_free(self->mac);
	g_free(self->ip);
	g_free(self->netmask);
	g_free(self);
}

/* One parameter: a plain string, or a GntSecret for a secret one. */
typedef struct {
	Visibility visibility;
	gchar *value;	   /* public, private (wiped when freed) */
	GntSecret *secret; /* secret */
} Param;

static void
param_free(Param *self)
{
	gnt_secret_wipe_string(self->value);
	g_free(self->value);
	g_clear_pointer(&self->secret, gnt_secret_free);
	g_free(self);
}

static const gchar *
param_get(const Param *self)
{
	return self->secret != NULL ? gnt_secret_get(self->secret) : self->value;
}

typedef struct {
	gchar *name;
	gchar *uuid;
	gchar *hostname;
	gchar *os;
	gchar *availability_zone;
	GTree *params;		/* name -> Param, sorted */
	GTree *scripts;		/* name -> GBytes */
	GBytes *user_data;	/* NULL: none */
	GPtrArray *keys;	/* gchar *: "TYPE KEY [COMMENT]" */
	GPtrArray *key_ids;	/* gchar *: each key's name */
	GPtrArray *nics;	/* Nic */
	GPtrArray *environment; /* gchar *: NAME, value, NAME, value... (os_environment) */
} Instance;

static void
instance_free(Instance *self)
{
	g_free(self->name);
	g_free(self->uuid);
	g_free(self->hostname);
	g_free(self->os);
	g_free(self->availability_zone);
	g_clear_pointer(&self->params, g_tree_unref);
	g_clear_pointer(&self->scripts, g_tree_unref);
	g_clear_pointer(&self->user_data, g_bytes_unref);
	g_clear_pointer(&self->keys, g_ptr_array_unref);
	g_clear_pointer(&self->key_ids, g_ptr_array_unref);
	g_clear_pointer(&self->nics, g_ptr_array_unref);
	g_clear_pointer(&self->environment, g_ptr_array_unref);
	g_free(self);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Instance, instance_free)

static gint
compare_strings(gconstpointer a, gconstpointer b, gpointer user_data)
{
	return strcmp(a, b);
}

/* One progress report of the appliance (doc/metad.md "Progress"). */
typedef struct {
	guint64 seq;
	gint64 time_us; /* real time */
	gchar *step;
	gchar *state;
	gchar *detail;
	gchar *output;
} ProgressEntry;

static void
progress_entry_free(ProgressEntry *self)
{
	g_free(self->step);
	g_free(self->state);
	g_free(self->detail);
	g_free(self->output);
	g_free(self);
}

/* The largest entry (invalid UTF-8 made valid may triple) stays well
 * below the bound, so the newest one is always kept. */
G_STATIC_ASSERT(3 * (GNT_METADATA_PROGRESS_OUTPUT_MAX + GNT_METADATA_PROGRESS_DETAIL_MAX) +
			GNT_METADATA_PROGRESS_NAME_MAX + 1024 <
		GNT_METADATA_PROGRESS_MAX_BYTES);

/* What an entry costs, counted against GNT_METADATA_PROGRESS_MAX_BYTES. */
static gsize
progress_entry_size(const ProgressEntry *self)
{
	return sizeof(*self) + strlen(self->step) + strlen(self->state) + strlen(self->detail) +
	       strlen(self->output);
}

typedef struct {
	GQueue entries; /* ProgressEntry, oldest first */
	gsize bytes;	/* their progress_entry_size() */
	guint64 next;
} Progress;

static void
progress_free(Progress *self)
{
	g_queue_clear_full(&self->entries, (GDestroyNotify)progress_entry_free);
	g_free(self);
}

struct _GntMetadataStore {
	GObject parent_instance;
	GHashTable *instances; /* name -> Instance */
	GHashTable *pipes;     /* name -> GByteArray: what /write gave, for /read */
	GHashTable *packages;  /* name -> GBytes: the personalization package */
	GHashTable *progress;  /* name -> Progress */
	GHashTable *sessions;  /* name -> GntMetadataSteps: the appliance's in-band steps */
};

G_DEFINE_TYPE(GntMetadataStore, gnt_metadata_store, G_TYPE_OBJECT)

static void
gnt_metadata_store_finalize(GObject *object)
{
	GntMetadataStore *self = GNT_METADATA_STORE(object);

	g_hash_table_unref(self->instances);
	g_hash_table_unref(self->pipes);
	g_hash_table_unref(self->packages);
	g_hash_table_unref(self->progress);
	g_hash_table_unref(self->sessions);
	G_OBJECT_CLASS(gnt_metadata_store_parent_class)->finalize(object);
}

static void
gnt_metadata_store_class_init(GntMetadataStoreClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = gnt_metadata_store_finalize;
}

static void
gnt_metadata_store_init(GntMetadataStore *self)
{
	self->instances = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
						(GDestroyNotify)instance_free);
	self->pipes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					    (GDestroyNotify)g_byte_array_unref);
	self->packages = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					       (GDestroyNotify)g_bytes_unref);
	self->progress = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					       (GDestroyNotify)progress_free);
	self->sessions = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					       (GDestroyNotify)gnt_metadata_steps_free);
}

GntMetadataStore *
gnt_metadata_store_new(void)
{
	return g_object_new(GNT_TYPE_METADATA_STORE, NULL);
}

gboolean
gnt_metadata_check_instance_name(const gchar *name, GError **error)
{
	gsize len = name != NULL ? strlen(name) : 0;

	if (len > 0 && len <= 255 && name[0] != '.' && name[0] != '-' &&
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") ==
		    len)
		return TRUE;
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
		    "instance name '%s' is not usable for metad (letters, digits, '.', '-', "
		    "'_', not starting with '.' or '-')",
		    name != NULL ? name : "");
	return FALSE;
}

/* An optional string member: absent or null leaves *@out NULL. */
static gboolean
dup_optional_string(JsonObject *obj, const gchar *key, gchar **out, GError **error)
{
	JsonNode *node = json_object_get_member(obj, key);

	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return TRUE;
	return gnt_json_dup_string(obj, key, out, error);
}

static gboolean
get_optional_object(JsonObject *obj, const gchar *key, JsonObject **out, GError **error)
{
	JsonNode *node = json_object_get_member(obj, key);

	*out = NULL;
	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return TRUE;
	return gnt_json_get_object(obj, key, out, error);
}

static gboolean
get_optional_array(JsonObject *obj, const gchar *key, JsonArray **out, GError **error)
{
	JsonNode *node = json_object_get_member(obj, key);

	*out = NULL;
	if (node == NULL || JSON_NODE_HOLDS_NULL(node))
		return TRUE;
	return gnt_json_get_array(obj, key, out, error);
}

static gboolean
parse_params(Instance *inst, JsonObject *record, Visibility visibility, GError **error)
{
	const gchar *member = visibility_members[visibility];
	JsonObject *dict = NULL;
	g_autoptr(GList) names = NULL;

	if (!get_optional_object(record, member, &dict, error))
		return FALSE;
	if (dict == NULL)
		return TRUE;
	names = json_object_get_members(dict);
	for (GList *l = names; l != NULL; l = l->next) {
		const gchar *name = l->data;
		const gchar *value = NULL;
		Param *param = NULL;

		g_autofree gchar *what = g_strdup_printf("'%s'", name);

		if (!gnt_json_node_get_string(json_object_get_member(dict, name), what, &value,
					      error)) {
			g_prefix_error(error, "'%s': ", member);
			return FALSE;
		}
		param = g_new0(Param, 1);
		param->visibility = visibility;
		if (visibility == VISIBILITY_SECRET)
			param->secret = gnt_secret_new(value, -1);
		else
			param->value = g_strdup(value);
		/* the more hidden wins when a name is in several dicts */
		g_tree_replace(inst->params, g_strdup(name), param);
	}
	return TRUE;
}

void
gnt_metadata_wipe_secrets(JsonObject *record)
{
	JsonObject *dict = NULL;
	JsonNode *node = json_object_get_member(record, "osparams_secret");
	g_autoptr(GList) names = NULL;

	if (node == NULL || !JSON_NODE_HOLDS_OBJECT(node))
		return;
	dict = json_node_get_object(node);
	names = json_object_get_members(dict);
	for (GList *l = names; l != NULL; l = l->next) {
		JsonNode *value = json_object_get_member(dict, l->data);

		if (JSON_NODE_HOLDS_VALUE(value) &&
		    json_node_get_value_type(value) == G_TYPE_STRING)
			gnt_secret_wipe_string((gchar *)json_node_get_string(value));
	}
}

/* A key's name: its comment when it has a plain one, else "key-N". */
static gchar *
key_id(const gchar *key, guint index)
{
	g_auto(GStrv) fields = g_strsplit_set(key, " \t", 3);

	if (g_strv_length(fields) == 3 && fields[2][0] != '\0' &&
	    strspn(fields[2],
		   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@._-") ==
		    strlen(fields[2]))
		return g_strdup(fields[2]);
	return g_strdup_printf("key-%u", index);
}

/* "52:54:00:12:34:56": the EC2 tree names a directory after it */
static gboolean
is_mac(const gchar *text)
{
	if (strlen(text) != 17)
		return FALSE;
	for (guint i = 0; i < 17; i++) {
		if (i % 3 == 2 ? text[i] != ':' : !g_ascii_isxdigit(text[i]))
			return FALSE;
	}
	return TRUE;
}

static gboolean
parse_nic(Nic *nic, JsonObject *obj, GError **error)
{
	JsonNode *channel = json_object_get_member(obj, "channel");

	if (!dup_optional_string(obj, "mac", &nic->mac, error) ||
	    !dup_optional_string(obj, "ip", &nic->ip, error) ||
	    !dup_optional_string(obj, "netmask", &nic->netmask, error))
		return FALSE;
	if (nic->mac != NULL && !is_mac(nic->mac)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "'mac' '%s' is not a MAC address like 52:54:00:12:34:56", nic->mac);
		return FALSE;
	}
	if (channel != NULL && !JSON_NODE_HOLDS_NULL(channel) &&
	    !gnt_json_get_bool(obj, "channel", &nic->channel, error))
		return FALSE;
	return TRUE;
}

static gboolean
parse_lists(Instance *inst, JsonObject *record, GError **error)
{
	JsonArray *keys = NULL;
	JsonArray *nics = NULL;
	JsonObject *scripts = NULL;
	g_autoptr(GList) names = NULL;

	if (!get_optional_array(record, "ssh_keys", &keys, error) ||
	    !get_optional_array(record, "nics", &nics, error) ||
	    !get_optional_object(record, "os_scripts", &scripts, error))
		return FALSE;
	for (guint i = 0; keys != NULL && i < json_array_get_length(keys); i++) {
		const gchar *key = NULL;
		g_autofree gchar *what = g_strdup_printf("'ssh_keys[%u]'", i);

		if (!gnt_json_node_get_string(json_array_get_element(keys, i), what, &key, error))
			return FALSE;
		if (key[0] == '\0' || strchr(key, '\n') != NULL) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "%s must be one non-empty line", what);
			return FALSE;
		}
		g_ptr_array_add(inst->keys, g_strdup(key));
		g_ptr_array_add(inst->key_ids, key_id(key, i));
	}
	for (guint i = 0; nics != NULL && i < json_array_get_length(nics); i++) {
		JsonNode *node = json_array_get_element(nics, i);
		Nic *nic = NULL;

		if (!JSON_NODE_HOLDS_OBJECT(node)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "'nics[%u]' must be an object", i);
			return FALSE;
		}
		nic = g_new0(Nic, 1);
		g_ptr_array_add(inst->nics, nic);
		if (!parse_nic(nic, json_node_get_object(node), error)) {
			g_prefix_error(error, "'nics[%u]': ", i);
			return FALSE;
		}
	}
	if (scripts != NULL)
		names = json_object_get_members(scripts);
	for (GList *l = names; l != NULL; l = l->next) {
		const gchar *text = NULL;

		g_autofree gchar *what = g_strdup_printf("'%s'", (const gchar *)l->data);

		if (!gnt_json_node_get_string(json_object_get_member(scripts, l->data), what, &text,
					      error)) {
			g_prefix_error(error, "'os_scripts': ");
			return FALSE;
		}
		g_tree_replace(inst->scripts, g_strdup(l->data), g_bytes_new(text, strlen(text)));
	}
	return TRUE;
}

/* Whether @name is [A-Z_][A-Z0-9_]*. */
static gboolean
is_shell_name(const gchar *name)
{
	if (name[0] == '\0' || g_ascii_isdigit(name[0]))
		return FALSE;
	return strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == strlen(name);
}

static gboolean
parse_environment(Instance *inst, JsonObject *record, GError **error)
{
	JsonObject *env = NULL;
	g_autoptr(GList) names = NULL;

	if (!get_optional_object(record, "os_environment", &env, error))
		return FALSE;
	if (env != NULL)
		names = json_object_get_members(env);
	for (GList *l = names; l != NULL; l = l->next) {
		const gchar *name = l->data;
		const gchar *value = NULL;
		g_autofree gchar *what = g_strdup_printf("'%s'", name);

		if (!is_shell_name(name)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "'os_environment': variable name '%s' is not [A-Z_][A-Z0-9_]*",
				    name);
			return FALSE;
		}
		if (!gnt_json_node_get_string(json_object_get_member(env, name), what, &value,
					      error)) {
			g_prefix_error(error, "'os_environment': ");
			return FALSE;
		}
		g_ptr_array_add(inst->environment, g_strdup(name));
		g_ptr_array_add(inst->environment, g_strdup(value));
	}
	return TRUE;
}

static void
wipe_string_free(gpointer data)
{
	gnt_secret_wipe_string(data);
	g_free(data);
}

static Instance *
instance_from_json(const gchar *name, JsonObject *record, GError **error)
{
	g_autoptr(Instance) inst = g_new0(Instance, 1);
	g_autofree gchar *user_data = NULL;

	inst->params = g_tree_new_full(compare_strings, NULL, g_free, (GDestroyNotify)param_free);
	inst->scripts =
		g_tree_new_full(compare_strings, NULL, g_free, (GDestroyNotify)g_bytes_unref);
	inst->keys = g_ptr_array_new_with_free_func(g_free);
	inst->key_ids = g_ptr_array_new_with_free_func(g_free);
	inst->nics = g_ptr_array_new_with_free_func((GDestroyNotify)nic_free);
	inst->environment = g_ptr_array_new_with_free_func(wipe_string_free);
	if (!gnt_json_dup_string(record, "name", &inst->name, error))
		return NULL;
	if (g_strcmp0(inst->name, name) != 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the record names instance '%s', not '%s'", inst->name, name);
		return NULL;
	}
	if (!dup_optional_string(record, "uuid", &inst->uuid, error) ||
	    !dup_optional_string(record, "hostname", &inst->hostname, error) ||
	    !dup_optional_string(record, "os", &inst->os, error) ||
	    !dup_optional_string(record, "availability_zone", &inst->availability_zone, error) ||
	    !dup_optional_string(record, "user_data", &user_data, error))
		return NULL;
	for (guint v = 0; v < VISIBILITY_COUNT; v++) {
		if (!parse_params(inst, record, v, error))
			return NULL;
	}
	if (!parse_lists(inst, record, error) || !parse_environment(inst, record, error))
		return NULL;
	if (user_data != NULL)
		inst->user_data = g_bytes_new(user_data, strlen(user_data));
	return g_steal_pointer(&inst);
}

gboolean
gnt_metadata_store_push(GntMetadataStore *self, const gchar *name, JsonObject *record,
			GError **error)
{
	Instance *inst = NULL;
	JsonArray *install_steps = NULL;
	g_autoptr(GntMetadataSteps) session = NULL;

	g_return_val_if_fail(GNT_IS_METADATA_STORE(self), FALSE);
	g_return_val_if_fail(record != NULL, FALSE);

	if (!gnt_metadata_check_instance_name(name, error))
		return FALSE;
	inst = instance_from_json(name, record, error);
	gnt_metadata_wipe_secrets(record);
	/* an install appliance's session: its in-band steps (noded's push) */
	if (inst != NULL && json_object_has_member(record, "install_steps") &&
	    (!get_optional_array(record, "install_steps", &install_steps, error) ||
	     (install_steps != NULL &&
	      (session = gnt_metadata_steps_new(install_steps, error)) == NULL)))
		g_clear_pointer(&inst, instance_free);
	if (inst == NULL) {
		g_prefix_error(error, "metadata of instance '%s': ", name);
		return FALSE;
	}
	/* a record without steps (the master's own push) ends a session */
	if (session != NULL)
		g_hash_table_replace(self->sessions, g_strdup(name), g_steal_pointer(&session));
	else
		g_hash_table_remove(self->sessions, name);
	g_hash_table_replace(self->instances, g_strdup(name), inst);
	if (!g_hash_table_contains(self->pipes, name))
		g_hash_table_insert(self->pipes, g_strdup(name), g_byte_array_new());
	if (!g_hash_table_contains(self->progress, name))
		g_hash_table_insert(self->progress, g_strdup(name), g_new0(Progress, 1));
	return TRUE;
}

gboolean
gnt_metadata_store_remove(GntMetadataStore *self, const gchar *name)
{
	g_return_val_if_fail(GNT_IS_METADATA_STORE(self), FALSE);

	g_hash_table_remove(self->pipes, name);
	g_hash_table_remove(self->packages, name);
	g_hash_table_remove(self->progress, name);
	g_hash_table_remove(self->sessions, name);
	return g_hash_table_remove(self->instances, name);
}

gboolean
gnt_metadata_store_contains(GntMetadataStore *self, const gchar *name)
{
	g_return_val_if_fail(GNT_IS_METADATA_STORE(self), FALSE);
	return g_hash_table_contains(self->instances, name);
}

/* for g_qsort_with_data() over an array of strings */
static gint
compare_string_pointers(gconstpointer a, gconstpointer b, gpointer user_data)
{
	return strcmp(*(const gchar *const *)a, *(const gchar *const *)b);
}

GStrv
gnt_metadata_store_dup_names(GntMetadataStore *self)
{
	g_autofree const gchar **names = NULL;
	g_autoptr(GStrvBuilder) builder = g_strv_builder_new();

	g_return_val_if_fail(GNT_IS_METADATA_STORE(self), NULL);

	names = (const gchar **)g_hash_table_get_keys_as_array(self->instances, NULL);
	g_qsort_with_data(names, (gint)g_hash_table_size(self->instances), sizeof(gchar *),
			  compare_string_pointers, NULL);
	g_strv_builder_addv(builder, names);
	return g_strv_builder_end(builder);
}

/* --- the personalization package and progress ------------------------- */

static gboolean
check_known(GntMetadataStore *self, const gchar *name, GError **error)
{
	if (g_hash_table_contains(self->instances, name))
		return TRUE;
	g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND, "metad knows no instance '%s'", name);
	return FALSE;
}

gboolean
gnt_metadata_store_set_package(GntMetadataStore *self, const gchar *name, GBytes *package,
			       GError **error)
{
	g_return_val_if_fail(GNT_IS_METADATA_STORE(self) && name != NULL, FALSE);

	if (!check_known(self, name, error))
		return FALSE;
	if (package == NULL) {
		g_hash_table_remove(self->packages, name);
		return TRUE;
	}
	if (g_bytes_get_size(package) > GNT_METADATA_PACKAGE_MAX) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the package of instance '%s' is larger than %d bytes", name,
			    GNT_METADATA_PACKAGE_MAX);
		return FALSE;
	}
	g_hash_table_replace(self->packages, g_strdup(name), g_bytes_ref(package));
	return TRUE;
}

GBytes *
gnt_metadata_store_peek_package(GntMetadataStore *self, const gchar *name)
{
	g_return_val_if_fail(GNT_IS_METADATA_STORE(self) && name != NULL, NULL);
	return g_hash_table_lookup(self->packages, name);
}

static const gchar *const progress_states[] = {"start", "done", "failed", "info", NULL};

/* The last @max bytes of @data, starting on a character, valid UTF-8. */
static gchar *
dup_utf8_tail(const gchar *data, gsize len, gsize max)
{
	if (len > max) {
		data += len - max;
		len = max;
		for (guint i = 0; i < 3 && len > 0 && ((guchar)data[0] & 0xc0) == 0x80; i++) {
			data++;
			len--;
		}
	}
	return g_utf8_make_valid(data, (gssize)len);
}

/* A guest's value for a message: at most 64 bytes, valid UTF-8. */
static gchar *
dup_shown(const gchar *value)
{
	if (value == NULL)
		return g_strdup("");
	return g_utf8_make_valid(value, (gssize)MIN(strlen(value), 64));
}

gboolean
gnt_metadata_store_set_boot_token(GntMetadataStore *self, const gchar *name, const gchar *token,
				  GError **error)
{
	GntMetadataSteps *session = NULL;

	g_return_val_if_fail(GNT_IS_METADATA_STORE(self) && name != NULL, FALSE);
	if (!check_known(self, name, error))
		return FALSE;
	session = g_hash_table_lookup(self->sessions, name);
	if (session == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
			    "instance '%s' has no install appliance session", name);
		return FALSE;
	}
	if (token == NULL || strlen(token) < 16 || strlen(token) > 128 ||
	    strspn(token, "0123456789abcdef") != strlen(token)) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "a boot token is 16 to 128 lower-case hexadecimal digits");
		return FALSE;
	}
	gnt_metadata_steps_set_token(session, token);
	return TRUE;
}

gboolean
gnt_metadata_store_add_progress(GntMetadataStore *self, const gchar *name, const gchar *step,
				const gchar *state, const gchar *detail, const gchar *output,
				gsize output_len, GError **error)
{
	Progress *progress = NULL;
	ProgressEntry *entry = NULL;
	gsize step_len = step != NULL ? strlen(step) : 0;

	g_return_val_if_fail(GNT_IS_METADATA_STORE(self) && name != NULL, FALSE);

	if (!check_known(self, name, error))
		return FALSE;
	if (step_len == 0 || step_len > GNT_METADATA_PROGRESS_NAME_MAX ||
	    strspn(step, "abcdefghijklmnopqrstuvwxyz0123456789_") != step_len) {
		g_autofree gchar *shown = dup_shown(step);

		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "step '%s' is not a progress step name ([a-z0-9_]{1,%d})", shown,
			    GNT_METADATA_PROGRESS_NAME_MAX);
		return FALSE;
	}
	if (state == NULL || !g_strv_contains(progress_states, state)) {
		g_autofree gchar *shown = dup_shown(state);

		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "state '%s' is not one of start, done, failed, info", shown);
		return FALSE;
	}
	if (detail != NULL && strlen(detail) > GNT_METADATA_PROGRESS_DETAIL_MAX) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "detail of step '%s' is longer than %d bytes", step,
			    GNT_METADATA_PROGRESS_DETAIL_MAX);
		return FALSE;
	}
	progress = g_hash_table_lookup(self->progress, name);
	entry = g_new0(ProgressEntry, 1);
	entry->seq = progress->next++;
	entry->time_us = g_get_real_time();
	entry->step = g_strdup(step);
	entry->state = g_strdup(state);
	entry->detail = g_utf8_make_valid(detail != NULL ? detail : "", -1);
	entry->output = dup_utf8_tail(output != NULL ? output : "", output != NULL ? output_len : 0,
				      GNT_METADATA_PROGRESS_OUTPUT_MAX);
	g_queue_push_tail(&progress->entries, entry);
	progress->bytes += progress_entry_size(entry);
	while (progress->entries.length > GNT_METADATA_PROGRESS_MAX_ENTRIES ||
	       progress->bytes > GNT_METADATA_PROGRESS_MAX_BYTES) {
		ProgressEntry *oldest = g_queue_pop_head(&progress->entries);

		progress->bytes -= progress_entry_size(oldest);
		progress_entry_free(oldest);
	}
	return TRUE;
}

gchar *
gnt_metadata_store_dup_progress(GntMetadataStore *self, const gchar *name, guint64 since,
				GError **error)
{
	Progress *progress = NULL;
	GString *out = NULL;
	gboolean first = TRUE;

	g_return_val_if_fail(GNT_IS_METADATA_STORE(self) && name != NULL, NULL);

	if (!check_known(self, name, error))
		return NULL;
	progress = g_hash_table_lookup(self->progress, name);
	out = g_string_new(NULL);
	g_string_append_printf(out, "{\"next\":%" G_GUINT64_FORMAT ",\"entries\":[",
			       progress->next);
	for (GList *l = progress->entries.head; l != NULL; l = l->next) {
		const ProgressEntry *entry = l->data;

		if (entry->seq < since)
			continue;
		if (!first)
			g_string_append_c(out, ',');
		first = FALSE;
		g_string_append_printf(out,
				       "{\"seq\":%" G_GUINT64_FORMAT ",\"time\":%" G_GINT64_FORMAT
				       ".%06d,\"step\":",
				       entry->seq, entry->time_us / G_USEC_PER_SEC,
				       (int)(entry->time_us % G_USEC_PER_SEC));
		gnt_json_append_string(out, entry->step);
		g_string_append(out, ",\"state\":");
		gnt_json_append_string(out, entry->state);
		g_string_append(out, ",\"detail\":");
		gnt_json_append_string(out, entry->detail);
		g_string_append(out, ",\"output\":");
		gnt_json_append_string(out, entry->output);
		g_string_append_c(out, '}');
	}
	g_string_append(out, "]}");
	return g_string_free(out, FALSE);
}

gboolean
gnt_metadata_store_clear_progress(GntMetadataStore *self, const gchar *name, GError **error)
{
	g_return_val_if_fail(GNT_IS_METADATA_STORE(self) && name != NULL, FALSE);

	if (!check_known(self, name, error))
		return FALSE;
	g_hash_table_replace(self->progress, g_strdup(name), g_new0(Progress, 1));
	return TRUE;
}

/* --- answers ----------------------------------------------------------- */

void
gnt_metadata_answer_clear(GntMetadataAnswer *self)
{
	g_clear_pointer(&self->body, g_bytes_unref);
}

static void
answer_set(GntMetadataAnswer *answer, guint status, const gchar *type, GBytes *body)
{
	g_clear_pointer(&answer->body, g_bytes_unref);
	answer->status = status;
	answer->content_type = type;
	answer->body = body;
}

static void
answer_text(GntMetadataAnswer *answer, const gchar *type, const gchar *text)
{
	answer_set(answer, 200, type, g_bytes_new(text, strlen(text)));
}

/* @text (freed) copied into bytes, then wiped. (transfer full) */
static GBytes *
bytes_wiping(GString *text)
{
	GBytes *bytes = g_bytes_new(text->str, text->len);

	gnt_secret_wipe(text->str, text->len);
	g_string_free(text, TRUE);
	return bytes;
}

/* A GString holding private values: copied into the body, then wiped. */
static void
answer_sensitive(GntMetadataAnswer *answer, GString *text)
{
	answer_set(answer, 200, JSON_TYPE, bytes_wiping(text));
	answer->sensitive = TRUE;
}

static void
answer_not_found(GntMetadataAnswer *answer)
{
	answer_text(answer, TEXT_TYPE, GNT_METADATA_NOT_FOUND_BODY);
	answer->status = 404;
}

static void
answer_bad_method(GntMetadataAnswer *answer, const gchar *allow)
{
	answer_text(answer, TEXT_TYPE, "Method not allowed\n");
	answer->status = 405;
	answer->allow = allow;
}

/* @bytes (NULL: 404) to a GET or HEAD (@get), 405 to the rest. */
static void
answer_bytes(GntMetadataAnswer *answer, gboolean get, GBytes *bytes, const gchar *type)
{
	if (bytes == NULL)
		answer_not_found(answer);
	else if (!get)
		answer_bad_method(answer, "GET");
	else
		answer_set(answer, 200, type, g_bytes_ref(bytes));
}

static void
append_member(GString *out, const gchar *key, const gchar *value, gboolean *first)
{
	if (!*first)
		g_string_append_c(out, ',');
	*first = FALSE;
	gnt_json_append_string(out, key);
	g_string_append_c(out, ':');
	if (value != NULL)
		gnt_json_append_string(out, value);
	else
		g_string_append(out, "null");
}

/* --- Ganeti's tree: /ganeti/latest/... --------------------------------- */

static gboolean
append_param_cb(gpointer key, gpointer value, gpointer user_data)
{
	GString *out = user_data;
	const Param *param = value;

	if (out->len > 1)
		g_string_append_c(out, ',');
	gnt_json_append_string(out, key);
	g_string_append(out, ":[");
	gnt_json_append_string(out, param_get(param));
	g_string_append_c(out, ',');
	gnt_json_append_string(out, visibility_names[param->visibility]);
	g_string_append_c(out, ']');
	return FALSE;
}

static void
ganeti_answer(GntMetadataStore *self, Instance *inst, const gchar *method,
	      const gchar *const *parts, GBytes *body, GntMetadataAnswer *answer)
{
	gboolean get = g_str_equal(method, "GET") || g_str_equal(method, "HEAD");
	guint n = g_strv_length((GStrv)parts);
	GByteArray *pipe = g_hash_table_lookup(self->pipes, inst->name);

	if (n == 1 && g_str_equal(parts[0], "read")) {
		if (!get) {
			answer_bad_method(answer, "GET");
			return;
		}
		answer_set(answer, 200, BYTES_TYPE,
			   g_byte_array_free_to_bytes(g_byte_array_ref(pipe)));
		/* read takes what was written: the store keeps a fresh buffer */
		g_hash_table_replace(self->pipes, g_strdup(inst->name), g_byte_array_new());
		return;
	}
	if (n == 1 && g_str_equal(parts[0], "write")) {
		gsize len = body != NULL ? g_bytes_get_size(body) : 0;

		if (!g_str_equal(method, "POST")) {
			answer_bad_method(answer, "POST");
			return;
		}
		if (len > GNT_METADATA_PIPE_MAX_BYTES - pipe->len) {
			answer_text(answer, TEXT_TYPE, "Too much unread data\n");
			answer->status = 413;
			return;
		}
		if (len > 0)
			g_byte_array_append(pipe, g_bytes_get_data(body, NULL), (guint)len);
		answer_text(answer, TEXT_TYPE, "");
		return;
	}
	if (n == 1 && g_str_equal(parts[0], "meta_data.json")) {
		GString *out = NULL;
		gboolean first = TRUE;

		if (!get) {
			answer_bad_method(answer, "GET");
			return;
		}
		out = g_string_new("{");
		append_member(out, "hostname", inst->hostname, &first);
		append_member(out, "name", inst->name, &first);
		append_member(out, "os", inst->os, &first);
		append_member(out, "uuid", inst->uuid, &first);
		g_string_append_c(out, '}');
		answer_set(answer, 200, JSON_TYPE, g_string_free_to_bytes(out));
		return;
	}
	if (n == 2 && g_str_equal(parts[0], "os") && g_str_equal(parts[1], "parameters.json")) {
		GString *out = NULL;

		if (!get) {
			answer_bad_method(answer, "GET");
			return;
		}
		out = g_string_new("{");
		g_tree_foreach(inst->params, append_param_cb, out);
		g_string_append_c(out, '}');
		answer_sensitive(answer, out);
		return;
	}
	if (n == 2 && g_str_equal(parts[0], "os") && g_str_equal(parts[1], "package")) {
		answer_bytes(answer, get, g_hash_table_lookup(self->packages, inst->name),
			     GZIP_TYPE);
		return;
	}
	if (n == 3 && g_str_equal(parts[0], "os") && g_str_equal(parts[1], "scripts")) {
		answer_bytes(answer, get, g_tree_lookup(inst->scripts, parts[2]), BYTES_TYPE);
		return;
	}
	answer_not_found(answer);
}

/* --- Gantry's install tree: /gantry/latest/install/... ----------------- */

/* export NAME='value' */
static void
append_export(GString *out, const gchar *name, const gchar *value)
{
	g_string_append(out, "export ");
	gnt_metadata_append_shell_assignment(out, name, value);
}

static gboolean
append_osp_cb(gpointer key, gpointer value, gpointer user_data)
{
	GString *out = user_data;
	g_autofree gchar *upper = g_ascii_strup(key, -1);
	g_autofree gchar *name = NULL;

	for (gchar *p = upper; *p != '\0'; p++) {
		if (!g_ascii_isalnum(*p) && *p != '_')
			*p = '_'; /* '-' and '.' as Ganeti does, and anything else */
	}
	name = g_strconcat("OSP_", upper, NULL);
	append_export(out, name, param_get(value));
	return FALSE;
}

/* Fills the value of @name from the query @query; NULL if absent. */
static gchar *
query_dup(GHashTable *query, const gchar *name)
{
	GPtrArray *values = query != NULL ? g_hash_table_lookup(query, name) : NULL;

	return values != NULL && values->len > 0 ? g_strdup(g_ptr_array_index(values, 0)) : NULL;
}

/* A result's data for the master's post-step hook, as the progress entry
 * "NAME info" "data {JSON}" before its "NAME done". */
static gboolean
add_step_data(GntMetadataStore *self, const gchar *name, const gchar *step, const gchar *data,
	      GError **error)
{
	g_autofree gchar *detail = g_strconcat(GNT_METADATA_STEP_DATA_DETAIL_PREFIX, data, NULL);

	return gnt_metadata_store_add_progress(self, name, step, "info", detail, NULL, 0, error);
}

/* Answers the session's next step (and starts it: its progress entry). */
static gboolean
answer_next_step(GntMetadataStore *self, const gchar *name, GntMetadataSteps *session,
		 GntMetadataAnswer *answer, GError **error)
{
	const gchar *step = NULL, *id = NULL;
	g_autofree gchar *text = gnt_metadata_steps_next(session, &step, &id);

	if (step != NULL &&
	    !gnt_metadata_store_add_progress(self, name, step, "start", id, NULL, 0, error))
		return FALSE;
	answer_text(answer, SHELL_TYPE, text);
	return TRUE;
}

/* The in-band steps (gnt-metadata-steps.h): the agent's catalogue, its
 * next step, a step's result. FALSE: not one of these paths. */
static gboolean
steps_answer(GntMetadataStore *self, Instance *inst, const gchar *method, const gchar *path,
	     GHashTable *query, GBytes *body, GntMetadataAnswer *answer)
{
	GntMetadataSteps *session = g_hash_table_lookup(self->sessions, inst->name);
	g_autoptr(GError) error = NULL;
	gsize len = 0;
	const gchar *data = body != NULL ? g_bytes_get_data(body, &len) : NULL;
	gboolean ok = TRUE;

	if (!g_str_equal(path, "catalogue") && !g_str_equal(path, "next-step") &&
	    !g_str_equal(path, "step-result"))
		return FALSE;
	g_autofree gchar *token = query_dup(query, "token");
	gboolean session_continues = FALSE;

	/* no session, or another boot's token: as unknown as any other path */
	if (session == NULL || !gnt_metadata_steps_token_matches(session, token)) {
		answer_not_found(answer);
		return TRUE;
	}
	if (g_str_equal(path, "next-step")) {
		if (!g_str_equal(method, "GET")) {
			answer_bad_method(answer, "GET");
			return TRUE;
		}
		if (answer_next_step(self, inst->name, session, answer, &error))
			return TRUE;
		ok = FALSE;
	} else if (!g_str_equal(method, "POST")) {
		answer_bad_method(answer, "POST");
		return TRUE;
	} else if (g_str_equal(path, "catalogue")) {
		g_autoptr(JsonObject) catalogue = gnt_metadata_catalogue_parse(data, len, &error);
		g_autoptr(GString) detail = g_string_new(NULL);
		JsonArray *steps = catalogue != NULL ? gnt_json_peek_array(catalogue, "steps")
						     : NULL;

		if (catalogue != NULL) {
			g_string_printf(detail, "agent version %s:",
					json_object_get_string_member(catalogue, "version"));
			for (guint i = 0; i < json_array_get_length(steps); i++)
				g_string_append_printf(
					detail, " %s",
					json_object_get_string_member(
						json_array_get_object_element(steps, i), "name"));
			ok = gnt_metadata_store_add_progress(self, inst->name, "catalogue", "info",
							     detail->str, NULL, 0, &error);
		}
		ok = ok && catalogue != NULL;
	} else {
		g_autofree gchar *id = query_dup(query, "id");
		g_autofree gchar *status = query_dup(query, "status");
		g_autofree gchar *detail = query_dup(query, "detail");
		g_autofree gchar *reboot = query_dup(query, "reboot");
		g_autofree gchar *step_data = query_dup(query, "data");
		g_autofree gchar *data_text = NULL;
		g_autoptr(GntMetadataStepResult) result = gnt_metadata_step_result_parse(
			id, status, detail, reboot, data, len, &error);
		const gchar *step = NULL;

		ok = result != NULL &&
		     (step_data == NULL ||
		      (data_text = gnt_metadata_step_data_parse(step_data, &error)) != NULL) &&
		     gnt_metadata_steps_take_result(session, result, &step, &error) &&
		     (data_text == NULL ||
		      add_step_data(self, inst->name, step, data_text, &error)) &&
		     gnt_metadata_store_add_progress(self, inst->name, step,
						     result->ok ? "done" : "failed", result->detail,
						     result->output, strlen(result->output),
						     &error);
		session_continues = ok && result->ok && !result->reboot_requested;
		/* noded boots the appliance again once it is off */
		if (ok && result->ok && result->reboot_requested) {
			g_autofree gchar *why =
				g_strdup_printf(GNT_METADATA_REBOOT_DETAIL_PREFIX "'%s'", step);

			ok = gnt_metadata_store_add_progress(self, inst->name, "appliance", "info",
							     why, NULL, 0, &error);
		}
	}
	if (!ok) {
		g_autofree gchar *text = g_strconcat(error->message, "\n", NULL);

		answer_text(answer, TEXT_TYPE, text);
		answer->status = 400;
		return TRUE;
	}
	/* a step's success answers with the next step: one request a step
	 * (each costs the agent a process); not before a reboot (the next
	 * step starts on the next boot), not after a failure */
	if (g_str_equal(path, "step-result") && session_continues) {
		if (answer_next_step(self, inst->name, session, answer, &error))
			return TRUE;
		answer_text(answer, TEXT_TYPE, error->message);
		answer->status = 400;
		return TRUE;
	}
	/* 200 with an empty body, as for progress: busybox wget and 204 */
	answer_text(answer, TEXT_TYPE, "");
	return TRUE;
}

static void
gantry_answer(GntMetadataStore *self, Instance *inst, const gchar *method,
	      const gchar *const *parts, GHashTable *query, GBytes *body, GntMetadataAnswer *answer)
{
	gboolean get = g_str_equal(method, "GET") || g_str_equal(method, "HEAD");
	guint n = g_strv_length((GStrv)parts);

	if (n != 2 || !g_str_equal(parts[0], "install")) {
		answer_not_found(answer);
		return;
	}
	if (g_str_equal(parts[1], "environment")) {
		GString *out = NULL;

		if (!get) {
			answer_bad_method(answer, "GET");
			return;
		}
		out = g_string_new(NULL);
		for (guint i = 0; i + 1 < inst->environment->len; i += 2)
			append_export(out, g_ptr_array_index(inst->environment, i),
				      g_ptr_array_index(inst->environment, i + 1));
		g_tree_foreach(inst->params, append_osp_cb, out);
		answer_sensitive(answer, out);
		answer->content_type = SHELL_TYPE;
		return;
	}
	if (g_str_equal(parts[1], "script")) {
		answer_bytes(answer, get, g_tree_lookup(inst->scripts, "create"), BYTES_TYPE);
		return;
	}
	if (g_str_equal(parts[1], "progress")) {
		g_autofree gchar *step = query_dup(query, "step");
		g_autofree gchar *state = query_dup(query, "state");
		g_autofree gchar *detail = query_dup(query, "detail");
		g_autoptr(GError) error = NULL;
		gsize len = 0;
		const gchar *data = body != NULL ? g_bytes_get_data(body, &len) : NULL;

		if (!g_str_equal(method, "POST")) {
			answer_bad_method(answer, "POST");
			return;
		}
		if (!gnt_metadata_store_add_progress(self, inst->name, step, state, detail, data,
						     len, &error)) {
			g_autofree gchar *text = g_strconcat(error->message, "\n", NULL);

			answer_text(answer, TEXT_TYPE, text);
			answer->status = 400;
			return;
		}
		/* 200 with an empty body, not 204: a 204 carries no
		 * Content-Length, and busybox wget then reads until the
		 * connection closes, which a shared stream (the slirp
		 * fallback) never does */
		answer_text(answer, TEXT_TYPE, "");
		return;
	}
	if (steps_answer(self, inst, method, parts[1], query, body, answer))
		return;
	answer_not_found(answer);
}

/* --- OpenStack's tree: /openstack/<version>/... ------------------------ */

static GBytes *
listing_bytes(const gchar *const *lines)
{
	g_autofree gchar *text = g_strjoinv("\n", (GStrv)lines);

	return g_bytes_new(text, strlen(text));
}

/* The position of @version in openstack_versions ("latest" is the last). */
static guint
openstack_version_index(const gchar *version)
{
	for (guint i = 0; openstack_versions[i] != NULL; i++) {
		if (g_str_equal(openstack_versions[i], version))
			return i;
	}
	return G_MAXUINT;
}

/* Whether @version (an index) has what OpenStack added in @since. */
static gboolean
openstack_since(guint version, const gchar *since)
{
	return version >= openstack_version_index(since);
}

/* 512 bytes from the kernel's CSPRNG, base64: Nova's random_seed, fresh
 * for every answer; NULL if the kernel gives none. */
static gchar *
random_seed_new(void)
{
	guchar seed[512];
	gsize got = 0;
	gchar *text = NULL;

	while (got < sizeof(seed)) {
		gssize n = getrandom(seed + got, sizeof(seed) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			gnt_secret_wipe(seed, sizeof(seed));
			return NULL;
		}
		got += (gsize)n;
	}
	text = g_base64_encode(seed, sizeof(seed));
	gnt_secret_wipe(seed, sizeof(seed));
	return text;
}

/* meta_data.json; @version an index in openstack_versions */
static GBytes *
openstack_meta_data(gconstpointer data, guint version)
{
	const Instance *inst = data;
	GString *out = g_string_new("{");
	gboolean first = TRUE;

	if (inst->availability_zone != NULL)
		append_member(out, "availability_zone", inst->availability_zone, &first);
	append_member(out, "hostname", inst->hostname != NULL ? inst->hostname : inst->name,
		      &first);
	g_string_append(out, ",\"keys\":[");
	for (guint i = 0; i < inst->keys->len; i++) {
		gboolean key_first = TRUE;

		g_string_append(out, i > 0 ? ",{" : "{");
		append_member(out, "data", inst->keys->pdata[i], &key_first);
		append_member(out, "name", inst->key_ids->pdata[i], &key_first);
		append_member(out, "type", "ssh", &key_first);
		g_string_append_c(out, '}');
	}
	g_string_append(out, "],\"launch_index\":0");
	append_member(out, "name", inst->name, &first);
	g_string_append(out, ",\"public_keys\":{");
	for (guint i = 0; i < inst->keys->len; i++) {
		gboolean key_first = i == 0;

		append_member(out, inst->key_ids->pdata[i], inst->keys->pdata[i], &key_first);
	}
	g_string_append_c(out, '}');
	if (openstack_since(version, "2013-04-04")) {
		g_autofree gchar *seed = random_seed_new();

		if (seed != NULL) {
			append_member(out, "random_seed", seed, &first);
			gnt_secret_wipe_string(seed);
		}
	}
	append_member(out, "uuid", inst->uuid != NULL ? inst->uuid : inst->name, &first);
	g_string_append_c(out, '}');
	return bytes_wiping(out);
}

static GBytes *
openstack_network_data(const Instance *inst)
{
	GString *links = g_string_new(NULL);
	GString *networks = g_string_new(NULL);
	g_autofree gchar *links_text = NULL;
	g_autofree gchar *networks_text = NULL;
	GString *out = g_string_new(NULL);

	for (guint i = 0; i < inst->nics->len; i++) {
		const Nic *nic = inst->nics->pdata[i];
		g_autofree gchar *link = g_strdup_printf("nic%u", i);
		gboolean first = TRUE;

		g_string_append(links, i > 0 ? ",{" : "{");
		append_member(links, "ethernet_mac_address", nic->mac, &first);
		append_member(links, "id", link, &first);
		append_member(links, "type", "phy", &first);
		g_string_append_c(links, '}');
		first = TRUE;
		g_string_append(networks, i > 0 ? ",{" : "{");
		append_member(networks, "id", link, &first);
		if (nic->ip != NULL)
			append_member(networks, "ip_address", nic->ip, &first);
		append_member(networks, "link", link, &first);
		if (nic->netmask != NULL)
			append_member(networks, "netmask", nic->netmask, &first);
		append_member(networks, "type", nic->ip != NULL ? "ipv4" : "ipv4_dhcp", &first);
		g_string_append_c(networks, '}');
	}
	links_text = g_string_free(links, FALSE);
	networks_text = g_string_free(networks, FALSE);
	g_string_append_printf(out, "{\"links\":[%s],\"networks\":[%s],\"services\":[]}",
			       links_text, networks_text);
	return g_string_free_to_bytes(out);
}

/* /openstack/<version>/ as Nova lists it: the files each version has. */
static GntMetadataTree *
openstack_tree(const Instance *inst, guint version)
{
	GntMetadataTree *dir = gnt_metadata_tree_new();

	gnt_metadata_tree_add_built(dir, "meta_data.json", JSON_TYPE, openstack_meta_data, inst,
				    version, TRUE);
	if (inst->user_data != NULL)
		gnt_metadata_tree_add_file(dir, "user_data", BYTES_TYPE,
					   g_bytes_ref(inst->user_data));
	if (openstack_since(version, "2013-10-17"))
		gnt_metadata_tree_add_file(dir, "vendor_data.json", JSON_TYPE,
					   g_bytes_new_static("{}", 2));
	if (openstack_since(version, "2015-10-15"))
		gnt_metadata_tree_add_file(dir, "network_data.json", JSON_TYPE,
					   openstack_network_data(inst));
	if (openstack_since(version, "2016-10-06"))
		gnt_metadata_tree_add_file(dir, "vendor_data2.json", JSON_TYPE,
					   g_bytes_new_static("{}", 2));
	return dir;
}

/* @parts: what follows "openstack" */
static void
openstack_answer(Instance *inst, const gchar *const *parts, GntMetadataAnswer *answer)
{
	g_autoptr(GntMetadataTree) tree = NULL;
	guint version;

	/* /openstack and /openstack/ list the versions */
	if (parts[0] == NULL || (parts[0][0] == '\0' && parts[1] == NULL)) {
		answer_set(answer, 200, TEXT_TYPE, listing_bytes(openstack_versions));
		return;
	}
	version = openstack_version_index(parts[0]);
	if (version == G_MAXUINT) {
		answer_not_found(answer);
		return;
	}
	tree = openstack_tree(inst, version);
	if (!gnt_metadata_tree_answer(tree, parts + 1, answer))
		answer_not_found(answer);
}

/* --- EC2's tree: /<version>/meta-data/... ------------------------------ */

/* The instance's own address: the first NIC with one that is not the
 * channel to metad (whose link-local address is no one else's business). */
static const gchar *
own_ip(const Instance *inst)
{
	for (guint i = 0; i < inst->nics->len; i++) {
		const Nic *nic = inst->nics->pdata[i];

		if (nic->ip != NULL && !nic->channel)
			return nic->ip;
	}
	return NULL;
}

/* "192.0.2.0/24" for @ip and @netmask; NULL unless both are IPv4 and the
 * mask is contiguous. */
static gchar *
ipv4_cidr_block(const gchar *ip, const gchar *netmask)
{
	struct in_addr addr, mask;
	guint32 bits;
	guint prefix = 0;
	gchar text[INET_ADDRSTRLEN];

	if (ip == NULL || netmask == NULL || inet_pton(AF_INET, ip, &addr) != 1 ||
	    inet_pton(AF_INET, netmask, &mask) != 1)
		return NULL;
	bits = ntohl(mask.s_addr);
	while (prefix < 32 && (bits & (0x80000000u >> prefix)) != 0)
		prefix++;
	if (prefix < 32 && (bits << prefix) != 0)
		return NULL; /* not contiguous */
	addr.s_addr &= mask.s_addr;
	if (inet_ntop(AF_INET, &addr, text, sizeof(text)) == NULL)
		return NULL;
	return g_strdup_printf("%s/%u", text, prefix);
}

/* meta-data/network/interfaces/macs/<mac>/, what cloud-init turns into
 * its network config (convert_ec2_metadata_network_config) */
static void
ec2_add_macs(GntMetadataTree *meta, const Instance *inst, const gchar *hostname)
{
	GntMetadataTree *macs = gnt_metadata_tree_add_dir(
		gnt_metadata_tree_add_dir(gnt_metadata_tree_add_dir(meta, "network"), "interfaces"),
		"macs");

	for (guint i = 0; i < inst->nics->len; i++) {
		const Nic *nic = inst->nics->pdata[i];
		g_autofree gchar *number = g_strdup_printf("%u", i);
		g_autofree gchar *block = ipv4_cidr_block(nic->ip, nic->netmask);
		GntMetadataTree *dir = NULL;

		if (nic->mac == NULL)
			continue;
		dir = gnt_metadata_tree_add_dir(macs, nic->mac);
		gnt_metadata_tree_add_text(dir, "device-number", number);
		gnt_metadata_tree_add_text(dir, "local-hostname", hostname);
		if (nic->ip != NULL)
			gnt_metadata_tree_add_text(dir, "local-ipv4s", nic->ip);
		gnt_metadata_tree_add_text(dir, "mac", nic->mac);
		if (block != NULL)
			gnt_metadata_tree_add_text(dir, "subnet-ipv4-cidr-block", block);
	}
}

/* <version>/: the same keys for every version metad knows */
static GntMetadataTree *
ec2_tree(const Instance *inst)
{
	GntMetadataTree *dir = gnt_metadata_tree_new();
	GntMetadataTree *meta = gnt_metadata_tree_add_dir(dir, "meta-data");
	const gchar *hostname = inst->hostname != NULL ? inst->hostname : inst->name;
	const Nic *primary = inst->nics->len > 0 ? inst->nics->pdata[0] : NULL;

	if (inst->user_data != NULL)
		gnt_metadata_tree_add_file(dir, "user-data", BYTES_TYPE,
					   g_bytes_ref(inst->user_data));
	gnt_metadata_tree_add_text(meta, "ami-launch-index", "0");
	gnt_metadata_tree_add_text(meta, "hostname", hostname);
	gnt_metadata_tree_add_text(meta, "instance-id",
				   inst->uuid != NULL ? inst->uuid : inst->name);
	gnt_metadata_tree_add_text(meta, "local-hostname", hostname);
	if (own_ip(inst) != NULL)
		gnt_metadata_tree_add_text(meta, "local-ipv4", own_ip(inst));
	if (primary != NULL && primary->mac != NULL)
		gnt_metadata_tree_add_text(meta, "mac", primary->mac);
	if (inst->nics->len > 0)
		ec2_add_macs(meta, inst, hostname);
	if (inst->availability_zone != NULL)
		gnt_metadata_tree_add_text(gnt_metadata_tree_add_dir(meta, "placement"),
					   "availability-zone", inst->availability_zone);
	if (inst->keys->len > 0) {
		GntMetadataTree *keys = gnt_metadata_tree_add_dir(meta, "public-keys");

		for (guint i = 0; i < inst->keys->len; i++) {
			g_autofree gchar *index = g_strdup_printf("%u", i);
			g_autofree gchar *line =
				g_strdup_printf("%u=%s", i, (const gchar *)inst->key_ids->pdata[i]);
			GntMetadataTree *key = gnt_metadata_tree_add_dir(keys, index);

			/* listed "0=alice" without a slash, yet a directory */
			gnt_metadata_tree_set_listed(key, line);
			gnt_metadata_tree_add_text(key, "openssh-key", inst->keys->pdata[i]);
		}
	}
	return dir;
}

/* @parts: what follows the version */
static void
ec2_answer(Instance *inst, const gchar *const *parts, GntMetadataAnswer *answer)
{
	g_autoptr(GntMetadataTree) tree = ec2_tree(inst);

	if (!gnt_metadata_tree_answer(tree, parts, answer))
		answer_not_found(answer);
}

void
gnt_metadata_store_answer(GntMetadataStore *self, const gchar *instance, const gchar *method,
			  const gchar *path, GHashTable *query, GBytes *body,
			  GntMetadataAnswer *answer)
{
	Instance *inst = NULL;
	g_auto(GStrv) parts = NULL;
	guint n = 0;

	g_return_if_fail(GNT_IS_METADATA_STORE(self));
	g_return_if_fail(method != NULL && path != NULL && answer != NULL);

	answer->sensitive = FALSE;
	answer->allow = NULL;
	inst = instance != NULL ? g_hash_table_lookup(self->instances, instance) : NULL;
	if (inst == NULL || path[0] != '/') {
		answer_not_found(answer);
		return;
	}
	parts = g_strsplit(path + 1, "/", 0);
	n = g_strv_length(parts);
	if (n >= 3 && g_str_equal(parts[0], "ganeti") && g_str_equal(parts[1], "latest")) {
		ganeti_answer(self, inst, method, (const gchar *const *)parts + 2, body, answer);
		return;
	}
	if (n >= 3 && g_str_equal(parts[0], "gantry") && g_str_equal(parts[1], "latest")) {
		gantry_answer(self, inst, method, (const gchar *const *)parts + 2, query, body,
			      answer);
		return;
	}
	if (!g_str_equal(method, "GET") && !g_str_equal(method, "HEAD")) {
		answer_not_found(answer);
		return;
	}
	/* / lists the EC2 versions, as EC2 and Nova do ("" splits into no parts) */
	if (n == 0) {
		answer_set(answer, 200, TEXT_TYPE, listing_bytes(ec2_versions));
		return;
	}
	if (g_str_equal(parts[0], "openstack")) {
		openstack_answer(inst, (const gchar *const *)parts + 1, answer);
		return;
	}
	if (g_strv_contains(ec2_versions, parts[0])) {
		ec2_answer(inst, (const gchar *const *)parts + 1, answer);
		return;
	}
	answer_not_found(answer);
}
