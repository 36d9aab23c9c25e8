#include "gnt-disk-private.h"

#include <string.h>

#include "gnt-error.h"
#include "gnt-size.h"
#include "gnt-subprocess.h"

/* the most of a helper's output that goes into an error message */
#define DISK_OUTPUT_TAIL_LINES 6
#define DISK_OUTPUT_TAIL_CHARS 600

GntDiskSpec *
gnt_disk_spec_new(const gchar *uuid, guint index, guint64 size_mib, GntDiskFormat format)
{
	GntDiskSpec *self = g_new0(GntDiskSpec, 1);

	self->uuid = g_strdup(uuid);
	self->index = index;
	self->size_mib = size_mib;
	self->format = format;
	return self;
}

GntDiskSpec *
gnt_disk_spec_copy(const GntDiskSpec *self)
{
	g_return_val_if_fail(self != NULL, NULL);
	return gnt_disk_spec_new(self->uuid, self->index, self->size_mib, self->format);
}

void
gnt_disk_spec_free(GntDiskSpec *self)
{
	if (self == NULL)
		return;
	g_free(self->uuid);
	g_free(self);
}

gchar *
gnt_disk_describe(const GntDiskSpec *disk, const gchar *instance)
{
	g_autofree gchar *size = gnt_size_format((gint64)disk->size_mib, GNT_SIZE_UNIT_AUTO);

	return g_strdup_printf("disk %u (%s) of instance '%s'", disk->index, size, instance);
}

static gchar *
disk_output_tail(const gchar *output)
{
	g_autofree gchar *valid = g_utf8_make_valid(output != NULL ? output : "", -1);
	g_auto(GStrv) lines = NULL;
	g_autoptr(GPtrArray) kept = g_ptr_array_new();
	guint n;
	gchar *joined;

	g_strstrip(valid);
	lines = g_strsplit(valid, "\n", -1);
	n = g_strv_length(lines);
	for (guint i = n > DISK_OUTPUT_TAIL_LINES ? n - DISK_OUTPUT_TAIL_LINES : 0; i < n; i++) {
		g_strstrip(lines[i]);
		if (lines[i][0] != '\0')
			g_ptr_array_add(kept, lines[i]);
	}
	g_ptr_array_add(kept, NULL);
	joined = g_strjoinv("; ", (gchar **)kept->pdata);
	if (strlen(joined) > DISK_OUTPUT_TAIL_CHARS) {
		const gchar *start = joined + strlen(joined) - DISK_OUTPUT_TAIL_CHARS;
		gchar *cut;

		while ((*start & 0xc0) == 0x80) /* not inside a UTF-8 sequence */
			start++;
		cut = g_strconcat("...", start, NULL);
		g_free(joined);
		joined = cut;
	}
	return joined;
}

gboolean
gnt_disk_run(const gchar *const *argv, guint timeout_s, gchar **output, GError **error)
{
	/* LC_ALL=C: messages we can match; the LVM tools otherwise complain
	 * about inherited descriptors */
	const gchar *const envp[] = {"LC_ALL=C", "LVM_SUPPRESS_FD_WARNINGS=1", NULL};
	g_autofree gchar *out = NULL;
	gint status = 0;

	if (!gnt_subprocess_run(argv, envp, timeout_s, &out, &status, error))
		return FALSE;
	if (status != 0) {
		g_autofree gchar *tail = disk_output_tail(out);

		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "%s failed (exit %d): %s",
			    argv[0], status, tail[0] != '\0' ? tail : "no output");
		return FALSE;
	}
	if (output != NULL)
		*output = g_steal_pointer(&out);
	return TRUE;
}

/* Instance names become directory names: host names only, no '/', no
 * leading dot (so neither "." nor ".."). */
static gboolean
disk_check_instance(const gchar *instance, GError **error)
{
	gsize len = instance != NULL ? strlen(instance) : 0;

	if (len == 0 || len > 255 || instance[0] == '.' || instance[0] == '-') {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "invalid instance name '%s'",
			    instance != NULL ? instance : "");
		return FALSE;
	}
	for (gsize i = 0; i < len; i++) {
		if (!g_ascii_isalnum(instance[i]) && instance[i] != '.' && instance[i] != '-' &&
		    instance[i] != '_') {
			g_autofree gchar *quoted = g_strescape(instance, NULL);

			g_set_error(
				error, GNT_ERROR, GNT_ERROR_INVALID,
				"invalid instance name '%s': only letters, digits, '.', '-' and "
				"'_' may name a disk's directory",
				quoted);
			return FALSE;
		}
	}
	return TRUE;
}

/* Disk UUIDs become file and volume names. */
static gboolean
disk_check_spec(const GntDiskSpec *disk, const gchar *instance, GError **error)
{
	gsize len = disk->uuid != NULL ? strlen(disk->uuid) : 0;
	gboolean ok = len > 0 && len <= 64 && disk->uuid[0] != '-';

	for (gsize i = 0; ok && i < len; i++)
		ok = g_ascii_isalnum(disk->uuid[i]) || disk->uuid[i] == '-' || disk->uuid[i] == '_';
	if (!ok) {
		g_autofree gchar *quoted = g_strescape(disk->uuid != NULL ? disk->uuid : "", NULL);

		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "disk %u of instance '%s': invalid UUID '%s'", disk->index, instance,
			    quoted);
		return FALSE;
	}
	if (disk->format >= GNT_DISK_FORMAT_LAST) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "disk %u of instance '%s': invalid format %d", disk->index, instance,
			    (int)disk->format);
		return FALSE;
	}
	return TRUE;
}

static gboolean
disk_check_args(GntDiskStore *self, const gchar *instance, const GntDiskSpec *disk, GError **error)
{
	if (!disk_check_instance(instance, error) || !disk_check_spec(disk, instance, error))
		return FALSE;
	if (self->template == GNT_DISK_TEMPLATE_PLAIN && disk->format != GNT_DISK_FORMAT_RAW) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "disk %u of instance '%s': template 'plain' holds raw disks only, not "
			    "'%s'",
			    disk->index, instance, gnt_disk_format_to_string(disk->format));
		return FALSE;
	}
	return TRUE;
}

/* LVM's rules for names (lvm(8)), as Ganeti checks them. */
static gboolean
disk_check_vg_name(const gchar *name, GError **error)
{
	static const gchar *const reserved[] = {".", "..", "snapshot", "pvmove"};
	gsize len = name != NULL ? strlen(name) : 0;
	gboolean ok = len > 0 && len <= 127 && name[0] != '-';

	for (gsize i = 0; ok && i < len; i++)
		ok = g_ascii_isalnum(name[i]) || strchr("+_.-", name[i]) != NULL;
	for (gsize i = 0; ok && i < G_N_ELEMENTS(reserved); i++)
		ok = strcmp(name, reserved[i]) != 0;
	if (ok)
		ok = strstr(name, "_mlog") == NULL && strstr(name, "_mimage") == NULL;
	if (!ok) {
		g_autofree gchar *quoted = g_strescape(name != NULL ? name : "", NULL);

		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID, "invalid volume group name '%s'",
			    quoted);
	}
	return ok;
}

static gboolean
disk_check_dir(const gchar *dir, GError **error)
{
	g_auto(GStrv) parts = NULL;

	if (dir == NULL || !g_path_is_absolute(dir)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "file storage directory '%s' must be an absolute path",
			    dir != NULL ? dir : "");
		return FALSE;
	}
	parts = g_strsplit(dir, "/", -1);
	for (guint i = 0; parts[i] != NULL; i++) {
		if (strcmp(parts[i], "..") == 0 || strcmp(parts[i], ".") == 0) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "file storage directory '%s' must not contain '.' or '..'",
				    dir);
			return FALSE;
		}
	}
	return TRUE;
}

GntDiskStore *
gnt_disk_store_new(GntDiskTemplate template, const GntDiskStoreParams *params, GError **error)
{
	g_autoptr(GntDiskStore) self = g_new0(GntDiskStore, 1);

	g_return_val_if_fail(template <GNT_DISK_TEMPLATE_LAST, NULL);
	g_return_val_if_fail(params != NULL, NULL);

	self->template = template;
	self->file_preallocate = params->file_preallocate;
	self->qemu_img = g_strdup("qemu-img");
	switch (template) {
	case GNT_DISK_TEMPLATE_FILE:
		if (!disk_check_dir(params->file_storage_dir, error))
			return NULL;
		self->file_dir = g_canonicalize_filename(params->file_storage_dir, "/");
		self->backend = &gnt_disk_backend_file;
		break;
	case GNT_DISK_TEMPLATE_PLAIN:
		if (!disk_check_vg_name(params->vg_name, error))
			return NULL;
		self->vg_name = g_strdup(params->vg_name);
		self->backend = &gnt_disk_backend_lvm;
		break;
	case GNT_DISK_TEMPLATE_DISKLESS:
	case GNT_DISK_TEMPLATE_LAST:
	default:
		break;
	}
	return g_steal_pointer(&self);
}

void
gnt_disk_store_free(GntDiskStore *self)
{
	if (self == NULL)
		return;
	g_free(self->vg_name);
	g_free(self->file_dir);
	g_free(self->qemu_img);
	g_free(self);
}

GntDiskTemplate
gnt_disk_store_get_template(const GntDiskStore *self)
{
	return self->template;
}

void
gnt_disk_store_set_lvm_no_activation(GntDiskStore *self, gboolean no_activation)
{
	self->lvm_no_activation = no_activation;
}

void
gnt_disk_store_set_qemu_img(GntDiskStore *self, const gchar *path)
{
	g_free(self->qemu_img);
	self->qemu_img = g_strdup(path);
}

/* Whether @need more MiB fit, after @used taken by the disks before. */
static gboolean
disk_check_fits(GntDiskStore *self, const gchar *what, guint64 need, guint64 used, guint64 free_mib,
		GError **error)
{
	g_autofree gchar *where = NULL;
	g_autofree gchar *need_s = NULL;
	g_autofree gchar *free_s = NULL;

	if (used <= free_mib && need <= free_mib - used)
		return TRUE;
	where = self->backend->describe(self);
	need_s = gnt_size_format((gint64)need, GNT_SIZE_UNIT_AUTO);
	free_s = gnt_size_format((gint64)free_mib, GNT_SIZE_UNIT_AUTO);
	if (used == 0) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NO_RESOURCES,
			    "%s needs %s (%" G_GUINT64_FORMAT
			    " MiB), more than the %s (%" G_GUINT64_FORMAT " MiB) free in %s",
			    what, need_s, need, free_s, free_mib, where);
	} else {
		g_autofree gchar *used_s = gnt_size_format((gint64)used, GNT_SIZE_UNIT_AUTO);

		g_set_error(error, GNT_ERROR, GNT_ERROR_NO_RESOURCES,
			    "%s needs %s (%" G_GUINT64_FORMAT
			    " MiB), more than is left of the %s (%" G_GUINT64_FORMAT
			    " MiB) free in %s after the %s of the disks before it",
			    what, need_s, need, free_s, free_mib, where, used_s);
	}
	return FALSE;
}

gboolean
gnt_disk_store_check_space(GntDiskStore *self, const gchar *instance, GPtrArray *disks,
			   GError **error)
{
	guint64 size_mib = 0, free_mib = 0, used = 0;

	g_return_val_if_fail(self != NULL && disks != NULL, FALSE);

	for (guint i = 0; i < disks->len; i++) {
		const GntDiskSpec *disk = g_ptr_array_index(disks, i);

		if (!disk_check_args(self, instance, disk, error))
			return FALSE;
		if (disk->size_mib == 0 || disk->size_mib > GNT_SIZE_MAX_MIB) {
			g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
				    "disk %u of instance '%s': invalid size %" G_GUINT64_FORMAT
				    " MiB",
				    disk->index, instance, disk->size_mib);
			return FALSE;
		}
	}
	if (self->backend == NULL || disks->len == 0)
		return TRUE;
	if (!self->backend->get_space(self, &size_mib, &free_mib, error))
		return FALSE;
	for (guint i = 0; i < disks->len; i++) {
		const GntDiskSpec *disk = g_ptr_array_index(disks, i);
		g_autofree gchar *what = gnt_disk_describe(disk, instance);

		if (!disk_check_fits(self, what, disk->size_mib, used, free_mib, error))
			return FALSE;
		used += disk->size_mib;
	}
	return TRUE;
}

gboolean
gnt_disk_store_create(GntDiskStore *self, const gchar *instance, GPtrArray *disks, GError **error)
{
	gboolean created_dir = FALSE;
	guint done;

	if (!gnt_disk_store_check_space(self, instance, disks, error))
		return FALSE;
	if (self->backend == NULL)
		return TRUE;
	for (done = 0; done < disks->len; done++) {
		const GntDiskSpec *disk = g_ptr_array_index(disks, done);
		gboolean made = FALSE;
		gboolean ok = self->backend->create(self, instance, disk, &made, error);

		created_dir = created_dir || made;
		if (!ok)
			break;
	}
	if (done == disks->len)
		return TRUE;

	/* a failed add removes everything it had created, newest first */
	for (guint i = done; i > 0; i--) {
		const GntDiskSpec *disk = g_ptr_array_index(disks, i - 1);
		g_autoptr(GError) undo_error = NULL;

		if (!self->backend->remove(self, instance, disk, &undo_error))
			g_warning("undoing a failed disk creation: %s", undo_error->message);
	}
	if (created_dir && self->backend->remove_instance_dir != NULL)
		self->backend->remove_instance_dir(self, instance);
	if (done > 0)
		g_prefix_error(error, "removed the %u disk%s created before it: ", done,
			       done == 1 ? "" : "s");
	return FALSE;
}

gboolean
gnt_disk_store_add(GntDiskStore *self, const gchar *instance, const GntDiskSpec *disk,
		   GError **error)
{
	g_autoptr(GPtrArray) disks = g_ptr_array_new();

	g_return_val_if_fail(disk != NULL, FALSE);
	g_ptr_array_add(disks, (gpointer)disk);
	return gnt_disk_store_create(self, instance, disks, error);
}

gboolean
gnt_disk_store_remove(GntDiskStore *self, const gchar *instance, GPtrArray *disks, GError **error)
{
	g_autoptr(GError) first = NULL;

	g_return_val_if_fail(self != NULL && disks != NULL, FALSE);

	if (!disk_check_instance(instance, error))
		return FALSE;
	if (self->backend == NULL)
		return TRUE;
	for (guint i = 0; i < disks->len; i++) {
		const GntDiskSpec *disk = g_ptr_array_index(disks, i);
		g_autoptr(GError) one = NULL;

		if (!disk_check_args(self, instance, disk, &one) ||
		    !self->backend->remove(self, instance, disk, &one)) {
			g_message("%s", one->message);
			if (first == NULL)
				first = g_steal_pointer(&one);
		}
	}
	if (self->backend->remove_instance_dir != NULL)
		self->backend->remove_instance_dir(self, instance);
	if (first != NULL) {
		g_propagate_error(error, g_steal_pointer(&first));
		return FALSE;
	}
	return TRUE;
}

gboolean
gnt_disk_store_grow(GntDiskStore *self, const gchar *instance, const GntDiskSpec *disk,
		    guint64 new_size_mib, GError **error)
{
	g_autofree gchar *what = NULL;
	guint64 size_mib = 0, free_mib = 0;

	g_return_val_if_fail(self != NULL && disk != NULL, FALSE);

	if (!disk_check_args(self, instance, disk, error))
		return FALSE;
	what = gnt_disk_describe(disk, instance);
	if (self->backend == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "%s: diskless instances have no disks", what);
		return FALSE;
	}
	if (new_size_mib < disk->size_mib || new_size_mib > GNT_SIZE_MAX_MIB) {
		g_autofree gchar *new_s = gnt_size_format((gint64)new_size_mib, GNT_SIZE_UNIT_AUTO);

		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "%s can not be shrunk or grown to %s (%" G_GUINT64_FORMAT " MiB)", what,
			    new_s, new_size_mib);
		return FALSE;
	}
	if (new_size_mib == disk->size_mib)
		return TRUE;
	if (!self->backend->get_space(self, &size_mib, &free_mib, error))
		return FALSE;
	if (!disk_check_fits(self, what, new_size_mib - disk->size_mib, 0, free_mib, error)) {
		g_prefix_error(error, "growing: ");
		return FALSE;
	}
	return self->backend->grow(self, instance, disk, new_size_mib, error);
}

gchar *
gnt_disk_store_dup_path(GntDiskStore *self, const gchar *instance, const GntDiskSpec *disk,
			GError **error)
{
	g_return_val_if_fail(self != NULL && disk != NULL, NULL);

	if (!disk_check_args(self, instance, disk, error))
		return NULL;
	if (self->backend == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "disk %u of instance '%s': diskless instances have no disks",
			    disk->index, instance);
		return NULL;
	}
	return self->backend->dup_path(self, instance, disk, error);
}

GntDiskFormat
gnt_disk_store_get_format(const GntDiskStore *self, const GntDiskSpec *disk)
{
	return self->template == GNT_DISK_TEMPLATE_FILE ? disk->format : GNT_DISK_FORMAT_RAW;
}

gboolean
gnt_disk_store_is_block_device(const GntDiskStore *self)
{
	return self->template == GNT_DISK_TEMPLATE_PLAIN;
}

gchar *
gnt_disk_store_dup_volume_name(const GntDiskStore *self, const GntDiskSpec *disk)
{
	switch (self->template) {
	case GNT_DISK_TEMPLATE_PLAIN:
		return g_strdup_printf("%s.disk%u", disk->uuid, disk->index);
	case GNT_DISK_TEMPLATE_FILE:
		return g_strdup_printf("%s.file.disk%u", disk->uuid, disk->index);
	case GNT_DISK_TEMPLATE_DISKLESS:
	case GNT_DISK_TEMPLATE_LAST:
	default:
		return NULL;
	}
}

GntDiskVolume *
gnt_disk_volume_new(gchar *name, guint64 size_bytes)
{
	GntDiskVolume *self = g_new0(GntDiskVolume, 1);

	self->name = name;
	self->size_bytes = size_bytes;
	return self;
}

void
gnt_disk_volume_free(GntDiskVolume *self)
{
	if (self == NULL)
		return;
	g_free(self->name);
	g_free(self);
}

static gint
disk_compare_volumes(gconstpointer a, gconstpointer b)
{
	return g_strcmp0((*(GntDiskVolume *const *)a)->name, (*(GntDiskVolume *const *)b)->name);
}

GPtrArray *
gnt_disk_store_list_volume_sizes(GntDiskStore *self, GError **error)
{
	g_autoptr(GPtrArray) volumes = NULL;

	g_return_val_if_fail(self != NULL, NULL);

	if (self->backend == NULL)
		return g_ptr_array_new_with_free_func((GDestroyNotify)gnt_disk_volume_free);
	volumes = self->backend->list_volumes(self, error);
	if (volumes != NULL)
		g_ptr_array_sort(volumes, disk_compare_volumes);
	return g_steal_pointer(&volumes);
}

GPtrArray *
gnt_disk_store_list_volumes(GntDiskStore *self, GError **error)
{
	g_autoptr(GPtrArray) volumes = gnt_disk_store_list_volume_sizes(self, error);
	GPtrArray *names;

	if (volumes == NULL)
		return NULL;
	names = g_ptr_array_new_full(volumes->len, g_free);
	for (guint i = 0; i < volumes->len; i++) {
		GntDiskVolume *volume = g_ptr_array_index(volumes, i);

		g_ptr_array_add(names, g_steal_pointer(&volume->name));
	}
	return names;
}

gboolean
gnt_disk_store_get_space(GntDiskStore *self, guint64 *size_mib, guint64 *free_mib, GError **error)
{
	g_return_val_if_fail(self != NULL && size_mib != NULL && free_mib != NULL, FALSE);

	*size_mib = 0;
	*free_mib = 0;
	if (self->backend == NULL)
		return TRUE;
	return self->backend->get_space(self, size_mib, free_mib, error);
}

gboolean
gnt_disk_check_volume_group(const gchar *node, const gchar *vg, GError **error)
{
	const GntDiskStoreParams params = {.vg_name = vg};
	g_autoptr(GntDiskStore) store = gnt_disk_store_new(GNT_DISK_TEMPLATE_PLAIN, &params, error);
	g_autoptr(GError) local = NULL;
	guint64 size = 0, free_mib = 0;

	if (store == NULL)
		return FALSE;
	if (!gnt_disk_store_get_space(store, &size, &free_mib, &local)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT, "Error on node '%s': %s", node,
			    local->message);
		return FALSE;
	}
	return TRUE;
}

gboolean
gnt_disk_store_space_to_json(GntDiskStore *self, JsonBuilder *builder, GError **error)
{
	guint64 size_mib = 0, free_mib = 0;
	const gchar *name = "";

	if (!gnt_disk_store_get_space(self, &size_mib, &free_mib, error))
		return FALSE;
	if (self->template == GNT_DISK_TEMPLATE_PLAIN)
		name = self->vg_name;
	else if (self->template == GNT_DISK_TEMPLATE_FILE)
		name = self->file_dir;
	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "type");
	json_builder_add_string_value(builder, self->backend != NULL ? self->backend->storage_type
								     : "diskless");
	json_builder_set_member_name(builder, "name");
	json_builder_add_string_value(builder, name);
	json_builder_set_member_name(builder, "storage_size");
	json_builder_add_int_value(builder, (gint64)size_mib);
	json_builder_set_member_name(builder, "storage_free");
	json_builder_add_int_value(builder, (gint64)free_mib);
	json_builder_end_object(builder);
	return TRUE;
}
