/*
 * The node's artifact cache (noded/gnt-noded-cache.h) against the image
 * server of these tests, which counts the requests it answers: a fill
 * then hits without a download, a wrong checksum and a truncated body
 * leaving nothing behind, least-recently-used eviction under the cap, an
 * artifact larger than the cap used once and gone, a restart finding the
 * files again (and removing a half download), and two callers at once
 * downloading once.
 */
#include <string.h>

#include <glib/gstdio.h>
#include <gnutls/crypto.h>

#include "gnt-error.h"
#include "gnt-noded-cache.h"
#include "image-test-server.h"

#define SIZE (256 * 1024 + 17)

typedef struct {
	gchar *dir;
	gchar *cache_dir;
	ImageServer *server;
	GntArtifactCache *cache;
	GBytes *images[3];
	gchar *sha256[3];
	gchar *url[3];
} CacheFx;

static gchar *
sha256_of(GBytes *bytes)
{
	guchar digest[32];
	GString *hex = g_string_new(NULL);
	gsize len = 0;
	gconstpointer data = g_bytes_get_data(bytes, &len);

	g_assert_cmpint(gnutls_hash_fast(GNUTLS_DIG_SHA256, data, len, digest), ==, 0);
	for (guint i = 0; i < sizeof(digest); i++)
		g_string_append_printf(hex, "%02x", digest[i]);
	return g_string_free(hex, FALSE);
}

static void
fx_set_up(CacheFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;

	fx->dir = g_dir_make_tmp("gnt-cache-XXXXXX", &error);
	g_assert_no_error(error);
	fx->cache_dir = g_build_filename(fx->dir, "cache", NULL);
	fx->server = image_server_new(NULL);
	for (guint i = 0; i < G_N_ELEMENTS(fx->images); i++) {
		g_autofree gchar *path = g_strdup_printf("/image%u.raw", i);

		fx->images[i] = image_test_pattern(SIZE, i + 1);
		fx->sha256[i] = sha256_of(fx->images[i]);
		fx->url[i] = g_strconcat(image_server_get_base(fx->server), path, NULL);
		image_server_add(fx->server, path, 200, fx->images[i], 0);
	}
	fx->cache = gnt_artifact_cache_new(fx->cache_dir);
}

static void
fx_tear_down(CacheFx *fx, gconstpointer data)
{
	g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", fx->dir);

	g_clear_pointer(&fx->cache, gnt_artifact_cache_free);
	g_clear_pointer(&fx->server, image_server_free);
	for (guint i = 0; i < G_N_ELEMENTS(fx->images); i++) {
		g_bytes_unref(fx->images[i]);
		g_free(fx->sha256[i]);
		g_free(fx->url[i]);
	}
	g_assert_cmpint(system(cmd), ==, 0);
	g_free(fx->cache_dir);
	g_free(fx->dir);
}

static GntArtifact *
fetch(CacheFx *fx, guint i, guint64 max_bytes, GError **error)
{
	GntArtifactFetchOptions options = {.max_bytes = max_bytes};

	return gnt_artifact_cache_fetch(fx->cache, fx->url[i], fx->sha256[i], &options, error);
}

/* Fetches image @i, which must come @origin-wise and hold its bytes. */
static GntArtifact *
fetch_ok(CacheFx *fx, guint i, guint64 max_bytes, GntArtifactOrigin origin)
{
	g_autoptr(GError) error = NULL;
	GntArtifact *artifact = fetch(fx, i, max_bytes, &error);

	g_assert_no_error(error);
	g_assert_nonnull(artifact);
	g_assert_cmpstr(gnt_artifact_origin_to_string(gnt_artifact_get_origin(artifact)), ==,
			gnt_artifact_origin_to_string(origin));
	g_assert_true(image_test_disk_holds(gnt_artifact_get_path(artifact), fx->images[i]));
	g_assert_cmpuint(gnt_artifact_get_size(artifact), ==, SIZE);
	return artifact;
}

static gboolean
cached(CacheFx *fx, guint i)
{
	g_autofree gchar *path = g_build_filename(fx->cache_dir, fx->sha256[i], NULL);

	return g_file_test(path, G_FILE_TEST_IS_REGULAR);
}

/* The names in the cache directory, sorted, space-separated. */
static gchar *
dir_listing(CacheFx *fx)
{
	g_autoptr(GDir) dir = g_dir_open(fx->cache_dir, 0, NULL);
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	const gchar *name;

	while (dir != NULL && (name = g_dir_read_name(dir)) != NULL)
		g_ptr_array_add(names, g_strdup(name));
	g_ptr_array_sort(names, (GCompareFunc)g_strcmp0);
	g_ptr_array_add(names, NULL);
	return g_strjoinv(" ", (gchar **)names->pdata);
}

static void
test_fill_then_hit(CacheFx *fx, gconstpointer data)
{
	g_autoptr(GntArtifact) first = fetch_ok(fx, 0, 1 << 30, GNT_ARTIFACT_FILLED);
	g_autoptr(GntArtifact) second = NULL;
	guint n_files = 0;
	guint64 bytes = 0;

	g_assert_cmpuint(image_server_get_n_requests(fx->server), ==, 1);
	second = fetch_ok(fx, 0, 1 << 30, GNT_ARTIFACT_HIT);
	/* nothing downloaded for a hit */
	g_assert_cmpuint(image_server_get_n_requests(fx->server), ==, 1);
	g_assert_cmpstr(gnt_artifact_get_path(first), ==, gnt_artifact_get_path(second));
	gnt_artifact_cache_get_usage(fx->cache, &n_files, &bytes);
	g_assert_cmpuint(n_files, ==, 1);
	g_assert_cmpuint(bytes, ==, SIZE);
	/* the same checksum in capitals is the same artifact */
	{
		g_autofree gchar *upper = g_ascii_strup(fx->sha256[0], -1);
		GntArtifactFetchOptions options = {.max_bytes = 1 << 30};
		g_autoptr(GntArtifact) third =
			gnt_artifact_cache_fetch(fx->cache, fx->url[0], upper, &options, NULL);

		g_assert_nonnull(third);
		g_assert_cmpint(gnt_artifact_get_origin(third), ==, GNT_ARTIFACT_HIT);
	}
	g_assert_cmpuint(image_server_get_n_requests(fx->server), ==, 1);
}

static void
test_wrong_checksum(CacheFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *expected = NULL;
	g_autofree gchar *listing = NULL;
	GntArtifactFetchOptions options = {.max_bytes = 1 << 30};
	GntArtifact *artifact;

	/* image 1's bytes where image 0's checksum is expected */
	artifact = gnt_artifact_cache_fetch(fx->cache, fx->url[1], fx->sha256[0], &options, &error);
	g_assert_null(artifact);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	expected = g_strdup_printf("checksum mismatch: expected %s, got %s", fx->sha256[0],
				   fx->sha256[1]);
	g_assert_cmpstr(error->message, ==, expected);
	/* never a cached file, not even a partial one */
	listing = dir_listing(fx);
	g_assert_cmpstr(listing, ==, "");
	/* a later right one is downloaded and kept */
	g_clear_error(&error);
	g_clear_pointer(&artifact, gnt_artifact_release);
	artifact = fetch_ok(fx, 0, 1 << 30, GNT_ARTIFACT_FILLED);
	gnt_artifact_release(artifact);
	g_assert_true(cached(fx, 0));
}

static void
test_truncated(CacheFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *listing = NULL;

	image_server_add(fx->server, "/image0.raw", 200, fx->images[0], SIZE + 4096);
	g_assert_null(fetch(fx, 0, 1 << 30, &error));
	g_assert_nonnull(error);
	listing = dir_listing(fx);
	g_assert_cmpstr(listing, ==, "");
}

static void
test_lru_eviction(CacheFx *fx, gconstpointer data)
{
	guint64 cap = SIZE * 2 + SIZE / 2; /* room for two */
	guint n_files = 0;
	guint64 bytes = 0;

	gnt_artifact_release(fetch_ok(fx, 0, cap, GNT_ARTIFACT_FILLED));
	g_usleep(2000);
	gnt_artifact_release(fetch_ok(fx, 1, cap, GNT_ARTIFACT_FILLED));
	g_usleep(2000);
	/* image 0 used again: image 1 is now the least recently used */
	gnt_artifact_release(fetch_ok(fx, 0, cap, GNT_ARTIFACT_HIT));
	g_usleep(2000);
	gnt_artifact_release(fetch_ok(fx, 2, cap, GNT_ARTIFACT_FILLED));
	g_assert_true(cached(fx, 0));
	g_assert_false(cached(fx, 1));
	g_assert_true(cached(fx, 2));
	gnt_artifact_cache_get_usage(fx->cache, &n_files, &bytes);
	g_assert_cmpuint(n_files, ==, 2);
	g_assert_cmpuint(bytes, ==, 2 * SIZE);
	g_assert_cmpuint(image_server_get_n_requests(fx->server), ==, 3);
	/* the evicted one is downloaded again */
	gnt_artifact_release(fetch_ok(fx, 1, cap, GNT_ARTIFACT_FILLED));
	g_assert_cmpuint(image_server_get_n_requests(fx->server), ==, 4);
}

/* A file in use is never removed, however old. */
static void
test_in_use_kept(CacheFx *fx, gconstpointer data)
{
	guint64 cap = SIZE + SIZE / 2; /* room for one */
	g_autoptr(GntArtifact) held = fetch_ok(fx, 0, cap, GNT_ARTIFACT_FILLED);

	gnt_artifact_release(fetch_ok(fx, 1, cap, GNT_ARTIFACT_FILLED));
	g_assert_true(cached(fx, 0));
	g_assert_true(image_test_disk_holds(gnt_artifact_get_path(held), fx->images[0]));
	/* released, it is the least recently used: the next fill takes its place */
	g_clear_pointer(&held, gnt_artifact_release);
	gnt_artifact_release(fetch_ok(fx, 2, cap, GNT_ARTIFACT_FILLED));
	g_assert_false(cached(fx, 0));
	g_assert_true(cached(fx, 2));
}

static void
test_larger_than_cap(CacheFx *fx, gconstpointer data)
{
	GntArtifact *artifact = fetch_ok(fx, 0, SIZE - 1, GNT_ARTIFACT_UNCACHED);
	g_autofree gchar *path = g_strdup(gnt_artifact_get_path(artifact));
	g_autofree gchar *listing = NULL;

	g_assert_false(cached(fx, 0));
	gnt_artifact_release(artifact);
	g_assert_false(g_file_test(path, G_FILE_TEST_EXISTS));
	listing = dir_listing(fx);
	g_assert_cmpstr(listing, ==, "");
}

static void
test_restart(CacheFx *fx, gconstpointer data)
{
	g_autofree gchar *partial = NULL;
	g_autofree gchar *listing = NULL;

	gnt_artifact_release(fetch_ok(fx, 0, 1 << 30, GNT_ARTIFACT_FILLED));
	/* a crashed noded's half download */
	partial = g_build_filename(fx->cache_dir, "partial-Ab12Cd", NULL);
	g_assert_true(g_file_set_contents(partial, "half", 4, NULL));
	gnt_artifact_cache_free(fx->cache);
	fx->cache = gnt_artifact_cache_new(fx->cache_dir);
	gnt_artifact_release(fetch_ok(fx, 0, 1 << 30, GNT_ARTIFACT_HIT));
	g_assert_cmpuint(image_server_get_n_requests(fx->server), ==, 1);
	listing = dir_listing(fx);
	g_assert_cmpstr(listing, ==, fx->sha256[0]);
}

typedef struct {
	CacheFx *fx;
	GntArtifact *artifact;
	GError *error;
} Caller;

static gpointer
caller_thread(gpointer data)
{
	Caller *caller = data;

	caller->artifact = fetch(caller->fx, 0, 1 << 30, &caller->error);
	return NULL;
}

/* Two callers at once: the second waits for the first's download. */
static void
test_concurrent_once(CacheFx *fx, gconstpointer data)
{
	Caller callers[2] = {{fx, NULL, NULL}, {fx, NULL, NULL}};
	GThread *threads[2];
	guint filled = 0;
	guint waited = 0;
	guint hit = 0;

	image_server_hold(fx->server, "/image0.raw", SIZE / 2);
	threads[0] = g_thread_new("first", caller_thread, &callers[0]);
	while (image_server_get_n_requests(fx->server) == 0)
		g_usleep(1000);
	threads[1] = g_thread_new("second", caller_thread, &callers[1]);
	/* the second is waiting, not downloading: let it get there */
	g_usleep(200 * 1000);
	g_assert_cmpuint(image_server_get_n_requests(fx->server), ==, 1);
	image_server_release(fx->server);
	for (guint i = 0; i < G_N_ELEMENTS(threads); i++) {
		g_thread_join(threads[i]);
		g_assert_no_error(callers[i].error);
		g_assert_nonnull(callers[i].artifact);
		g_assert_true(image_test_disk_holds(gnt_artifact_get_path(callers[i].artifact),
						    fx->images[0]));
		filled += gnt_artifact_get_origin(callers[i].artifact) == GNT_ARTIFACT_FILLED;
		waited += gnt_artifact_get_origin(callers[i].artifact) == GNT_ARTIFACT_WAITED;
		hit += gnt_artifact_get_origin(callers[i].artifact) == GNT_ARTIFACT_HIT;
		gnt_artifact_release(callers[i].artifact);
	}
	g_assert_cmpuint(filled, ==, 1);
	/* a second thread the scheduler started only after the release finds
	 * the file there: a hit, and still one download */
	g_assert_cmpuint(waited + hit, ==, 1);
	if (hit > 0)
		g_test_message("the second caller came after the download");
	g_assert_cmpuint(image_server_get_n_requests(fx->server), ==, 1);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
#define ADD(path, func) g_test_add(path, CacheFx, NULL, fx_set_up, func, fx_tear_down)
	ADD("/artifact-cache/fill-then-hit", test_fill_then_hit);
	ADD("/artifact-cache/wrong-checksum", test_wrong_checksum);
	ADD("/artifact-cache/truncated", test_truncated);
	ADD("/artifact-cache/lru-eviction", test_lru_eviction);
	ADD("/artifact-cache/in-use-kept", test_in_use_kept);
	ADD("/artifact-cache/larger-than-cap", test_larger_than_cap);
	ADD("/artifact-cache/restart", test_restart);
	ADD("/artifact-cache/concurrent-once", test_concurrent_once);
#undef ADD
	return g_test_run();
}
