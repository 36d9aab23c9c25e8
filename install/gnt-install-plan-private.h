#pragma once /* install/gnt-install-plan-private.h: the install module and tests */

#include "gnt-install-plan.h"

G_BEGIN_DECLS

/* gnt_install_plan_build(), with @allow_test_steps letting tests use the
 * steps that are not for operators. */
GntInstallPlan *
gnt_install_plan_build_full(JsonObject *const *templates, guint n_templates, JsonObject *settings,
			    const GntInstallPlanTarget *target, gboolean allow_test_steps,
			    GError **error);

/* A row's identity: @step for a core row (@template_name NULL), else
 * "TEMPLATE#POSITION". (transfer full) */
gchar *
gnt_install_plan_row_id(const gchar *template_name, guint position, const gchar *step);

G_END_DECLS
