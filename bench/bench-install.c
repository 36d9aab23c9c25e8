/*
 * bench-install: the disk image writer (install/gnt-image-writer.h) next to
 * dd (doc/benchmarks.md, "Install"). Makes a raw image of random data
 * (/dev/urandom, so no sparse or zero-detection tricks) and a qcow2 copy of
 * it (qemu-img convert, every cluster allocated), then, for each run, onto
 * a fresh sparse file disk in the same directory, after a sync:
 *
 *	dd if=IMAGE of=DISK bs=4M conv=fsync		(the raw image)
 *	gnt_image_write of the raw image, then of the qcow2 image
 *	the same two with the SHA-256 checked
 *
 * and prints each one's MB/s (10^6 bytes of the image's size per second of
 * the whole call), the median over the runs, and the ratio to dd's median.
 * Asserts nothing.
 *
 *	bench-install [--dir DIR] [--size MIB] [--runs N]
 *	(default: /var/tmp, 2048 MiB, 3 runs; the directory needs about three
 *	times the size free)
 */
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "gnt-image-writer.h"
#include "bench-stats.h"

#define MIB (1024 * 1024)

typedef struct {
	const gchar *name;
	GArray *rates; /* gdouble MB/s */
} Method;

static void
run_or_die(const gchar *const *argv)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *err = NULL;
	gint status = 0;

	if (!g_spawn_sync(NULL, (gchar **)argv, NULL,
			  G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err,
			  &status, &error) ||
	    !g_spawn_check_wait_status(status, &error)) {
		g_printerr("bench-install: %s: %s %s\n", argv[0], error->message, err ? err : "");
		exit(1);
	}
}

static void
make_image(const gchar *raw, const gchar *qcow2, guint size_mib)
{
	g_autofree gchar *count = g_strdup_printf("count=%u", size_mib / 4);
	g_autofree gchar *of = g_strdup_printf("of=%s", raw);
	const gchar *dd[] = {"dd", "if=/dev/urandom", of, "bs=4M", count, "status=none", NULL};
	const gchar *convert[] = {"qemu-img", "convert", "-f",	"raw", "-O",
				  "qcow2",    raw,	 qcow2, NULL};
	const gchar *sync_all[] = {"sync", NULL};

	g_print("making a %u MiB random raw image and its qcow2 copy in %s...\n", size_mib,
		g_path_get_dirname(raw));
	run_or_die(dd);
	run_or_die(convert);
	run_or_die(sync_all);
}

/* A fresh sparse disk of @size bytes, everything written before synced. */
static void
fresh_disk(const gchar *disk, guint64 size)
{
	const gchar *sync_all[] = {"sync", NULL};
	int fd;

	(void)g_unlink(disk);
	run_or_die(sync_all);
	fd = g_open(disk, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
		g_printerr("bench-install: creating '%s' failed\n", disk);
		exit(1);
	}
	(void)close(fd);
}

static gdouble
time_dd(const gchar *image, const gchar *disk)
{
	g_autofree gchar *in = g_strdup_printf("if=%s", image);
	g_autofree gchar *out = g_strdup_printf("of=%s", disk);
	const gchar *dd[] = {"dd", in, out, "bs=4M", "conv=fsync", "status=none", NULL};
	gint64 start = g_get_monotonic_time();

	run_or_die(dd);
	return (gdouble)(g_get_monotonic_time() - start) / G_USEC_PER_SEC;
}

static gdouble
time_writer(const gchar *image, const gchar *sha256, const gchar *disk, const gchar *work)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntImageSource) source = gnt_image_source_new(image, sha256, &error);
	g_auto(GntImageResult) result = {NULL};
	GntImageWriteOptions options = {
		.target = disk,
		.target_format = GNT_DISK_FORMAT_RAW,
		.work_dir = work,
	};

	if (source == NULL || !gnt_image_write(source, &options, &result, &error)) {
		g_printerr("bench-install: %s\n", error->message);
		exit(1);
	}
	return result.seconds;
}

static gchar *
file_sha256(const gchar *path)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GMappedFile) file = g_mapped_file_new(path, FALSE, &error);
	g_autoptr(GBytes) bytes = NULL;

	if (file == NULL) {
		g_printerr("bench-install: %s\n", error->message);
		exit(1);
	}
	bytes = g_mapped_file_get_bytes(file);
	return g_compute_checksum_for_bytes(G_CHECKSUM_SHA256, bytes);
}

int
main(int argc, char **argv)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *dir_option = NULL;
	gint size_mib = 2048, runs = 3;
	GOptionEntry entries[] = {
		{"dir", 0, 0, G_OPTION_ARG_FILENAME, &dir_option,
		 "where the images and the disk go", "DIR"},
		{"size", 0, 0, G_OPTION_ARG_INT, &size_mib, "the image's size (default 2048)",
		 "MIB"},
		{"runs", 0, 0, G_OPTION_ARG_INT, &runs, "measurements of each (default 3)", "N"},
		{NULL},
	};
	g_autoptr(GOptionContext) context = g_option_context_new("- disk images next to dd");
	g_autofree gchar *dir = NULL;
	g_autofree gchar *raw = NULL, *qcow2 = NULL, *disk = NULL, *work = NULL;
	g_autofree gchar *raw_sha256 = NULL, *qcow2_sha256 = NULL;
	guint64 bytes;
	Method methods[] = {
		{"dd bs=4M conv=fsync (raw)"},
		{"gantry raw"},
		{"gantry qcow2"},
		{"gantry raw + sha256"},
		{"gantry qcow2 + sha256"},
	};
	gdouble dd_median;

	g_option_context_add_main_entries(context, entries, NULL);
	if (!g_option_context_parse(context, &argc, &argv, &error) || size_mib < 4 || runs < 1) {
		g_printerr("bench-install: %s\n", error ? error->message : "bad --size or --runs");
		return 2;
	}
	size_mib -= size_mib % 4;
	bytes = (guint64)size_mib * MIB;
	dir = g_build_filename(dir_option ? dir_option : "/var/tmp", "gnt-bench-install-XXXXXX",
			       NULL);
	if (g_mkdtemp(dir) == NULL) {
		g_printerr("bench-install: can not make '%s'\n", dir);
		return 1;
	}
	raw = g_build_filename(dir, "image.raw", NULL);
	qcow2 = g_build_filename(dir, "image.qcow2", NULL);
	disk = g_build_filename(dir, "disk0", NULL);
	work = g_build_filename(dir, "work", NULL);
	make_image(raw, qcow2, (guint)size_mib);
	raw_sha256 = file_sha256(raw); /* also brings both into the page cache */
	qcow2_sha256 = file_sha256(qcow2);
	for (guint m = 0; m < G_N_ELEMENTS(methods); m++)
		methods[m].rates = g_array_new(FALSE, FALSE, sizeof(gdouble));
	for (gint run = 0; run < runs; run++) {
		for (guint m = 0; m < G_N_ELEMENTS(methods); m++) {
			const gboolean is_qcow2 = m == 2 || m == 4;
			const gchar *image = is_qcow2 ? qcow2 : raw;
			const gchar *sha256 = m < 3 ? NULL : is_qcow2 ? qcow2_sha256 : raw_sha256;
			gdouble seconds, rate;

			fresh_disk(disk, bytes + 64 * MIB);
			seconds = m == 0 ? time_dd(raw, disk)
					 : time_writer(image, sha256, disk, work);
			rate = (gdouble)bytes / 1e6 / seconds;
			g_array_append_val(methods[m].rates, rate);
			g_print("run %d: %-26s %6.2f s %7.1f MB/s\n", run + 1, methods[m].name,
				seconds, rate);
		}
	}
	dd_median = bench_median(methods[0].rates);
	g_print("\n%u MiB image, %d runs, medians:\n", (guint)size_mib, runs);
	for (guint m = 0; m < G_N_ELEMENTS(methods); m++) {
		g_autoptr(GString) all = g_string_new(NULL);

		for (guint i = 0; i < methods[m].rates->len; i++)
			g_string_append_printf(all, "%s%.0f", i ? " / " : "",
					       g_array_index(methods[m].rates, gdouble, i));
		g_print("%-26s %7.1f MB/s  %5.1f%% of dd  (%s)\n", methods[m].name,
			bench_median(methods[m].rates),
			100 * bench_median(methods[m].rates) / dd_median, all->str);
		g_array_unref(methods[m].rates);
	}
	(void)g_unlink(raw);
	(void)g_unlink(qcow2);
	(void)g_unlink(disk);
	(void)g_rmdir(dir);
	return 0;
}
