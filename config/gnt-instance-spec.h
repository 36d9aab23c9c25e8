#pragma once /* config/gnt-instance-spec.h */

#include "gnt-records.h"

G_BEGIN_DECLS

/*
 * The instance spec: what the master sends a node about one instance
 * (doc/node-rpc.md), and what noded's instance procedures read. The master
 * fills it (cmdlib's gnt_lu_instance_spec_new) and encodes it with
 * gnt_instance_spec_to_json; noded decodes it with gnt_instance_spec_from_json.
 * On the wire:
 *   {"instance": the record (gnt_instance_to_json),
 *    "hvparams": filled, "beparams": filled,
 *    "storage": {"volume_group_name", "file_storage_dir"[, "file_preallocate"]},
 *    "os": {"search_path": [dirs]}}
 */
typedef struct {
	GntInstance *instance;
	JsonObject *hvparams;	  /* filled: the hypervisor's, the cluster's, the instance's */
	JsonObject *beparams;	  /* filled */
	guint64 memory_mib;	  /* the filled "maxmem" */
	guint vcpus;		  /* the filled "vcpus" */
	gchar *volume_group_name; /* NULL: none */
	gchar *file_storage_dir;  /* NULL: none */
	gboolean file_preallocate;
	GStrv os_search_path; /* NULL: not sent */
} GntInstanceSpec;

/* Takes @instance, @hvparams and @beparams; reads memory_mib and vcpus from
 * @beparams (0 when unset). (transfer full) */
GntInstanceSpec *
gnt_instance_spec_new(GntInstance *instance, JsonObject *hvparams, JsonObject *beparams);
void
gnt_instance_spec_free(GntInstanceSpec *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntInstanceSpec, gnt_instance_spec_free)

/* The encoder. (transfer full) */
JsonObject *
gnt_instance_spec_to_json(const GntInstanceSpec *self);
/* The decoder: the record, maxmem (1 to 2^32-1 MiB) and vcpus (1 to 4096)
 * in the filled beparams, the storage settings. GNT_ERROR_INVALID naming
 * the member and, once known, the instance. (transfer full) */
GntInstanceSpec *
gnt_instance_spec_from_json(JsonObject *obj, GError **error);

G_END_DECLS
