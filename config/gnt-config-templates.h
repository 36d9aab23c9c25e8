#pragma once /* config/gnt-config-templates.h */

#include <json-glib/json-glib.h>

#include "gnt-config.h"

G_BEGIN_DECLS

/*
 * PLACEHOLDER of the `plan` branch, for the lead to replace at the merge
 * with the `templates` branch's own config/gnt-config-templates.h, which
 * owns the install template config object (issue 14, item 3). Only the
 * declaration the plan builder codes against is here.
 */

/* A copy of the stored install template @name, or NULL when there is
 * none. (transfer full) */
JsonObject *
gnt_config_dup_install_template(GntConfig *config, const gchar *name);

G_END_DECLS
