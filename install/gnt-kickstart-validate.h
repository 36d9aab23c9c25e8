#pragma once /* install/gnt-kickstart-validate.h: Gantry's own kickstart checks */

#include <glib.h>

G_BEGIN_DECLS

/*
 * The checks Gantry makes of a rendered kickstart file, in C, before it is
 * served (doc/kickstart.md, "Validation"): what pykickstart's ksvalidator
 * does not catch (references between part, raid, volgroup and logvol,
 * filesystem types of the release, sizes against the instance's disks,
 * disk names), what it catches only when it is installed (commands and
 * sections the release removed, autopart mixed with manual partitioning),
 * and what the installer run needs (one payload, one shutdown command,
 * no %include). Every error names its line.
 */

/* The release the file installs: what Anaconda and pykickstart's syntax
 * version depend on. */
typedef enum {
	GNT_KICKSTART_FAMILY_RHEL,   /* RHEL, CentOS, Rocky, AlmaLinux, ... */
	GNT_KICKSTART_FAMILY_FEDORA, /* Fedora */
} GntKickstartFamily;

typedef struct {
	GntKickstartFamily family;
	guint major;
} GntKickstartRelease;

/* A catalog image's os_distro ("RHEL", "CentOS", "Rocky", "AlmaLinux",
 * "OL", "Fedora"; any case) and os_version ("9", "9.4", "40") as a
 * release: GNT_ERROR_INVALID for a distribution Anaconda does not install,
 * a version that is no number, or one older than RHEL 7 or Fedora 31. */
gboolean
gnt_kickstart_release_parse(const gchar *os_distro, const gchar *os_version,
			    GntKickstartRelease *release, GError **error);

/* pykickstart's name of its syntax: "RHEL9", "F40". (transfer full) */
gchar *
gnt_kickstart_release_get_syntax(const GntKickstartRelease *release);

/* Whether the release deprecated %traceback: RHEL 9 and later, Fedora 34
 * and later (Gantry never adds one there, and refuses one). */
gboolean
gnt_kickstart_release_lacks_traceback(const GntKickstartRelease *release);

typedef enum {
	GNT_KICKSTART_FIRMWARE_BIOS,
	GNT_KICKSTART_FIRMWARE_UEFI,
} GntKickstartFirmware;

/* The most disks a target may have. */
#define GNT_KICKSTART_MAX_DISKS 16

/* What the file is checked against: the release and the instance. */
typedef struct {
	GntKickstartRelease release;
	GntKickstartFirmware firmware;
	guint n_disks;
	/* as the installer sees them ("vda", "sdb"), and their sizes */
	gchar disk_names[GNT_KICKSTART_MAX_DISKS][8];
	guint64 disk_mib[GNT_KICKSTART_MAX_DISKS];
} GntKickstartTarget;

/* The installer's name of disk @index on @disk_type (Gantry's kvm
 * hvparam: "paravirtual" → vda, "scsi" → sda, "ide" → hda...). (transfer
 * full) */
gchar *
gnt_kickstart_disk_name(const gchar *disk_type, guint index);

/*
 * Checks @len bytes of a rendered kickstart file for @target. On failure,
 * GNT_ERROR_INVALID with every problem found (at most 20), each "line N:
 * ...", joined by "; ".
 */
gboolean
gnt_kickstart_validate(const gchar *text, gsize len, const GntKickstartTarget *target,
		       GError **error);

G_END_DECLS
