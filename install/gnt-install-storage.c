/*
 * The storage layout's steps (gnt-install-storage.h): their structured
 * arguments, the layout they make together, checked before anything
 * changes, and the lines the agent reads. Pure: no config, no node.
 */
#include "gnt-install-storage.h"

#include "gnt-install-registry-private.h"

#include <stdlib.h>
#include <string.h>

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-size.h"

#define STEP(name_) GNT_INSTALL_APPLIANCE_INTERFACE "." name_

/* What a partition table takes besides the partitions: the first MiB
 * (alignment, the protective MBR and the primary GPT) and the backup GPT
 * at the end, rounded up to a MiB. */
#define GPT_OVERHEAD_MIB 2
/* What LVM keeps of each PV for its metadata, rounded up to an extent. */
#define PV_OVERHEAD_MIB 4
#define MAX_DISKS	16
#define MAX_PARTITIONS	128
#define MAX_MD		127
#define MAX_ITEMS	64
#define NAME_MAX_LEN	63
/* mount_target reports its layout in metad's step data (4 KiB at most):
 * a record a mount is about 100 bytes */
#define MAX_MOUNTS 24

static const gchar *const storage_steps[] = {"wipe_disks",  "partition",    "create_raid",
					     "create_lvm",  "mkfs",	    "mount_target",
					     "write_fstab", "set_hostname", "install_bootloader",
					     NULL};

static const gchar *const partition_types[] = {"linux",	    "raid", "lvm", "swap",
					       "bios_boot", "efi",  NULL};
static const gchar *const filesystem_types[] = {"ext4", "ext3", "ext2", "xfs",
						"vfat", "swap", NULL};

gboolean
gnt_install_storage_is_step(const GntInstallStepSpec *spec)
{
	return spec != NULL && g_str_equal(spec->interface, GNT_INSTALL_APPLIANCE_INTERFACE) &&
	       g_strv_contains(storage_steps, spec->step);
}

/* ---- names and sizes ---- */

typedef enum {
	DEVICE_DISK,
	DEVICE_PARTITION,
	DEVICE_RAID,
	DEVICE_LV
} DeviceKind;

/* A decimal number of 1..@digits digits without a leading zero (but "0"),
 * at most @max; *@end past it. */
static gboolean
parse_number(const gchar *text, guint digits, guint max, guint *out, const gchar **end)
{
	guint n = 0;
	guint len = 0;

	while (g_ascii_isdigit(text[len]) && len <= digits)
		n = n * 10 + (guint)(text[len++] - '0');
	if (len == 0 || len > digits || (len > 1 && text[0] == '0') || n > max)
		return FALSE;
	*out = n;
	*end = text + len;
	return TRUE;
}

/* An LVM name: [A-Za-z0-9_+.-], not starting with '-', not "." or "..",
 * at most NAME_MAX_LEN bytes (of @len). */
static gboolean
lvm_name_valid(const gchar *name, gsize len)
{
	if (len == 0 || len > NAME_MAX_LEN || name[0] == '-' || (len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return FALSE;
	for (gsize i = 0; i < len; i++) {
		if (!g_ascii_isalnum(name[i]) && strchr("_+.-", name[i]) == NULL)
			return FALSE;
	}
	return TRUE;
}

/* @name as a device: diskN, diskNpK, mdN or VG/LV; *@disk and *@part for
 * the first two. */
static gboolean
device_parse(const gchar *name, DeviceKind *kind, guint *disk, guint *part)
{
	const gchar *end = NULL;
	const gchar *slash = strchr(name, '/');

	if (g_str_has_prefix(name, "disk")) {
		if (!parse_number(name + 4, 2, MAX_DISKS - 1, disk, &end))
			return FALSE;
		if (*end == '\0') {
			*kind = DEVICE_DISK;
			return TRUE;
		}
		if (*end != 'p' || !parse_number(end + 1, 3, MAX_PARTITIONS, part, &end) ||
		    *end != '\0' || *part == 0)
			return FALSE;
		*kind = DEVICE_PARTITION;
		return TRUE;
	}
	if (g_str_has_prefix(name, "md")) {
		guint n;

		*kind = DEVICE_RAID;
		return parse_number(name + 2, 3, MAX_MD, &n, &end) && *end == '\0';
	}
	*kind = DEVICE_LV;
	return slash != NULL && lvm_name_valid(name, (gsize)(slash - name)) &&
	       lvm_name_valid(slash + 1, strlen(slash + 1));
}

static const gchar device_help[] =
	"a device is diskN, diskNpK (partition K of disk N), mdN (0..127) or VG/LV";

static gboolean
is_string(JsonNode *node)
{
	return JSON_NODE_HOLDS_VALUE(node) && json_node_get_value_type(node) == G_TYPE_STRING;
}

/* A size: MiB as a JSON integer, a string with a unit ("10G"), "rest"
 * (when @allow_rest: what is left) or "N%" (when @allow_percent: of the
 * volume group). *@mib is 0 for "rest" and percentages (*@percent 1..100).
 */
typedef struct {
	guint64 mib;
	guint percent;
	gboolean rest;
} Size;

static gboolean
size_parse(JsonNode *node, gboolean allow_rest, gboolean allow_percent, Size *out, GError **error)
{
	const gchar *text;
	guint64 mib = 0;

	memset(out, 0, sizeof(*out));
	if (gnt_json_node_is_int(node)) {
		gint64 n = json_node_get_int(node);

		if (n <= 0 || (guint64)n > GNT_SIZE_MAX_MIB) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "size %" G_GINT64_FORMAT " MiB is out of range", n);
			return FALSE;
		}
		out->mib = (guint64)n;
		return TRUE;
	}
	if (!is_string(node)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "a size must be MiB or a string (\"10G\"%s%s), not %s",
			    allow_rest ? ", \"rest\"" : "", allow_percent ? ", \"50%\"" : "",
			    gnt_json_node_type_name(node));
		return FALSE;
	}
	text = json_node_get_string(node);
	if (allow_rest && g_str_equal(text, "rest")) {
		out->rest = TRUE;
		return TRUE;
	}
	if (allow_percent && g_str_has_suffix(text, "%")) {
		const gchar *end = NULL;
		guint n = 0;

		if (!parse_number(text, 3, 100, &n, &end) || g_strcmp0(end, "%") != 0 || n == 0) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "size '%s': a percentage is 1%% to 100%%", text);
			return FALSE;
		}
		out->percent = n;
		return TRUE;
	}
	if (!gnt_size_parse(text, &mib, error))
		return FALSE;
	if (mib == 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "size '%s' must be above zero",
			    text);
		return FALSE;
	}
	out->mib = mib;
	return TRUE;
}

/* ---- one argument's shape ---- */

/* @value is an array of 1..@max items; the message names @what. */
static JsonArray *
list_check(JsonNode *value, const gchar *what, guint max, GError **error)
{
	JsonArray *array;

	if (!JSON_NODE_HOLDS_ARRAY(value)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "must be a list of %s, not %s",
			    what, gnt_json_node_type_name(value));
		return NULL;
	}
	array = json_node_get_array(value);
	if (json_array_get_length(array) == 0 || json_array_get_length(array) > max) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "must list 1 to %u %s", max, what);
		return NULL;
	}
	return array;
}

/* Item @i of a list as an object with exactly the members @members (all
 * required). */
static JsonObject *
item_object(JsonArray *array, guint i, const gchar *const *members, GError **error)
{
	JsonNode *node = json_array_get_element(array, i);
	JsonObject *obj;
	JsonObjectIter iter;
	const gchar *key;
	JsonNode *member;

	if (!JSON_NODE_HOLDS_OBJECT(node)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "item %u must be an object, not %s", i + 1,
			    gnt_json_node_type_name(node));
		return NULL;
	}
	obj = json_node_get_object(node);
	json_object_iter_init(&iter, obj);
	while (json_object_iter_next(&iter, &key, &member)) {
		if (!g_strv_contains(members, key)) {
			g_autofree gchar *known = g_strjoinv(", ", (gchar **)members);

			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "item %u: unknown member '%s' (an item has %s)", i + 1, key,
				    known);
			return NULL;
		}
	}
	for (guint k = 0; members[k] != NULL; k++) {
		if (!json_object_has_member(obj, members[k])) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "item %u: '%s' is missing",
				    i + 1, members[k]);
			return NULL;
		}
	}
	return obj;
}

/* Item @i's member @key: a string. */
static const gchar *
item_string(JsonObject *obj, guint i, const gchar *key, GError **error)
{
	JsonNode *node = json_object_get_member(obj, key);

	if (!is_string(node)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "item %u: '%s' must be a string, not %s", i + 1, key,
			    gnt_json_node_type_name(node));
		return NULL;
	}
	return json_node_get_string(node);
}

/* A list of distinct device names. */
static gboolean
devices_check(JsonNode *value, GError **error)
{
	JsonArray *array = list_check(value, "devices", MAX_ITEMS, error);

	for (guint i = 0; array != NULL && i < json_array_get_length(array); i++) {
		JsonNode *node = json_array_get_element(array, i);
		DeviceKind kind;
		guint disk, part;

		if (!is_string(node) ||
		    !device_parse(json_node_get_string(node), &kind, &disk, &part)) {
			g_autofree gchar *shown = gnt_json_to_string(node);

			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "item %u: %s is not a device (%s)", i + 1, shown, device_help);
			return FALSE;
		}
		for (guint k = 0; k < i; k++) {
			if (g_str_equal(json_array_get_string_element(array, k),
					json_node_get_string(node))) {
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "device '%s' is listed twice",
					    json_node_get_string(node));
				return FALSE;
			}
		}
	}
	return array != NULL;
}

static gboolean
partitions_check(JsonNode *value, GError **error)
{
	static const gchar *const members[] = {"size", "type", NULL};
	JsonArray *array = list_check(value, "partitions", MAX_PARTITIONS, error);
	guint n = array != NULL ? json_array_get_length(array) : 0;

	for (guint i = 0; i < n; i++) {
		JsonObject *item = item_object(array, i, members, error);
		const gchar *type = item != NULL ? item_string(item, i, "type", error) : NULL;
		Size size;

		if (type == NULL)
			return FALSE;
		if (!g_strv_contains(partition_types, type)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "item %u: unknown partition type '%s' (linux, raid, lvm, swap, "
				    "bios_boot or efi)",
				    i + 1, type);
			return FALSE;
		}
		if (!size_parse(json_object_get_member(item, "size"), TRUE, FALSE, &size, error)) {
			g_prefix_error(error, "item %u: ", i + 1);
			return FALSE;
		}
		if (size.rest && i + 1 < n) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "item %u: only the last partition may take the \"rest\"",
				    i + 1);
			return FALSE;
		}
	}
	return array != NULL;
}

static gboolean
lvs_check(JsonNode *value, GError **error)
{
	static const gchar *const members[] = {"name", "size", NULL};
	JsonArray *array = list_check(value, "logical volumes", MAX_ITEMS, error);
	guint n = array != NULL ? json_array_get_length(array) : 0;

	for (guint i = 0; i < n; i++) {
		JsonObject *item = item_object(array, i, members, error);
		const gchar *name = item != NULL ? item_string(item, i, "name", error) : NULL;
		Size size;

		if (name == NULL)
			return FALSE;
		if (!lvm_name_valid(name, strlen(name)) || g_str_has_prefix(name, "snapshot") ||
		    g_str_has_prefix(name, "pvmove")) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "item %u: '%s' is no logical volume name ([A-Za-z0-9_+.-], at "
				    "most %d, not starting with '-')",
				    i + 1, name, NAME_MAX_LEN);
			return FALSE;
		}
		for (guint k = 0; k < i; k++) {
			JsonObject *earlier = json_array_get_object_element(array, k);

			if (g_str_equal(json_object_get_string_member(earlier, "name"), name)) {
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "logical volume '%s' is given twice", name);
				return FALSE;
			}
		}
		if (!size_parse(json_object_get_member(item, "size"), TRUE, TRUE, &size, error)) {
			g_prefix_error(error, "item %u: ", i + 1);
			return FALSE;
		}
		if (size.rest && i + 1 < n) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "item %u: only the last logical volume may take the \"rest\"",
				    i + 1);
			return FALSE;
		}
	}
	return array != NULL;
}

/* A mount point: "swap", "/" or an absolute path of plain names. */
static gboolean
mount_path_valid(const gchar *path)
{
	g_auto(GStrv) parts = NULL;

	if (g_str_equal(path, "swap") || g_str_equal(path, "/"))
		return TRUE;
	if (path[0] != '/' || g_str_has_suffix(path, "/") || strlen(path) > 255)
		return FALSE;
	parts = g_strsplit(path + 1, "/", -1);
	for (guint i = 0; parts[i] != NULL; i++) {
		if (parts[i][0] == '\0' || g_str_equal(parts[i], ".") ||
		    g_str_equal(parts[i], ".."))
			return FALSE;
		for (const gchar *c = parts[i]; *c != '\0'; c++) {
			if (!g_ascii_isalnum(*c) && strchr("_.-", *c) == NULL)
				return FALSE;
		}
	}
	return TRUE;
}

static gboolean
mounts_check(JsonNode *value, GError **error)
{
	static const gchar *const members[] = {"device", "path", NULL};
	JsonArray *array = list_check(value, "mounts", MAX_MOUNTS, error);
	guint n = array != NULL ? json_array_get_length(array) : 0;

	for (guint i = 0; i < n; i++) {
		JsonObject *item = item_object(array, i, members, error);
		const gchar *device = item != NULL ? item_string(item, i, "device", error) : NULL;
		const gchar *path = device != NULL ? item_string(item, i, "path", error) : NULL;
		DeviceKind kind;
		guint disk, part;

		if (path == NULL)
			return FALSE;
		if (!device_parse(device, &kind, &disk, &part)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "item %u: '%s' is not a device (%s)", i + 1, device,
				    device_help);
			return FALSE;
		}
		if (!mount_path_valid(path)) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "item %u: '%s' is no mount point (\"/\", \"swap\" or an "
				    "absolute path of names of [A-Za-z0-9_.-])",
				    i + 1, path);
			return FALSE;
		}
		for (guint k = 0; k < i; k++) {
			JsonObject *earlier = json_array_get_object_element(array, k);

			if (!g_str_equal(path, "swap") &&
			    g_str_equal(json_object_get_string_member(earlier, "path"), path)) {
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "mount point '%s' is given twice", path);
				return FALSE;
			}
			if (g_str_equal(json_object_get_string_member(earlier, "device"), device)) {
				g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
					    "device '%s' is mounted twice", device);
				return FALSE;
			}
		}
	}
	return array != NULL;
}

static const struct {
	const gchar *step; /* "appliance.NAME" */
	const gchar *arg;
	gboolean (*check)(JsonNode *value, GError **error);
} json_args[] = {
	{STEP("partition"), "partitions", partitions_check},
	{STEP("create_raid"), "devices", devices_check},
	{STEP("create_lvm"), "pvs", devices_check},
	{STEP("create_lvm"), "lvs", lvs_check},
	{STEP("mount_target"), "mounts", mounts_check},
};

gboolean
gnt_install_storage_arg_check(const GntInstallStepSpec *spec, const gchar *arg, JsonNode *value,
			      GError **error)
{
	for (guint i = 0; i < G_N_ELEMENTS(json_args); i++) {
		if (g_str_equal(json_args[i].step, spec->name) &&
		    g_str_equal(json_args[i].arg, arg))
			return json_args[i].check(value, error);
	}
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
		    "has no checker (a structured argument of %s that Gantry does not know)",
		    spec->name);
	return FALSE;
}

/* ---- the layout across steps ---- */

typedef struct {
	guint64 mib;	 /* 0: not known */
	gchar *used_as;	 /* what took it: "a member of md0", "a PV of vg0", ... */
	gchar *fstype;	 /* what mkfs makes on it */
	gint raid_level; /* an array's level, else -1 */
} Device;

static void
device_free(Device *device)
{
	g_free(device->used_as);
	g_free(device->fstype);
	g_free(device);
}

typedef struct {
	GHashTable *devices; /* name -> Device */
	const GntInstallStorageDisks *disks;
	const GntInstallStorageRow *row; /* the row checked */
} Layout;

/* The error of the row checked: "template 'T', step N (STEP): ...". */
G_GNUC_PRINTF(3, 4)
static gboolean
row_error(Layout *layout, GError **error, const gchar *format, ...)
{
	g_autofree gchar *message = NULL;
	va_list args;

	va_start(args, format);
	message = g_strdup_vprintf(format, args);
	va_end(args);
	g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "template '%s', step %u (%s): %s",
		    layout->row->template_name, layout->row->position, layout->row->spec->name,
		    message);
	return FALSE;
}

static Device *
device_add(Layout *layout, const gchar *name, guint64 mib)
{
	Device *device = g_new0(Device, 1);

	device->mib = mib;
	device->raid_level = -1;
	g_hash_table_replace(layout->devices, g_strdup(name), device);
	return device;
}

/* @name, made by an earlier step (a whole disk exists when the instance
 * has it, or when the disks are not known), not taken yet: taken as
 * @used_as. */
static Device *
device_take(Layout *layout, const gchar *name, const gchar *used_as, GError **error)
{
	Device *device = g_hash_table_lookup(layout->devices, name);
	DeviceKind kind;
	guint disk = 0, part = 0;

	if (device == NULL && device_parse(name, &kind, &disk, &part) && kind == DEVICE_DISK) {
		if (layout->disks != NULL && disk >= layout->disks->n_disks) {
			row_error(layout, error, "the instance has no disk %u for '%s' (it has %u)",
				  disk, name, layout->disks->n_disks);
			return NULL;
		}
		device = device_add(layout, name,
				    layout->disks != NULL && layout->disks->disk_mib != NULL
					    ? layout->disks->disk_mib[disk]
					    : 0);
	}
	if (device == NULL) {
		row_error(layout, error,
			  "no step makes the device '%s' (a partition, RAID or LVM step must)",
			  name);
		return NULL;
	}
	if (device->used_as != NULL) {
		row_error(layout, error, "device '%s' is already %s", name, device->used_as);
		return NULL;
	}
	device->used_as = g_strdup(used_as);
	return device;
}

static gboolean
check_partition(Layout *layout, GError **error)
{
	JsonObject *args = layout->row->args;
	gint64 disk = json_object_get_int_member(args, "disk");
	JsonArray *parts = json_object_get_array_member(args, "partitions");
	g_autofree gchar *disk_name = g_strdup_printf("disk%" G_GINT64_FORMAT, disk);
	guint64 used = GPT_OVERHEAD_MIB;
	guint64 disk_mib;
	Device *whole;

	if (disk >= MAX_DISKS)
		return row_error(layout, error, "disk %" G_GINT64_FORMAT " is out of range (0..%d)",
				 disk, MAX_DISKS - 1);
	whole = device_take(layout, disk_name, "partitioned", error);
	if (whole == NULL)
		return FALSE;
	disk_mib = whole->mib;
	for (guint i = 0; i < json_array_get_length(parts); i++) {
		Size size;

		(void)size_parse(json_object_get_member(json_array_get_object_element(parts, i),
							"size"),
				 TRUE, FALSE, &size, NULL);
		used += size.mib;
		if (disk_mib > 0 && used > disk_mib)
			return row_error(layout, error,
					 "the partitions add up to %" G_GUINT64_FORMAT
					 " MiB (with %d MiB for the partition table), past disk "
					 "%" G_GINT64_FORMAT "'s %" G_GUINT64_FORMAT " MiB",
					 used, GPT_OVERHEAD_MIB, disk, disk_mib);
		if (size.rest && disk_mib > 0 && used >= disk_mib)
			return row_error(layout, error,
					 "no room is left on disk %" G_GINT64_FORMAT
					 " for partition %u (the \"rest\")",
					 disk, i + 1);
		if (size.rest)
			size.mib = disk_mib > 0 ? disk_mib - used : 0;
		{
			g_autofree gchar *name = g_strdup_printf("%sp%u", disk_name, i + 1);

			device_add(layout, name, size.mib);
		}
	}
	return TRUE;
}

/* The fewest members of each level, and its size from the members'. */
static const struct {
	gint64 level;
	guint min_members;
} raid_levels[] = {{0, 2}, {1, 2}, {5, 3}, {10, 4}};

static guint64
raid_size(gint64 level, guint n, guint64 smallest, guint64 sum)
{
	switch (level) {
	case 0:
		return sum;
	case 1:
		return smallest;
	case 5:
		return smallest * (n - 1);
	default: /* 10: two copies */
		return smallest * n / 2;
	}
}

static gboolean
check_raid(Layout *layout, GError **error)
{
	JsonObject *args = layout->row->args;
	const gchar *name = json_object_get_string_member(args, "name");
	gint64 level = json_object_get_int_member(args, "level");
	JsonArray *members = json_object_get_array_member(args, "devices");
	guint n = json_array_get_length(members);
	g_autofree gchar *used_as = g_strdup_printf("a member of %s", name);
	guint64 smallest = G_MAXUINT64, sum = 0;
	gboolean known = TRUE;
	DeviceKind kind;
	guint disk, part;
	Device *array;
	guint i;

	if (!device_parse(name, &kind, &disk, &part) || kind != DEVICE_RAID)
		return row_error(layout, error, "'%s' is no array name (md0 to md%d)", name,
				 MAX_MD);
	if (g_hash_table_contains(layout->devices, name))
		return row_error(layout, error, "array '%s' is made twice", name);
	for (i = 0; i < G_N_ELEMENTS(raid_levels) && raid_levels[i].level != level; i++)
		;
	if (i == G_N_ELEMENTS(raid_levels))
		return row_error(layout, error,
				 "RAID level %" G_GINT64_FORMAT " is not supported (0, 1, 5 or 10)",
				 level);
	if (n < raid_levels[i].min_members)
		return row_error(layout, error,
				 "RAID%" G_GINT64_FORMAT " needs at least %u members, '%s' has %u",
				 level, raid_levels[i].min_members, name, n);
	for (guint k = 0; k < n; k++) {
		Device *member = device_take(layout, json_array_get_string_element(members, k),
					     used_as, error);

		if (member == NULL)
			return FALSE;
		known = known && member->mib > 0;
		smallest = MIN(smallest, member->mib);
		sum += member->mib;
	}
	array = device_add(layout, name, known ? raid_size(level, n, smallest, sum) : 0);
	array->raid_level = (gint)level;
	return TRUE;
}

static gboolean
check_lvm(Layout *layout, GError **error)
{
	JsonObject *args = layout->row->args;
	const gchar *vg = json_object_get_string_member(args, "vg");
	JsonArray *pvs = json_object_get_array_member(args, "pvs");
	JsonArray *lvs = json_object_get_array_member(args, "lvs");
	g_autofree gchar *used_as = g_strdup_printf("a physical volume of %s", vg);
	g_autofree gchar *vg_key = g_strdup_printf("vg:%s", vg);
	guint64 vg_mib = 0, fixed = 0;
	gboolean known = TRUE;

	if (!lvm_name_valid(vg, strlen(vg)) || g_str_has_prefix(vg, "disk") ||
	    g_str_has_prefix(vg, "md"))
		return row_error(layout, error,
				 "'%s' is no volume group name ([A-Za-z0-9_+.-], at most %d, not "
				 "starting with '-', 'disk' or 'md')",
				 vg, NAME_MAX_LEN);
	if (g_hash_table_contains(layout->devices, vg_key))
		return row_error(layout, error, "volume group '%s' is made twice", vg);
	device_add(layout, vg_key, 0)->used_as = g_strdup("a volume group");
	for (guint k = 0; k < json_array_get_length(pvs); k++) {
		Device *pv =
			device_take(layout, json_array_get_string_element(pvs, k), used_as, error);

		if (pv == NULL)
			return FALSE;
		known = known && pv->mib > PV_OVERHEAD_MIB;
		vg_mib += pv->mib > PV_OVERHEAD_MIB ? pv->mib - PV_OVERHEAD_MIB : 0;
	}
	for (guint k = 0; k < json_array_get_length(lvs); k++) {
		JsonObject *lv = json_array_get_object_element(lvs, k);
		g_autofree gchar *name =
			g_strdup_printf("%s/%s", vg, json_object_get_string_member(lv, "name"));
		Size size;

		(void)size_parse(json_object_get_member(lv, "size"), TRUE, TRUE, &size, NULL);
		fixed += size.mib;
		if (known && size.percent > 0)
			size.mib = vg_mib * size.percent / 100;
		if (known && fixed > vg_mib)
			return row_error(layout, error,
					 "the logical volumes add up to %" G_GUINT64_FORMAT
					 " MiB, past volume group %s's %" G_GUINT64_FORMAT " MiB",
					 fixed, vg, vg_mib);
		if (size.rest && known)
			size.mib = vg_mib - fixed;
		device_add(layout, name, known ? size.mib : 0);
	}
	return TRUE;
}

static gboolean
check_mkfs(Layout *layout, GError **error)
{
	JsonObject *args = layout->row->args;
	const gchar *device_name = json_object_get_string_member(args, "device");
	const gchar *fstype = json_object_get_string_member(args, "fstype");
	const gchar *label = json_object_get_string_member_with_default(args, "label", NULL);
	gsize label_max =
		g_strcmp0(fstype, "vfat") == 0 ? 11 : (g_strcmp0(fstype, "xfs") == 0 ? 12 : 16);
	g_autofree gchar *used_as = g_strdup_printf("a %s filesystem", fstype);
	DeviceKind kind;
	guint disk, part;
	Device *device;

	if (!g_strv_contains(filesystem_types, fstype))
		return row_error(
			layout, error,
			"unknown filesystem type '%s' (ext4, ext3, ext2, xfs, vfat or swap)",
			fstype);
	if (label != NULL) {
		gboolean plain = label[0] != '\0' && strlen(label) <= label_max;

		for (const gchar *c = label; plain && *c != '\0'; c++)
			plain = g_ascii_isalnum(*c) || strchr("_.-", *c) != NULL;
		if (!plain)
			return row_error(layout, error,
					 "label '%s' must be 1 to %" G_GSIZE_FORMAT
					 " characters of [A-Za-z0-9_.-] for %s",
					 label, label_max, fstype);
	}
	if (!device_parse(device_name, &kind, &disk, &part))
		return row_error(layout, error, "'%s' is not a device (%s)", device_name,
				 device_help);
	device = device_take(layout, device_name, used_as, error);
	if (device == NULL)
		return FALSE;
	device->fstype = g_strdup(fstype);
	return TRUE;
}

static gboolean
check_mounts(Layout *layout, GError **error)
{
	JsonArray *mounts = json_object_get_array_member(layout->row->args, "mounts");
	gboolean root = FALSE;

	for (guint k = 0; k < json_array_get_length(mounts); k++) {
		JsonObject *mount = json_array_get_object_element(mounts, k);
		const gchar *name = json_object_get_string_member(mount, "device");
		const gchar *path = json_object_get_string_member(mount, "path");
		Device *device = g_hash_table_lookup(layout->devices, name);
		gboolean swap = g_str_equal(path, "swap");

		if (device == NULL || device->fstype == NULL)
			return row_error(layout, error,
					 "'%s' (mounted on %s) has no filesystem: no mkfs step "
					 "makes one",
					 name, path);
		if (swap != g_str_equal(device->fstype, "swap"))
			return row_error(layout, error, "'%s' holds %s, which mounts %s", name,
					 device->fstype,
					 swap ? "elsewhere than on swap" : "only as swap");
		if (g_str_equal(path, "/")) {
			if (g_str_equal(device->fstype, "vfat"))
				return row_error(layout, error,
						 "the root filesystem cannot be vfat ('%s')", name);
			root = TRUE;
		}
	}
	if (!root)
		return row_error(layout, error, "no root filesystem: no mount has the path \"/\"");
	return TRUE;
}

/* The scalar arguments the registry only knows as strings. */
static gboolean
check_hostname(Layout *layout, GError **error)
{
	const gchar *name =
		json_object_get_string_member_with_default(layout->row->args, "hostname", NULL);
	g_auto(GStrv) labels = NULL;

	if (name == NULL)
		return TRUE;
	labels = g_strsplit(name, ".", -1);
	for (guint i = 0; strlen(name) <= 253 && labels[i] != NULL; i++) {
		gsize len = strlen(labels[i]);
		gboolean ok = len > 0 && len <= 63 && labels[i][0] != '-' &&
			      labels[i][len - 1] != '-';

		for (gsize c = 0; ok && c < len; c++)
			ok = g_ascii_isalnum(labels[i][c]) || labels[i][c] == '-';
		if (!ok)
			break;
		if (labels[i + 1] == NULL)
			return TRUE;
	}
	return row_error(layout, error, "'%s' is no host name (RFC 1123)", name);
}

/* The steps in the order their devices build on each other. */
static const struct {
	const gchar *step;
	gboolean (*check)(Layout *layout, GError **error);
} layout_checks[] = {
	{STEP("partition"), check_partition}, {STEP("create_raid"), check_raid},
	{STEP("create_lvm"), check_lvm},      {STEP("mkfs"), check_mkfs},
	{STEP("mount_target"), check_mounts}, {STEP("set_hostname"), check_hostname},
};

gboolean
gnt_install_storage_check(const GntInstallStorageRow *rows, guint n_rows,
			  const GntInstallStorageDisks *disks, GError **error)
{
	g_autoptr(GHashTable) devices =
		g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)device_free);
	Layout layout = {devices, disks, NULL};
	const GntInstallStorageRow *first = NULL;
	const GntInstallStorageRow *mount = NULL;

	for (guint i = 0; i < n_rows; i++) {
		if (rows[i].priority <= 0 || !gnt_install_storage_is_step(rows[i].spec))
			continue;
		if (first == NULL)
			first = &rows[i];
		if (g_str_equal(rows[i].spec->step, "mount_target"))
			mount = &rows[i];
	}
	if (first == NULL)
		return TRUE;
	layout.row = first;
	if (disks != NULL && disks->n_disks == 0)
		return row_error(&layout, error,
				 "the instance has no disks: storage steps need at least one");
	for (guint c = 0; c < G_N_ELEMENTS(layout_checks); c++) {
		for (guint i = 0; i < n_rows; i++) {
			if (rows[i].priority <= 0 ||
			    !g_str_equal(rows[i].spec->name, layout_checks[c].step))
				continue;
			layout.row = &rows[i];
			if (!layout_checks[c].check(&layout, error))
				return FALSE;
		}
	}
	/* every step but the wipe works on the mounted layout */
	for (guint i = 0; mount == NULL && i < n_rows; i++) {
		if (rows[i].priority <= 0 || !gnt_install_storage_is_step(rows[i].spec) ||
		    g_str_equal(rows[i].spec->step, "wipe_disks"))
			continue;
		layout.row = &rows[i];
		return row_error(&layout, error,
				 "no root filesystem: the layout needs an %s step that mounts "
				 "\"/\"",
				 STEP("mount_target"));
	}
	return TRUE;
}

gboolean
gnt_install_storage_check_parsed(GArray *rows, const gchar *const *template_names,
				 const GntInstallStorageDisks *disks, GError **error)
{
	g_autofree GntInstallStorageRow *storage = g_new0(GntInstallStorageRow, rows->len + 1);

	for (guint i = 0; i < rows->len; i++) {
		const GntInstallParsedRow *row = &g_array_index(rows, GntInstallParsedRow, i);

		storage[i] = (GntInstallStorageRow){row->spec, row->args, row->priority,
						    template_names[i], row->position};
	}
	return gnt_install_storage_check(storage, rows->len, disks, error);
}

/* ---- the agent's lines ---- */

static void
append_size(GString *out, JsonNode *node)
{
	Size size;

	(void)size_parse(node, TRUE, TRUE, &size, NULL);
	if (size.rest)
		g_string_append(out, "rest");
	else if (size.percent > 0)
		g_string_append_printf(out, "%u%%", size.percent);
	else
		g_string_append_printf(out, "%" G_GUINT64_FORMAT, size.mib);
}

/* How deep a mount is: "/" first, "swap" last, a directory after its
 * parents. */
static guint
mount_depth(JsonObject *mount)
{
	const gchar *path = json_object_get_string_member(mount, "path");
	guint depth = 0;

	if (g_str_equal(path, "swap"))
		return G_MAXUINT;
	for (const gchar *c = path; *c != '\0'; c++)
		depth += *c == '/';
	return g_str_equal(path, "/") ? 0 : depth;
}

static gint
compare_mounts(gconstpointer a, gconstpointer b)
{
	guint x = mount_depth(*(JsonObject *const *)a);
	guint y = mount_depth(*(JsonObject *const *)b);

	return x < y ? -1 : (x > y ? 1 : 0);
}

static gchar *
render_json_arg(const gchar *arg, JsonArray *items)
{
	GString *out = g_string_new(NULL);
	g_autoptr(GPtrArray) sorted = g_ptr_array_new();

	for (guint i = 0; i < json_array_get_length(items); i++)
		g_ptr_array_add(sorted, json_array_get_element(items, i));
	if (g_str_equal(arg, "mounts")) {
		for (guint i = 0; i < sorted->len; i++)
			sorted->pdata[i] = json_node_get_object(sorted->pdata[i]);
		/* stable: equal depths keep the template's order */
		g_ptr_array_sort(sorted, compare_mounts);
	}
	for (guint i = 0; i < sorted->len; i++) {
		JsonNode *node = g_str_equal(arg, "mounts") ? NULL : sorted->pdata[i];

		if (node != NULL && is_string(node)) { /* a device list: one line of words */
			g_string_append_printf(out, "%s%s", i > 0 ? " " : "",
					       json_node_get_string(node));
			continue;
		}
		if (g_str_equal(arg, "partitions")) {
			JsonObject *part = json_node_get_object(node);

			append_size(out, json_object_get_member(part, "size"));
			g_string_append_printf(out, " %s\n",
					       json_object_get_string_member(part, "type"));
		} else if (g_str_equal(arg, "lvs")) {
			JsonObject *lv = json_node_get_object(node);

			g_string_append_printf(out, "%s ",
					       json_object_get_string_member(lv, "name"));
			append_size(out, json_object_get_member(lv, "size"));
			g_string_append_c(out, '\n');
		} else {
			JsonObject *mount = sorted->pdata[i];

			g_string_append_printf(out, "%s %s\n",
					       json_object_get_string_member(mount, "device"),
					       json_object_get_string_member(mount, "path"));
		}
	}
	return g_string_free(out, FALSE);
}

JsonObject *
gnt_install_storage_render_args(const GntInstallStepSpec *spec, JsonObject *args,
				const gchar *instance_name)
{
	JsonObject *out = gnt_json_object_deep_copy(args);

	if (!gnt_install_storage_is_step(spec))
		return out;
	for (guint i = 0; i < spec->n_args; i++) {
		JsonNode *value = json_object_get_member(args, spec->args[i].name);

		g_autofree gchar *lines = NULL;

		if (spec->args[i].type != GNT_INSTALL_ARG_JSON || value == NULL ||
		    !JSON_NODE_HOLDS_ARRAY(value))
			continue;
		lines = render_json_arg(spec->args[i].name, json_node_get_array(value));
		json_object_set_string_member(out, spec->args[i].name, lines);
	}
	if (g_str_equal(spec->step, "set_hostname") && !json_object_has_member(out, "hostname") &&
	    instance_name != NULL)
		json_object_set_string_member(out, "hostname", instance_name);
	return out;
}

/* ---- the layout mount_target reported ---- */

/* An absolute device path without blanks, at most 255 bytes. */
static gboolean
device_path_valid(const gchar *path)
{
	if (path == NULL || path[0] != '/' || strlen(path) > 255)
		return FALSE;
	for (const gchar *c = path; *c != '\0'; c++) {
		if (!g_ascii_isalnum(*c) && strchr("/_.+:-", *c) == NULL)
			return FALSE;
	}
	return TRUE;
}

static gboolean
uuid_valid(const gchar *uuid)
{
	gsize len = strlen(uuid);

	if (len == 0 || len > 64)
		return FALSE;
	for (const gchar *c = uuid; *c != '\0'; c++) {
		if (!g_ascii_isxdigit(*c) && *c != '-')
			return FALSE;
	}
	return TRUE;
}

static gboolean
name_valid(const gchar *name)
{
	DeviceKind kind;
	guint disk, part;

	return device_parse(name, &kind, &disk, &part);
}

/* "mount DEVICE PATH FSTYPE UUID NAME" */
static JsonObject *
layout_mount(gchar **f, const gchar *root_device)
{
	JsonObject *fs;

	if (g_strv_length(f) != 6 || !device_path_valid(f[1]) || !mount_path_valid(f[2]) ||
	    !g_strv_contains(filesystem_types, f[3]) || !uuid_valid(f[4]) || !name_valid(f[5]))
		return NULL;
	fs = json_object_new();
	json_object_set_string_member(fs, "name", f[5]);
	json_object_set_string_member(fs, "device", f[1]);
	json_object_set_string_member(fs, "path", f[2]);
	json_object_set_string_member(fs, "fstype", f[3]);
	json_object_set_string_member(fs, "uuid", f[4]);
	json_object_set_boolean_member(fs, "root",
				       g_str_equal(f[2], "/") && g_str_equal(f[1], root_device));
	return fs;
}

/* "raid DEVICE LEVEL MEMBER,MEMBER... NAME" */
static JsonObject *
layout_raid(gchar **f)
{
	g_auto(GStrv) members = NULL;
	JsonArray *list;
	JsonObject *raid;
	const gchar *end = NULL;
	guint level = 0;

	if (g_strv_length(f) != 5 || !device_path_valid(f[1]) ||
	    !parse_number(f[2], 2, 10, &level, &end) || *end != '\0' || !name_valid(f[4]))
		return NULL;
	members = g_strsplit(f[3], ",", -1);
	list = json_array_new();
	for (guint i = 0; members[i] != NULL; i++) {
		if (!name_valid(members[i])) {
			json_array_unref(list);
			return NULL;
		}
		json_array_add_string_element(list, members[i]);
	}
	raid = json_object_new();
	json_object_set_string_member(raid, "name", f[4]);
	json_object_set_string_member(raid, "device", f[1]);
	json_object_set_int_member(raid, "level", level);
	json_object_set_array_member(raid, "members", list);
	return raid;
}

JsonObject *
gnt_install_storage_layout_parse(const gchar *root_device, const gchar *text, GError **error)
{
	g_autoptr(JsonObject) layout = json_object_new();
	g_auto(GStrv) records = NULL;
	JsonArray *filesystems = json_array_new();
	JsonArray *raids = json_array_new();
	gboolean root = FALSE;

	json_object_set_array_member(layout, "filesystems", filesystems);
	json_object_set_array_member(layout, "raids", raids);
	if (!device_path_valid(root_device) || text == NULL) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "the step reported no usable layout ('root_device' must be an "
				    "absolute path without blanks, 'layout' its records)");
		return NULL;
	}
	json_object_set_string_member(layout, "root_device", root_device);
	records = g_strsplit(text, ";", -1);
	for (guint i = 0; records[i] != NULL; i++) {
		g_auto(GStrv) f = g_strsplit(records[i], " ", -1);
		JsonObject *item = NULL;

		if (g_str_equal(f[0] != NULL ? f[0] : "", "mount")) {
			item = layout_mount(f, root_device);
			if (item != NULL) {
				root = root || json_object_get_boolean_member(item, "root");
				json_array_add_object_element(filesystems, item);
			}
		} else if (g_str_equal(f[0] != NULL ? f[0] : "", "raid")) {
			item = layout_raid(f);
			if (item != NULL)
				json_array_add_object_element(raids, item);
		}
		if (item == NULL) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "layout record %u is malformed: '%s'", i + 1, records[i]);
			return NULL;
		}
	}
	if (!root) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "the layout mounts nothing of root device '%s' on /", root_device);
		return NULL;
	}
	return g_steal_pointer(&layout);
}
