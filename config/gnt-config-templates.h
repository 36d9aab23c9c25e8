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

/* The query2 fields of the "installtemplate" resource (name, uuid,
 * description, steps, step_cnt, serial_no, ctime, mtime), for
 * gnt-object-query.c. (transfer none: static) */
const GntQueryField *
gnt_install_template_query_fields(void);

G_END_DECLS
