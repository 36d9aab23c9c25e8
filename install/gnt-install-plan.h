#pragma once /* install/gnt-install-plan.h */

#include <json-glib/json-glib.h>

#include "gnt-install-registry.h"

G_BEGIN_DECLS

/*
 * The plan of one install (doc/install.md, "The plan"): the rows the runner
 * runs, built once before anything changes and kept in the instance's
 * install record. Built from
 *   1. the core steps of the registry at their default priorities, laid
 *      over by the cluster's install_step_priorities;
 *   2. the steps of every install template the instance's tags select
 *      (a template step overrides the step's priority and arguments; a
 *      core step can only be disabled, with priority 0);
 *   3. the cluster's install_denied_steps: a denied core step does not run,
 *      a template that asks for a denied step is refused.
 * Rows run by falling priority; equal priorities run core rows first, then
 * template rows by template name (byte order), then by their position in
 * the template. Every row has a stable identity: a core row its step's
 * name, a template row "TEMPLATE#POSITION" (1-based; '#' is never in a
 * template name).
 */

typedef struct _GntInstallPlan GntInstallPlan;

/* What the plan must fit: the instance's hypervisor (its hvparams check
 * hypervisor.apply_settings' arguments; NULL: not checked) and its number
 * of disks (deploy.resize_disk's "disk", the storage layout's disks). */
typedef struct {
	const gchar *hypervisor;
	guint n_disks;
	/* (nullable) each disk's size in MiB: the storage layout's partitions
	 * must fit (gnt-install-storage.h) */
	const guint64 *disk_mib;
} GntInstallPlanTarget;

/*
 * Builds the plan from @templates (@n_templates JSON objects with at least
 * "name" and "steps", as the config stores them; their "serial_no" is
 * recorded; the order given does not matter) and the cluster @settings
 * (nullable: its "install_denied_steps" and "install_step_priorities").
 * Each template's steps are checked as gnt_install_steps_validate() does,
 * and against @target. GNT_ERROR_INVALID naming the template, the row and
 * step, and the problem; two templates acting on the same thing (the same
 * step with the same identity arguments) are refused naming both.
 * (transfer full)
 */
GntInstallPlan *
gnt_install_plan_build(JsonObject *const *templates, guint n_templates, JsonObject *settings,
		       const GntInstallPlanTarget *target, GError **error);
void
gnt_install_plan_free(GntInstallPlan *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntInstallPlan, gnt_install_plan_free)

/*
 * The plan as the install record keeps it and --print-plan shows it:
 *   {"templates": [{"name", "serial_no"}],           (by name)
 *    "rows": [{"id", "step", "priority", "args", "origin": "core"|"template",
 *              "template": null|"NAME", "position": null|N,
 *              "runs": bool, "why": null|"why it does not run"}]}
 * rows in the order they run, the rows that do not run after them.
 * Arguments are copied: a template changed later changes no plan.
 * (transfer full)
 */
JsonObject *
gnt_install_plan_to_json(const GntInstallPlan *self);

/* The plan of an install without templates or cluster policy: the core
 * steps at their default priorities. (transfer full) */
JsonObject *
gnt_install_plan_new_core(void);

/* The cluster policy's checks, for OP_CLUSTER_SET_PARAMS: the denied steps
 * are registered steps operators may use; the priorities are integers
 * within the registry's rules (a core step's keeps the core steps' order or
 * is 0; a step with required arguments gets none above 0, only a template
 * can give it arguments). GNT_ERROR_INVALID naming the step. */
gboolean
gnt_install_policy_check(JsonArray *denied, JsonObject *priorities, GError **error);

G_END_DECLS
