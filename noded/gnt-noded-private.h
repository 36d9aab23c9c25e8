#pragma once /* noded/gnt-noded-private.h: for noded's procedure files and their tests */

#include "gnt-disk.h"
#include "gnt-hypervisor.h"
#include "gnt-instance-spec.h"
#include "gnt-os-env.h"
#include "gnt-noded.h"

G_BEGIN_DECLS

struct _GntRpcNode {
	const GntPaths *paths;
	gchar *libvirt_uri;
	gchar *fake_state_dir;
	gchar *hv_prefix;	 /* "gnt-<cluster>-" */
	gchar *console_dir;	 /* <log>/console */
	gchar *os_log_dir;	 /* <log>/os */
	GMutex lock;		 /* guards hypervisors */
	GHashTable *hypervisors; /* name -> GntHypervisor, made on first use */
};

/*
 * The instance spec every instance procedure gets (doc/node-rpc.md),
 * decoded by its one decoder (config/gnt-instance-spec.h), and the disk
 * store its template and the cluster's storage settings make. The
 * shortcuts are borrowed from @decoded.
 */
typedef struct {
	GntInstanceSpec *decoded;
	GntInstance *instance; /* the record */
	const gchar *name;
	const gchar *uuid;
	const gchar *hypervisor;
	JsonObject *hvparams; /* filled */
	JsonObject *beparams; /* filled */
	guint64 memory_mib;   /* beparams "maxmem" */
	guint vcpus;
	GntDiskStore *store;
	const gchar *file_storage_dir; /* NULL when not set */
	GPtrArray *disks;	       /* GntDiskSpec, in the record's order */
} GntRpcNodeSpec;

void
gnt_rpc_node_spec_free(GntRpcNodeSpec *self);

/* The instance's own directory on this node, <data>/instances/<uuid>
 * (by uuid: a rename keeps it): what the hypervisor keeps between starts,
 * the UEFI variables of firmware=uefi. Removed with the disks
 * (blockdev_remove). GNT_ERROR_INVALID when the spec's uuid is not one.
 * (transfer full) */
gchar *
gnt_rpc_node_dup_instance_state_dir(GntRpcNode *node, GntRpcNodeSpec *spec, GError **error);

/* Removes @dir and the files in it (no subdirectories); a missing one is
 * fine. */
gboolean
gnt_rpc_node_remove_flat_dir(const gchar *dir, GError **error);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntRpcNodeSpec, gnt_rpc_node_spec_free)

/* Reads the "spec" argument of @args as an instance spec. GNT_ERROR_INVALID
 * naming the member and, once known, the instance. (transfer full) */
GntRpcNodeSpec *
gnt_rpc_node_spec_parse(const GntRpcArgs *args, GError **error);

/* The path of every disk of @spec as its store gives it (transfer full:
 * gchar *); GNT_ERROR_NOT_FOUND naming a missing disk. */
GPtrArray *
gnt_rpc_node_spec_dup_disk_paths(GntRpcNodeSpec *spec, GError **error);

/* Whether @name may be a file name below a directory of ours (an instance
 * or its old name): letters, digits, '.', '-', '_', not starting with '.'
 * or '-'. GNT_ERROR_INVALID naming it otherwise. */
gboolean
gnt_rpc_node_check_name(const gchar *name, const gchar *what, GError **error);

/* The spec's OS definition (*@os, transfer full) and the environment of
 * its scripts for the spec's instance (gnt-noded-os.c); failures name
 * the instance. (transfer full) */
GntOsEnv *
gnt_rpc_node_spec_new_os_env(GntRpcNodeSpec *spec, guint debug_level, JsonObject *secrets,
			     GntOsDefinition **os, GError **error);

/* The procedure tables of gnt-noded-{instance,storage,os,backup}.c, all
 * called with the GntRpcNode as user data. */
extern const GntRpcProcedure gnt_rpc_node_instance_procedures[];
extern const GntRpcProcedure gnt_rpc_node_storage_procedures[];
extern const GntRpcProcedure gnt_rpc_node_os_procedures[];
extern const GntRpcProcedure gnt_rpc_node_backup_procedures[];
extern const GntRpcProcedure gnt_rpc_node_verify_procedures[]; /* gnt-noded-verify.c */

G_END_DECLS
