#pragma once /* install/gnt-install-registry-private.h: the plan builder and tests */

#include "gnt-install-registry.h"

G_BEGIN_DECLS

/* gnt_install_steps_validate(), with @allow_test_steps letting tests use
 * the steps that are not for operators. */
gboolean
gnt_install_steps_validate_full(const gchar *template_name, JsonArray *steps,
				gboolean allow_test_steps, GError **error);

/* One row's args checked against @spec: only its arguments, each of its
 * type, every required one. @what prefixes the message ("template 'T',
 * step 2 (deploy.resize_disk)"). */
gboolean
gnt_install_args_check(const GntInstallStepSpec *spec, JsonObject *args, const gchar *what,
		       GError **error);

/* What a row of @spec with @args acts on: its name and the values of its
 * identity arguments, "deploy.resize_disk disk=0". (transfer full) */
gchar *
gnt_install_row_key(const GntInstallStepSpec *spec, JsonObject *args);

G_END_DECLS
