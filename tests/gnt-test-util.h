#pragma once

/* What tests across modules share: a cluster on a fresh temporary root,
 * looking for bytes in files, and the kernel real VMs boot. */

#include <string.h>

#include <glib/gstdio.h>

#include "gnt-config.h"
#include "gnt-paths.h"

typedef struct {
	gchar *dir;
	GntPaths *paths;
	GntConfig *config;
} GntTestRoot;

/* Fails the test unless @needle is in @text, showing both. */
static inline void
gnt_test_assert_contains(const gchar *text, const gchar *needle)
{
	if (strstr(text, needle) == NULL)
		g_error("'%s' is missing in:\n%s", needle, text);
}

/* Writes @text into @dir/@name (@dir NULL: @name is the whole path), then
 * gives it @mode. */
static inline void
gnt_test_write_file(const gchar *dir, const gchar *name, const gchar *text, gint mode)
{
	g_autofree gchar *path =
		g_build_filename(dir != NULL ? dir : name, dir != NULL ? name : NULL, NULL);
	g_autoptr(GError) error = NULL;

	g_assert_true(g_file_set_contents(path, text, -1, &error));
	g_assert_no_error(error);
	g_assert_cmpint(g_chmod(path, mode), ==, 0);
}

/* A root under /tmp (short: unix socket paths are limited) holding the
 * directories and a cluster "cluster.example.com" on @master_node (NULL:
 * this host). */
static inline void
gnt_test_root_init(GntTestRoot *root, const gchar *master_node)
{
	g_autoptr(GError) error = NULL;

	root->dir = g_dir_make_tmp("gnt-test-XXXXXX", &error);
	g_assert_no_error(error);
	root->paths = gnt_paths_new(root->dir);
	g_assert_true(gnt_paths_ensure_dirs(root->paths, &error));
	root->config = gnt_config_create(gnt_paths_get_config_db(root->paths),
					 "cluster.example.com", master_node, &error);
	g_assert_no_error(error);
}

static inline void
gnt_test_root_clear(GntTestRoot *root)
{
	g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", root->dir);

	g_clear_object(&root->config);
	g_clear_pointer(&root->paths, gnt_paths_free);
	g_assert_cmpint(system(cmd), ==, 0);
	g_clear_pointer(&root->dir, g_free);
}

static inline gboolean
gnt_test_file_contains(const gchar *path, const gchar *needle)
{
	g_autofree gchar *data = NULL;
	gsize len = 0;

	gsize n = strlen(needle);

	if (!g_file_get_contents(path, &data, &len, NULL))
		return FALSE;
	/* binary files: no string functions, they stop at the first NUL */
	for (gsize i = 0; n > 0 && i + n <= len; i++) {
		if (data[i] == needle[0] && memcmp(data + i, needle, n) == 0)
			return TRUE;
	}
	return FALSE;
}

/* Whether a file named @name (no directory) may hold a value. */
typedef gboolean (*GntTestNameFunc)(const gchar *name);

/* Every regular file under @dir (recursively, symlinks skipped), every
 * byte: none may hold a string of @nowhere (NULL-terminated), and one of
 * @restricted (nullable) only a file whose name @may_hold accepts. Fails
 * naming the value and the file; the number of files read. */
static inline guint
gnt_test_scan_tree(const gchar *dir, const gchar *const *nowhere, const gchar *const *restricted,
		   GntTestNameFunc may_hold)
{
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	const gchar *name;
	guint n_files = 0;

	g_assert_nonnull(d);
	while ((name = g_dir_read_name(d)) != NULL) {
		g_autofree gchar *path = g_build_filename(dir, name, NULL);

		if (g_file_test(path, G_FILE_TEST_IS_SYMLINK))
			continue;
		if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
			n_files += gnt_test_scan_tree(path, nowhere, restricted, may_hold);
			continue;
		}
		n_files++;
		for (guint i = 0; nowhere[i] != NULL; i++) {
			if (gnt_test_file_contains(path, nowhere[i]))
				g_error("'%s' found in '%s'", nowhere[i], path);
		}
		for (guint i = 0; restricted != NULL && restricted[i] != NULL; i++) {
			if (!may_hold(name) && gnt_test_file_contains(path, restricted[i]))
				g_error("'%s' found in '%s'", restricted[i], path);
		}
	}
	return n_files;
}

/* @top/@name of the source tree (GNT_TEST_SRCDIR is its tests/), e.g.
 * ("appliance", "build-appliance"). (transfer full) */
static inline gchar *
gnt_test_source_path(const gchar *top, const gchar *name)
{
	g_autofree gchar *tests = g_canonicalize_filename(g_getenv("GNT_TEST_SRCDIR"), NULL);
	g_autofree gchar *root = g_path_get_dirname(tests);

	return g_build_filename(root, top, name, NULL);
}

/* The newest /boot/vmlinuz-*-cloud-amd64 (version order, as sort -V), or
 * NULL. (transfer full) */
static inline gchar *
gnt_test_find_cloud_kernel(void)
{
	g_autoptr(GDir) dir = g_dir_open("/boot", 0, NULL);
	g_autofree gchar *best = NULL;
	g_autofree gchar *best_key = NULL;
	const gchar *entry;

	while (dir != NULL && (entry = g_dir_read_name(dir)) != NULL) {
		g_autofree gchar *key = NULL;

		if (!g_str_has_prefix(entry, "vmlinuz-") ||
		    !g_str_has_suffix(entry, "-cloud-amd64"))
			continue;
		/* the file-name collation key orders the numbers in it by value */
		key = g_utf8_collate_key_for_filename(entry, -1);
		if (best_key == NULL || strcmp(key, best_key) > 0) {
			g_free(best);
			best = g_strdup(entry);
			g_free(best_key);
			best_key = g_steal_pointer(&key);
		}
	}
	return best ? g_build_filename("/boot", best, NULL) : NULL;
}

/* Why a UEFI boot cannot be tested here (no OVMF, no systemd's EFI stub
 * that tests/hypervisor/make-uefi-disk needs), or NULL. (transfer full) */
static inline gchar *
gnt_test_dup_uefi_missing(void)
{
	if (g_file_test("/usr/lib/systemd/boot/efi/linuxx64.efi.stub", G_FILE_TEST_EXISTS) &&
	    g_file_test("/usr/share/OVMF/OVMF_CODE_4M.fd", G_FILE_TEST_EXISTS))
		return NULL;
	return g_strdup("no OVMF or systemd's EFI stub (install ovmf systemd-boot-efi)");
}

/* Runs @argv (a command found in $PATH) and asserts that it succeeded. */
static inline void
gnt_test_run_checked(const gchar *const *argv)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GSubprocess) proc = g_subprocess_newv(argv, G_SUBPROCESS_FLAGS_NONE, &error);

	g_assert_no_error(error);
	g_assert_true(g_subprocess_wait_check(proc, NULL, &error));
	g_assert_no_error(error);
}

/* @out: a disk that OVMF boots on its own into @kernel and @initrd with
 * "console=ttyS0 quiet panic=-1" (tests/hypervisor/make-uefi-disk). */
static inline void
gnt_test_make_uefi_disk(const gchar *out, const gchar *kernel, const gchar *initrd)
{
	g_autofree gchar *script =
		g_build_filename(g_getenv("GNT_TEST_SRCDIR"), "hypervisor", "make-uefi-disk", NULL);
	const gchar *argv[] = {script, out, kernel, initrd, "console=ttyS0 quiet panic=-1", NULL};

	gnt_test_run_checked(argv);
}

/* The UEFI variables files under the node's <data>/instances of @paths,
 * appended to @out. */
static inline void
gnt_test_list_uefi_vars(const GntPaths *paths, GPtrArray *out)
{
	g_autofree gchar *root = g_build_filename(gnt_paths_get_data_dir(paths), "instances", NULL);
	g_autoptr(GDir) dir = g_dir_open(root, 0, NULL);
	const gchar *entry;

	while (dir != NULL && (entry = g_dir_read_name(dir)) != NULL) {
		g_autofree gchar *vars = g_build_filename(root, entry, "uefi-vars.fd", NULL);

		if (g_file_test(vars, G_FILE_TEST_EXISTS))
			g_ptr_array_add(out, g_steal_pointer(&vars));
	}
}
