#pragma once

#include <json-glib/json-glib.h>

#include "gnt-locks.h"
#include "gnt-lu-env.h"
#include "gnt-opcode.h"

G_BEGIN_DECLS

/*
 * A logical unit runs one opcode, in fixed phases: check_args (the opcode
 * alone), declare_locks, check_prereq (under the locks), exec (progress to
 * the job log through gnt_lu_feedback), and returns a JSON result. A failure
 * in check_args or check_prereq is reported as Ganeti's OpPrereqError, one
 * in exec as OpExecError; the GNT_ERROR code gives the error class.
 */

typedef struct _GntLu GntLu;

typedef struct {
	gboolean (*check_args)(GntLu *lu, GError **error);
	void (*declare_locks)(GntLu *lu, GntLockSet *locks);
	gboolean (*check_prereq)(GntLu *lu, GError **error);
	JsonNode *(*exec)(GntLu *lu, GError **error); /* (transfer full) */
} GntLuClass;

const GntOpcode *
gnt_lu_get_opcode(GntLu *self);
/* Gives the unit's later phases @opcode (a ref is taken; NULL: back to the
 * job's) in place of the one submitted, as Ganeti's units fill in self.op
 * (an import takes its values from the export); the job keeps and shows
 * the submitted one. Dropped when the opcode ends. */
void
gnt_lu_set_opcode(GntLu *self, GntOpcode *opcode);
GntLuEnv *
gnt_lu_get_env(GntLu *self);
guint64
gnt_lu_get_job_id(GntLu *self);

/* What a unit keeps from one phase to the next (what check_prereq
 * looked up, exec uses); freed with @free when the opcode ends. */
void
gnt_lu_set_data(GntLu *self, gpointer data, GDestroyNotify free_func);
gpointer
gnt_lu_get_data(GntLu *self);

/* Appends a "message" entry to the job log; the text must never hold a
 * private or secret value. */
void
gnt_lu_feedback(GntLu *self, const gchar *format, ...) G_GNUC_PRINTF(2, 3);

/*
 * Ganeti's ResultWithJobs: submits @jobs (one GPtrArray of GntOpcode per
 * job; transfer full) to the unit's queue, waits until they are durable,
 * and returns Ganeti's "jobs" list: [true, id] per job, or [false, reason]
 * for each when they could not be submitted (queue drained, master
 * stopping). A relative dependency (-1) counts within @jobs. For exec.
 * (transfer full)
 */
JsonArray *
gnt_lu_submit_jobs(GntLu *self, GPtrArray *jobs);

/* Sleeps @seconds, or less when the master is stopping; FALSE then. */
gboolean
gnt_lu_sleep(GntLu *self, gdouble seconds);

/* The logical units, one per opcode (gnt-lu-*.c). */
extern const GntLuClass gnt_lu_test_delay;
extern const GntLuClass gnt_lu_test_dummy;
extern const GntLuClass gnt_lu_cluster_destroy;
extern const GntLuClass gnt_lu_cluster_set_params;
extern const GntLuClass gnt_lu_node_add;
extern const GntLuClass gnt_lu_node_remove;
extern const GntLuClass gnt_lu_node_set_params;
extern const GntLuClass gnt_lu_tags_set;
extern const GntLuClass gnt_lu_tags_del;
extern const GntLuClass gnt_lu_os_diagnose;
extern const GntLuClass gnt_lu_instance_create;
extern const GntLuClass gnt_lu_instance_remove;
extern const GntLuClass gnt_lu_instance_startup;
extern const GntLuClass gnt_lu_instance_shutdown;
extern const GntLuClass gnt_lu_instance_reboot;
extern const GntLuClass gnt_lu_instance_console;
extern const GntLuClass gnt_lu_instance_activate_disks;
extern const GntLuClass gnt_lu_instance_deactivate_disks;
extern const GntLuClass gnt_lu_instance_grow_disk;
extern const GntLuClass gnt_lu_instance_rename;
extern const GntLuClass gnt_lu_instance_set_params;
extern const GntLuClass gnt_lu_instance_query_data;
extern const GntLuClass gnt_lu_backup_export;
extern const GntLuClass gnt_lu_backup_query;
extern const GntLuClass gnt_lu_backup_remove;
extern const GntLuClass gnt_lu_instance_reinstall;
/* gnt-lu-verify.c, gnt-lu-verify-disks.c */
extern const GntLuClass gnt_lu_cluster_verify;
extern const GntLuClass gnt_lu_cluster_verify_config;
extern const GntLuClass gnt_lu_cluster_verify_group;
extern const GntLuClass gnt_lu_cluster_verify_disks;
extern const GntLuClass gnt_lu_group_verify_disks;
extern const GntLuClass gnt_lu_group_add; /* gnt-lu-group.c */
extern const GntLuClass gnt_lu_group_set_params;
extern const GntLuClass gnt_lu_group_rename;
extern const GntLuClass gnt_lu_group_remove;
extern const GntLuClass gnt_lu_group_assign_nodes;

/* Ganeti's GetUpdatedParams: @old (nullable) with @changes (nullable)
 * overlaid, a change to "default" or null removing the key. (transfer full) */
JsonObject *
gnt_lu_params_update(JsonObject *old, JsonObject *changes);

/*
 * OP_CLUSTER_SET_PARAMS' values (@params: Ganeti's names, as the opcode has
 * them; null or missing leaves a setting alone) as the complete new values
 * of the settings they change, for gnt_config_set_cluster_settings(): -H
 * and -B merged into the current ones, hypervisor names and parameters
 * checked against hypervisor/, every setting checked by the config, disk
 * templates in use kept, and a volume group that is to be used looked for
 * on the master node (through @rpc; on this host when @rpc is NULL, as for
 * gnt-cluster init before the daemons start). GNT_ERROR_INVALID naming the
 * setting, GNT_ERROR_ENVIRONMENT naming the node. (transfer full)
 */
JsonObject *
gnt_lu_cluster_settings_from_params(GntConfig *config, GntRpcClient *rpc, JsonObject *params,
				    GError **error);

G_END_DECLS
