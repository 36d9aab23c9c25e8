#pragma once /* storage/gnt-disk.h */

#include <json-glib/json-glib.h>

#include "gnt-records.h"

G_BEGIN_DECLS

/*
 * An instance's disks on one node, in one of Ganeti's disk templates:
 *   diskless  nothing at all;
 *   file      image files, raw or qcow2, in <file storage dir>/<instance>/,
 *             named <uuid>.file.disk<N> as Ganeti names them;
 *   plain     LVM logical volumes <uuid>.disk<N> in the cluster's volume group.
 * Every call blocks (it runs qemu-img and the LVM tools through
 * gnt_subprocess_run), so node daemons call it from worker threads; a store
 * keeps no state between calls and may be shared by threads working on
 * different instances. Errors are GNT_ERROR and name the disk and instance.
 * See doc/storage.md.
 */

/* GntDiskTemplate and GntDiskFormat, with their names: config/gnt-records.h */

/* One disk as the storage layer needs it: the volume is named after @uuid
 * (the disk's own UUID, as in Ganeti) and @index. */
typedef struct {
	gchar *uuid;
	guint index;
	guint64 size_mib;
	GntDiskFormat format; /* plain disks are always raw */
} GntDiskSpec;

GntDiskSpec *
gnt_disk_spec_new(const gchar *uuid, guint index, guint64 size_mib, GntDiskFormat format);
GntDiskSpec *
gnt_disk_spec_copy(const GntDiskSpec *self);
void
gnt_disk_spec_free(GntDiskSpec *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntDiskSpec, gnt_disk_spec_free)

/* The cluster's storage settings a store needs. */
typedef struct {
	const gchar *vg_name;	       /* plain: the volume group (--vg-name) */
	const gchar *file_storage_dir; /* file: absolute (--file-storage-dir) */
	gboolean file_preallocate;     /* file: reserve the blocks (fallocate), not sparse */
} GntDiskStoreParams;

typedef struct _GntDiskStore GntDiskStore;

/* A store for @template; GNT_ERROR_INVALID if the setting it needs is
 * missing or malformed (a relative directory, one with "..", a bad volume
 * group name). Nothing is touched on disk. (transfer full) */
GntDiskStore *
gnt_disk_store_new(GntDiskTemplate template, const GntDiskStoreParams *params, GError **error);
void
gnt_disk_store_free(GntDiskStore *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntDiskStore, gnt_disk_store_free)

GntDiskTemplate
gnt_disk_store_get_template(const GntDiskStore *self);

/* Whether @disks (GntDiskSpec, in order) fit together in the free space:
 * GNT_ERROR_NO_RESOURCES naming the first disk that does not fit, its size
 * and the free space; GNT_ERROR_INVALID for a zero size or a bad UUID;
 * GNT_ERROR_ENVIRONMENT if the space can not be read (volume group missing). */
gboolean
gnt_disk_store_check_space(GntDiskStore *self, const gchar *instance, GPtrArray *disks,
			   GError **error);

/* Creates all of @disks for @instance after checking the space. If one
 * fails, the ones already created (and the instance's directory, if this
 * call made it) are removed again before returning the error; volumes that
 * existed before the call are never touched (GNT_ERROR_EXISTS). */
gboolean
gnt_disk_store_create(GntDiskStore *self, const gchar *instance, GPtrArray *disks, GError **error);

/* Adds one disk to an instance that has others (gnt-instance modify --disk
 * add): the same checks and errors as gnt_disk_store_create(). */
gboolean
gnt_disk_store_add(GntDiskStore *self, const gchar *instance, const GntDiskSpec *disk,
		   GError **error);

/* Removes @disks of @instance, and its file directory once empty. Missing
 * disks are not an error, so it can be repeated; it goes on after a failure
 * and returns the first one. */
gboolean
gnt_disk_store_remove(GntDiskStore *self, const gchar *instance, GPtrArray *disks, GError **error);

/* Grows @disk (of @disk->size_mib now) to @new_size_mib, after checking the
 * space for the difference. GNT_ERROR_INVALID for a shrink; the same size
 * is a no-op. The caller records the new size. */
gboolean
gnt_disk_store_grow(GntDiskStore *self, const gchar *instance, const GntDiskSpec *disk,
		    guint64 new_size_mib, GError **error);

/* What a hypervisor attaches for an existing @disk: a regular file (file)
 * or a block device (plain), in the format gnt_disk_store_get_format()
 * says. GNT_ERROR_NOT_FOUND if the disk does not exist, GNT_ERROR_INVALID
 * for diskless. (transfer full) */
gchar *
gnt_disk_store_dup_path(GntDiskStore *self, const gchar *instance, const GntDiskSpec *disk,
			GError **error);
GntDiskFormat
gnt_disk_store_get_format(const GntDiskStore *self, const GntDiskSpec *disk);
gboolean
gnt_disk_store_is_block_device(const GntDiskStore *self);

/* The volume's name: "<uuid>.disk<N>" (plain), "<uuid>.file.disk<N>"
 * (file, inside the instance's directory); NULL for diskless. */
gchar *
gnt_disk_store_dup_volume_name(const GntDiskStore *self, const GntDiskSpec *disk);

/* Every volume in the store, sorted: logical volume names (plain),
 * "<instance>/<file>" (file), none (diskless). (transfer full: gchar *) */
GPtrArray *
gnt_disk_store_list_volumes(GntDiskStore *self, GError **error);

/* One volume as the store lists it: its name as
 * gnt_disk_store_list_volumes() gives it and the size a guest sees, in
 * bytes (a qcow2 image's virtual size, a raw file's length, a logical
 * volume's size). */
typedef struct {
	gchar *name;
	guint64 size_bytes;
} GntDiskVolume;

void
gnt_disk_volume_free(GntDiskVolume *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntDiskVolume, gnt_disk_volume_free)

/* The same volumes with their sizes (cluster verify compares them with the
 * configuration), sorted by name. (transfer full: GntDiskVolume) */
GPtrArray *
gnt_disk_store_list_volume_sizes(GntDiskStore *self, GError **error);

/* The space of the volume group or of the file system holding the file
 * storage directory, in whole MiB (0 and 0 for diskless). */
gboolean
gnt_disk_store_get_space(GntDiskStore *self, guint64 *size_mib, guint64 *free_mib, GError **error);
/* Whether LVM volume group @vg can be used on this host, which is node
 * @node (named in the error): GNT_ERROR_INVALID for a bad name,
 * GNT_ERROR_ENVIRONMENT "Error on node '@node': ..." when it cannot be read
 * (gnt-cluster init, and a master without node RPC). */
gboolean
gnt_disk_check_volume_group(const gchar *node, const gchar *vg, GError **error);

/* Writes Ganeti's storage report for node info: {"type": "lvm-vg" |
 * "file" | "diskless", "name": <vg or dir>, "storage_size": MiB,
 * "storage_free": MiB}. */
gboolean
gnt_disk_store_space_to_json(GntDiskStore *self, JsonBuilder *builder, GError **error);

G_END_DECLS
