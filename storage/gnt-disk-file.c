/* The 'file' template: image files in <file storage dir>/<instance>/. Every
 * step below the storage directory goes through directory descriptors with
 * O_NOFOLLOW, so a symbolic link planted there never leads outside. */
#include "gnt-disk-private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "gnt-error.h"

#define MIB ((guint64)1024 * 1024)

static void
file_fd_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}
#define FILE_AUTOFD __attribute__((cleanup(file_fd_close))) int

static void G_GNUC_PRINTF(3, 4) file_set_errno(GError **error, int errsv, const gchar *format, ...)
{
	g_autofree gchar *what = NULL;
	va_list args;

	va_start(args, format);
	what = g_strdup_vprintf(format, args);
	va_end(args);
	gnt_error_set_errno(error, errsv, what);
}

static gchar *
file_describe(const GntDiskStore *self)
{
	return g_strdup_printf("file storage directory '%s'", self->file_dir);
}

/* The storage directory; with @create made if missing, else a missing one
 * gives *fd = -1. */
static gboolean
file_open_base(GntDiskStore *self, gboolean create, int *fd, GError **error)
{
	*fd = -1;
	if (create && g_mkdir_with_parents(self->file_dir, 0750) != 0) {
		int errsv = errno;

		file_set_errno(error, errsv, "creating file storage directory '%s'",
			       self->file_dir);
		return FALSE;
	}
	*fd = open(self->file_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0) {
		int errsv = errno;

		if (errsv == ENOENT && !create)
			return TRUE;
		file_set_errno(error, errsv, "opening file storage directory '%s'", self->file_dir);
		return FALSE;
	}
	return TRUE;
}

/* The instance's directory, never through a symbolic link; *fd = -1 if it
 * is missing and not to be created. */
static gboolean
file_open_instance(GntDiskStore *self, int base_fd, const gchar *instance, gboolean create, int *fd,
		   gboolean *created, GError **error)
{
	*fd = -1;
	if (base_fd < 0)
		return TRUE;
	if (create) {
		if (mkdirat(base_fd, instance, 0750) == 0) {
			if (created != NULL)
				*created = TRUE;
		} else if (errno != EEXIST) {
			int errsv = errno;

			file_set_errno(error, errsv, "creating directory '%s/%s'", self->file_dir,
				       instance);
			return FALSE;
		}
	}
	*fd = openat(base_fd, instance, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*fd < 0) {
		int errsv = errno;

		if (errsv == ENOENT && !create)
			return TRUE;
		if (errsv == ELOOP || errsv == ENOTDIR) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
				    "'%s/%s' is not a directory (symbolic links are refused)",
				    self->file_dir, instance);
			return FALSE;
		}
		file_set_errno(error, errsv, "opening directory '%s/%s'", self->file_dir, instance);
		return FALSE;
	}
	return TRUE;
}

/* Whether @name in @dir_fd is a regular file (*exists FALSE if missing);
 * anything else, a symbolic link above all, is refused. */
static gboolean
file_check_regular(int dir_fd, const gchar *name, const gchar *path, const gchar *what,
		   gboolean *exists, GError **error)
{
	struct stat st;

	*exists = FALSE;
	if (dir_fd < 0)
		return TRUE;
	if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		int errsv = errno;

		if (errsv == ENOENT)
			return TRUE;
		file_set_errno(error, errsv, "%s: '%s'", what, path);
		return FALSE;
	}
	if (!S_ISREG(st.st_mode)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "%s: '%s' is not a regular file (symbolic links are refused)", what,
			    path);
		return FALSE;
	}
	*exists = TRUE;
	return TRUE;
}

static gchar *
file_dup_disk_path(GntDiskStore *self, const gchar *instance, const gchar *name)
{
	return g_build_filename(self->file_dir, instance, name, NULL);
}

static gboolean
file_run_qemu_img(GntDiskStore *self, const gchar *what, const gchar *verb, const gchar *path,
		  guint64 size_mib, GError **error)
{
	g_autofree gchar *bytes = g_strdup_printf("%" G_GUINT64_FORMAT, size_mib * MIB);
	g_autoptr(GPtrArray) argv = g_ptr_array_new();

	g_ptr_array_add(argv, self->qemu_img);
	g_ptr_array_add(argv, (gpointer)verb);
	g_ptr_array_add(argv, "-q");
	g_ptr_array_add(argv, "-f");
	g_ptr_array_add(argv, "qcow2");
	if (self->file_preallocate && strcmp(verb, "create") == 0) {
		g_ptr_array_add(argv, "-o");
		g_ptr_array_add(argv, "preallocation=falloc");
	} else if (self->file_preallocate) {
		g_ptr_array_add(argv, "--preallocation=falloc");
	}
	g_ptr_array_add(argv, (gpointer)path);
	g_ptr_array_add(argv, bytes);
	g_ptr_array_add(argv, NULL);
	if (!gnt_disk_run((const gchar *const *)argv->pdata, GNT_DISK_QEMU_IMG_TIMEOUT_S, NULL,
			  error)) {
		g_prefix_error(error, "%s: ", what);
		return FALSE;
	}
	return TRUE;
}

/* Sets the size of a raw image: allocated blocks or a sparse file. */
static gboolean
file_size_raw(GntDiskStore *self, int fd, guint64 size_mib, const gchar *what, const gchar *path,
	      GError **error)
{
	int err = 0;

	if (self->file_preallocate)
		err = posix_fallocate(fd, 0, (off_t)(size_mib * MIB));
	else if (ftruncate(fd, (off_t)(size_mib * MIB)) != 0)
		err = errno;
	if (err != 0) {
		g_set_error(error, GNT_ERROR,
			    err == ENOSPC ? GNT_ERROR_NO_RESOURCES : GNT_ERROR_ENVIRONMENT,
			    "%s: sizing '%s': %s", what, path, g_strerror(err));
		return FALSE;
	}
	return TRUE;
}

/* One disk file of an instance, looked at without following links. */
typedef struct {
	gchar *what; /* "disk 0 (1.0G) of instance 'x'" */
	gchar *name;
	gchar *path;
	int base_fd;
	int dir_fd; /* -1: the instance has no directory */
	gboolean exists;
} FileDisk;

static void
file_disk_clear(FileDisk *fdisk)
{
	g_free(fdisk->what);
	g_free(fdisk->name);
	g_free(fdisk->path);
	file_fd_close(&fdisk->base_fd);
	file_fd_close(&fdisk->dir_fd);
}
#define FILE_AUTODISK __attribute__((cleanup(file_disk_clear))) FileDisk

static void
file_disk_init(GntDiskStore *self, const gchar *instance, const GntDiskSpec *disk, FileDisk *fdisk)
{
	fdisk->what = gnt_disk_describe(disk, instance);
	fdisk->name = gnt_disk_store_dup_volume_name(self, disk);
	fdisk->path = file_dup_disk_path(self, instance, fdisk->name);
	fdisk->base_fd = -1;
	fdisk->dir_fd = -1;
	fdisk->exists = FALSE;
}

/* Finds an existing disk file (creating no directory): a regular file or
 * nothing; with @must_exist, nothing is GNT_ERROR_NOT_FOUND. */
static gboolean
file_disk_open(GntDiskStore *self, const gchar *instance, const GntDiskSpec *disk,
	       const gchar *verb, gboolean must_exist, FileDisk *fdisk, GError **error)
{
	file_disk_init(self, instance, disk, fdisk);
	if (!file_open_base(self, FALSE, &fdisk->base_fd, error) ||
	    !file_open_instance(self, fdisk->base_fd, instance, FALSE, &fdisk->dir_fd, NULL,
				error) ||
	    !file_check_regular(fdisk->dir_fd, fdisk->name, fdisk->path, verb, &fdisk->exists,
				error)) {
		g_prefix_error(error, "%s: ", fdisk->what);
		return FALSE;
	}
	if (must_exist && !fdisk->exists) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND, "%s: '%s' does not exist",
			    fdisk->what, fdisk->path);
		return FALSE;
	}
	return TRUE;
}

static gboolean
file_create(GntDiskStore *self, const gchar *instance, const GntDiskSpec *disk,
	    gboolean *created_dir, GError **error)
{
	FILE_AUTODISK fdisk = {.base_fd = -1, .dir_fd = -1};
	FILE_AUTOFD fd = -1;
	gboolean ok;

	file_disk_init(self, instance, disk, &fdisk);
	if (!file_open_base(self, TRUE, &fdisk.base_fd, error) ||
	    !file_open_instance(self, fdisk.base_fd, instance, TRUE, &fdisk.dir_fd, created_dir,
				error)) {
		g_prefix_error(error, "%s: ", fdisk.what);
		return FALSE;
	}
	/* O_EXCL: never reuse or follow what is there, a symbolic link included */
	fd = openat(fdisk.dir_fd, fdisk.name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0600);
	if (fd < 0) {
		int errsv = errno;

		g_set_error(error, GNT_ERROR,
			    errsv == EEXIST ? GNT_ERROR_EXISTS : GNT_ERROR_ENVIRONMENT,
			    "%s: '%s' %s", fdisk.what, fdisk.path,
			    errsv == EEXIST ? "exists already" : g_strerror(errsv));
		return FALSE;
	}
	if (disk->format == GNT_DISK_FORMAT_QCOW2) {
		/* qemu-img writes over the empty file made above */
		close(fd);
		fd = -1;
		ok = file_run_qemu_img(self, fdisk.what, "create", fdisk.path, disk->size_mib,
				       error);
	} else {
		ok = file_size_raw(self, fd, disk->size_mib, fdisk.what, fdisk.path, error);
	}
	if (!ok)
		(void)unlinkat(fdisk.dir_fd, fdisk.name, 0);
	return ok;
}

static gboolean
file_remove(GntDiskStore *self, const gchar *instance, const GntDiskSpec *disk, GError **error)
{
	FILE_AUTODISK fdisk = {.base_fd = -1, .dir_fd = -1};

	if (!file_disk_open(self, instance, disk, "removing", FALSE, &fdisk, error))
		return FALSE;
	if (fdisk.exists && unlinkat(fdisk.dir_fd, fdisk.name, 0) != 0 && errno != ENOENT) {
		int errsv = errno;

		file_set_errno(error, errsv, "%s: removing '%s'", fdisk.what, fdisk.path);
		return FALSE;
	}
	return TRUE;
}

static void
file_remove_instance_dir(GntDiskStore *self, const gchar *instance)
{
	FILE_AUTOFD base_fd = -1;

	if (!file_open_base(self, FALSE, &base_fd, NULL) || base_fd < 0)
		return;
	/* AT_REMOVEDIR does not follow a symbolic link; a directory still
	 * holding files (not ours) stays */
	if (unlinkat(base_fd, instance, AT_REMOVEDIR) != 0 && errno != ENOENT) {
		int errsv = errno;

		g_message("left directory '%s/%s' in place: %s", self->file_dir, instance,
			  g_strerror(errsv));
	}
}

static gboolean
file_grow(GntDiskStore *self, const gchar *instance, const GntDiskSpec *disk, guint64 new_size_mib,
	  GError **error)
{
	FILE_AUTODISK fdisk = {.base_fd = -1, .dir_fd = -1};
	FILE_AUTOFD fd = -1;
	struct stat st;

	if (!file_disk_open(self, instance, disk, "growing", TRUE, &fdisk, error))
		return FALSE;
	if (disk->format == GNT_DISK_FORMAT_QCOW2)
		return file_run_qemu_img(self, fdisk.what, "resize", fdisk.path, new_size_mib,
					 error);
	fd = openat(fdisk.dir_fd, fdisk.name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0) {
		int errsv = errno;

		file_set_errno(error, errsv, "%s: opening '%s'", fdisk.what, fdisk.path);
		return FALSE;
	}
	if ((guint64)st.st_size > new_size_mib * MIB) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "%s: '%s' is larger than %" G_GUINT64_FORMAT " MiB already", fdisk.what,
			    fdisk.path, new_size_mib);
		return FALSE;
	}
	return file_size_raw(self, fd, new_size_mib, fdisk.what, fdisk.path, error);
}

static gchar *
file_dup_path(GntDiskStore *self, const gchar *instance, const GntDiskSpec *disk, GError **error)
{
	FILE_AUTODISK fdisk = {.base_fd = -1, .dir_fd = -1};

	if (!file_disk_open(self, instance, disk, "attaching", TRUE, &fdisk, error))
		return NULL;
	return g_steal_pointer(&fdisk.path);
}

/* The size a guest sees of the regular file @fd: a qcow2 image's virtual
 * size (big-endian at offset 24 of its header, after the magic "QFI\xfb"),
 * else its length. */
static guint64
file_guest_size(int fd, const struct stat *st)
{
	guchar header[32];

	if (pread(fd, header, sizeof(header), 0) == (ssize_t)sizeof(header) &&
	    memcmp(header, "QFI\xfb", 4) == 0) {
		guint64 size = 0;

		for (guint i = 24; i < 32; i++)
			size = (size << 8) | header[i];
		return size;
	}
	return (guint64)st->st_size;
}

/* Adds "<instance>/<file>" and its size for each disk file in one instance
 * directory. */
static void
file_list_instance(GntDiskStore *self, int base_fd, const gchar *instance, GPtrArray *volumes)
{
	FILE_AUTOFD dir_fd = -1;
	g_autoptr(GDir) dir = NULL;
	g_autofree gchar *dir_path = NULL;
	const gchar *entry;

	if (!file_open_instance(self, base_fd, instance, FALSE, &dir_fd, NULL, NULL) || dir_fd < 0)
		return; /* not a directory of ours */
	dir_path = g_build_filename(self->file_dir, instance, NULL);
	dir = g_dir_open(dir_path, 0, NULL);
	while (dir != NULL && (entry = g_dir_read_name(dir)) != NULL) {
		FILE_AUTOFD fd = -1;
		struct stat st;

		if (strstr(entry, ".file.disk") == NULL)
			continue;
		fd = openat(dir_fd, entry, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
			g_ptr_array_add(volumes,
					gnt_disk_volume_new(g_build_filename(instance, entry, NULL),
							    file_guest_size(fd, &st)));
	}
}

static GPtrArray *
file_list_volumes(GntDiskStore *self, GError **error)
{
	g_autoptr(GPtrArray)
		volumes = g_ptr_array_new_with_free_func((GDestroyNotify)gnt_disk_volume_free);
	g_autoptr(GDir) dir = NULL;
	FILE_AUTOFD base_fd = -1;
	const gchar *entry;

	if (!file_open_base(self, FALSE, &base_fd, error))
		return NULL;
	if (base_fd < 0)
		return g_steal_pointer(&volumes);
	dir = g_dir_open(self->file_dir, 0, NULL);
	while (dir != NULL && (entry = g_dir_read_name(dir)) != NULL)
		file_list_instance(self, base_fd, entry, volumes);
	return g_steal_pointer(&volumes);
}

static gboolean
file_get_space(GntDiskStore *self, guint64 *size_mib, guint64 *free_mib, GError **error)
{
	g_autofree gchar *dir = g_strdup(self->file_dir);
	struct statvfs st;

	/* a directory not made yet goes on the file system of its parent */
	while (statvfs(dir, &st) != 0) {
		int errsv = errno;
		gchar *parent;

		if (errsv != ENOENT || strcmp(dir, "/") == 0) {
			file_set_errno(error, errsv,
				       "reading the space of file storage directory '%s'",
				       self->file_dir);
			return FALSE;
		}
		parent = g_path_get_dirname(dir);
		g_free(dir);
		dir = parent;
	}
	*size_mib = (guint64)st.f_frsize * st.f_blocks / MIB;
	*free_mib = (guint64)st.f_frsize * st.f_bavail / MIB;
	return TRUE;
}

const GntDiskBackend gnt_disk_backend_file = {
	.storage_type = "file",
	.describe = file_describe,
	.get_space = file_get_space,
	.create = file_create,
	.remove = file_remove,
	.remove_instance_dir = file_remove_instance_dir,
	.grow = file_grow,
	.dup_path = file_dup_path,
	.list_volumes = file_list_volumes,
};
