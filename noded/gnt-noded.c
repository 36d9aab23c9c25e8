#include "gnt-noded-private.h"

#include <errno.h>
#include <string.h>

#include <glib/gstdio.h>

#include "gnt-build-config.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-os-script.h"
#include "gnt-noded-appliance.h"
#include "gnt-noded-catalogue.h"
#include "gnt-noded-installer.h"
#include "gnt-noded-session.h"
#include "gnt-noded-image.h"
#include "gnt-noded-metad.h"
#include "gnt-tls.h"

static JsonNode *
version_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	JsonObject *result = json_object_new();

	json_object_set_member(result, "protocol", gnt_json_node_new_int(GNT_RPC_PROTOCOL_VERSION));
	json_object_set_member(result, "software", gnt_json_node_new_string(GNT_VERSION));
	return gnt_json_node_new_object(result);
}

static JsonNode *
test_delay_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	g_usleep((gulong)(gnt_rpc_args_get_number(args, "duration") * G_USEC_PER_SEC));
	return gnt_json_node_new_null();
}

/* The cluster's name, from the CN of its CA certificate. (transfer full) */
static gchar *
dup_cluster_name(const GntPaths *paths, GTlsCertificate **ca_out, GError **error)
{
	g_autoptr(GTlsCertificate)
		ca = gnt_tls_load_ca_certificate(gnt_paths_get_ca_cert(paths), error);
	g_autofree gchar *ca_cn = NULL;

	if (ca == NULL)
		return NULL;
	ca_cn = gnt_tls_certificate_dup_cn(ca, error);
	if (ca_cn == NULL)
		return NULL;
	if (ca_out != NULL)
		*ca_out = g_steal_pointer(&ca);
	if (g_str_has_prefix(ca_cn, GNT_TLS_CA_CN_PREFIX))
		return g_strdup(ca_cn + strlen(GNT_TLS_CA_CN_PREFIX));
	return g_steal_pointer(&ca_cn);
}

static JsonNode *
join_status_procedure(const GntRpcArgs *args, gpointer user_data, GError **error)
{
	const GntPaths *paths = user_data;
	g_autoptr(GTlsCertificate) ca = NULL;
	g_autoptr(GTlsCertificate) node = NULL;
	g_autofree gchar *cluster = NULL;
	g_autofree gchar *node_cn = NULL;
	g_autofree gchar *fingerprint = NULL;
	JsonObject *result;

	cluster = dup_cluster_name(paths, &ca, error);
	if (cluster == NULL)
		return NULL;
	node = gnt_tls_load_ca_certificate(gnt_paths_get_node_cert(paths), error);
	if (node == NULL)
		return NULL;
	node_cn = gnt_tls_certificate_dup_cn(node, error);
	if (node_cn == NULL)
		return NULL;
	fingerprint = gnt_tls_certificate_dup_fingerprint(ca);
	result = json_object_new();
	json_object_set_member(result, "node", gnt_json_node_new_string(node_cn));
	json_object_set_member(result, "cluster", gnt_json_node_new_string(cluster));
	json_object_set_member(result, "ca_fingerprint", gnt_json_node_new_string(fingerprint));
	json_object_set_member(result, "join_endpoint",
			       gnt_json_node_new_bool(g_file_test(gnt_paths_get_ca_key(paths),
								  G_FILE_TEST_EXISTS)));
	return gnt_json_node_new_object(result);
}

void
gnt_rpc_node_add_procedures(GntRpcServer *server, const GntPaths *paths)
{
	static const GntRpcProcedure procedures[] = {
		{"version", version_procedure},
		{"test_delay", test_delay_procedure},
		{"join_status", join_status_procedure},
		{NULL},
	};

	gnt_rpc_server_add_procedures(server, procedures, (gpointer)paths);
}

/* --- the node's hypervisors ------------------------------------------- */

GntRpcNode *
gnt_rpc_node_new(const GntPaths *paths, const GntRpcNodeOptions *options, GError **error)
{
	const GntRpcNodeOptions defaults = {NULL};
	g_autoptr(GntRpcNode) self = g_new0(GntRpcNode, 1);

	g_return_val_if_fail(paths != NULL, NULL);

	if (options == NULL)
		options = &defaults;
	self->paths = paths;
	g_mutex_init(&self->lock);
	self->hypervisors = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_object_unref);
	self->libvirt_uri =
		g_strdup(options->libvirt_uri != NULL ? options->libvirt_uri : GNT_HV_DEFAULT_URI);
	self->fake_state_dir =
		options->fake_state_dir != NULL
			? g_strdup(options->fake_state_dir)
			: g_build_filename(gnt_paths_get_data_dir(paths), "fake-hv", NULL);
	self->console_dir = g_build_filename(gnt_paths_get_log_dir(paths), "console", NULL);
	self->os_log_dir = gnt_os_script_dup_log_dir(paths);
	if (options->hv_prefix != NULL) {
		self->hv_prefix = g_strdup(options->hv_prefix);
	} else {
		g_autofree gchar *cluster = dup_cluster_name(paths, NULL, error);

		if (cluster == NULL) {
			g_prefix_error(error, "the hypervisors' instance prefix: ");
			return NULL;
		}
		self->hv_prefix = g_strconcat(GNT_HV_DEFAULT_PREFIX, cluster, "-", NULL);
	}
	return g_steal_pointer(&self);
}

void
gnt_rpc_node_free(GntRpcNode *self)
{
	if (self == NULL)
		return;
	g_clear_pointer(&self->hypervisors, g_hash_table_unref);
	g_mutex_clear(&self->lock);
	g_free(self->libvirt_uri);
	g_free(self->fake_state_dir);
	g_free(self->hv_prefix);
	g_free(self->console_dir);
	g_free(self->os_log_dir);
	g_free(self);
}

GntHypervisor *
gnt_rpc_node_get_hypervisor(GntRpcNode *self, const gchar *name, GError **error)
{
	G_GNUC_UNUSED g_autoptr(GMutexLocker) locker = NULL;
	GntHypervisor *hv;

	g_return_val_if_fail(self != NULL, NULL);

	if (!gnt_hv_check_name(name, error))
		return NULL;
	locker = g_mutex_locker_new(&self->lock);
	hv = g_hash_table_lookup(self->hypervisors, name);
	if (hv == NULL) {
		hv = gnt_hypervisor_new(
			name, strcmp(name, "kvm") == 0 ? self->libvirt_uri : self->fake_state_dir,
			self->hv_prefix, error);
		if (hv == NULL)
			return NULL;
		g_hash_table_insert(self->hypervisors, g_strdup(name), hv);
	}
	return g_object_ref(hv);
}

void
gnt_rpc_node_add_instance_procedures(GntRpcServer *server, GntRpcNode *node)
{
	g_return_if_fail(node != NULL);

	gnt_rpc_server_add_procedures(server, gnt_rpc_node_instance_procedures, node);
	gnt_rpc_server_add_procedures(server, gnt_rpc_node_storage_procedures, node);
	gnt_rpc_server_add_procedures(server, gnt_rpc_node_os_procedures, node);
	gnt_rpc_server_add_procedures(server, gnt_rpc_node_backup_procedures, node);
	gnt_rpc_server_add_procedures(server, gnt_rpc_node_image_procedures, node);
	gnt_rpc_server_add_procedures(server, gnt_rpc_node_metad_procedures, node);
	gnt_rpc_server_add_procedures(server, gnt_rpc_node_verify_procedures, node);
	gnt_rpc_server_add_procedures(server, gnt_rpc_node_appliance_procedures, node);
	gnt_rpc_server_add_procedures(server, gnt_rpc_node_catalogue_procedures, node);
	gnt_rpc_server_add_procedures(server, gnt_rpc_node_installer_procedures, node);
	gnt_rpc_server_add_procedures(server, gnt_rpc_node_session_procedures, node);
}

gboolean
gnt_rpc_node_check_name(const gchar *name, const gchar *what, GError **error)
{
	static const gchar allowed[] = "abcdefghijklmnopqrstuvwxyz"
				       "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
	gsize len = strlen(name);

	if (len == 0 || len > 255 || name[0] == '.' || name[0] == '-' ||
	    strspn(name, allowed) != len) {
		g_autofree gchar *quoted = g_strescape(name, NULL);

		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "invalid %s '%s': letters, digits, '.', '-' and '_' only, not first "
			    "'.' or '-'",
			    what, quoted);
		return FALSE;
	}
	return TRUE;
}

/* --- the instance spec ------------------------------------------------- */

void
gnt_rpc_node_spec_free(GntRpcNodeSpec *self)
{
	if (self == NULL)
		return;
	g_clear_pointer(&self->store, gnt_disk_store_free);
	g_clear_pointer(&self->disks, g_ptr_array_unref);
	g_clear_pointer(&self->decoded, gnt_instance_spec_free);
	g_free(self);
}

gboolean
gnt_rpc_node_remove_flat_dir(const gchar *dir, GError **error)
{
	g_autoptr(GDir) listing = g_dir_open(dir, 0, NULL);
	const gchar *entry;

	while (listing != NULL && (entry = g_dir_read_name(listing)) != NULL) {
		g_autofree gchar *path = g_build_filename(dir, entry, NULL);

		if (g_unlink(path) != 0 && errno != ENOENT) {
			gnt_error_set_errno(error, errno, path);
			return FALSE;
		}
	}
	if (g_rmdir(dir) != 0 && errno != ENOENT) {
		gnt_error_set_errno(error, errno, dir);
		return FALSE;
	}
	return TRUE;
}

gchar *
gnt_rpc_node_dup_instance_state_dir(GntRpcNode *node, GntRpcNodeSpec *spec, GError **error)
{
	/* the uuid becomes a path: nothing but a uuid may */
	if (spec->uuid == NULL || !g_uuid_string_is_valid(spec->uuid)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "instance '%s': uuid '%s' is not a uuid", spec->name,
			    spec->uuid != NULL ? spec->uuid : "");
		return NULL;
	}
	return g_build_filename(gnt_paths_get_data_dir(node->paths), "instances", spec->uuid, NULL);
}

static gboolean
spec_make_store(GntRpcNodeSpec *self, GError **error)
{
	GntDiskStoreParams params = {
		.vg_name = self->decoded->volume_group_name,
		.file_storage_dir = self->decoded->file_storage_dir,
		.file_preallocate = self->decoded->file_preallocate,
	};

	self->file_storage_dir = params.file_storage_dir;
	self->store = gnt_disk_store_new(self->instance->disk_template, &params, error);
	return self->store != NULL;
}

static void
spec_make_disks(GntRpcNodeSpec *self)
{
	GPtrArray *disks = self->instance->disks;

	self->disks = g_ptr_array_new_with_free_func((GDestroyNotify)gnt_disk_spec_free);
	for (guint i = 0; i < disks->len; i++) {
		GntDisk *disk = g_ptr_array_index(disks, i);

		g_ptr_array_add(self->disks,
				gnt_disk_spec_new(disk->uuid, i, (guint64)disk->size_mib,
						  disk->has_format ? disk->format
								   : GNT_DISK_FORMAT_RAW));
	}
}

GntRpcNodeSpec *
gnt_rpc_node_spec_parse(const GntRpcArgs *args, GError **error)
{
	g_autoptr(GntRpcNodeSpec) self = g_new0(GntRpcNodeSpec, 1);
	JsonObject *spec = gnt_rpc_args_get_object(args, "spec");

	g_return_val_if_fail(spec != NULL, NULL);
	self->decoded = gnt_instance_spec_from_json(spec, error);
	if (self->decoded == NULL)
		return NULL;
	self->instance = self->decoded->instance;
	self->name = self->instance->name;
	self->uuid = self->instance->uuid;
	self->hypervisor = self->instance->hypervisor;
	self->hvparams = self->decoded->hvparams;
	self->beparams = self->decoded->beparams;
	self->memory_mib = self->decoded->memory_mib;
	self->vcpus = self->decoded->vcpus;
	if (!gnt_rpc_node_check_name(self->name, "instance name", error))
		return NULL;
	if (!spec_make_store(self, error)) {
		g_prefix_error(error, "instance spec of '%s': ", self->name);
		return NULL;
	}
	spec_make_disks(self);
	return g_steal_pointer(&self);
}

GPtrArray *
gnt_rpc_node_spec_dup_disk_paths(GntRpcNodeSpec *spec, GError **error)
{
	g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func(g_free);

	for (guint i = 0; i < spec->disks->len; i++) {
		gchar *path = gnt_disk_store_dup_path(spec->store, spec->name,
						      g_ptr_array_index(spec->disks, i), error);

		if (path == NULL)
			return NULL;
		g_ptr_array_add(paths, path);
	}
	return g_steal_pointer(&paths);
}
