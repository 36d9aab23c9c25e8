/* The 'plain' template: LVM logical volumes <uuid>.disk<N> in the cluster's
 * volume group, through lvcreate/lvremove/lvextend/lvs/vgs as Ganeti's
 * bdev.LogicalVolume runs them. */
#include "gnt-disk-private.h"

#include <string.h>

#include "gnt-error.h"

static gchar *
lvm_describe(const GntDiskStore *self)
{
	return g_strdup_printf("volume group '%s'", self->vg_name);
}

/* argv for one LVM tool; the caller adds its arguments and the NULL. */
static GPtrArray *
lvm_argv_new(GntDiskStore *self, const gchar *tool)
{
	GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);

	g_ptr_array_add(argv, g_strdup(tool));
	if (self->lvm_no_activation) {
		g_ptr_array_add(argv, g_strdup("--config"));
		g_ptr_array_add(argv, g_strdup("global { activation = 0 }"));
	}
	return argv;
}

/* Runs @argv (NULL added here); a missing volume group gets its own message. */
static gboolean
lvm_run(GntDiskStore *self, GPtrArray *argv, gchar **output, GError **error)
{
	g_autoptr(GError) local = NULL;

	g_ptr_array_add(argv, NULL);
	if (gnt_disk_run((const gchar *const *)argv->pdata, GNT_DISK_LVM_TIMEOUT_S, output, &local))
		return TRUE;
	if (g_strstr_len(local->message, -1, "Volume group \"") != NULL &&
	    g_strstr_len(local->message, -1, "not found") != NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "volume group '%s' not found on this node (%s)", self->vg_name,
			    local->message);
		return FALSE;
	}
	g_propagate_error(error, g_steal_pointer(&local));
	return FALSE;
}

/* The fields of the row of @out (stdout and stderr: warnings come too)
 * that has @n fields and @key as field @key_field. (transfer full) */
static GStrv
lvm_find_row(const gchar *out, guint n, guint key_field, const gchar *key)
{
	g_auto(GStrv) lines = g_strsplit(out, "\n", -1);

	for (guint i = 0; lines[i] != NULL; i++) {
		g_auto(GStrv) fields = g_strsplit(g_strstrip(lines[i]), "|", -1);

		if (g_strv_length(fields) == n && strcmp(fields[key_field], key) == 0)
			return g_steal_pointer(&fields);
	}
	return NULL;
}

static gboolean
lvm_get_space(GntDiskStore *self, guint64 *size_mib, guint64 *free_mib, GError **error)
{
	g_autoptr(GPtrArray) argv = lvm_argv_new(self, "vgs");
	g_autofree gchar *out = NULL;
	g_auto(GStrv) fields = NULL;
	gchar *end_free = NULL, *end_size = NULL;
	gdouble vg_free, vg_size;

	g_ptr_array_add(argv, g_strdup("--noheadings"));
	g_ptr_array_add(argv, g_strdup("--nosuffix"));
	g_ptr_array_add(argv, g_strdup("--units=m"));
	g_ptr_array_add(argv, g_strdup("--unbuffered"));
	g_ptr_array_add(argv, g_strdup("--separator=|"));
	g_ptr_array_add(argv, g_strdup("-ovg_name,vg_free,vg_attr,vg_size"));
	g_ptr_array_add(argv, g_strdup(self->vg_name));
	if (!lvm_run(self, argv, &out, error)) {
		g_prefix_error(error, "reading the space of volume group '%s': ", self->vg_name);
		return FALSE;
	}
	fields = lvm_find_row(out, 4, 0, self->vg_name);
	if (fields == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "reading the space of volume group '%s': unexpected vgs output '%s'",
			    self->vg_name, out);
		return FALSE;
	}
	vg_free = g_ascii_strtod(fields[1], &end_free);
	vg_size = g_ascii_strtod(fields[3], &end_size);
	if (*end_free != '\0' || *end_size != '\0' || !(vg_free >= 0) || !(vg_size >= 0)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "reading the space of volume group '%s': unexpected vgs output '%s'",
			    self->vg_name, out);
		return FALSE;
	}
	if (fields[2][0] == 'r') {
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "volume group '%s' is read-only", self->vg_name);
		return FALSE;
	}
	*size_mib = (guint64)vg_size;
	*free_mib = (guint64)vg_free;
	return TRUE;
}

static GPtrArray *
lvm_list_volumes(GntDiskStore *self, GError **error)
{
	g_autoptr(GPtrArray) argv = lvm_argv_new(self, "lvs");
	g_autoptr(GPtrArray)
		volumes = g_ptr_array_new_with_free_func((GDestroyNotify)gnt_disk_volume_free);
	g_autofree gchar *out = NULL;
	g_auto(GStrv) lines = NULL;

	g_ptr_array_add(argv, g_strdup("--noheadings"));
	g_ptr_array_add(argv, g_strdup("--unbuffered"));
	g_ptr_array_add(argv, g_strdup("--nosuffix"));
	g_ptr_array_add(argv, g_strdup("--units=b"));
	g_ptr_array_add(argv, g_strdup("--separator=|"));
	g_ptr_array_add(argv, g_strdup("-ovg_name,lv_name,lv_size"));
	g_ptr_array_add(argv, g_strdup(self->vg_name));
	if (!lvm_run(self, argv, &out, error)) {
		g_prefix_error(error, "listing the volumes of volume group '%s': ", self->vg_name);
		return NULL;
	}
	lines = g_strsplit(out, "\n", -1);
	for (guint i = 0; lines[i] != NULL; i++) {
		g_auto(GStrv) fields = g_strsplit(g_strstrip(lines[i]), "|", -1);

		/* "<vg>|<lv>|<bytes>"; anything else is a warning */
		if (g_strv_length(fields) == 3 && strcmp(fields[0], self->vg_name) == 0 &&
		    fields[1][0] != '\0')
			g_ptr_array_add(volumes,
					gnt_disk_volume_new(g_strdup(fields[1]),
							    g_ascii_strtoull(fields[2], NULL, 10)));
	}
	return g_steal_pointer(&volumes);
}

/* Whether volume @name is in the group. */
static gboolean
lvm_has_volume(GntDiskStore *self, const gchar *name, gboolean *exists, GError **error)
{
	g_autoptr(GPtrArray) volumes = lvm_list_volumes(self, error);

	if (volumes == NULL)
		return FALSE;
	*exists = FALSE;
	for (guint i = 0; i < volumes->len; i++)
		*exists |= strcmp(((GntDiskVolume *)g_ptr_array_index(volumes, i))->name, name) ==
			   0;
	return TRUE;
}

static gboolean
lvm_remove_volume(GntDiskStore *self, const gchar *name, GError **error)
{
	g_autoptr(GPtrArray) argv = lvm_argv_new(self, "lvremove");

	g_ptr_array_add(argv, g_strdup("-f"));
	g_ptr_array_add(argv, g_strdup_printf("%s/%s", self->vg_name, name));
	return lvm_run(self, argv, NULL, error);
}

static gboolean
lvm_create(GntDiskStore *self, const gchar *instance, const GntDiskSpec *disk,
	   gboolean *created_dir, GError **error)
{
	g_autofree gchar *what = gnt_disk_describe(disk, instance);
	g_autofree gchar *name = gnt_disk_store_dup_volume_name(self, disk);
	g_autoptr(GPtrArray) argv = lvm_argv_new(self, "lvcreate");
	gboolean exists = FALSE;

	if (!lvm_has_volume(self, name, &exists, error)) {
		g_prefix_error(error, "%s: ", what);
		return FALSE;
	}
	if (exists) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_EXISTS,
			    "%s: logical volume '%s/%s' exists already", what, self->vg_name, name);
		return FALSE;
	}
	/* -Wn: no prompt about old signatures where the volume lands (Ganeti) */
	g_ptr_array_add(argv, g_strdup("-Wn"));
	if (self->lvm_no_activation) {
		g_ptr_array_add(argv, g_strdup("-an"));
		g_ptr_array_add(argv, g_strdup("-Zn"));
	}
	g_ptr_array_add(argv, g_strdup_printf("-L%" G_GUINT64_FORMAT "m", disk->size_mib));
	g_ptr_array_add(argv, g_strdup_printf("-n%s", name));
	g_ptr_array_add(argv, g_strdup(self->vg_name));
	if (!lvm_run(self, argv, NULL, error)) {
		g_autoptr(GError) check_error = NULL;

		/* leave nothing half made */
		if (lvm_has_volume(self, name, &exists, &check_error) && exists)
			(void)lvm_remove_volume(self, name, NULL);
		g_prefix_error(error, "%s: creating logical volume '%s/%s': ", what, self->vg_name,
			       name);
		return FALSE;
	}
	return TRUE;
}

static gboolean
lvm_remove(GntDiskStore *self, const gchar *instance, const GntDiskSpec *disk, GError **error)
{
	g_autofree gchar *what = gnt_disk_describe(disk, instance);
	g_autofree gchar *name = gnt_disk_store_dup_volume_name(self, disk);
	gboolean exists = FALSE;

	if (!lvm_has_volume(self, name, &exists, error) ||
	    (exists && !lvm_remove_volume(self, name, error))) {
		g_prefix_error(error, "removing %s: ", what);
		return FALSE;
	}
	return TRUE;
}

static gboolean
lvm_grow(GntDiskStore *self, const gchar *instance, const GntDiskSpec *disk, guint64 new_size_mib,
	 GError **error)
{
	g_autofree gchar *what = gnt_disk_describe(disk, instance);
	g_autofree gchar *name = gnt_disk_store_dup_volume_name(self, disk);
	g_autoptr(GPtrArray) argv = lvm_argv_new(self, "lvextend");
	gboolean exists = FALSE;

	if (!lvm_has_volume(self, name, &exists, error)) {
		g_prefix_error(error, "growing %s: ", what);
		return FALSE;
	}
	if (!exists) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND,
			    "growing %s: logical volume '%s/%s' does not exist", what,
			    self->vg_name, name);
		return FALSE;
	}
	g_ptr_array_add(argv, g_strdup_printf("-L%" G_GUINT64_FORMAT "m", new_size_mib));
	g_ptr_array_add(argv, g_strdup_printf("%s/%s", self->vg_name, name));
	if (!lvm_run(self, argv, NULL, error)) {
		g_prefix_error(error, "growing %s: ", what);
		return FALSE;
	}
	return TRUE;
}

static gchar *
lvm_dup_path(GntDiskStore *self, const gchar *instance, const GntDiskSpec *disk, GError **error)
{
	g_autofree gchar *name = gnt_disk_store_dup_volume_name(self, disk);
	gboolean exists = FALSE;

	if (!lvm_has_volume(self, name, &exists, error)) {
		g_autofree gchar *what = gnt_disk_describe(disk, instance);

		g_prefix_error(error, "%s: ", what);
		return NULL;
	}
	if (!exists) {
		g_autofree gchar *what = gnt_disk_describe(disk, instance);

		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND,
			    "%s: logical volume '%s/%s' does not exist", what, self->vg_name, name);
		return NULL;
	}
	return g_strdup_printf("/dev/%s/%s", self->vg_name, name);
}

const GntDiskBackend gnt_disk_backend_lvm = {
	.storage_type = "lvm-vg",
	.describe = lvm_describe,
	.get_space = lvm_get_space,
	.create = lvm_create,
	.remove = lvm_remove,
	.remove_instance_dir = NULL,
	.grow = lvm_grow,
	.dup_path = lvm_dup_path,
	.list_volumes = lvm_list_volumes,
};
