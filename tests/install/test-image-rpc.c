/* noded's image procedures (noded/gnt-noded-image.h) through the master's
 * typed call (rpc/gnt-node-calls-image.h) and the real client over TLS: a
 * file disk made by blockdev_create, images from a local path and from an
 * HTTP server in the test, progress lines while the node writes, and the
 * node's run directory left empty. */
#include <glib/gstdio.h>
#include <string.h>

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-node-calls-image.h"
#include "gnt-node-calls.h"
#include "gnt-noded.h"
#include "image-test-server.h"
#include "rpc-test-server.h"

#define MIB	 (1024 * 1024)
#define DISK_MIB 16

typedef struct {
	TestNode node1;	  /* the node under test */
	JsonObject *spec; /* web1: one raw file disk of DISK_MIB */
	gchar *disk;	  /* its path */
	ImageServer *images;
	GPtrArray *lines; /* progress lines, gchar * */
} ImageRpcFx;

static JsonObject *
make_spec(ImageRpcFx *fx)
{
	JsonObject *spec = json_object_new();
	JsonObject *instance = json_object_new();
	JsonObject *disk = json_object_new();
	JsonArray *disks = json_array_new();
	JsonObject *beparams = json_object_new();
	JsonObject *storage = json_object_new();
	g_autofree gchar *uuid = g_uuid_string_random();
	g_autofree gchar *disk_uuid = g_uuid_string_random();

	json_object_set_string_member(disk, "uuid", disk_uuid);
	json_object_set_int_member(disk, "size", DISK_MIB);
	json_array_add_object_element(disks, disk);
	json_object_set_string_member(instance, "name", "web1");
	json_object_set_string_member(instance, "uuid", uuid);
	json_object_set_string_member(instance, "primary_node", "node1-uuid");
	json_object_set_string_member(instance, "os", "noop");
	json_object_set_string_member(instance, "hypervisor", "fake");
	json_object_set_string_member(instance, "disk_template", "file");
	json_object_set_array_member(instance, "disks", disks);
	json_object_set_int_member(beparams, "maxmem", 128);
	json_object_set_int_member(beparams, "vcpus", 1);
	json_object_set_null_member(storage, "volume_group_name");
	json_object_set_string_member(storage, "file_storage_dir", fx->node1.file_dir);
	json_object_set_object_member(spec, "instance", instance);
	json_object_set_object_member(spec, "hvparams", json_object_new());
	json_object_set_object_member(spec, "beparams", beparams);
	json_object_set_object_member(spec, "storage", storage);
	fx->disk = g_strdup_printf("%s/web1/%s.file.disk0", fx->node1.file_dir, disk_uuid);
	return spec;
}

static void
rpc_set_up(ImageRpcFx *fx, gconstpointer data)
{
	const GntRpcNodeOptions options = {.hv_prefix = "gnt-test-"};
	g_autoptr(GError) error = NULL;

	test_node_start(&fx->node1, &options);
	g_assert_cmpint(g_mkdir_with_parents(fx->node1.file_dir, 0750), ==, 0);
	fx->spec = make_spec(fx);
	g_assert_true(gnt_node_call_blockdev_create(fx->node1.client, fx->node1.record, fx->spec,
						    &error));
	g_assert_no_error(error);
	fx->images = image_server_new(NULL);
	fx->lines = g_ptr_array_new_with_free_func(g_free);
}

static void
rpc_tear_down(ImageRpcFx *fx, gconstpointer data)
{
	g_autofree gchar *image_dir =
		g_build_filename(gnt_paths_get_run_dir(fx->node1.paths), "image", NULL);
	g_autoptr(GDir) listing = g_dir_open(image_dir, 0, NULL);

	/* the node's work directories are gone, whatever happened */
	g_assert_true(listing == NULL || g_dir_read_name(listing) == NULL);
	g_clear_pointer(&fx->images, image_server_free);
	g_clear_pointer(&fx->spec, json_object_unref);
	g_ptr_array_unref(fx->lines);
	g_free(fx->disk);
	test_node_stop(&fx->node1);
}

static void
line_cb(const gchar *line, gpointer user_data)
{
	ImageRpcFx *fx = user_data;

	g_test_message("progress: %s", line);
	g_ptr_array_add(fx->lines, g_strdup(line));
}

static void
test_local_raw(ImageRpcFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *image_path =
		g_build_filename(gnt_paths_get_root(fx->node1.paths), "image.raw", NULL);
	g_autoptr(GBytes) image = image_test_pattern(5 * MIB, 7);
	g_autofree gchar *sha256 = g_compute_checksum_for_bytes(G_CHECKSUM_SHA256, image);
	g_autoptr(JsonObject) result = NULL;
	gint64 bytes = 0, disk_bytes = 0;
	const gchar *format = NULL, *got_sha256 = NULL;

	image_test_write_file(image_path, image);
	result = gnt_node_call_image_write(fx->node1.client, fx->node1.record, fx->spec, image_path,
					   sha256, line_cb, fx, &error);
	g_assert_no_error(error);
	g_assert_nonnull(result);
	g_assert_true(gnt_json_get_string(result, "format", &format, NULL));
	g_assert_cmpstr(format, ==, "raw");
	g_assert_true(gnt_json_get_int(result, "virtual_bytes", &bytes, NULL));
	g_assert_cmpint(bytes, ==, 5 * MIB);
	g_assert_true(gnt_json_get_int(result, "disk_bytes", &disk_bytes, NULL));
	g_assert_cmpint(disk_bytes, ==, DISK_MIB * MIB);
	g_assert_true(gnt_json_get_string(result, "sha256", &got_sha256, NULL));
	g_assert_cmpstr(got_sha256, ==, sha256);
	g_assert_true(image_test_disk_holds(fx->disk, image));
	/* the last line: the result */
	g_assert_cmpuint(fx->lines->len, >=, 1);
	g_assert_true(g_str_has_prefix(g_ptr_array_index(fx->lines, fx->lines->len - 1),
				       "disk 0: image written (raw, 5.2 MB) in "));
}

/* Lines come while the node still writes: the server holds the second
 * half of the image until the first progress line arrived. */
static void
release_cb(const gchar *line, gpointer user_data)
{
	ImageRpcFx *fx = user_data;

	line_cb(line, fx);
	image_server_release(fx->images);
}

static void
test_http_progress(ImageRpcFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GBytes) image = image_test_pattern(DISK_MIB * MIB, 8);
	g_autofree gchar *location =
		g_strconcat(image_server_get_base(fx->images), "/image.raw", NULL);
	g_autoptr(JsonObject) result = NULL;

	image_server_add(fx->images, "/image.raw", 200, image, 0);
	image_server_hold(fx->images, "/image.raw", 8 * MIB);
	result = gnt_node_call_image_write(fx->node1.client, fx->node1.record, fx->spec, location,
					   NULL, release_cb, fx, &error);
	g_assert_no_error(error);
	g_assert_nonnull(result);
	g_assert_cmpuint(fx->lines->len, >=, 2);
	/* seen before the second half was sent: "disk 0: writing 25% (4.2 of
	 * 16.8 MB), 1027.0 MB/s" (or 50%) */
	g_assert_true(g_str_has_prefix(g_ptr_array_index(fx->lines, 0), "disk 0: writing "));
	g_assert_nonnull(strstr(g_ptr_array_index(fx->lines, 0), " of 16.8 MB), "));
	g_assert_null(strstr(g_ptr_array_index(fx->lines, 0), "100%"));
	g_assert_true(g_str_has_suffix(g_ptr_array_index(fx->lines, 0), " MB/s"));
	g_assert_true(image_test_disk_holds(fx->disk, image));
}

static void
test_errors(ImageRpcFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *location =
		g_strconcat(image_server_get_base(fx->images), "/nope.raw", NULL);
	g_autoptr(JsonObject) result = NULL;
	g_autoptr(JsonObject) diskless = json_object_ref(fx->spec);

	result = gnt_node_call_image_write(fx->node1.client, fx->node1.record, fx->spec, location,
					   NULL, line_cb, fx, &error);
	g_assert_null(result);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	assert_error_has(error, "node 'node1'");
	assert_error_has(error, "instance 'web1': image '");
	assert_error_has(error, "/nope.raw': HTTP 404 Not Found");
	g_clear_error(&error);
	result = gnt_node_call_image_write(fx->node1.client, fx->node1.record, fx->spec,
					   "relative.raw", NULL, NULL, NULL, &error);
	g_assert_null(result);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	assert_error_has(error, "must be an absolute path");
	g_clear_error(&error);
	result = gnt_node_call_image_write(fx->node1.client, fx->node1.record, fx->spec, "/a.raw",
					   "xyz", NULL, NULL, &error);
	g_assert_null(result);
	assert_error_has(error, "not a SHA-256");
	g_clear_error(&error);
	json_object_set_array_member(json_object_get_object_member(diskless, "instance"), "disks",
				     json_array_new());
	result = gnt_node_call_image_write(fx->node1.client, fx->node1.record, diskless, "/a.raw",
					   NULL, NULL, NULL, &error);
	g_assert_null(result);
	assert_error_has(error, "instance 'web1' has no disk to write an image onto");
}

/* Through the node's artifact cache (a URL with its SHA-256 and a cap):
 * the download's progress while the server holds the second half, then a
 * hit without a request; a wrong checksum names both sums and leaves
 * nothing in the cache. */
static void
test_cached(ImageRpcFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GBytes) image = image_test_pattern(DISK_MIB * MIB, 9);
	g_autoptr(GBytes) other = image_test_pattern(MIB, 10);
	g_autofree gchar *sha256 = g_compute_checksum_for_bytes(G_CHECKSUM_SHA256, image);
	g_autofree gchar *other_sha256 = g_compute_checksum_for_bytes(G_CHECKSUM_SHA256, other);
	g_autofree gchar *location =
		g_strconcat(image_server_get_base(fx->images), "/image.raw", NULL);
	g_autofree gchar *other_location =
		g_strconcat(image_server_get_base(fx->images), "/other.raw", NULL);
	g_autofree gchar *cache_dir = g_build_filename(gnt_paths_get_data_dir(fx->node1.paths),
						       "cache", "artifacts", NULL);
	g_autofree gchar *cached = g_build_filename(cache_dir, sha256, NULL);
	g_autofree gchar *mismatch = NULL;
	g_autoptr(JsonObject) first = NULL;
	g_autoptr(JsonObject) second = NULL;
	g_autoptr(JsonObject) wrong = NULL;
	const gchar *how = NULL;

	image_server_add(fx->images, "/image.raw", 200, image, 0);
	image_server_add(fx->images, "/other.raw", 200, other, 0);
	image_server_hold(fx->images, "/image.raw", 8 * MIB);
	first = gnt_node_call_image_write_cached(fx->node1.client, fx->node1.record, fx->spec,
						 location, sha256, 64 * MIB, release_cb, fx,
						 &error);
	g_assert_no_error(error);
	g_assert_true(gnt_json_get_string(first, "cache", &how, NULL));
	g_assert_cmpstr(how, ==, "filled");
	g_assert_true(g_str_has_prefix(g_ptr_array_index(fx->lines, 0), "disk 0: downloading "));
	g_assert_true(g_str_has_suffix(g_ptr_array_index(fx->lines, fx->lines->len - 1), "MB/s") &&
		      strstr(g_ptr_array_index(fx->lines, fx->lines->len - 1),
			     "(raw, 16.8 MB, artifact cache: filled)") != NULL);
	g_assert_true(image_test_disk_holds(fx->disk, image));
	g_assert_true(image_test_disk_holds(cached, image));

	second = gnt_node_call_image_write_cached(fx->node1.client, fx->node1.record, fx->spec,
						  location, sha256, 64 * MIB, NULL, NULL, &error);
	g_assert_no_error(error);
	g_assert_true(gnt_json_get_string(second, "cache", &how, NULL));
	g_assert_cmpstr(how, ==, "hit");
	g_assert_cmpuint(image_server_get_n_requests(fx->images), ==, 1);

	/* keyed by the checksum alone: another URL with a cached checksum is
	 * a hit, without a request */
	wrong = gnt_node_call_image_write_cached(fx->node1.client, fx->node1.record, fx->spec,
						 other_location, sha256, 64 * MIB, NULL, NULL,
						 &error);
	g_assert_nonnull(wrong);
	g_clear_pointer(&wrong, json_object_unref);
	g_assert_cmpuint(image_server_get_n_requests(fx->images), ==, 1);
	/* a checksum other.raw's bytes do not have */
	other_sha256[0] = other_sha256[0] == '0' ? '1' : '0';
	wrong = gnt_node_call_image_write_cached(fx->node1.client, fx->node1.record, fx->spec,
						 other_location, other_sha256, 64 * MIB, NULL, NULL,
						 &error);
	g_assert_null(wrong);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	mismatch = g_strdup_printf("checksum mismatch: expected %s, got ", other_sha256);
	assert_error_has(error, "instance 'web1': image '");
	assert_error_has(error, mismatch);
	{
		g_autoptr(GDir) dir = g_dir_open(cache_dir, 0, NULL);
		const gchar *name;
		guint n = 0;

		while ((name = g_dir_read_name(dir)) != NULL) {
			g_assert_cmpstr(name, ==, sha256);
			n++;
		}
		g_assert_cmpuint(n, ==, 1);
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/install/image-rpc/local-raw", ImageRpcFx, NULL, rpc_set_up, test_local_raw,
		   rpc_tear_down);
	g_test_add("/install/image-rpc/http-progress", ImageRpcFx, NULL, rpc_set_up,
		   test_http_progress, rpc_tear_down);
	g_test_add("/install/image-rpc/cached", ImageRpcFx, NULL, rpc_set_up, test_cached,
		   rpc_tear_down);
	g_test_add("/install/image-rpc/errors", ImageRpcFx, NULL, rpc_set_up, test_errors,
		   rpc_tear_down);
	return g_test_run();
}
