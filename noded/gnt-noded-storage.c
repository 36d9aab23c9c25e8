/* noded's disk procedures: an instance's disks in the store its template
 * and the cluster's storage settings make (storage/gnt-disk.h). */
#define _GNU_SOURCE /* renameat2 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-noded-private.h"
#include "gnt-noded-session.h"

/* Disk @index of the spec, or GNT_ERROR_INVALID naming the instance. */
static GntDiskSpec *
spec_disk(GntRpcNodeSpec *spec, guint index, GError **error)
{
	if (index >= spec->disks->len) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "instance '%s' has no disk %u (it has %u)", spec->name, index,
			    spec->disks->len);
		return NULL;
	}
	return g_ptr_array_index(spec->disks, index);
}

static JsonNode *
blockdev_create_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	g_autoptr(GntRpcNodeSpec) spec = NULL;

	spec = gnt_rpc_node_spec_parse(args, error);
	if (spec == NULL || !gnt_disk_store_create(spec->store, spec->name, spec->disks, error))
		return NULL;
	g_info("created the %u disks of instance '%s'", spec->disks->len, spec->name);
	return gnt_json_node_new_null();
}

/* The disks, then the instance's state directory: its UEFI variables are
 * as much the instance's as its disks. An install session still on the
 * disks (its master gone) ends first. */
static JsonNode *
blockdev_remove_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	g_autoptr(GntRpcNodeSpec) spec = NULL;
	g_autofree gchar *state_dir = NULL;

	spec = gnt_rpc_node_spec_parse(args, error);
	if (spec == NULL)
		return NULL;
	gnt_noded_session_abort_instance(spec->name);
	if (!gnt_disk_store_remove(spec->store, spec->name, spec->disks, error))
		return NULL;
	state_dir = gnt_rpc_node_dup_instance_state_dir(user_data, spec, error);
	if (state_dir == NULL || !gnt_rpc_node_remove_flat_dir(state_dir, error)) {
		g_prefix_error(error, "instance '%s': state directory: ", spec->name);
		return NULL;
	}
	g_info("removed the disks and state of instance '%s'", spec->name);
	return gnt_json_node_new_null();
}

static JsonNode *
blockdev_add_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	g_autoptr(GntRpcNodeSpec) spec = NULL;
	GntDiskSpec *disk;
	guint index = (guint)gnt_rpc_args_get_uint(args, "disk_index");

	spec = gnt_rpc_node_spec_parse(args, error);
	disk = spec != NULL ? spec_disk(spec, index, error) : NULL;
	if (disk == NULL || !gnt_disk_store_add(spec->store, spec->name, disk, error))
		return NULL;
	g_info("added disk %u of instance '%s'", index, spec->name);
	return gnt_json_node_new_null();
}

/* Ganeti's blockdev_grow: disk @index (of the size its record says) to
 * @new_size MiB, after checking the space for the difference. */
static JsonNode *
blockdev_grow_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	g_autoptr(GntRpcNodeSpec) spec = NULL;
	GntDiskSpec *disk;
	guint index = (guint)gnt_rpc_args_get_uint(args, "disk_index");
	guint new_size = (guint)gnt_rpc_args_get_uint(args, "new_size");

	spec = gnt_rpc_node_spec_parse(args, error);
	disk = spec != NULL ? spec_disk(spec, index, error) : NULL;
	if (disk == NULL || !gnt_disk_store_grow(spec->store, spec->name, disk, new_size, error))
		return NULL;
	g_info("grew disk %u of instance '%s' to %u MiB", index, spec->name, new_size);
	return gnt_json_node_new_null();
}

/* Ganeti's blockdev_assemble for every disk: file images and logical
 * volumes are usable as long as they exist, so this checks each one and
 * answers [path, ...] in the record's order: what the hypervisor opens. */
static JsonNode *
blockdev_assemble_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	g_autoptr(GntRpcNodeSpec) spec = NULL;
	g_autoptr(JsonArray) paths = json_array_new();

	spec = gnt_rpc_node_spec_parse(args, error);
	if (spec == NULL)
		return NULL;
	for (guint i = 0; i < spec->disks->len; i++) {
		gchar *path = gnt_disk_store_dup_path(spec->store, spec->name,
						      g_ptr_array_index(spec->disks, i), error);

		if (path == NULL)
			return NULL;
		json_array_add_string_element(paths, path);
		g_free(path);
	}
	return gnt_json_node_new_array(g_steal_pointer(&paths));
}

/* Moves <dir>/<old> to <dir>/<new>, never over an existing entry nor
 * through a symbolic link. Done already (<new> there, <old> not) is fine. */
static gboolean
rename_instance_dir(const gchar *dir, const gchar *old_name, const gchar *new_name,
		    gboolean has_disks, GError **error)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	int rc, errsv;

	if (fd < 0 && errno == ENOENT && !has_disks)
		return TRUE;
	if (fd < 0) {
		gnt_error_set_errno(error, errno, dir);
		g_prefix_error(error, "file storage directory: ");
		return FALSE;
	}
	if (fstatat(fd, old_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		errsv = errno;
		rc = fstatat(fd, new_name, &st, AT_SYMLINK_NOFOLLOW);
		close(fd);
		if (errsv == ENOENT && (!has_disks || (rc == 0 && S_ISDIR(st.st_mode))))
			return TRUE;
		g_set_error(error, GNT_ERROR,
			    errsv == ENOENT ? GNT_ERROR_NOT_FOUND : GNT_ERROR_ENVIRONMENT,
			    "the disk directory '%s/%s': %s", dir, old_name, g_strerror(errsv));
		return FALSE;
	}
	if (!S_ISDIR(st.st_mode)) {
		close(fd);
		g_set_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT,
			    "'%s/%s' is not a directory (symbolic links are refused)", dir,
			    old_name);
		return FALSE;
	}
	rc = renameat2(fd, old_name, fd, new_name, RENAME_NOREPLACE);
	errsv = errno;
	close(fd);
	if (rc != 0) {
		g_set_error(error, GNT_ERROR,
			    errsv == EEXIST ? GNT_ERROR_EXISTS : GNT_ERROR_ENVIRONMENT,
			    "renaming the disk directory '%s/%s' to '%s': %s", dir, old_name,
			    new_name, g_strerror(errsv));
		return FALSE;
	}
	g_info("moved the disk directory '%s/%s' to '%s'", dir, old_name, new_name);
	return TRUE;
}

/* After a rename on the master: file disks live in <dir>/<instance>/, so
 * that directory follows the name; LVM volumes are named by UUID and stay. */
static JsonNode *
blockdev_rename_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	g_autoptr(GntRpcNodeSpec) spec = NULL;
	const gchar *old_name = gnt_rpc_args_get_string(args, "old_name");

	if (!gnt_rpc_node_check_name(old_name, "old instance name", error))
		return NULL;
	spec = gnt_rpc_node_spec_parse(args, error);
	if (spec == NULL)
		return NULL;
	if (gnt_disk_store_get_template(spec->store) != GNT_DISK_TEMPLATE_FILE ||
	    g_strcmp0(old_name, spec->name) == 0)
		return gnt_json_node_new_null();
	if (!rename_instance_dir(spec->file_storage_dir, old_name, spec->name, spec->disks->len > 0,
				 error)) {
		g_prefix_error(error, "renaming instance '%s' to '%s': ", old_name, spec->name);
		return NULL;
	}
	return gnt_json_node_new_null();
}

const GntRpcProcedure gnt_rpc_node_storage_procedures[] = {
	{"blockdev_create", blockdev_create_procedure},
	{"blockdev_remove", blockdev_remove_procedure},
	{"blockdev_add", blockdev_add_procedure},
	{"blockdev_rename", blockdev_rename_procedure},
	{"blockdev_grow", blockdev_grow_procedure},
	{"blockdev_assemble", blockdev_assemble_procedure},
	{NULL},
};
