#pragma once

#include "gnt-lu.h"
#include "gnt-rpc-client.h"

G_BEGIN_DECLS

/*
 * Importing an instance (OP_INSTANCE_CREATE with mode "import", Ganeti's
 * local import): the create unit calls these three at the matching phases
 * and does everything else (record, disks, start, rollback) as for a
 * create. doc/backup.md has the rules.
 */

/* Whether @op is an OP_INSTANCE_CREATE in import mode. */
gboolean
gnt_lu_backup_is_import(const GntOpcode *op);

/* check_args: the source node and path, the compression.
 * GNT_ERROR_INVALID naming what is wrong. */
gboolean
gnt_lu_backup_import_check_args(GntLu *lu, GError **error);

/*
 * check_prereq, first: reads the export's description from the source
 * node (which must be the new instance's primary node) and gives the unit
 * an opcode with what the submitted one leaves open filled from it, as
 * Ganeti's _ReadExportParams does: the OS, and the disks, NICs, tags,
 * hypervisor, hypervisor/backend/OS parameters not given. Fails naming the
 * export or the node.
 */
gboolean
gnt_lu_backup_import_prepare(GntLu *lu, GError **error);

/* exec, in place of the OS create script: the import script of every disk
 * that has a dump, on the primary @node, then (for a new name) the rename
 * script, whose failure is only a warning. The caller undoes the create
 * when this fails. */
gboolean
gnt_lu_backup_import_exec(GntLu *lu, GntRpcClient *rpc, JsonObject *node, JsonObject *spec,
			  GError **error);

G_END_DECLS
