/*
 * noded's disk image procedures (gnt-noded-image.h, doc/images.md):
 * image_write runs the image writer for disk 0 of an instance spec, in a
 * work directory <run>/image/<instance> that the writer removes on every
 * path; image_write_status answers, from another worker thread, the last
 * progress that write reported, found by the token the master chose.
 */
#include "gnt-noded-image.h"

#include "gnt-error.h"
#include "gnt-image-writer.h"
#include "gnt-json.h"
#include "gnt-noded-cache.h"
#include "gnt-noded-private.h"

#define IMAGE_WORK_DIR "image" /* below the run directory */

/* The writes running in this process, by token, and the instances they
 * write onto (one write per instance at a time). */
typedef struct {
	gchar *instance;
	GntImageProgress progress;
	gboolean started; /* @progress holds a report */
} ImageStatus;

static GMutex statuses_lock;
static GHashTable *statuses;  /* token -> ImageStatus */
static GHashTable *instances; /* instance names being written */

static void
image_status_free(ImageStatus *self)
{
	g_free(self->instance);
	g_free(self);
}

/* Registers the write @token onto @instance; GNT_ERROR_WRONG_STATE if one
 * runs already for either. */
static ImageStatus *
status_register(const gchar *token, const gchar *instance, GError **error)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&statuses_lock);
	ImageStatus *status;

	if (statuses == NULL) {
		statuses = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
						 (GDestroyNotify)image_status_free);
		instances = g_hash_table_new(g_str_hash, g_str_equal);
	}
	if (g_hash_table_contains(instances, instance) || g_hash_table_contains(statuses, token)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_WRONG_STATE,
			    "an image is being written onto instance '%s' already", instance);
		return NULL;
	}
	status = g_new0(ImageStatus, 1);
	status->instance = g_strdup(instance);
	g_hash_table_insert(statuses, g_strdup(token), status);
	g_hash_table_add(instances, status->instance);
	return status;
}

static void
status_unregister(const gchar *token)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&statuses_lock);
	ImageStatus *status = g_hash_table_lookup(statuses, token);

	if (status == NULL)
		return;
	g_hash_table_remove(instances, status->instance);
	g_hash_table_remove(statuses, token);
}

static void
status_progress_cb(const GntImageProgress *progress, gpointer user_data)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&statuses_lock);
	ImageStatus *status = user_data;

	status->progress = *progress;
	status->started = TRUE;
}

static JsonNode *
result_to_json(const GntImageResult *result, const gchar *cache)
{
	JsonObject *obj = json_object_new();

	json_object_set_member(obj, "format", gnt_json_node_new_string(result->format));
	json_object_set_member(obj, "image_bytes",
			       gnt_json_node_new_int((gint64)result->image_bytes));
	json_object_set_member(obj, "virtual_bytes",
			       gnt_json_node_new_int((gint64)result->virtual_bytes));
	json_object_set_member(obj, "disk_bytes",
			       gnt_json_node_new_int((gint64)result->target_bytes));
	json_object_set_member(obj, "seconds", gnt_json_node_new_double(result->seconds));
	json_object_set_member(obj, "write_seconds",
			       gnt_json_node_new_double(result->write_seconds));
	json_object_set_member(obj, "mb_per_s",
			       gnt_json_node_new_double(gnt_image_result_get_mb_per_s(result)));
	json_object_set_member(obj, "sha256",
			       result->sha256 != NULL ? gnt_json_node_new_string(result->sha256)
						      : gnt_json_node_new_null());
	json_object_set_member(obj, "cache", gnt_json_node_new_string(cache));
	return gnt_json_node_new_object(obj);
}

/* Writes @source onto disk 0 of @spec, reporting to @status. */
static gboolean
write_disk0(GntRpcNode *node, GntRpcNodeSpec *spec, const GntImageSource *source,
	    ImageStatus *status, GntImageResult *result, GError **error)
{
	g_autofree gchar *target = NULL;
	g_autofree gchar *work_dir = NULL;
	const GntDiskSpec *disk;
	GntImageWriteOptions options = {
		.progress = status_progress_cb,
		.user_data = status,
	};

	if (spec->disks->len == 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "instance '%s' has no disk to write an image onto", spec->name);
		return FALSE;
	}
	disk = g_ptr_array_index(spec->disks, 0);
	target = gnt_disk_store_dup_path(spec->store, spec->name, disk, error);
	if (target == NULL)
		return FALSE;
	work_dir = g_build_filename(gnt_paths_get_run_dir(node->paths), IMAGE_WORK_DIR, spec->name,
				    NULL);
	options.target = target;
	options.target_format = gnt_disk_store_get_format(spec->store, disk);
	options.work_dir = work_dir;
	if (!gnt_image_write(source, &options, result, error)) {
		g_prefix_error(error, "instance '%s': ", spec->name);
		return FALSE;
	}
	return TRUE;
}

/* Writes @source onto disk 0 of @spec from the node's artifact cache: the
 * image downloaded into it (verified) unless it is there already, then
 * written from there. *@cache_out: how the cache served it. */
static gboolean
write_disk0_cached(GntRpcNode *node, GntRpcNodeSpec *spec, const GntImageSource *source,
		   guint64 cache_bytes, ImageStatus *status, GntImageResult *result,
		   const gchar **cache_out, GError **error)
{
	GntArtifactCache *cache = gnt_noded_get_artifact_cache(gnt_paths_get_data_dir(node->paths));
	GntArtifactFetchOptions options = {
		.max_bytes = cache_bytes,
		.progress = status_progress_cb,
		.user_data = status,
	};
	g_autoptr(GntArtifact) artifact = NULL;
	g_autoptr(GntImageSource) local = NULL;

	artifact =
		gnt_artifact_cache_fetch(cache, source->location, source->sha256, &options, error);
	if (artifact == NULL) {
		g_autofree gchar *display = gnt_image_source_dup_display(source);

		g_prefix_error(error, "instance '%s': image '%s': ", spec->name, display);
		return FALSE;
	}
	*cache_out = gnt_artifact_origin_to_string(gnt_artifact_get_origin(artifact));
	/* verified when it was downloaded: not hashed again */
	local = gnt_image_source_new(gnt_artifact_get_path(artifact), NULL, error);
	if (local == NULL || !write_disk0(node, spec, local, status, result, error))
		return FALSE;
	g_free(result->sha256);
	result->sha256 = g_strdup(source->sha256);
	return TRUE;
}

static JsonNode *
image_write_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	GntRpcNode *node = user_data;
	g_autoptr(GntRpcNodeSpec) spec = NULL;
	g_autoptr(GntImageSource) source = NULL;
	g_auto(GntImageResult) result = {NULL};
	g_autofree gchar *display = NULL;
	const gchar *location = gnt_rpc_args_get_string(args, "image");
	const gchar *sha256 = gnt_rpc_args_get_string(args, "sha256");
	const gchar *token = gnt_rpc_args_get_string(args, "token");
	guint64 cache_bytes = gnt_rpc_args_has(args, "cache_bytes")
				      ? gnt_rpc_args_get_uint(args, "cache_bytes")
				      : 0;
	const gchar *cache = "off";
	ImageStatus *status;
	gboolean ok;

	if (!gnt_rpc_node_check_name(token, "token", error))
		return NULL;
	spec = gnt_rpc_node_spec_parse(args, error);
	if (spec == NULL)
		return NULL;
	source = gnt_image_source_new(location, sha256, error);
	if (source == NULL)
		return NULL;
	status = status_register(token, spec->name, error);
	if (status == NULL)
		return NULL;
	/* through the cache when it is on and the image can be named in it */
	if (cache_bytes > 0 && source->sha256 != NULL && gnt_image_source_is_url(source))
		ok = write_disk0_cached(node, spec, source, cache_bytes, status, &result, &cache,
					error);
	else
		ok = write_disk0(node, spec, source, status, &result, error);
	status_unregister(token);
	if (!ok)
		return NULL;
	display = gnt_image_source_dup_display(source);
	g_info("image '%s' (%s, %" G_GUINT64_FORMAT " bytes) written onto disk 0 of instance '%s' "
	       "in %.1f s, %.1f MB/s",
	       display, result.format, result.virtual_bytes, spec->name, result.write_seconds,
	       gnt_image_result_get_mb_per_s(&result));
	return result_to_json(&result, cache);
}

static JsonNode *
image_write_status_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = NULL;
	const gchar *token = gnt_rpc_args_get_string(args, "token");
	ImageStatus *status;
	JsonObject *obj;
	g_autofree gchar *line = NULL;

	obj = json_object_new();
	locker = g_mutex_locker_new(&statuses_lock);
	status = statuses != NULL ? g_hash_table_lookup(statuses, token) : NULL;
	if (status == NULL || !status->started) {
		json_object_set_member(obj, "state",
				       gnt_json_node_new_string(status == NULL ? "unknown"
									       : "starting"));
		return gnt_json_node_new_object(obj);
	}
	line = gnt_image_progress_format(&status->progress);
	json_object_set_member(obj, "state", gnt_json_node_new_string("running"));
	json_object_set_member(
		obj, "phase",
		gnt_json_node_new_string(gnt_image_phase_to_string(status->progress.phase)));
	json_object_set_member(obj, "done", gnt_json_node_new_int((gint64)status->progress.done));
	json_object_set_member(obj, "total", gnt_json_node_new_int((gint64)status->progress.total));
	json_object_set_member(
		obj, "percent",
		gnt_json_node_new_double(gnt_image_progress_get_percent(&status->progress)));
	json_object_set_member(
		obj, "mb_per_s",
		gnt_json_node_new_double(gnt_image_progress_get_mb_per_s(&status->progress)));
	json_object_set_member(obj, "seconds", gnt_json_node_new_double(status->progress.seconds));
	json_object_set_member(obj, "line", gnt_json_node_new_string(line));
	return gnt_json_node_new_object(obj);
}

const GntRpcProcedure gnt_rpc_node_image_procedures[] = {
	{"image_write", image_write_procedure},
	{"image_write_status", image_write_status_procedure},
	{NULL},
};
