#pragma once /* tools/gnt-cli-plan.h */

#include "gnt-cli-format.h"

G_BEGIN_DECLS

/*
 * An install plan (install/gnt-install-plan.h) as `gnt-instance add
 * --print-plan` and `gnt-instance info` show it: the templates applied
 * with their serial numbers, the rows in the order they run ("PRIORITY
 * STEP [ID] ARGS"), then the rows that do not run and why. (transfer full)
 */
GntCliInfo *
gnt_cli_plan_info(JsonObject *plan);

/* One template row's or step's arguments for a line, " {json}", or "" when
 * it has none. (transfer full) */
gchar *
gnt_cli_plan_format_args(JsonObject *args);

/* Prints the answer of create or reinstall with print_plan
 * ({"instance", "plan"}) on stdout. */
void
gnt_cli_plan_print_result(JsonNode *result);

G_END_DECLS
