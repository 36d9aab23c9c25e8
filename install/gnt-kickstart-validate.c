#include "gnt-kickstart-validate.h"

#include <stdlib.h>
#include <string.h>

#include "gnt-error.h"
#include "gnt-kickstart-lines.h"

#define MAX_ERRORS 20
/* what a disk label and partition alignment take from each disk, at most */
#define DISK_OVERHEAD_MIB 2
/* Anaconda's size of a partition given no --size */
#define DEFAULT_PART_MIB 500

/* ---- releases ---------------------------------------------------------- */

static const struct {
	const gchar *name;
	GntKickstartFamily family;
} distros[] = {
	{"rhel", GNT_KICKSTART_FAMILY_RHEL},	 {"centos", GNT_KICKSTART_FAMILY_RHEL},
	{"rocky", GNT_KICKSTART_FAMILY_RHEL},	 {"almalinux", GNT_KICKSTART_FAMILY_RHEL},
	{"ol", GNT_KICKSTART_FAMILY_RHEL},	 {"oraclelinux", GNT_KICKSTART_FAMILY_RHEL},
	{"fedora", GNT_KICKSTART_FAMILY_FEDORA},
};

gboolean
gnt_kickstart_release_parse(const gchar *os_distro, const gchar *os_version,
			    GntKickstartRelease *release, GError **error)
{
	gchar *end = NULL;
	guint64 major;
	gboolean known = FALSE;

	for (guint i = 0; os_distro != NULL && i < G_N_ELEMENTS(distros); i++) {
		if (g_ascii_strcasecmp(os_distro, distros[i].name) == 0) {
			release->family = distros[i].family;
			known = TRUE;
		}
	}
	if (!known) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "os_distro '%s' is not installed by Anaconda: a kickstart install "
			    "needs RHEL, CentOS, Rocky, AlmaLinux, OL or Fedora",
			    os_distro != NULL ? os_distro : "(none)");
		return FALSE;
	}
	major = os_version != NULL ? g_ascii_strtoull(os_version, &end, 10) : 0;
	if (os_version == NULL || end == os_version || (*end != '\0' && *end != '.') ||
	    major > 1000) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "os_version '%s' is not a version number such as '9' or '9.4'",
			    os_version != NULL ? os_version : "(none)");
		return FALSE;
	}
	release->major = (guint)major;
	if ((release->family == GNT_KICKSTART_FAMILY_RHEL && major < 7) ||
	    (release->family == GNT_KICKSTART_FAMILY_FEDORA && major < 31)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "%s %s is too old for Gantry's kickstart installs (RHEL 7, Fedora 31 "
			    "and later)",
			    os_distro, os_version);
		return FALSE;
	}
	return TRUE;
}

gchar *
gnt_kickstart_release_get_syntax(const GntKickstartRelease *release)
{
	return g_strdup_printf("%s%u", release->family == GNT_KICKSTART_FAMILY_RHEL ? "RHEL" : "F",
			       release->major);
}

gboolean
gnt_kickstart_release_lacks_traceback(const GntKickstartRelease *release)
{
	return release->major >= (release->family == GNT_KICKSTART_FAMILY_RHEL ? 9u : 34u);
}

/* Commands a release removed or deprecated (pykickstart counts both as
 * errors): from which major version of each family (0: never). */
static const struct {
	const gchar *command;
	guint rhel, fedora;
	const gchar *why;
} retired_commands[] = {
	{"install", 8, 29, "it was removed"},
	{"auth", 8, 28, "it was removed: use authselect"},
	{"authconfig", 8, 28, "it was removed: use authselect"},
	{"btrfs", 8, 0, "Btrfs is not supported"},
	{"device", 8, 34, "it was removed"},
	{"deviceprobe", 8, 34, "it was removed"},
	{"dmraid", 8, 34, "it was removed"},
	{"multipath", 8, 34, "it was removed"},
	{"autostep", 9, 34, "it was removed"},
	{"method", 9, 34, "it was removed: use url or liveimg"},
	{"upgrade", 7, 31, "it was removed"},
	{"module", 10, 0, "it was deprecated"},
	{"vnc", 10, 0, "it was deprecated"},
	{"nvdimm", 10, 40, "it was removed"},
};

static const gchar *
retired_why(const GntKickstartRelease *release, const gchar *command)
{
	for (guint i = 0; i < G_N_ELEMENTS(retired_commands); i++) {
		guint from = release->family == GNT_KICKSTART_FAMILY_RHEL
				     ? retired_commands[i].rhel
				     : retired_commands[i].fedora;
		if (from != 0 && release->major >= from &&
		    command[0] == retired_commands[i].command[0] &&
		    strcmp(command, retired_commands[i].command) == 0)
			return retired_commands[i].why;
	}
	return NULL;
}

/* Filesystem types Anaconda formats on the release. */
static gboolean
fstype_supported(const GntKickstartRelease *release, const gchar *fstype)
{
	static const gchar *const common[] = {"xfs",  "ext4", "ext3",	  "ext2",
					      "vfat", "efi",  "biosboot", "prepboot",
					      "swap", "hfs+", "macefi",	  "appleboot"};

	for (guint i = 0; i < G_N_ELEMENTS(common); i++) {
		if (g_ascii_strcasecmp(fstype, common[i]) == 0)
			return TRUE;
	}
	return release->family == GNT_KICKSTART_FAMILY_FEDORA &&
	       g_ascii_strcasecmp(fstype, "btrfs") == 0;
}

gchar *
gnt_kickstart_disk_name(const gchar *disk_type, guint index)
{
	const gchar *prefix = "vd";

	if (g_strcmp0(disk_type, "scsi") == 0 || g_strcmp0(disk_type, "sata") == 0)
		prefix = "sd";
	else if (g_strcmp0(disk_type, "ide") == 0)
		prefix = "hd";
	return g_strdup_printf("%s%c", prefix, 'a' + (gchar)MIN(index, 25u));
}

/* ---- what one validation collects -------------------------------------- */

typedef enum {
	DEV_PART,
	DEV_RAID,
	DEV_LOGVOL
} DevKind;

/* A partition, RAID device or logical volume: where it is and how big it
 * may be (MiB: at least @min, at most @max; G_MAXUINT64 for "the rest") */
typedef struct {
	DevKind kind;
	guint line;
	gchar *mount; /* "/", "swap", "raid.01", "pv.01", ... */
	gchar *fstype;
	gint disk; /* index into the target's disks; -1: any */
	guint64 min, max;
	gchar *level;	  /* raid */
	gchar **members;  /* raid: raid.NN; */
	gchar *vgname;	  /* logvol */
	gboolean percent; /* logvol --percent: a share, not a size */
} Dev;

typedef struct {
	guint line;
	gchar *name;
	gchar **pvs;
	gboolean existing;
} VolGroup;

typedef struct {
	const GntKickstartTarget *target;
	GStringChunk *strings; /* every string of the devices: freed at once */
	GPtrArray *errors;
	GPtrArray *devs;		    /* of Dev */
	GPtrArray *vgs;			    /* of VolGroup */
	guint autopart, reqpart, mount_cmd; /* the line, 0: none */
	guint gpt_label;		    /* clearpart --disklabel=gpt's line */
	guint first_storage;		    /* first part/raid/volgroup/logvol line */
	guint liveimg, url, packages;
	guint shutdown;
	const gchar *shutdown_word;
	guint last_line;
} Check;

static void
dev_free(gpointer data)
{
	Dev *dev = data;
	g_free(dev->members); /* its strings are the check's */
	g_free(dev);
}

static void
vg_free(gpointer data)
{
	VolGroup *vg = data;
	g_free(vg->pvs);
	g_free(vg);
}

static gchar *
check_strdup(Check *check, const gchar *s)
{
	return s != NULL ? g_string_chunk_insert(check->strings, s) : NULL;
}

static void
add_error(Check *check, guint line, const gchar *format, ...) G_GNUC_PRINTF(3, 4);

static void
add_error(Check *check, guint line, const gchar *format, ...)
{
	va_list args;
	g_autofree gchar *msg = NULL;

	if (check->errors->len >= MAX_ERRORS)
		return;
	va_start(args, format);
	msg = g_strdup_vprintf(format, args);
	va_end(args);
	g_ptr_array_add(check->errors, g_strdup_printf("line %u: %s", line, msg));
}

/* Options of part, raid, volgroup and logvol that take a value, so that
 * "--size 100" is told from a positional argument. */
static gboolean
takes_value(const gchar *option)
{
	static const gchar *const with_value[] = {
		"--size",
		"--maxsize",
		"--ondisk",
		"--ondrive",
		"--fstype",
		"--type",
		"--vgname",
		"--name",
		"--level",
		"--device",
		"--percent",
		"--pesize",
		"--spares",
		"--chunksize",
		"--label",
		"--fsoptions",
		"--onpart",
		"--usepart",
		"--passphrase",
		"--cipher",
		"--mkfsoptions",
		"--fsprofile",
		"--luks-version",
		"--pbkdf",
		"--pbkdf-memory",
		"--pbkdf-time",
		"--pbkdf-iterations",
		"--escrowcert",
		"--onbiosdisk",
		"--reserved-space",
		"--reserved-percent",
		"--cachesize",
		"--cachemode",
		"--cachepvs",
		"--poolname",
		"--metadatasize",
		"--profile",
		"--thinpool-name",
	};
	for (guint i = 0; i < G_N_ELEMENTS(with_value); i++) {
		if (strcmp(option, with_value[i]) == 0)
			return TRUE;
	}
	return FALSE;
}

/* The positional arguments of a command (of words[1..]) into @out; how
 * many. */
static guint
positionals(const GntKickstartReader *r, const gchar **out)
{
	guint n = 0;

	for (guint i = 1; i < r->n_words; i++) {
		const gchar *w = r->words[i];

		if (w[0] == '-') {
			if (strchr(w, '=') == NULL && takes_value(w))
				i++;
			continue;
		}
		out[n++] = w;
	}
	return n;
}

static const gchar *
option(const GntKickstartReader *r, const gchar *name)
{
	return gnt_kickstart_words_get_option(r->words, r->n_words, name);
}

/* A whole number of MiB for option @name (absent: @fallback); an error
 * naming the line otherwise. */
static gboolean
option_mib(Check *check, const GntKickstartReader *r, const gchar *name, guint64 fallback,
	   guint64 *out)
{
	const gchar *value = option(r, name);
	gchar *end = NULL;

	*out = fallback;
	if (value == NULL)
		return TRUE;
	*out = g_ascii_strtoull(value, &end, 10);
	if (*value == '\0' || *end != '\0' || !g_ascii_isdigit(*value) || *out > G_MAXUINT32) {
		add_error(check, r->line_no, "%s=%s is not a whole number of MiB", name, value);
		return FALSE;
	}
	return TRUE;
}

static const gchar *
strip_dev(const gchar *name)
{
	return g_str_has_prefix(name, "/dev/") ? name + 5 : name;
}

static gint
find_disk(const GntKickstartTarget *target, const gchar *name)
{
	name = strip_dev(name);
	for (guint i = 0; i < target->n_disks; i++) {
		if (strcmp(target->disk_names[i], name) == 0)
			return (gint)i;
	}
	return -1;
}

static void
list_disks(const GntKickstartTarget *target, GString *out)
{
	for (guint i = 0; i < target->n_disks; i++)
		g_string_append_printf(out, "%s%s", i > 0 ? ", " : "", target->disk_names[i]);
	if (target->n_disks == 0)
		g_string_append(out, "none");
}

/* Checks a comma-separated disk list (or one disk) against the target;
 * the index of the single disk named, -1 for several or none. */
static gint
check_disks(Check *check, guint line, const gchar *option_name, const gchar *value)
{
	g_auto(GStrv) names = g_strsplit(value, ",", -1);
	gint index = -1;

	for (guint i = 0; names[i] != NULL; i++) {
		gint found;

		if (names[i][0] == '\0' || g_str_has_prefix(names[i], "/dev/disk/"))
			continue; /* by-path, by-id: the installer resolves them */
		found = find_disk(check->target, names[i]);
		if (found < 0) {
			g_autoptr(GString) known = g_string_new(NULL);
			list_disks(check->target, known);
			add_error(check, line,
				  "%s names disk '%s', which the instance does not have "
				  "(its disks: %s)",
				  option_name, names[i], known->str);
		}
		index = names[1] == NULL ? found : -1;
	}
	return index;
}

static void
check_fstype(Check *check, guint line, const gchar *fstype)
{
	if (fstype != NULL && !fstype_supported(&check->target->release, fstype)) {
		g_autofree gchar *syntax =
			gnt_kickstart_release_get_syntax(&check->target->release);
		add_error(check, line, "filesystem type '%s' is not supported by Anaconda for %s",
			  fstype, syntax);
	}
}

static Dev *
dev_new(Check *check, DevKind kind, guint line, const gchar *mount)
{
	Dev *dev = g_new0(Dev, 1);

	dev->kind = kind;
	dev->line = line;
	dev->mount = check_strdup(check, mount);
	dev->disk = -1;
	g_ptr_array_add(check->devs, dev);
	if (check->first_storage == 0)
		check->first_storage = line;
	return dev;
}

/* Size options shared by part, raid and logvol. */
static void
read_size(Check *check, const GntKickstartReader *r, Dev *dev, guint64 rest)
{
	guint64 size = 0, maxsize = 0;
	gboolean grow = option(r, "--grow") != NULL;

	option_mib(check, r, "--size", 0, &size);
	option_mib(check, r, "--maxsize", 0, &maxsize);
	if (grow && maxsize > 0 && maxsize < size)
		add_error(check, r->line_no,
			  "--maxsize=%" G_GUINT64_FORMAT
			  " is smaller than --size=%" G_GUINT64_FORMAT,
			  maxsize, size);
	dev->min = size;
	if (size == 0 && !grow && option(r, "--recommended") == NULL && dev->kind == DEV_PART)
		dev->min = DEFAULT_PART_MIB;
	dev->max = grow ? (maxsize > 0 ? MAX(maxsize, dev->min) : rest) : MAX(dev->min, 1);
}

static void
read_part(Check *check, const GntKickstartReader *r)
{
	const gchar *pos[GNT_KICKSTART_MAX_WORDS];
	const gchar *ondisk = option(r, "--ondisk");
	Dev *dev;
	guint64 total = 0;

	if (positionals(r, pos) == 0)
		return; /* ksvalidator: a mount point is required */
	dev = dev_new(check, DEV_PART, r->line_no, pos[0]);
	if (ondisk == NULL)
		ondisk = option(r, "--ondrive");
	if (ondisk != NULL && *ondisk != '\0')
		dev->disk = check_disks(check, r->line_no, "--ondisk", ondisk);
	for (guint i = 0; i < check->target->n_disks; i++)
		total += check->target->disk_mib[i];
	read_size(check, r, dev,
		  dev->disk >= 0 ? check->target->disk_mib[dev->disk] : MAX(total, 1));
	dev->fstype = check_strdup(check, option(r, "--fstype"));
	check_fstype(check, r->line_no, dev->fstype);
	if (strcmp(dev->mount, "biosboot") == 0 || strcmp(dev->mount, "swap") == 0 ||
	    g_str_has_prefix(dev->mount, "raid.") || g_str_has_prefix(dev->mount, "pv.") ||
	    g_str_has_prefix(dev->mount, "btrfs."))
		return;
	if (strcmp(dev->mount, "/boot/efi") == 0 && dev->fstype != NULL &&
	    g_ascii_strcasecmp(dev->fstype, "efi") != 0 &&
	    g_ascii_strcasecmp(dev->fstype, "vfat") != 0)
		add_error(check, r->line_no,
			  "/boot/efi must be an efi (or vfat) filesystem, not '%s'", dev->fstype);
}

static void
read_raid(Check *check, const GntKickstartReader *r)
{
	const gchar *pos[GNT_KICKSTART_MAX_WORDS];
	guint n = positionals(r, pos);
	Dev *dev;

	if (n == 0)
		return;
	dev = dev_new(check, DEV_RAID, r->line_no, pos[0]);
	dev->level = check_strdup(check, option(r, "--level"));
	dev->members = g_new0(gchar *, n);
	for (guint i = 1; i < n; i++)
		dev->members[i - 1] = check_strdup(check, pos[i]);
	dev->fstype = check_strdup(check, option(r, "--fstype"));
	check_fstype(check, r->line_no, dev->fstype);
}

static void
read_volgroup(Check *check, const GntKickstartReader *r)
{
	const gchar *pos[GNT_KICKSTART_MAX_WORDS];
	guint n = positionals(r, pos);
	VolGroup *vg;

	if (n == 0)
		return;
	vg = g_new0(VolGroup, 1);
	vg->line = r->line_no;
	vg->name = check_strdup(check, pos[0]);
	vg->pvs = g_new0(gchar *, n);
	for (guint i = 1; i < n; i++)
		vg->pvs[i - 1] = check_strdup(check, pos[i]);
	vg->existing = option(r, "--useexisting") != NULL || option(r, "--noformat") != NULL;
	g_ptr_array_add(check->vgs, vg);
	if (check->first_storage == 0)
		check->first_storage = r->line_no;
}

static void
read_logvol(Check *check, const GntKickstartReader *r)
{
	const gchar *pos[GNT_KICKSTART_MAX_WORDS];
	Dev *dev;

	if (positionals(r, pos) == 0)
		return;
	dev = dev_new(check, DEV_LOGVOL, r->line_no, pos[0]);
	dev->vgname = check_strdup(check, option(r, "--vgname"));
	dev->percent = option(r, "--percent") != NULL;
	if (dev->percent && option(r, "--grow") == NULL)
		add_error(check, r->line_no,
			  "--percent needs --grow: Anaconda sizes a logical volume by percent only "
			  "when it grows");
	read_size(check, r, dev, G_MAXUINT64);
	dev->fstype = check_strdup(check, option(r, "--fstype"));
	check_fstype(check, r->line_no, dev->fstype);
	if (strcmp(dev->mount, "/boot") == 0 || g_str_has_prefix(dev->mount, "/boot/"))
		add_error(check, r->line_no,
			  "%s cannot be on LVM (logvol): the boot loader reads it before LVM is "
			  "up; use a part or a raid",
			  dev->mount);
}

static void
note_once(Check *check, const GntKickstartReader *r, guint *seen, const gchar *what)
{
	if (*seen != 0)
		add_error(check, r->line_no, "a second %s (the first is on line %u)", what, *seen);
	else
		*seen = r->line_no;
}

static void
read_command(Check *check, const GntKickstartReader *r)
{
	const gchar *cmd = r->words[0];
	const gchar *why = retired_why(&check->target->release, cmd);
	const gchar *value;

	if (why != NULL) {
		g_autofree gchar *syntax =
			gnt_kickstart_release_get_syntax(&check->target->release);
		add_error(check, r->line_no, "'%s' is refused for %s: %s", cmd, syntax, why);
		return;
	}
	if (strcmp(cmd, "part") == 0 || strcmp(cmd, "partition") == 0) {
		read_part(check, r);
	} else if (strcmp(cmd, "raid") == 0) {
		read_raid(check, r);
	} else if (strcmp(cmd, "volgroup") == 0) {
		read_volgroup(check, r);
	} else if (strcmp(cmd, "logvol") == 0) {
		read_logvol(check, r);
	} else if (strcmp(cmd, "autopart") == 0) {
		note_once(check, r, &check->autopart, "autopart");
	} else if (strcmp(cmd, "reqpart") == 0) {
		note_once(check, r, &check->reqpart, "reqpart");
	} else if (strcmp(cmd, "mount") == 0) {
		if (check->mount_cmd == 0)
			check->mount_cmd = r->line_no;
	} else if (strcmp(cmd, "liveimg") == 0) {
		note_once(check, r, &check->liveimg, "liveimg");
	} else if (strcmp(cmd, "url") == 0) {
		note_once(check, r, &check->url, "url");
	} else if (strcmp(cmd, "reboot") == 0 || strcmp(cmd, "halt") == 0 ||
		   strcmp(cmd, "shutdown") == 0 || strcmp(cmd, "poweroff") == 0) {
		if (check->shutdown != 0)
			add_error(check, r->line_no, "'%s' conflicts with '%s' on line %u", cmd,
				  check->shutdown_word, check->shutdown);
		else {
			check->shutdown = r->line_no;
			check->shutdown_word = cmd;
		}
	} else if (strcmp(cmd, "clearpart") == 0) {
		static const gchar *const which[] = {"--all", "--linux", "--list", "--none"};
		guint n = 0;

		for (guint i = 0; i < G_N_ELEMENTS(which); i++)
			n += option(r, which[i]) != NULL;
		if (n > 1)
			add_error(check, r->line_no,
				  "clearpart takes one of --all, --linux, --list and --none");
		if ((value = option(r, "--drives")) != NULL)
			check_disks(check, r->line_no, "clearpart --drives", value);
		if ((value = option(r, "--disklabel")) != NULL && strcmp(value, "gpt") == 0)
			check->gpt_label = r->line_no;
	} else if (strcmp(cmd, "ignoredisk") == 0) {
		if ((value = option(r, "--only-use")) != NULL)
			check_disks(check, r->line_no, "ignoredisk --only-use", value);
		if ((value = option(r, "--drives")) != NULL)
			check_disks(check, r->line_no, "ignoredisk --drives", value);
	} else if (strcmp(cmd, "bootloader") == 0) {
		if ((value = option(r, "--boot-drive")) != NULL)
			check_disks(check, r->line_no, "bootloader --boot-drive", value);
		if ((value = option(r, "--driveorder")) != NULL)
			check_disks(check, r->line_no, "bootloader --driveorder", value);
	}
}

/* ---- references and sizes, once every line is read --------------------- */

static Dev *
find_dev(Check *check, const gchar *mount, DevKind kind)
{
	for (guint i = 0; i < check->devs->len; i++) {
		Dev *dev = g_ptr_array_index(check->devs, i);
		if (dev->kind == kind && strcmp(dev->mount, mount) == 0)
			return dev;
	}
	return NULL;
}

/* The partition (or, for a PV, the RAID device) @name that line @line's
 * raid or volgroup takes: defined, named with @prefix, and not taken
 * before; NULL with an error naming @what otherwise. */
static Dev *
claim(Check *check, GHashTable *used, const gchar *name, guint line, const gchar *prefix,
      const gchar *what, const gchar *defined_by)
{
	Dev *dev = find_dev(check, name, DEV_PART);
	gpointer user;

	if (dev == NULL && strcmp(prefix, "pv.") == 0)
		dev = find_dev(check, name, DEV_RAID);
	if (!g_str_has_prefix(name, prefix) || dev == NULL) {
		add_error(check, line, "%s '%s' is not defined (%s)", what, name, defined_by);
		return NULL;
	}
	if ((user = g_hash_table_lookup(used, dev)) != NULL) {
		add_error(check, line, "%s '%s' is already used on line %u", what, name,
			  GPOINTER_TO_UINT(user));
		return NULL;
	}
	g_hash_table_insert(used, dev, GUINT_TO_POINTER(line));
	return dev;
}

static guint64
add_sat(guint64 a, guint64 b)
{
	return a > G_MAXUINT64 - b ? G_MAXUINT64 : a + b;
}

static guint64
mul_sat(guint64 a, guint64 b)
{
	return b != 0 && a > G_MAXUINT64 / b ? G_MAXUINT64 : a * b;
}

/* How many members a RAID level needs, and how many members' worth of the
 * smallest it holds (@n members; unknown levels: as RAID0, the most). */
static guint
raid_min_members(const gchar *level)
{
	if (level == NULL)
		return 2;
	if (g_str_has_prefix(level, "RAID") || g_str_has_prefix(level, "raid"))
		level += 4;
	switch (atoi(level)) {
	case 5:
	case 4:
		return 3;
	case 6:
	case 10:
		return 4;
	default:
		return 2;
	}
}

static guint64
raid_capacity(const gchar *level, guint n, guint64 smallest, guint64 sum)
{
	const gchar *l = level != NULL ? level : "0";

	if (g_str_has_prefix(l, "RAID") || g_str_has_prefix(l, "raid"))
		l += 4;
	switch (atoi(l)) {
	case 1:
		return smallest;
	case 4:
	case 5:
		return mul_sat(smallest, n > 1 ? n - 1 : 1);
	case 6:
		return mul_sat(smallest, n > 2 ? n - 2 : 1);
	case 10:
		return mul_sat(smallest, MAX(n / 2, 1));
	default:
		return sum;
	}
}

static void
check_raids(Check *check, GHashTable *used)
{
	for (guint i = 0; i < check->devs->len; i++) {
		Dev *raid = g_ptr_array_index(check->devs, i);
		guint64 min_small = G_MAXUINT64, max_small = G_MAXUINT64, min_sum = 0, max_sum = 0;
		guint n = 0;

		if (raid->kind != DEV_RAID)
			continue;
		for (guint m = 0; raid->members[m] != NULL; m++) {
			Dev *member = claim(check, used, raid->members[m], raid->line, "raid.",
					    "RAID member", "a 'part raid.NN' line");

			if (member == NULL)
				continue;
			n++;
			min_small = MIN(min_small, member->min);
			max_small = MIN(max_small, member->max);
			min_sum = add_sat(min_sum, member->min);
			max_sum = add_sat(max_sum, member->max);
		}
		if (n == 0 && raid->members[0] == NULL)
			continue; /* ksvalidator: "Partitions required for raid" */
		if (n > 0 && n < raid_min_members(raid->level))
			add_error(check, raid->line,
				  "RAID level %s needs at least %u members, it has %u",
				  raid->level != NULL ? raid->level : "0",
				  raid_min_members(raid->level), n);
		raid->min = n > 0 ? raid_capacity(raid->level, n, min_small, min_sum) : 0;
		raid->max = n > 0 ? raid_capacity(raid->level, n, max_small, max_sum) : 0;
	}
}

static void
check_volgroups(Check *check, GHashTable *used)
{
	for (guint i = 0; i < check->vgs->len; i++) {
		VolGroup *vg = g_ptr_array_index(check->vgs, i);
		guint64 capacity = 0, needed = 0;

		for (guint j = 0; j < i; j++) {
			VolGroup *other = g_ptr_array_index(check->vgs, j);
			if (strcmp(other->name, vg->name) == 0)
				add_error(check, vg->line,
					  "volume group '%s' is already defined on line %u",
					  vg->name, other->line);
		}
		for (guint p = 0; vg->pvs[p] != NULL; p++) {
			Dev *pv = claim(check, used, vg->pvs[p], vg->line, "pv.", "physical volume",
					"a 'part pv.NN' or 'raid pv.NN' line");

			if (pv == NULL)
				continue;
			capacity = add_sat(capacity, pv->max);
		}
		if (vg->existing)
			continue;
		if (vg->pvs[0] == NULL)
			add_error(check, vg->line, "volume group '%s' has no physical volumes",
				  vg->name);
		for (guint d = 0; d < check->devs->len; d++) {
			Dev *lv = g_ptr_array_index(check->devs, d);

			if (lv->kind != DEV_LOGVOL || g_strcmp0(lv->vgname, vg->name) != 0 ||
			    lv->percent)
				continue;
			needed = add_sat(needed, lv->min);
			if (needed > capacity && vg->pvs[0] != NULL)
				add_error(check, lv->line,
					  "the logical volumes of '%s' need %" G_GUINT64_FORMAT
					  " MiB up to here, more than its physical volumes can "
					  "hold (at most %" G_GUINT64_FORMAT " MiB on the "
					  "instance's disks)",
					  vg->name, needed, capacity);
		}
	}
	for (guint d = 0; d < check->devs->len; d++) {
		Dev *lv = g_ptr_array_index(check->devs, d);
		gboolean found = FALSE;

		if (lv->kind != DEV_LOGVOL)
			continue;
		for (guint i = 0; i < check->vgs->len && !found; i++)
			found = g_strcmp0(((VolGroup *)g_ptr_array_index(check->vgs, i))->name,
					  lv->vgname) == 0;
		if (!found)
			add_error(check, lv->line,
				  "volume group '%s' is not defined (a 'volgroup' line)",
				  lv->vgname != NULL ? lv->vgname : "(no --vgname)");
	}
}

/* Partitions: each disk's, then all of them, against the disks' sizes. */
static void
check_part_sizes(Check *check)
{
	const GntKickstartTarget *t = check->target;
	guint64 per_disk[GNT_KICKSTART_MAX_DISKS] = {0};
	guint64 all = 0, total = 0;
	gboolean reported = FALSE;

	for (guint i = 0; i < t->n_disks; i++)
		total += t->disk_mib[i] > DISK_OVERHEAD_MIB ? t->disk_mib[i] - DISK_OVERHEAD_MIB
							    : 0;
	for (guint i = 0; i < check->devs->len; i++) {
		Dev *dev = g_ptr_array_index(check->devs, i);

		if (dev->kind != DEV_PART)
			continue;
		if (dev->disk >= 0) {
			guint64 cap = t->disk_mib[dev->disk];

			per_disk[dev->disk] = add_sat(per_disk[dev->disk], dev->min);
			if (per_disk[dev->disk] + DISK_OVERHEAD_MIB > cap) {
				add_error(check, dev->line,
					  "the partitions on '%s' need %" G_GUINT64_FORMAT
					  " MiB up to here, more than its %" G_GUINT64_FORMAT
					  " MiB",
					  t->disk_names[dev->disk], per_disk[dev->disk], cap);
				reported = TRUE;
				per_disk[dev->disk] = 0;
			}
		}
		all = add_sat(all, dev->min);
		if (all > total && !reported && t->n_disks > 0) {
			add_error(
				check, dev->line,
				"the partitions need %" G_GUINT64_FORMAT
				" MiB up to here, more than the instance's disks hold (%" G_GUINT64_FORMAT
				" MiB)",
				all, total);
			reported = TRUE;
		}
	}
}

static void
check_layout(Check *check, gboolean has_root)
{
	guint manual = check->first_storage;

	if (check->autopart != 0) {
		guint other = manual != 0	    ? manual
			      : check->reqpart != 0 ? check->reqpart
						    : check->mount_cmd;
		if (other != 0)
			add_error(check, other,
				  "manual partitioning cannot be mixed with autopart (line %u)",
				  check->autopart);
		return;
	}
	if (check->mount_cmd != 0)
		return;
	if (manual == 0) {
		add_error(check, check->last_line,
			  "the file does not partition the disks: add autopart, or part/raid/"
			  "logvol lines with a / filesystem");
		return;
	}
	if (!has_root)
		add_error(check, manual, "the layout has no / filesystem");
	if (check->target->firmware == GNT_KICKSTART_FIRMWARE_UEFI && check->reqpart == 0 &&
	    find_dev(check, "/boot/efi", DEV_PART) == NULL &&
	    find_dev(check, "/boot/efi", DEV_RAID) == NULL)
		add_error(check, manual,
			  "UEFI needs a /boot/efi partition ('part /boot/efi --fstype=efi "
			  "--size=600', or reqpart)");
	/* GRUB's core image on a gpt disk under BIOS: Anaconda refuses the
	 * layout without its partition */
	if (check->target->firmware == GNT_KICKSTART_FIRMWARE_BIOS && check->gpt_label != 0 &&
	    check->reqpart == 0 && find_dev(check, "biosboot", DEV_PART) == NULL)
		add_error(check, manual,
			  "BIOS on a gpt disk (line %u) needs a biosboot partition ('part "
			  "biosboot --fstype=biosboot --size=1', or reqpart)",
			  check->gpt_label);
}

static gboolean
has_mount(Check *check, const gchar *mount)
{
	return find_dev(check, mount, DEV_PART) != NULL ||
	       find_dev(check, mount, DEV_RAID) != NULL ||
	       find_dev(check, mount, DEV_LOGVOL) != NULL;
}

gboolean
gnt_kickstart_validate(const gchar *text, gsize len, const GntKickstartTarget *target,
		       GError **error)
{
	g_auto(GntKickstartReader) r;
	g_autoptr(GError) structure = NULL;
	g_autoptr(GPtrArray) errors = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) devs = g_ptr_array_new_with_free_func(dev_free);
	g_autoptr(GPtrArray) vgs = g_ptr_array_new_with_free_func(vg_free);
	g_autoptr(GHashTable) used = g_hash_table_new(NULL, NULL);
	g_autoptr(GStringChunk) strings = g_string_chunk_new(1024);
	Check check = {
		.target = target, .strings = strings, .errors = errors, .devs = devs, .vgs = vgs};
	g_autofree gchar *joined = NULL;

	g_return_val_if_fail(target != NULL && target->n_disks <= GNT_KICKSTART_MAX_DISKS, FALSE);
	gnt_kickstart_reader_init(&r, text, len);
	while (gnt_kickstart_reader_next(&r, &structure)) {
		GError *split = NULL;

		check.last_line = r.line_no;
		if (r.kind == GNT_KICKSTART_LINE_HEADER) {
			if (r.section == GNT_KICKSTART_SECTION_TRACEBACK &&
			    gnt_kickstart_release_lacks_traceback(&target->release))
				add_error(&check, r.line_no,
					  "%%traceback is deprecated from RHEL 9 and Fedora 34 on: "
					  "use %%onerror");
			if (r.section == GNT_KICKSTART_SECTION_PACKAGES && check.packages == 0)
				check.packages = r.line_no;
			continue;
		}
		if (r.kind != GNT_KICKSTART_LINE_COMMAND)
			continue;
		if (!gnt_kickstart_reader_split(&r, &split)) {
			g_ptr_array_add(errors, g_strdup(split->message));
			g_error_free(split);
			break;
		}
		if (r.n_words > 0)
			read_command(&check, &r);
	}
	if (structure != NULL) {
		g_ptr_array_add(errors, g_strdup(structure->message));
	} else {
		check_raids(&check, used);
		check_volgroups(&check, used);
		check_part_sizes(&check);
		check_layout(&check, has_mount(&check, "/"));
		if (check.liveimg != 0 && check.url != 0)
			add_error(&check, MAX(check.liveimg, check.url),
				  "liveimg and url are two payloads (the other is on line %u)",
				  MIN(check.liveimg, check.url));
		if (check.liveimg != 0 && check.packages != 0)
			add_error(&check, check.packages,
				  "%%packages has nothing to install from with liveimg (line %u)",
				  check.liveimg);
	}
	if (errors->len == 0)
		return TRUE;
	g_ptr_array_add(errors, NULL);
	joined = g_strjoinv("; ", (gchar **)errors->pdata);
	g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID, joined);
	return FALSE;
}
