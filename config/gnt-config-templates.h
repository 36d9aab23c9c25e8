#pragma once

#include "gnt-config.h"
#include "gnt-query.h"

G_BEGIN_DECLS

/*
 * Install templates (doc/templates.md): records of
 * GNT_OBJECT_INSTALL_TEMPLATE,
 *   {"uuid", "name", "steps", "description", "serial_no", "ctime", "mtime"}
 * where "steps" is a list of {"interface", "step", "args", "priority"} (the
 * install plan's registry checks them, install/gnt-install-registry.h) and
 * "description" a string. A template's name is an instance tag: the
 * template applies to the instances that carry it. Names are exact (no
 * short names) and unique; a template is also found by its UUID. The
 * rules for names and descriptions are the opcodes' checks
 * (cmdlib/gnt-opcode-table-template.c).
 */

/* A new record (no UUID yet): @name, a copy of @steps, @description
 * (NULL: ""). (transfer full) */
JsonObject *
gnt_install_template_record_new(const gchar *name, JsonArray *steps, const gchar *description);

/*
 * A copy of the stored template named @name (its exact name, or its
 * UUID), or NULL when there is none. What the install plan builds from
 * (transfer full).
 */
JsonObject *
gnt_config_dup_install_template(GntConfig *config, const gchar *name);

/* The same, failing with GNT_ERROR_NOT_FOUND "Install template 'x' not
 * found". (transfer full) */
JsonObject *
gnt_config_lookup_install_template(GntConfig *config, const gchar *name, GError **error);

/*
 * The install templates shipped with Gantry (data/install-templates/
 * shipped.json, built in: CUSTOM_RAID1_LVM and CUSTOM_RAID0, doc/install.md
 * "Storage layouts"): records like the others with "shipped": true, made
 * on every cluster when its config is created or opened (a new Gantry
 * brings their new steps), and read-only for the operator (the units
 * refuse changing or removing them). A template of the operator's own
 * with one of their names is left as it is.
 */
gboolean
gnt_config_ensure_shipped_templates(GntConfig *config, GError **error);

/* The shipped templates as built in: an array of {"name", "description",
 * "steps"}. (transfer full) */
JsonArray *
gnt_install_templates_shipped(void);

/* Whether @record is a shipped template. */
gboolean
gnt_install_template_is_shipped(JsonObject *record);

/* The query2 fields of the "installtemplate" resource (name, uuid,
 * description, steps, step_cnt, serial_no, ctime, mtime), for
 * gnt-object-query.c. (transfer none: static) */
const GntQueryField *
gnt_install_template_query_fields(void);

G_END_DECLS
