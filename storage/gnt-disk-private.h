#pragma once /* storage/gnt-disk-private.h: for storage/ and its tests only */

#include "gnt-disk.h"

G_BEGIN_DECLS

#define GNT_DISK_LVM_TIMEOUT_S	    120
#define GNT_DISK_QEMU_IMG_TIMEOUT_S 600

/* One disk template's implementation. Each call handles one disk; the
 * checks, the loops and the rollback live in gnt-disk.c. */
typedef struct {
	const gchar *storage_type; /* Ganeti's storage type: "lvm-vg", "file" */
	/* "volume group 'xenvg'", for messages (transfer full) */
	gchar *(*describe)(const GntDiskStore *self);
	gboolean (*get_space)(GntDiskStore *self, guint64 *size_mib, guint64 *free_mib,
			      GError **error);
	/* GNT_ERROR_EXISTS if the volume is there already; leaves nothing
	 * behind on failure. @created_dir: set when it made the instance's
	 * directory (may be NULL). */
	gboolean (*create)(GntDiskStore *self, const gchar *instance, const GntDiskSpec *disk,
			   gboolean *created_dir, GError **error);
	/* a missing volume is no error */
	gboolean (*remove)(GntDiskStore *self, const gchar *instance, const GntDiskSpec *disk,
			   GError **error);
	/* after removing an instance's disks (may be NULL) */
	void (*remove_instance_dir)(GntDiskStore *self, const gchar *instance);
	gboolean (*grow)(GntDiskStore *self, const gchar *instance, const GntDiskSpec *disk,
			 guint64 new_size_mib, GError **error);
	gchar *(*dup_path)(GntDiskStore *self, const gchar *instance, const GntDiskSpec *disk,
			   GError **error);
	/* every volume: GntDiskVolume, unsorted (transfer full) */
	GPtrArray *(*list_volumes)(GntDiskStore *self, GError **error);
} GntDiskBackend;

struct _GntDiskStore {
	GntDiskTemplate template;
	const GntDiskBackend *backend; /* NULL: diskless */
	gchar *vg_name;
	gchar *file_dir; /* absolute, normalised */
	gboolean file_preallocate;
	gchar *qemu_img;	    /* tests point it at a failing program */
	gboolean lvm_no_activation; /* metadata only, for kernels without device-mapper */
};

extern const GntDiskBackend gnt_disk_backend_file;
extern const GntDiskBackend gnt_disk_backend_lvm;

/* A listed volume, for the backends. (transfer full: @name) */
GntDiskVolume *
gnt_disk_volume_new(gchar *name, guint64 size_bytes);

/* "disk 1 (10.0G) of instance 'web1'" (transfer full) */
gchar *
gnt_disk_describe(const GntDiskSpec *disk, const gchar *instance);

/* Runs a helper; a non-zero exit fails with GNT_ERROR_ENVIRONMENT,
 * "<program> failed (exit N): <last lines of its output>". @output may be
 * NULL. */
gboolean
gnt_disk_run(const gchar *const *argv, guint timeout_s, gchar **output, GError **error);

/* Tests: run the LVM tools without touching device-mapper (global
 * activation = 0), where the kernel has none; volumes get no device node. */
void
gnt_disk_store_set_lvm_no_activation(GntDiskStore *self, gboolean no_activation);
/* Tests: the qemu-img program to run. */
void
gnt_disk_store_set_qemu_img(GntDiskStore *self, const gchar *path);

G_END_DECLS
