#pragma once /* install/gnt-install-steps-private.h: the install module and its tests */

#include "gnt-install-steps.h"

G_BEGIN_DECLS

/* The install template named @name, or NULL. (transfer full) */
typedef JsonObject *(*GntInstallTemplateLookup)(const gchar *name, gpointer user_data);

/* gnt_install_select_templates() with templates from @lookup. */
GPtrArray *
gnt_install_select_templates_full(JsonObject *record, JsonObject *node,
				  GntInstallTemplateLookup lookup, gpointer user_data,
				  GError **error);

/* The plan of an install of @record on @node with the templates from
 * @lookup and the cluster @settings (nullable), as the record keeps it.
 * (transfer full) */
JsonObject *
gnt_install_plan_for(JsonObject *record, JsonObject *node, JsonObject *settings,
		     GntInstallTemplateLookup lookup, gpointer user_data, GError **error);

/* Tests only: the templates come from @lookup instead of the config (NULL
 * restores the config). Not thread-safe: set it before jobs run. */
void
gnt_install_set_template_lookup(GntInstallTemplateLookup lookup, gpointer user_data);

G_END_DECLS
