/* Disk templates: file disks (raw, qcow2) in a temporary storage directory,
 * and plain disks on a real volume group on a loop device. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "gnt-disk-private.h"
#include "gnt-error.h"
#include "gnt-subprocess.h"
#include "gnt-test-assert.h"

#define MIB ((guint64)1024 * 1024)

/* ---- shared helpers ---- */

static GPtrArray *
disks_new(const gchar *prefix, const guint64 *sizes, const GntDiskFormat *formats, guint n)
{
	GPtrArray *disks = g_ptr_array_new_with_free_func((GDestroyNotify)gnt_disk_spec_free);

	for (guint i = 0; i < n; i++) {
		g_autofree gchar *uuid = g_strdup_printf("%s-%u", prefix, i);

		g_ptr_array_add(disks, gnt_disk_spec_new(uuid, i, sizes[i],
							 formats != NULL ? formats[i]
									 : GNT_DISK_FORMAT_RAW));
	}
	return disks;
}

static gboolean
names_contain(GPtrArray *names, const gchar *name)
{
	return g_ptr_array_find_with_equal_func(names, name, g_str_equal, NULL);
}

static gchar *
run_ok(const gchar *const *argv)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *out = NULL;
	gint status = -1;

	g_assert_true(gnt_subprocess_run(argv, NULL, 120, &out, &status, &error));
	g_assert_no_error(error);
	if (status != 0)
		g_error("%s failed (%d): %s", argv[0], status, out);
	return g_steal_pointer(&out);
}

/* qemu-img's own view of an image: its format and virtual size. */
static void
assert_image(const gchar *path, const gchar *format, guint64 bytes)
{
	const gchar *argv[] = {"qemu-img", "info", "--output=json", path, NULL};
	g_autofree gchar *out = run_ok(argv);
	g_autoptr(JsonParser) parser = json_parser_new();
	g_autoptr(GError) error = NULL;
	JsonObject *info;

	g_assert_true(json_parser_load_from_data(parser, out, -1, &error));
	info = json_node_get_object(json_parser_get_root(parser));
	g_assert_cmpstr(json_object_get_string_member(info, "format"), ==, format);
	g_assert_cmpint(json_object_get_int_member(info, "virtual-size"), ==, (gint64)bytes);
}

/* ---- templates without storage ---- */

static void
test_names(void)
{
	g_autoptr(GError) error = NULL;
	GntDiskTemplate template = GNT_DISK_TEMPLATE_LAST;
	GntDiskFormat format = GNT_DISK_FORMAT_LAST;

	for (guint i = 0; i < GNT_DISK_TEMPLATE_LAST; i++) {
		g_assert_true(gnt_disk_template_from_string(gnt_disk_template_to_string(i),
							    &template, &error));
		g_assert_cmpint(template, ==, i);
	}
	g_assert_cmpstr(gnt_disk_template_to_string(GNT_DISK_TEMPLATE_PLAIN), ==, "plain");
	g_assert_false(gnt_disk_template_from_string("drbd", &template, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	gnt_test_assert_contains(error->message, "'drbd'");
	g_clear_error(&error);
	g_assert_true(gnt_disk_format_from_string("qcow2", &format, &error));
	g_assert_cmpint(format, ==, GNT_DISK_FORMAT_QCOW2);
	g_assert_false(gnt_disk_format_from_string("vmdk", &format, &error));
	g_assert_nonnull(error);
	gnt_test_assert_contains(error->message, "'vmdk'");
}

static void
test_diskless(void)
{
	GntDiskStoreParams params = {0};
	g_autoptr(GError) error = NULL;
	g_autoptr(GntDiskStore)
		store = gnt_disk_store_new(GNT_DISK_TEMPLATE_DISKLESS, &params, &error);
	const guint64 sizes[] = {1024};
	g_autoptr(GPtrArray) disks = disks_new("dl", sizes, NULL, 1);
	g_autoptr(GPtrArray) names = NULL;
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autoptr(JsonNode) root = NULL;
	g_autofree gchar *json = NULL;
	guint64 size = 1, free_mib = 1;

	g_assert_no_error(error);
	g_assert_true(gnt_disk_store_create(store, "inst1", disks, &error));
	g_assert_true(gnt_disk_store_remove(store, "inst1", disks, &error));
	g_assert_null(gnt_disk_store_dup_volume_name(store, g_ptr_array_index(disks, 0)));
	g_assert_null(gnt_disk_store_dup_path(store, "inst1", g_ptr_array_index(disks, 0), &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_clear_error(&error);
	names = gnt_disk_store_list_volumes(store, &error);
	g_assert_cmpuint(names->len, ==, 0);
	g_assert_true(gnt_disk_store_get_space(store, &size, &free_mib, &error));
	g_assert_cmpuint(size + free_mib, ==, 0);
	g_assert_true(gnt_disk_store_space_to_json(store, builder, &error));
	root = json_builder_get_root(builder);
	json = json_to_string(root, FALSE);
	g_assert_cmpstr(
		json, ==,
		"{\"type\":\"diskless\",\"name\":\"\",\"storage_size\":0,\"storage_free\":0}");
}

/* ---- file ---- */

typedef struct {
	gchar *dir;	/* temporary */
	gchar *storage; /* <dir>/storage: the file storage directory */
	gchar *outside; /* <dir>/outside: must never be touched */
	GntDiskStore *store;
} FileFx;

static void
file_set_up(FileFx *fx, gconstpointer data)
{
	GntDiskStoreParams params = {.file_preallocate = GPOINTER_TO_INT(data)};
	g_autoptr(GError) error = NULL;

	fx->dir = g_dir_make_tmp("gnt-storage-XXXXXX", &error);
	g_assert_no_error(error);
	fx->storage = g_build_filename(fx->dir, "storage", NULL);
	fx->outside = g_build_filename(fx->dir, "outside", NULL);
	g_assert_cmpint(g_mkdir(fx->outside, 0700), ==, 0);
	params.file_storage_dir = fx->storage;
	fx->store = gnt_disk_store_new(GNT_DISK_TEMPLATE_FILE, &params, &error);
	g_assert_no_error(error);
}

static void
file_tear_down(FileFx *fx, gconstpointer data)
{
	const gchar *argv[] = {"rm", "-rf", fx->dir, NULL};

	g_free(run_ok(argv));
	g_clear_pointer(&fx->store, gnt_disk_store_free);
	g_free(fx->dir);
	g_free(fx->storage);
	g_free(fx->outside);
}

static gchar *
file_disk_path(FileFx *fx, const gchar *instance, const GntDiskSpec *disk)
{
	g_autofree gchar *name = gnt_disk_store_dup_volume_name(fx->store, disk);

	return g_build_filename(fx->storage, instance, name, NULL);
}

static void
assert_outside_empty(FileFx *fx)
{
	g_autoptr(GDir) dir = g_dir_open(fx->outside, 0, NULL);

	g_assert_nonnull(dir);
	g_assert_null(g_dir_read_name(dir));
}

static void
test_file_raw(FileFx *fx, gconstpointer data)
{
	gboolean preallocated = GPOINTER_TO_INT(data);
	g_autoptr(GError) error = NULL;
	const guint64 sizes[] = {8, 12};
	g_autoptr(GPtrArray) disks = disks_new("1f0e2b8c-raw", sizes, NULL, 2);
	g_autoptr(GPtrArray) names = NULL;
	g_autofree gchar *inst_dir = g_build_filename(fx->storage, "inst1.example.com", NULL);

	g_assert_true(gnt_disk_store_create(fx->store, "inst1.example.com", disks, &error));
	g_assert_no_error(error);
	for (guint i = 0; i < disks->len; i++) {
		const GntDiskSpec *disk = g_ptr_array_index(disks, i);
		g_autofree gchar *expected = file_disk_path(fx, "inst1.example.com", disk);
		g_autofree gchar *path =
			gnt_disk_store_dup_path(fx->store, "inst1.example.com", disk, &error);
		struct stat st;

		g_assert_no_error(error);
		g_assert_cmpstr(path, ==, expected);
		g_assert_true(g_str_has_suffix(path, i == 0 ? "/1f0e2b8c-raw-0.file.disk0"
							    : "/1f0e2b8c-raw-1.file.disk1"));
		g_assert_cmpint(g_stat(path, &st), ==, 0);
		g_assert_cmpuint((guint64)st.st_size, ==, disk->size_mib * MIB);
		if (preallocated) /* the blocks are reserved */
			g_assert_cmpuint((guint64)st.st_blocks * 512, >=, disk->size_mib * MIB);
		else /* sparse */
			g_assert_cmpuint((guint64)st.st_blocks * 512, <, MIB);
		assert_image(path, "raw", disk->size_mib * MIB);
		g_assert_cmpint(gnt_disk_store_get_format(fx->store, disk), ==,
				GNT_DISK_FORMAT_RAW);
	}
	g_assert_false(gnt_disk_store_is_block_device(fx->store));

	names = gnt_disk_store_list_volumes(fx->store, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(names->len, ==, 2);
	g_assert_cmpstr(g_ptr_array_index(names, 0), ==,
			"inst1.example.com/1f0e2b8c-raw-0.file.disk0");

	/* remove everything, including the directory; again is fine */
	g_assert_true(gnt_disk_store_remove(fx->store, "inst1.example.com", disks, &error));
	g_assert_no_error(error);
	g_assert_false(g_file_test(inst_dir, G_FILE_TEST_EXISTS));
	g_assert_true(gnt_disk_store_remove(fx->store, "inst1.example.com", disks, &error));
	g_assert_no_error(error);
	g_assert_null(gnt_disk_store_dup_path(fx->store, "inst1.example.com",
					      g_ptr_array_index(disks, 0), &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
}

static void
test_file_qcow2(FileFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	const guint64 sizes[] = {16, 8};
	const GntDiskFormat formats[] = {GNT_DISK_FORMAT_QCOW2, GNT_DISK_FORMAT_RAW};
	g_autoptr(GPtrArray) disks = disks_new("qc", sizes, formats, 2);
	GntDiskSpec *qcow = g_ptr_array_index(disks, 0);
	GntDiskSpec *raw = g_ptr_array_index(disks, 1);
	g_autofree gchar *qpath = file_disk_path(fx, "inst2", qcow);
	g_autofree gchar *rpath = file_disk_path(fx, "inst2", raw);

	g_assert_true(gnt_disk_store_create(fx->store, "inst2", disks, &error));
	g_assert_no_error(error);
	assert_image(qpath, "qcow2", 16 * MIB);
	assert_image(rpath, "raw", 8 * MIB);
	g_assert_cmpint(gnt_disk_store_get_format(fx->store, qcow), ==, GNT_DISK_FORMAT_QCOW2);

	/* grow both; a shrink is refused, the same size is a no-op */
	g_assert_true(gnt_disk_store_grow(fx->store, "inst2", qcow, 32, &error));
	g_assert_no_error(error);
	assert_image(qpath, "qcow2", 32 * MIB);
	g_assert_true(gnt_disk_store_grow(fx->store, "inst2", raw, 20, &error));
	g_assert_no_error(error);
	assert_image(rpath, "raw", 20 * MIB);
	raw->size_mib = 20;
	g_assert_true(gnt_disk_store_grow(fx->store, "inst2", raw, 20, &error));
	g_assert_false(gnt_disk_store_grow(fx->store, "inst2", raw, 4, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	gnt_test_assert_contains(error->message, "disk 1 (20M) of instance 'inst2'");
	g_clear_error(&error);
	assert_image(rpath, "raw", 20 * MIB);

	/* modify --disk add: one more disk next to the others */
	{
		g_autoptr(GntDiskSpec)
			extra = gnt_disk_spec_new("qc-2", 2, 4, GNT_DISK_FORMAT_QCOW2);
		g_autofree gchar *epath = file_disk_path(fx, "inst2", extra);

		g_assert_true(gnt_disk_store_add(fx->store, "inst2", extra, &error));
		g_assert_no_error(error);
		assert_image(epath, "qcow2", 4 * MIB);
		g_ptr_array_add(disks, g_steal_pointer(&extra));
	}
	g_assert_true(gnt_disk_store_remove(fx->store, "inst2", disks, &error));
	g_assert_no_error(error);
	g_assert_false(g_file_test(qpath, G_FILE_TEST_EXISTS));
}

static void
test_file_too_big(FileFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	guint64 size = 0, free_mib = 0;
	guint64 sizes[] = {8, 0};
	g_autoptr(GPtrArray) disks = NULL;
	g_autofree gchar *inst_dir = g_build_filename(fx->storage, "big", NULL);
	g_autofree gchar *free_s = NULL;

	/* the directory does not exist yet: its parent's file system counts */
	g_assert_true(gnt_disk_store_get_space(fx->store, &size, &free_mib, &error));
	g_assert_no_error(error);
	g_assert_cmpuint(free_mib, >, 16);
	g_assert_cmpuint(size, >=, free_mib);
	sizes[1] = free_mib; /* fits alone, not after disk 0 */
	disks = disks_new("big", sizes, NULL, 2);

	g_assert_false(gnt_disk_store_create(fx->store, "big", disks, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NO_RESOURCES);
	gnt_test_assert_contains(error->message, "disk 1 (");
	gnt_test_assert_contains(error->message, "of instance 'big'");
	gnt_test_assert_contains(error->message, "free in file storage directory");
	free_s = g_strdup_printf("(%" G_GUINT64_FORMAT " MiB)", free_mib);
	gnt_test_assert_contains(error->message, free_s);
	g_clear_error(&error);
	/* nothing was created, not even disk 0 */
	g_assert_false(g_file_test(inst_dir, G_FILE_TEST_EXISTS));

	/* one disk bigger than all the space, named with its size */
	((GntDiskSpec *)g_ptr_array_index(disks, 0))->size_mib = free_mib + 1024;
	g_assert_false(gnt_disk_store_check_space(fx->store, "big", disks, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NO_RESOURCES);
	gnt_test_assert_contains(error->message, "disk 0 (");
	g_clear_error(&error);

	/* a zero size is refused too */
	((GntDiskSpec *)g_ptr_array_index(disks, 0))->size_mib = 0;
	g_assert_false(gnt_disk_store_create(fx->store, "big", disks, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	gnt_test_assert_contains(error->message, "disk 0 of instance 'big': invalid size 0 MiB");
	g_assert_false(g_file_test(inst_dir, G_FILE_TEST_EXISTS));
}

static void
test_file_rollback_exists(FileFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	const guint64 sizes[] = {4, 4, 4};
	g_autoptr(GPtrArray) disks = disks_new("rb", sizes, NULL, 3);
	g_autofree gchar *inst_dir = g_build_filename(fx->storage, "inst3", NULL);
	g_autofree gchar *p0 = file_disk_path(fx, "inst3", g_ptr_array_index(disks, 0));
	g_autofree gchar *p1 = file_disk_path(fx, "inst3", g_ptr_array_index(disks, 1));
	g_autofree gchar *p2 = file_disk_path(fx, "inst3", g_ptr_array_index(disks, 2));
	g_autofree gchar *kept = NULL;

	/* disk 2's file is there already (someone else's) */
	g_assert_cmpint(g_mkdir_with_parents(inst_dir, 0700), ==, 0);
	g_assert_true(g_file_set_contents(p2, "precious", -1, NULL));

	g_assert_false(gnt_disk_store_create(fx->store, "inst3", disks, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_EXISTS);
	gnt_test_assert_contains(error->message, "removed the 2 disks created before it");
	gnt_test_assert_contains(error->message, "disk 2 (4M) of instance 'inst3'");
	gnt_test_assert_contains(error->message, "exists already");
	g_assert_false(g_file_test(p0, G_FILE_TEST_EXISTS));
	g_assert_false(g_file_test(p1, G_FILE_TEST_EXISTS));
	g_assert_true(g_file_get_contents(p2, &kept, NULL, NULL));
	g_assert_cmpstr(kept, ==, "precious");
}

static void
test_file_rollback_failure(FileFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	const guint64 sizes[] = {4, 4, 4};
	const GntDiskFormat formats[] = {GNT_DISK_FORMAT_RAW, GNT_DISK_FORMAT_QCOW2,
					 GNT_DISK_FORMAT_QCOW2};
	g_autoptr(GPtrArray) disks = disks_new("fail", sizes, formats, 3);
	g_autofree gchar *inst_dir = g_build_filename(fx->storage, "inst4", NULL);
	g_autofree gchar *fake = g_build_filename(fx->dir, "fake-qemu-img", NULL);
	g_autofree gchar *script = g_strdup_printf(
		"#!/bin/sh\n"
		"case \"$*\" in *fail-2.file.disk2*) ;; *) exec qemu-img \"$@\";; esac\n"
		"for i in 1 2 3 4 5 6 7 8 9 10; do echo \"noise $i\"; done\n"
		"echo 'qemu-img: simulated failure: No space left on device' >&2\n"
		"exit 1\n");

	g_assert_true(g_file_set_contents(fake, script, -1, NULL));
	g_assert_cmpint(g_chmod(fake, 0755), ==, 0);
	gnt_disk_store_set_qemu_img(fx->store, fake);

	g_assert_false(gnt_disk_store_create(fx->store, "inst4", disks, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	gnt_test_assert_contains(error->message, "disk 2 (4M) of instance 'inst4'");
	gnt_test_assert_contains(error->message, "(exit 1)");
	gnt_test_assert_contains(error->message, "simulated failure: No space left on device");
	gnt_test_assert_contains(error->message, "noise 10");
	g_assert_null(strstr(error->message, "noise 1;")); /* only the tail */
	/* disks 0 and 1 are gone, and the directory this call made */
	g_assert_false(g_file_test(inst_dir, G_FILE_TEST_EXISTS));
}

static void
test_file_path_escape(FileFx *fx, gconstpointer data)
{
	static const gchar *const bad_names[] = {"..",	    ".",  "../outside", "a/b", "",
						 ".hidden", "-x", "x y",	"x\n"};
	g_autoptr(GError) error = NULL;
	const guint64 sizes[] = {4};
	g_autoptr(GPtrArray) disks = disks_new("esc", sizes, NULL, 1);
	GntDiskSpec *disk = g_ptr_array_index(disks, 0);
	g_autofree gchar *link_dir = g_build_filename(fx->storage, "linked", NULL);
	g_autofree gchar *real_dir = g_build_filename(fx->storage, "real", NULL);
	g_autofree gchar *target = g_build_filename(fx->outside, "target", NULL);
	g_autofree gchar *link_file = file_disk_path(fx, "real", disk);
	g_autofree gchar *kept = NULL;
	GntDiskStoreParams params = {0};
	GntDiskStore *bad_store;

	for (gsize i = 0; i < G_N_ELEMENTS(bad_names); i++) {
		g_assert_false(gnt_disk_store_create(fx->store, bad_names[i], disks, &error));
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		gnt_test_assert_contains(error->message, "invalid instance name");
		g_clear_error(&error);
		g_assert_false(gnt_disk_store_remove(fx->store, bad_names[i], disks, &error));
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_clear_error(&error);
	}
	/* a disk UUID can not carry a path either */
	g_free(disk->uuid);
	disk->uuid = g_strdup("../../outside/x");
	g_assert_false(gnt_disk_store_create(fx->store, "inst5", disks, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	gnt_test_assert_contains(error->message, "invalid UUID");
	g_clear_error(&error);
	g_free(disk->uuid);
	disk->uuid = g_strdup("esc-0");

	/* an instance directory that is a symbolic link to elsewhere */
	g_assert_cmpint(g_mkdir_with_parents(fx->storage, 0700), ==, 0);
	g_assert_cmpint(symlink(fx->outside, link_dir), ==, 0);
	g_assert_false(gnt_disk_store_create(fx->store, "linked", disks, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	gnt_test_assert_contains(error->message, "symbolic links are refused");
	g_clear_error(&error);
	g_assert_false(gnt_disk_store_remove(fx->store, "linked", disks, &error));
	g_clear_error(&error);
	g_assert_null(gnt_disk_store_dup_path(fx->store, "linked", disk, &error));
	g_clear_error(&error);
	assert_outside_empty(fx);
	g_assert_true(g_file_test(link_dir, G_FILE_TEST_IS_SYMLINK)); /* not removed either */

	/* a disk file that is a symbolic link to a file elsewhere */
	g_assert_true(g_file_set_contents(target, "precious", -1, NULL));
	g_assert_cmpint(g_mkdir(real_dir, 0700), ==, 0);
	g_assert_cmpint(symlink(target, link_file), ==, 0);
	g_assert_false(gnt_disk_store_create(fx->store, "real", disks, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_EXISTS);
	g_clear_error(&error);
	g_assert_null(gnt_disk_store_dup_path(fx->store, "real", disk, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	gnt_test_assert_contains(error->message, "not a regular file");
	g_clear_error(&error);
	g_assert_false(gnt_disk_store_grow(fx->store, "real", disk, 64, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	g_clear_error(&error);
	g_assert_false(gnt_disk_store_remove(fx->store, "real", disks, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	g_clear_error(&error);
	g_assert_true(g_file_test(link_file, G_FILE_TEST_IS_SYMLINK));
	g_assert_true(g_file_get_contents(target, &kept, NULL, NULL));
	g_assert_cmpstr(kept, ==, "precious");

	/* and the listing shows neither */
	{
		g_autoptr(GPtrArray) names = gnt_disk_store_list_volumes(fx->store, &error);

		g_assert_no_error(error);
		g_assert_cmpuint(names->len, ==, 0);
	}

	/* the storage directory itself: absolute, without '..' */
	params.file_storage_dir = "relative/dir";
	bad_store = gnt_disk_store_new(GNT_DISK_TEMPLATE_FILE, &params, &error);
	g_assert_null(bad_store);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_clear_error(&error);
	params.file_storage_dir = "/srv/ganeti/../../etc";
	bad_store = gnt_disk_store_new(GNT_DISK_TEMPLATE_FILE, &params, &error);
	g_assert_null(bad_store);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	gnt_test_assert_contains(error->message, "'..'");
}

static void
test_file_space_json(FileFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autoptr(JsonNode) root = NULL;
	JsonObject *obj;

	g_assert_true(gnt_disk_store_space_to_json(fx->store, builder, &error));
	g_assert_no_error(error);
	root = json_builder_get_root(builder);
	obj = json_node_get_object(root);
	g_assert_cmpstr(json_object_get_string_member(obj, "type"), ==, "file");
	g_assert_cmpstr(json_object_get_string_member(obj, "name"), ==, fx->storage);
	g_assert_cmpint(json_object_get_int_member(obj, "storage_size"), >=,
			json_object_get_int_member(obj, "storage_free"));
	g_assert_cmpint(json_object_get_int_member(obj, "storage_free"), >, 0);
}

/* ---- plain (LVM) ---- */

static gchar *lvm_vg;	       /* the test's volume group, or NULL */
static gchar *lvm_skip;	       /* why the LVM tests skip, or NULL */
static gchar *lvm_setup_error; /* loop-vg-up failed */
static gboolean lvm_no_dm;     /* no device-mapper in this kernel */

static gboolean
lvm_skipped(void)
{
	if (lvm_skip != NULL) {
		if (g_strcmp0(g_getenv("GNT_TEST_REQUIRE_LVM"), "1") == 0)
			g_error("LVM tests required but %s", lvm_skip);
		g_test_skip(lvm_skip);
		return TRUE;
	}
	if (lvm_setup_error != NULL)
		g_error("scripts/loop-vg-up failed: %s", lvm_setup_error);
	return FALSE;
}

static GntDiskStore *
lvm_store_new(const gchar *vg)
{
	GntDiskStoreParams params = {.vg_name = vg};
	g_autoptr(GError) error = NULL;
	GntDiskStore *store = gnt_disk_store_new(GNT_DISK_TEMPLATE_PLAIN, &params, &error);

	g_assert_no_error(error);
	gnt_disk_store_set_lvm_no_activation(store, lvm_no_dm);
	return store;
}

/* Volume groups left by runs that died (an assertion aborts before the
 * tear-down): gnttest<pid> with no such process any more. */
static void
lvm_remove_stale_vgs(void)
{
	const gchar *down = g_getenv("GNT_TEST_LOOP_VG_DOWN");
	const gchar *argv[] = {"vgs", "--noheadings", "-ovg_name", NULL};
	g_autofree gchar *out = NULL;
	g_auto(GStrv) lines = NULL;
	gint status = -1;

	if (down == NULL || !gnt_subprocess_run(argv, NULL, 60, &out, &status, NULL) || status != 0)
		return;
	lines = g_strsplit(out, "\n", -1);
	for (guint i = 0; lines[i] != NULL; i++) {
		const gchar *vg = g_strstrip(lines[i]);
		g_autofree gchar *proc = NULL;

		if (!g_str_has_prefix(vg, "gnttest") || vg[7] == '\0' ||
		    strspn(vg + 7, "0123456789") != strlen(vg + 7))
			continue;
		proc = g_strdup_printf("/proc/%s", vg + 7);
		if (!g_file_test(proc, G_FILE_TEST_EXISTS)) {
			const gchar *down_argv[] = {down, vg, NULL};
			g_autofree gchar *down_out = NULL;

			g_test_message("removing stale volume group '%s'", vg);
			(void)gnt_subprocess_run(down_argv, NULL, 120, &down_out, &status, NULL);
		}
	}
}

static void
lvm_set_up_vg(void)
{
	const gchar *up = g_getenv("GNT_TEST_LOOP_VG_UP");
	g_autofree gchar *loop = NULL;
	g_autofree gchar *lvm = g_find_program_in_path("lvcreate");
	g_autofree gchar *sbin_lvm = g_file_test("/sbin/lvcreate", G_FILE_TEST_IS_EXECUTABLE)
					     ? g_strdup("/sbin/lvcreate")
					     : NULL;
	const gchar *argv_f[] = {"losetup", "-f", NULL};
	g_autoptr(GError) error = NULL;
	gint status = -1;
	int fd;

	if (getuid() != 0) {
		lvm_skip = g_strdup("LVM tests need root (for a loop device and a volume group)");
		return;
	}
	if (lvm == NULL && sbin_lvm == NULL) {
		lvm_skip = g_strdup("LVM tests need lvm2 (lvcreate not found)");
		return;
	}
	if (!gnt_subprocess_run(argv_f, NULL, 30, &loop, &status, &error) || status != 0) {
		lvm_skip = g_strdup_printf("LVM tests need a loop device: 'losetup -f' failed: %s",
					   error != NULL ? error->message : g_strstrip(loop));
		return;
	}
	g_clear_pointer(&loop, g_free);
	fd = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
	lvm_no_dm = fd < 0;
	if (fd >= 0)
		close(fd);
	lvm_remove_stale_vgs();
	lvm_vg = g_strdup_printf("gnttest%d", (int)getpid());
	{
		const gchar *argv[] = {up, lvm_vg, "256", NULL};

		if (up == NULL || !gnt_subprocess_run(argv, NULL, 120, &loop, &status, &error) ||
		    status != 0) {
			lvm_setup_error = g_strdup(error != NULL
							   ? error->message
							   : (loop != NULL ? loop : "no script"));
			g_clear_pointer(&lvm_vg, g_free);
		}
	}
}

static void
lvm_tear_down_vg(void)
{
	const gchar *down = g_getenv("GNT_TEST_LOOP_VG_DOWN");
	const gchar *argv[] = {down, lvm_vg, NULL};
	g_autofree gchar *out = NULL;

	if (lvm_vg == NULL || down == NULL)
		return;
	out = run_ok(argv);
	g_clear_pointer(&lvm_vg, g_free);
}

static void
test_lvm_create_list_remove(void)
{
	g_autoptr(GntDiskStore) store = NULL;
	g_autoptr(GError) error = NULL;
	const guint64 sizes[] = {8, 12};
	g_autoptr(GPtrArray) disks = disks_new("5a1c7e52-lv", sizes, NULL, 2);
	GntDiskSpec *disk0 = g_ptr_array_index(disks, 0);
	g_autoptr(GPtrArray) names = NULL;
	g_autofree gchar *path = NULL;
	g_autofree gchar *expected = NULL;
	guint64 size = 0, free_before = 0, free_after = 0;

	if (lvm_skipped())
		return;
	if (lvm_no_dm)
		g_test_message("no device-mapper in this kernel: volumes are not activated");
	store = lvm_store_new(lvm_vg);
	gnt_disk_store_get_space(store, &size, &free_before, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(size, ==, 252); /* 256 MiB less LVM's metadata */
	g_assert_cmpuint(free_before, ==, 252);

	g_assert_true(gnt_disk_store_create(store, "lvinst", disks, &error));
	g_assert_no_error(error);
	names = gnt_disk_store_list_volumes(store, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(names->len, ==, 2);
	g_assert_true(names_contain(names, "5a1c7e52-lv-0.disk0"));
	g_assert_true(names_contain(names, "5a1c7e52-lv-1.disk1"));
	g_assert_true(gnt_disk_store_get_space(store, &size, &free_after, &error));
	g_assert_cmpuint(free_after, ==, free_before - 20);

	path = gnt_disk_store_dup_path(store, "lvinst", disk0, &error);
	g_assert_no_error(error);
	expected = g_strdup_printf("/dev/%s/5a1c7e52-lv-0.disk0", lvm_vg);
	g_assert_cmpstr(path, ==, expected);
	g_assert_true(gnt_disk_store_is_block_device(store));
	g_assert_cmpint(gnt_disk_store_get_format(store, disk0), ==, GNT_DISK_FORMAT_RAW);
	if (!lvm_no_dm)
		g_assert_true(g_file_test(path, G_FILE_TEST_EXISTS));

	/* grow disk 0 from 8 to 16 MiB */
	g_assert_true(gnt_disk_store_grow(store, "lvinst", disk0, 16, &error));
	g_assert_no_error(error);
	g_assert_true(gnt_disk_store_get_space(store, &size, &free_after, &error));
	g_assert_cmpuint(free_after, ==, free_before - 28);

	g_assert_true(gnt_disk_store_remove(store, "lvinst", disks, &error));
	g_assert_no_error(error);
	g_clear_pointer(&names, g_ptr_array_unref);
	names = gnt_disk_store_list_volumes(store, &error);
	g_assert_cmpuint(names->len, ==, 0);
	g_assert_true(gnt_disk_store_remove(store, "lvinst", disks, &error)); /* idempotent */
	g_assert_no_error(error);
	g_assert_null(gnt_disk_store_dup_path(store, "lvinst", disk0, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
}

static void
test_lvm_too_big(void)
{
	g_autoptr(GntDiskStore) store = NULL;
	g_autoptr(GError) error = NULL;
	const guint64 sizes[] = {200, 100};
	g_autoptr(GPtrArray) disks = disks_new("toobig", sizes, NULL, 2);
	g_autoptr(GPtrArray) names = NULL;

	if (lvm_skipped())
		return;
	store = lvm_store_new(lvm_vg);
	g_assert_false(gnt_disk_store_create(store, "lvbig", disks, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NO_RESOURCES);
	gnt_test_assert_contains(error->message,
				 "disk 1 (100M) of instance 'lvbig' needs 100M (100 MiB)");
	gnt_test_assert_contains(error->message, "(252 MiB) free in volume group");
	gnt_test_assert_contains(error->message, lvm_vg);
	g_clear_error(&error);
	names = gnt_disk_store_list_volumes(store, &error);
	g_assert_cmpuint(names->len, ==, 0); /* not even disk 0 */

	((GntDiskSpec *)g_ptr_array_index(disks, 0))->size_mib = 1024;
	g_assert_false(gnt_disk_store_check_space(store, "lvbig", disks, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NO_RESOURCES);
	gnt_test_assert_contains(error->message,
				 "disk 0 (1.0G) of instance 'lvbig' needs 1.0G (1024 MiB), "
				 "more than the 252M (252 MiB) free");
}

static void
test_lvm_rollback(void)
{
	g_autoptr(GntDiskStore) store = NULL;
	g_autoptr(GError) error = NULL;
	const guint64 sizes[] = {8, 8};
	g_autoptr(GPtrArray) disks = disks_new("lvrb", sizes, NULL, 2);
	g_autoptr(GPtrArray) names = NULL;

	if (lvm_skipped())
		return;
	store = lvm_store_new(lvm_vg);
	/* disk 1's volume exists already */
	g_assert_true(gnt_disk_store_add(store, "other", g_ptr_array_index(disks, 1), &error));
	g_assert_no_error(error);
	g_assert_false(gnt_disk_store_create(store, "lvrb", disks, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_EXISTS);
	gnt_test_assert_contains(error->message, "removed the 1 disk created before it");
	gnt_test_assert_contains(error->message, "lvrb-1.disk1' exists already");
	g_clear_error(&error);
	names = gnt_disk_store_list_volumes(store, &error);
	g_assert_cmpuint(names->len, ==, 1);
	g_assert_cmpstr(g_ptr_array_index(names, 0), ==, "lvrb-1.disk1");
	g_assert_true(gnt_disk_store_remove(store, "other", disks, &error));
	g_assert_no_error(error);
}

static void
test_lvm_vg_missing(void)
{
	g_autoptr(GntDiskStore) store = NULL;
	g_autoptr(GError) error = NULL;
	const guint64 sizes[] = {8};
	g_autoptr(GPtrArray) disks = disks_new("novg", sizes, NULL, 1);
	GntDiskStoreParams params = {.vg_name = "bad/name"};
	guint64 size = 0, free_mib = 0;

	if (lvm_skipped())
		return;
	store = lvm_store_new("gnt-no-such-vg");
	g_assert_false(gnt_disk_store_create(store, "inst", disks, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	gnt_test_assert_contains(error->message,
				 "volume group 'gnt-no-such-vg' not found on this node");
	g_clear_error(&error);
	g_assert_false(gnt_disk_store_get_space(store, &size, &free_mib, &error));
	g_assert_nonnull(error);
	gnt_test_assert_contains(error->message, "not found");
	g_clear_error(&error);
	g_assert_false(gnt_disk_store_remove(store, "inst", disks, &error));
	g_assert_nonnull(error);
	gnt_test_assert_contains(error->message, "not found");
	g_clear_error(&error);

	g_assert_null(gnt_disk_store_new(GNT_DISK_TEMPLATE_PLAIN, &params, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	gnt_test_assert_contains(error->message, "invalid volume group name 'bad/name'");
}

static void
test_plain_formats(void)
{
	GntDiskStoreParams params = {.vg_name = "xenvg"};
	g_autoptr(GError) error = NULL;
	g_autoptr(GntDiskStore)
		store = gnt_disk_store_new(GNT_DISK_TEMPLATE_PLAIN, &params, &error);
	const guint64 sizes[] = {8};
	const GntDiskFormat formats[] = {GNT_DISK_FORMAT_QCOW2};
	g_autoptr(GPtrArray) disks = disks_new("pq", sizes, formats, 1);

	/* refused before any LVM tool runs */
	g_assert_false(gnt_disk_store_create(store, "inst", disks, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	gnt_test_assert_contains(error->message, "raw disks only");
}

int
main(int argc, char **argv)
{
	int ret;

	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/storage/disk/names", test_names);
	g_test_add_func("/storage/disk/diskless", test_diskless);
	g_test_add("/storage/disk/file/raw-sparse", FileFx, GINT_TO_POINTER(FALSE), file_set_up,
		   test_file_raw, file_tear_down);
	g_test_add("/storage/disk/file/raw-preallocated", FileFx, GINT_TO_POINTER(TRUE),
		   file_set_up, test_file_raw, file_tear_down);
	g_test_add("/storage/disk/file/qcow2", FileFx, NULL, file_set_up, test_file_qcow2,
		   file_tear_down);
	g_test_add("/storage/disk/file/qcow2-preallocated", FileFx, GINT_TO_POINTER(TRUE),
		   file_set_up, test_file_qcow2, file_tear_down);
	g_test_add("/storage/disk/file/too-big", FileFx, NULL, file_set_up, test_file_too_big,
		   file_tear_down);
	g_test_add("/storage/disk/file/rollback-exists", FileFx, NULL, file_set_up,
		   test_file_rollback_exists, file_tear_down);
	g_test_add("/storage/disk/file/rollback-failure", FileFx, NULL, file_set_up,
		   test_file_rollback_failure, file_tear_down);
	g_test_add("/storage/disk/file/path-escape", FileFx, NULL, file_set_up,
		   test_file_path_escape, file_tear_down);
	g_test_add("/storage/disk/file/space-json", FileFx, NULL, file_set_up, test_file_space_json,
		   file_tear_down);
	g_test_add_func("/storage/disk/plain/formats", test_plain_formats);
	g_test_add_func("/storage/disk/plain/create-list-remove", test_lvm_create_list_remove);
	g_test_add_func("/storage/disk/plain/too-big", test_lvm_too_big);
	g_test_add_func("/storage/disk/plain/rollback", test_lvm_rollback);
	g_test_add_func("/storage/disk/plain/vg-missing", test_lvm_vg_missing);

	lvm_set_up_vg();
	ret = g_test_run();
	lvm_tear_down_vg();
	g_free(lvm_skip);
	g_free(lvm_setup_error);
	return ret;
}
