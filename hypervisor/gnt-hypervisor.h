#pragma once

#include <gio/gio.h>

#include "gnt-device-enums.h"
#include "gnt-hv-params.h"

G_BEGIN_DECLS

/*
 * One small interface over the hypervisors a node runs, selected by Ganeti's
 * hypervisor names: "kvm" (libvirt's qemu driver; the accelerator is the
 * `accel` hvparam) and "fake" (no VM: state kept in files, for fast tests).
 * Every call blocks and may run on any worker thread; failures are
 * GNT_ERROR codes with a message naming the instance and the reason.
 * doc/hypervisors.md has the design.
 */

/* --- value records ------------------------------------------------------ */

typedef enum {
	GNT_HV_DISK_FORMAT_RAW,
	GNT_HV_DISK_FORMAT_QCOW2,
	GNT_HV_DISK_FORMAT_LAST
} GntHvDiskFormat;

typedef enum {
	GNT_HV_DISK_BUS_DEFAULT, /* the instance's `disk_type` hvparam */
	GNT_HV_DISK_BUS_VIRTIO,
	GNT_HV_DISK_BUS_IDE,
	GNT_HV_DISK_BUS_SCSI,
	GNT_HV_DISK_BUS_SATA,
	GNT_HV_DISK_BUS_LAST
} GntHvDiskBus;

typedef enum {
	GNT_HV_NIC_MODE_BRIDGED,
	GNT_HV_NIC_MODE_ROUTED,
	GNT_HV_NIC_MODE_LAST
} GntHvNicMode;

/* "raw", "virtio", "bridged", ...; NULL for a value out of range. */
const gchar *
gnt_hv_disk_format_to_string(GntHvDiskFormat format);
const gchar *
gnt_hv_disk_bus_to_string(GntHvDiskBus bus);
const gchar *
gnt_hv_nic_mode_to_string(GntHvNicMode mode);
/* FALSE and GNT_ERROR_INVALID for an unknown name. */
gboolean
gnt_hv_disk_format_from_string(const gchar *str, GntHvDiskFormat *out, GError **error);
gboolean
gnt_hv_disk_bus_from_string(const gchar *str, GntHvDiskBus *out, GError **error);
gboolean
gnt_hv_nic_mode_from_string(const gchar *str, GntHvNicMode *out, GError **error);

/* A disk as the hypervisor sees it: a file or a block device (a path under
 * /dev/ is attached as a block device). */
typedef struct {
	gchar *path;
	GntHvDiskFormat format;
	gboolean read_only;
	GntHvDiskBus bus;
} GntHvDisk;

GntHvDisk *
gnt_hv_disk_new(const gchar *path, GntHvDiskFormat format);
GntHvDisk *
gnt_hv_disk_copy(const GntHvDisk *self);
void
gnt_hv_disk_free(GntHvDisk *self);

/* bridged: @link is the bridge. routed: @link is the tap device the node
 * has prepared (attached unmanaged), or NULL to let libvirt make one. */
typedef struct {
	gchar *mac; /* "aa:00:00:12:34:56" */
	GntHvNicMode mode;
	gchar *link;
} GntHvNic;

GntHvNic *
gnt_hv_nic_new(const gchar *mac, GntHvNicMode mode, const gchar *link);
GntHvNic *
gnt_hv_nic_copy(const GntHvNic *self);
void
gnt_hv_nic_free(GntHvNic *self);

/* The instance's link-local channel to metad (doc/metad.md "Channel"), the
 * NIC added last: the routed tap the node made (@tap, gnt-channel.h), or,
 * when @tap is NULL, the fallback: qemu's user networking with
 * restrict=on whose only way out is a guestfwd of 169.254.169.254:80 to
 * metad's per-instance unix socket @socket. */
typedef struct {
	gchar *mac;
	gchar *tap;
	gchar *socket;
} GntHvChannelNic;

GntHvChannelNic *
gnt_hv_channel_nic_new(const gchar *mac, const gchar *tap, const gchar *socket);
GntHvChannelNic *
gnt_hv_channel_nic_copy(const GntHvChannelNic *self);
void
gnt_hv_channel_nic_free(GntHvChannelNic *self);

/* What starting an instance needs. @hvparams holds the instance's own
 * values over the cluster's (see gnt_hv_params_fill()); missing ones take
 * the hypervisor's defaults. @console_log: where the serial console is
 * logged (truncated at each start), or NULL for no log. */
typedef struct {
	gchar *name;
	gchar *uuid;
	guint64 memory_mib;
	guint vcpus;
	GPtrArray *disks;     /* GntHvDisk */
	GPtrArray *nics;      /* GntHvNic */
	GHashTable *hvparams; /* name -> value, both strings */
	gchar *console_log;
	GntHvChannelNic *channel; /* communication=yes: the NIC after the others; NULL */
	/* the instance's own directory on the node, kept from one start to the
	 * next and removed with its disks: firmware=uefi keeps the instance's
	 * UEFI variables there (GNT_HV_UEFI_VARS_FILE); NULL: none, which
	 * uefi refuses */
	gchar *state_dir;
} GntHvInstance;

/* The file of the UEFI variables (NVRAM) in an instance's state_dir. */
#define GNT_HV_UEFI_VARS_FILE "uefi-vars.fd"

/* Empty disks, nics and hvparams; 128 MiB, 1 vCPU. */
GntHvInstance *
gnt_hv_instance_new(const gchar *name, const gchar *uuid);
GntHvInstance *
gnt_hv_instance_copy(const GntHvInstance *self);
void
gnt_hv_instance_free(GntHvInstance *self);
/* Takes @disk / @nic. */
void
gnt_hv_instance_add_disk(GntHvInstance *self, GntHvDisk *disk);
void
gnt_hv_instance_add_nic(GntHvInstance *self, GntHvNic *nic);
void
gnt_hv_instance_set_hvparam(GntHvInstance *self, const gchar *name, const gchar *value);

/* GntHvState: common/gnt-device-enums.h (the master reads it too) */

typedef struct {
	gchar *name;
	GntHvState state;
	guint64 memory_mib;
	guint vcpus;
	guint64 uptime_s;
	guint64 cpu_time_ns;
} GntHvInfo;

GntHvInfo *
gnt_hv_info_copy(const GntHvInfo *self);
void
gnt_hv_info_free(GntHvInfo *self);

/* What `gnt-instance console` needs on the node: the serial console's pty
 * (NULL when the hypervisor has none), the log of everything the console
 * printed since the start (NULL when not logged), and a command that
 * attaches a terminal to the console (NULL when none). */
typedef struct {
	gchar *name;
	gchar *pty;
	gchar *log;
	gchar **command;
} GntHvConsole;

GntHvConsole *
gnt_hv_console_copy(const GntHvConsole *self);
void
gnt_hv_console_free(GntHvConsole *self);
/* The first @max_lines lines of the console log (0: all of it), at most
 * 1 MiB. GNT_ERROR_NOT_FOUND when there is no log. (transfer full) */
gchar *
gnt_hv_console_read_log(const GntHvConsole *self, guint max_lines, GError **error);

/*
 * The install appliance (doc/hypervisors.md "The install appliance"): a
 * throw-away VM booting the node's appliance kernel and initramfs with the
 * instance's disks writable (cache none) and the appliance's own disk
 * read-only, last; its agent installs the instance through metad and
 * powers off. @name is the instance's; the fake hypervisor runs @agent as
 * a host process instead (GANTRY_METAD_SOCKET=@channel->socket,
 * GANTRY_DISKS=the disk paths), its output being the console.
 */
typedef struct {
	gchar *name;
	gchar *uuid;	    /* of the appliance's domain */
	guint64 memory_mib; /* 512 by default */
	guint vcpus;	    /* 1 */
	gchar *accel;	    /* the `accel` hvparam's values: "tcg" (default) or "kvm" */
	gchar *firmware;    /* the instance's `firmware` hvparam: "bios" (default), "uefi" */
	gchar *state_dir;   /* the instance's state_dir: uefi uses its UEFI variables */
	gchar *kernel;	    /* <appliance>/vmlinuz */
	gchar *initrd;	    /* <appliance>/initrd.img */
	gchar *image;	    /* <appliance>/appliance.img, attached read-only, last */
	GPtrArray *disks;   /* GntHvDisk: the instance's, writable, in order */
	GntHvChannelNic *channel;
	gchar *ip;	    /* the guest's channel address, 169.254.A.B */
	gboolean debug;	    /* gantry.debug=1 on the kernel command line */
	gchar *console_log; /* the serial console's file (required) */
	guint timeout_s;    /* destroyed after this long (0: never) */
	gchar *agent;	    /* fake only: the agent script */
	/* A kickstart installer (doc/installer.md) rather than the appliance:
	 * its whole kernel command line, and no appliance image (image NULL);
	 * the fake hypervisor gives it to the agent as GANTRY_CMDLINE. */
	gchar *cmdline;
	/* this boot's token for metad's step paths (gantry.token= on the
	 * kernel command line, GANTRY_BOOT_TOKEN for the fake agent);
	 * nullable */
	gchar *boot_token;
	/* which boot of the session this is: 0 or 1 the first; a reboot's
	 * domain has a name of its own (gnt-hv-kvm.c), so it need not wait
	 * for libvirt's cleanup of the last boot's */
	guint boot;
} GntHvAppliance;

/* 512 MiB, 1 vCPU, tcg, bios, a random uuid, no disks. */
GntHvAppliance *
gnt_hv_appliance_new(const gchar *name);
void
gnt_hv_appliance_free(GntHvAppliance *self);
/* Takes @disk. */
void
gnt_hv_appliance_add_disk(GntHvAppliance *self, GntHvDisk *disk);
/* noded's environment variable that makes the agent offer its test-only
 * steps (doc/appliance.md "Steps"): "1" in the test suites only. */
#define GNT_HV_APPLIANCE_TEST_STEPS_ENV "GANTRY_TEST_STEPS"

/* "console=ttyS0 quiet panic=-1 no_timer_check gantry.ip=169.254.A.B/16[ gantry.debug=1]
 * [ gantry.test_steps=1][ gantry.token=HEX]", or an installer's cmdline
 * (transfer full) */
gchar *
gnt_hv_appliance_dup_cmdline(const GntHvAppliance *self);

/* The last @max_lines lines of the text file @path (at most 64 KiB of
 * them, made valid UTF-8); "" when it is missing or empty. (transfer full) */
gchar *
gnt_hv_read_tail(const gchar *path, guint max_lines);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntHvDisk, gnt_hv_disk_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntHvChannelNic, gnt_hv_channel_nic_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntHvAppliance, gnt_hv_appliance_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntHvNic, gnt_hv_nic_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntHvInstance, gnt_hv_instance_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntHvInfo, gnt_hv_info_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntHvConsole, gnt_hv_console_free)

/* --- the hypervisor ----------------------------------------------------- */

typedef enum {
	GNT_HV_REBOOT_SOFT, /* the guest reboots itself (ACPI); may be ignored */
	GNT_HV_REBOOT_HARD, /* power cycle: destroy, start again from the record */
	GNT_HV_REBOOT_FULL, /* shutdown (ACPI, timeout, destroy), then start */
	GNT_HV_REBOOT_LAST
} GntHvRebootType;

gboolean
gnt_hv_reboot_type_from_string(const gchar *str, GntHvRebootType *out, GError **error);

#define GNT_TYPE_HYPERVISOR (gnt_hypervisor_get_type())
G_DECLARE_DERIVABLE_TYPE(GntHypervisor, gnt_hypervisor, GNT, HYPERVISOR, GObject)

/* Default domain name prefix: instance "web1" is domain "gnt-web1". */
#define GNT_HV_DEFAULT_PREFIX "gnt-"
#define GNT_HV_DEFAULT_URI    "qemu:///system"

/*
 * @name: "kvm" or "fake". @location: for kvm the libvirt URI (NULL:
 * qemu:///system; test:///default in unit tests), for fake the directory
 * that holds its state (required; made if missing). @prefix: prepended to
 * instance names to make the hypervisor's own names, so that several
 * clusters can share a libvirtd (NULL: GNT_HV_DEFAULT_PREFIX).
 * kvm connects lazily, on the first call, and again after libvirtd went
 * away. GNT_ERROR_INVALID for an unknown name, GNT_ERROR_ENVIRONMENT when
 * built without libvirt or the state directory can not be made.
 */
GntHypervisor *
gnt_hypervisor_new(const gchar *name, const gchar *location, const gchar *prefix, GError **error);

const gchar *
gnt_hypervisor_get_name(GntHypervisor *self);
const gchar *
gnt_hypervisor_get_prefix(GntHypervisor *self);

/* Boots @inst (optionally paused). GNT_ERROR_INVALID for a bad record or
 * hvparam, GNT_ERROR_EXISTS when it already runs, GNT_ERROR_ENVIRONMENT
 * when the hypervisor refuses. */
gboolean
gnt_hypervisor_start(GntHypervisor *self, const GntHvInstance *inst, gboolean paused,
		     GError **error);

/* Ganeti's shutdown: presses the ACPI power button, waits up to
 * @timeout_s seconds for the guest to power off, then destroys it (0:
 * destroy at once). @forced (nullable) tells whether it had to be
 * destroyed. GNT_ERROR_NOT_FOUND when it does not run. */
gboolean
gnt_hypervisor_shutdown(GntHypervisor *self, const gchar *name, guint timeout_s, gboolean *forced,
			GError **error);

/* @timeout_s: for GNT_HV_REBOOT_FULL's shutdown. GNT_ERROR_NOT_FOUND
 * when @inst does not run. */
gboolean
gnt_hypervisor_reboot(GntHypervisor *self, const GntHvInstance *inst, GntHvRebootType type,
		      guint timeout_s, GError **error);

/* Pulls the plug. GNT_ERROR_NOT_FOUND when it does not run. */
gboolean
gnt_hypervisor_destroy(GntHypervisor *self, const gchar *name, GError **error);

/* Resumes an instance started paused. GNT_ERROR_WRONG_STATE when it is
 * not paused. */
gboolean
gnt_hypervisor_resume(GntHypervisor *self, const gchar *name, GError **error);

/* GNT_ERROR_NOT_FOUND when the hypervisor does not know @name.
 * (transfer full) */
GntHvInfo *
gnt_hypervisor_get_info(GntHypervisor *self, const gchar *name, GError **error);

/* Names of the instances of this prefix that run (or are paused), sorted.
 * (transfer full) (element-type utf8) */
GPtrArray *
gnt_hypervisor_list(GntHypervisor *self, GError **error);

/* GNT_ERROR_NOT_FOUND when @name does not run. (transfer full) */
GntHvConsole *
gnt_hypervisor_get_console(GntHypervisor *self, const gchar *name, GError **error);

/* How many console lines an appliance's error and result carry. */
#define GNT_HV_APPLIANCE_TAIL_LINES 20

/*
 * Boots the install appliance @app and waits until it has powered off (kvm:
 * libvirt's lifecycle event "shutdown, guest request", then "stopped",
 * so that the disks are free again), @app->timeout_s passed, or
 * @cancellable (nullable) was cancelled; in the last two cases it is
 * destroyed first. Blocks: for a worker thread. On return nothing of it
 * runs any more. *@console_tail (nullable; transfer full) gets the last
 * GNT_HV_APPLIANCE_TAIL_LINES lines of its console, also on failure.
 * Whether it did its work is for the caller to judge (metad's progress).
 * Errors: GNT_ERROR_ENVIRONMENT "install appliance timed out after N s;
 * its console ended with: ..." (or "... crashed; ..."), GNT_ERROR_INVALID
 * for a bad record, GNT_ERROR_EXISTS when one runs for that instance.
 */
gboolean
gnt_hypervisor_run_appliance(GntHypervisor *self, const GntHvAppliance *app,
			     GCancellable *cancellable, gchar **console_tail, GError **error);

/*
 * Destroys the install domain (appliance or kickstart installer) of
 * instance @name that a run whose caller died left running (noded killed
 * mid-install); TRUE when none runs. kvm only: the fake hypervisor's agent
 * ends with its own timeout.
 */
gboolean
gnt_hypervisor_destroy_appliance(GntHypervisor *self, const gchar *name, GError **error);

G_END_DECLS
