#pragma once /* install/gnt-install-storage.h */

#include <json-glib/json-glib.h>

#include "gnt-install-registry.h"

G_BEGIN_DECLS

/*
 * The storage layout's in-band steps (doc/install.md, "Storage layouts"):
 * appliance.wipe_disks, partition, create_raid, create_lvm, mkfs,
 * mount_target, write_fstab, set_hostname and install_bootloader. Their
 * structured ("json") arguments are checked here one by one, the layout
 * they make together is checked here before anything changes (against the
 * instance's disks when they are known), and their arguments are rendered
 * here into the plain lines the agent's sh reads (doc/appliance.md).
 *
 * Device names in the arguments: "disk0" (a whole disk, by index),
 * "disk0p2" (partition 2 of disk 0), "md0" .. "md127" (an MD array) and
 * "vg0/root" (a logical volume).
 */

/* Whether @spec is one of the storage layout's steps. */
gboolean
gnt_install_storage_is_step(const GntInstallStepSpec *spec);

/* One "json" argument @arg of @spec: its shape (a list of what, which
 * members, their values). The message names the problem, the caller the
 * step and argument. */
gboolean
gnt_install_storage_arg_check(const GntInstallStepSpec *spec, const gchar *arg, JsonNode *value,
			      GError **error);

/* One row of a template or plan, as the layout check sees it. */
typedef struct {
	const GntInstallStepSpec *spec;
	JsonObject *args;
	gint64 priority; /* 0: the row does not run and is not checked */
	const gchar *template_name;
	guint position; /* 1-based in its template */
} GntInstallStorageRow;

/* The instance's disks: how many, and each one's size in MiB. */
typedef struct {
	guint n_disks;
	const guint64 *disk_mib; /* (nullable) n_disks sizes; 0: not known */
} GntInstallStorageDisks;

/*
 * The layout the storage rows among @rows make together (the others are
 * skipped), each row's arguments already checked one by one:
 * - every device named is made by a step (or is a whole disk), and used
 *   once (a RAID member, a PV, a filesystem);
 * - RAID levels and their member counts (0 and 1: 2+, 10: 4+, 5: 3+);
 * - filesystem types; every mounted device has a filesystem; no mount
 *   point twice; "/" is mounted (no root filesystem is refused);
 * - with @disks (nullable: a template alone): the disks exist, the
 *   instance has disks at all, partitions fit their disk.
 * GNT_ERROR_INVALID naming the template, row, step and the reason.
 */
gboolean
gnt_install_storage_check(const GntInstallStorageRow *rows, guint n_rows,
			  const GntInstallStorageDisks *disks, GError **error);

/* gnt_install_storage_check() of @rows (GntInstallParsedRow, from
 * gnt_install_steps_parse()), row i from the template @template_names[i]. */
gboolean
gnt_install_storage_check_parsed(GArray *rows, const gchar *const *template_names,
				 const GntInstallStorageDisks *disks, GError **error);

/*
 * @args of @spec as the agent gets them (doc/appliance.md, "Storage
 * steps"): each "json" argument becomes a string of lines, one an item,
 * its fields separated by a space (sizes in MiB); set_hostname gets
 * @instance_name as its default "hostname". Other steps' arguments are
 * copied as they are. (transfer full)
 */
JsonObject *
gnt_install_storage_render_args(const GntInstallStepSpec *spec, JsonObject *args,
				const gchar *instance_name);

/*
 * The layout appliance.mount_target reported (its result's "layout": records
 * separated by ';', "mount DEVICE PATH FSTYPE UUID NAME" and "raid DEVICE
 * LEVEL MEMBER,MEMBER... NAME", doc/appliance.md) and its @root_device, as
 * the install record keeps it (install.layout):
 *   {"root_device": "/dev/vg0/root",
 *    "filesystems": [{"name", "device", "path", "fstype", "uuid", "root"}],
 *    "raids": [{"name", "device", "level", "members": [NAME...]}]}
 * GNT_ERROR_INVALID naming what is malformed. (transfer full)
 */
JsonObject *
gnt_install_storage_layout_parse(const gchar *root_device, const gchar *text, GError **error);

G_END_DECLS
