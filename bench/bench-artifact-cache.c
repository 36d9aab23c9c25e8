/*
 * bench-artifact-cache: what the node's artifact cache (noded/gnt-noded-cache.h)
 * adds to an install (doc/benchmarks.md, "Install: the artifact cache").
 * An HTTP server in this process (tests/install/image-test-server.h, which
 * counts requests) serves a raw image of random data; then:
 *
 *  1. a miss: the download into the cache, verified (once);
 *  2. lookups of the cached artifact alone (fetch + release), many times:
 *     their median, 99th percentile and maximum, and the requests the
 *     server saw meanwhile (must stay at one);
 *  3. per run, onto a fresh file disk: gnt_image_write of the local file
 *     (no cache), and the same write of the cache's file after a hit (what
 *     noded's image_write does for a catalog image), interleaved; the
 *     difference of their medians is what a hit adds to an install.
 *
 * Asserts nothing; prints the figures.
 *
 *	bench-artifact-cache [--dir DIR] [--size MIB] [--runs N] [--lookups N]
 *	(default: /var/tmp, 256 MiB, 5 runs, 10000 lookups)
 */
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "gnt-noded-cache.h"
#include "image-test-server.h"

#define MIB (1024 * 1024)

static gdouble
now_ms(void)
{
	return (gdouble)g_get_monotonic_time() / 1000.0;
}

static gint
compare_double(gconstpointer a, gconstpointer b)
{
	gdouble x = *(const gdouble *)a;
	gdouble y = *(const gdouble *)b;

	return x < y ? -1 : x > y ? 1 : 0;
}

/* The value at @fraction (0.5: the median) of @values, sorted in place. */
static gdouble
percentile(GArray *values, gdouble fraction)
{
	guint index;

	g_array_sort(values, compare_double);
	index = (guint)((values->len - 1) * fraction + 0.5);
	return g_array_index(values, gdouble, index);
}

static void
die(const gchar *what, GError *error)
{
	g_printerr("bench-artifact-cache: %s: %s\n", what, error->message);
	exit(1);
}

/* Writes @path onto a fresh sparse file disk @disk; the milliseconds. */
static gdouble
write_onto(const gchar *path, const gchar *disk, const gchar *work, guint64 size)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntImageSource) source = gnt_image_source_new(path, NULL, &error);
	GntImageWriteOptions options = {
		.target = disk,
		.target_format = GNT_DISK_FORMAT_RAW,
		.work_dir = work,
	};
	int fd = g_open(disk, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	gdouble start;

	if (fd < 0 || ftruncate(fd, (off_t)(size + 64 * MIB)) != 0)
		g_error("making the disk '%s'", disk);
	(void)close(fd);
	sync();
	start = now_ms();
	if (source == NULL || !gnt_image_write(source, &options, NULL, &error))
		die("writing", error);
	return now_ms() - start;
}

int
main(int argc, char **argv)
{
	g_autofree gchar *base = NULL;
	gint size_mib = 256;
	gint runs = 5;
	gint lookups = 10000;
	g_autofree gchar *dir_option = NULL;
	GOptionEntry entries[] = {
		{"dir", 0, 0, G_OPTION_ARG_FILENAME, &dir_option, "Where to work", "DIR"},
		{"size", 0, 0, G_OPTION_ARG_INT, &size_mib, "Image size in MiB", "MIB"},
		{"runs", 0, 0, G_OPTION_ARG_INT, &runs, "Writes of each kind", "N"},
		{"lookups", 0, 0, G_OPTION_ARG_INT, &lookups, "Cache lookups timed", "N"},
		{NULL},
	};
	g_autoptr(GOptionContext) context = g_option_context_new("- the artifact cache's cost");
	g_autoptr(GError) error = NULL;
	g_autoptr(ImageServer) server = NULL;
	g_autoptr(GntArtifactCache) cache = NULL;
	g_autoptr(GBytes) image = NULL;
	g_autoptr(GArray) lookup_ms = g_array_new(FALSE, FALSE, sizeof(gdouble));
	g_autoptr(GArray) direct_ms = g_array_new(FALSE, FALSE, sizeof(gdouble));
	g_autoptr(GArray) cached_ms = g_array_new(FALSE, FALSE, sizeof(gdouble));
	g_autofree gchar *local = NULL;
	g_autofree gchar *disk = NULL;
	g_autofree gchar *work = NULL;
	g_autofree gchar *url = NULL;
	g_autofree gchar *sha256 = NULL;
	g_autofree gchar *cmd = NULL;
	GntArtifactFetchOptions options = {.max_bytes = G_MAXINT64};
	GntArtifact *artifact;
	gdouble start;
	gdouble miss_ms;
	guint requests_before;
	gsize len = 0;
	gconstpointer data;

	g_option_context_add_main_entries(context, entries, NULL);
	if (!g_option_context_parse(context, &argc, &argv, &error))
		die("options", error);
	base = g_build_filename(dir_option != NULL ? dir_option : "/var/tmp",
				"bench-artifact-cache-XXXXXX", NULL);
	if (g_mkdtemp(base) == NULL)
		g_error("making '%s'", base);
	local = g_build_filename(base, "image.raw", NULL);
	disk = g_build_filename(base, "disk0", NULL);
	work = g_build_filename(base, "work", NULL);
	{
		g_autofree gchar *cache_dir = g_build_filename(base, "cache", NULL);

		cache = gnt_artifact_cache_new(cache_dir);
	}
	/* random bytes: nothing for a sparse copy to skip */
	{
		g_autofree guchar *bytes = g_malloc((gsize)size_mib * MIB);
		int fd = g_open("/dev/urandom", O_RDONLY, 0);

		if (fd < 0 || read(fd, bytes, (gsize)size_mib * MIB) != (gssize)size_mib * MIB)
			g_error("reading /dev/urandom");
		(void)close(fd);
		image = g_bytes_new_take(g_steal_pointer(&bytes), (gsize)size_mib * MIB);
	}
	image_test_write_file(local, image);
	data = g_bytes_get_data(image, &len);
	sha256 = g_compute_checksum_for_data(G_CHECKSUM_SHA256, data, len);
	server = image_server_new(NULL);
	image_server_add(server, "/image.raw", 200, image, 0);
	url = g_strconcat(image_server_get_base(server), "/image.raw", NULL);

	/* 1. the miss */
	start = now_ms();
	artifact = gnt_artifact_cache_fetch(cache, url, sha256, &options, &error);
	if (artifact == NULL)
		die("the first fetch", error);
	miss_ms = now_ms() - start;
	gnt_artifact_release(artifact);

	/* 2. lookups */
	requests_before = image_server_get_n_requests(server);
	for (gint i = 0; i < lookups; i++) {
		gdouble ms;

		start = now_ms();
		artifact = gnt_artifact_cache_fetch(cache, url, sha256, &options, &error);
		if (artifact == NULL)
			die("a hit", error);
		gnt_artifact_release(artifact);
		ms = now_ms() - start;
		g_array_append_val(lookup_ms, ms);
	}

	/* 3. installs: the local file, and the cache's after a hit */
	for (gint r = 0; r < runs * 2; r++) {
		gboolean cached_first = r % 2 == 1; /* each order as often */
		gdouble direct = 0;
		gdouble cached;

		if (!cached_first)
			direct = write_onto(local, disk, work, len);
		/* the lookup, then the write of what it found (write_onto() times
		 * the write alone, after making the disk and a sync) */
		start = now_ms();
		artifact = gnt_artifact_cache_fetch(cache, url, sha256, &options, &error);
		if (artifact == NULL)
			die("a hit", error);
		cached = now_ms() - start;
		cached += write_onto(gnt_artifact_get_path(artifact), disk, work, len);
		gnt_artifact_release(artifact);
		if (cached_first)
			direct = write_onto(local, disk, work, len);
		g_array_append_val(direct_ms, direct);
		g_array_append_val(cached_ms, cached);
		g_print("run %d (%s first): local file %.1f ms, cache hit %.1f ms\n", r + 1,
			cached_first ? "cache hit" : "local file", direct, cached);
	}

	g_print("image: %d MiB of random data, SHA-256 %s\n", size_mib, sha256);
	g_print("miss (download + verify into the cache): %.1f ms, %.0f MB/s\n", miss_ms,
		(gdouble)len / 1e3 / miss_ms);
	g_print("hit, lookup alone (%d): median %.3f ms, p99 %.3f ms, max %.3f ms\n", lookups,
		percentile(lookup_ms, 0.5), percentile(lookup_ms, 0.99),
		percentile(lookup_ms, 1.0));
	g_print("requests during the hits: %u\n",
		image_server_get_n_requests(server) - requests_before);
	g_print("install write, median of %d: local file %.1f ms, cache hit %.1f ms, "
		"difference %+.1f ms\n",
		runs * 2, percentile(direct_ms, 0.5), percentile(cached_ms, 0.5),
		percentile(cached_ms, 0.5) - percentile(direct_ms, 0.5));
	cmd = g_strdup_printf("rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : 1;
}
