#pragma once

#include <json-glib/json-glib.h>

#include "gnt-secret.h"

G_BEGIN_DECLS

/*
 * Opcodes. Every opcode is one row of the declarative table in
 * gnt-opcode-table.c: its OP_ID, its parameters (type, default, visibility,
 * validation), its locks and the logical unit that runs it.
 *
 * A parsed GntOpcode keeps its public and private values in a JSON object
 * with every parameter present (defaults filled in, like Ganeti's Python
 * client) and its secret values in GntSecret memory only. Serializing an
 * opcode never reveals a secret; the "show" form hides private values too.
 */

typedef enum {
	GNT_PARAM_PUBLIC,
	GNT_PARAM_PRIVATE, /* stored (for a restart), never shown */
	GNT_PARAM_SECRET,  /* in memory only */
} GntParamVisibility;

typedef enum {
	GNT_PARAM_TYPE_ANY,
	GNT_PARAM_TYPE_BOOL,
	GNT_PARAM_TYPE_INT,
	GNT_PARAM_TYPE_NUMBER, /* integer or float */
	GNT_PARAM_TYPE_STRING,
	GNT_PARAM_TYPE_LIST,
	GNT_PARAM_TYPE_STRING_LIST,
	GNT_PARAM_TYPE_DICT,
} GntParamType;

typedef struct _GntOpDef GntOpDef;
typedef struct _GntOpcode GntOpcode;
typedef struct _GntOpTable GntOpTable;

/* Makes @table (static, never freed) the opcodes that jobs may hold, before
 * the first one is parsed; until then every OP_ID is unknown. masterd
 * registers cmdlib's table, so the engine links no logical unit. */
void
gnt_opcode_register_table(const GntOpTable *table);

/* Looks up an OP_ID ("OP_TEST_DELAY") in the registered table; NULL if
 * unknown. */
const GntOpDef *
gnt_op_def_lookup(const gchar *op_id);

/* Whether @op_id is one of Ganeti's that the opcode table lacks: parsing
 * it fails with "opcode 'OP_X' is not supported by Gantry", and LUXI
 * answers that as an encoded OpPrereqError, not as a malformed request. */
gboolean
gnt_op_id_is_unsupported(const gchar *op_id);
const gchar *
gnt_op_def_get_id(const GntOpDef *def);

/*
 * Validates @input (an opcode object as a Ganeti client sends it) and builds
 * an opcode. Unknown OP_ID, unknown keys, missing required parameters, wrong
 * types and failed validations set GNT_ERROR_INVALID with a message that
 * names the parameter but never quotes a private or secret value. Secret
 * strings inside @input are wiped in place once copied. (transfer full)
 */
GntOpcode *
gnt_opcode_new_from_json(JsonObject *input, GError **error);

/* Convenience for tools and tests: OP_ID plus a JSON object text of params. */
GntOpcode *
gnt_opcode_new_from_string(const gchar *op_id, const gchar *params_json, GError **error);

GntOpcode *
gnt_opcode_ref(GntOpcode *self);
void
gnt_opcode_unref(GntOpcode *self);

const GntOpDef *
gnt_opcode_get_def(const GntOpcode *self);
const gchar *
gnt_opcode_get_id(const GntOpcode *self);

/* The value of a public or private parameter (default filled in), or NULL
 * for a secret or unknown one. (transfer none) */
JsonNode *
gnt_opcode_get_param(const GntOpcode *self, const gchar *name);
/*
 * Typed getters. A parameter always has a value once parsed (the table's
 * default when it was not given), so a unit asks for it without a
 * fallback of its own. gnt_opcode_get_*() are for parameters that cannot
 * be null; gnt_opcode_lookup_*() for Ganeti's optional ones (null unless
 * given), returning FALSE when null. Asking for a parameter the opcode
 * lacks, of another type, or with the wrong getter is a programmer's
 * mistake: a critical warning, and FALSE or 0.
 */
gboolean
gnt_opcode_get_bool(const GntOpcode *self, const gchar *name);
/* Whether the opcode has parameter @name at all: what a helper shared by
 * units of several opcodes asks before it reads one that only some have. */
gboolean
gnt_opcode_has_param(const GntOpcode *self, const gchar *name);
gint64
gnt_opcode_get_int(const GntOpcode *self, const gchar *name);
/* an integer or number parameter */
gdouble
gnt_opcode_get_number(const GntOpcode *self, const gchar *name);
gboolean
gnt_opcode_lookup_bool(const GntOpcode *self, const gchar *name, gboolean *out);
gboolean
gnt_opcode_lookup_int(const GntOpcode *self, const gchar *name, gint64 *out);
/* An optional boolean that means "no" unless given as true (Ganeti's None
 * for no_install, fail, ...). */
gboolean
gnt_opcode_get_flag(const GntOpcode *self, const gchar *name);
/* The common debug_level, 0 when not given. */
guint
gnt_opcode_get_debug_level(const GntOpcode *self);
const gchar *
gnt_opcode_get_string(const GntOpcode *self, const gchar *name);

/* A secret parameter's value as JSON text (a string value is stored without
 * quotes), or NULL if it was not given. (transfer none) */
const GntSecret *
gnt_opcode_get_secret(const GntOpcode *self, const gchar *name);
gboolean
gnt_opcode_has_secrets(const GntOpcode *self);
/* Drops every secret value, zeroing it (a job does this when it ends). */
void
gnt_opcode_forget_secrets(GntOpcode *self);

gint
gnt_opcode_get_priority(const GntOpcode *self);
/* Appends one [source, text, timestamp_ns] entry to the reason trail. */
void
gnt_opcode_add_reason(GntOpcode *self, const gchar *source, const gchar *text, gint64 ts_ns);
/* Resolves relative job IDs in "depends" (-1: the previous job of the same
 * submission) against @own_id; fails if one points before job 1. */
gboolean
gnt_opcode_resolve_depends(GntOpcode *self, guint64 own_id, GError **error);
/* The resolved dependencies: pairs of job id (guint64) and the list of
 * accepted final statuses (may be empty). (transfer none) */
JsonArray *
gnt_opcode_get_depends(const GntOpcode *self);

/*
 * What the opcode table says about one parameter of @op_id, for the clients
 * that build opcodes (gnt-*, RAPI) and for doc/. Naming an unknown opcode
 * or parameter is a programmer's mistake: a critical warning, and NULL (the
 * table self-test, tests/jobqueue/test-opcode-table.c, checks the names the
 * CLI and RAPI use). (transfer none)
 */
/* The default as JSON text ("120", "null"), NULL for a required one. */
const gchar *
gnt_op_param_get_default(const gchar *op_id, const gchar *name);
/* The value clients send for a required string the user left out
 * ("hard"), or NULL. */
const gchar *
gnt_op_param_get_client_default(const gchar *op_id, const gchar *name);
const gchar *
gnt_op_param_get_help(const gchar *op_id, const gchar *name);
/* The values a string parameter allows, in the table's order; NULL: any.
 * (transfer full) */
GStrv
gnt_op_param_dup_choices(const gchar *op_id, const gchar *name);
/* Whether @value is allowed (always TRUE for a parameter without choices). */
gboolean
gnt_op_param_is_choice(const gchar *op_id, const gchar *name, const gchar *value);
/* One line for --help: the help, the choices and the default, "Type of
 * reboot: full, soft, hard (default hard)". (transfer full) */
gchar *
gnt_op_param_describe(const gchar *op_id, const gchar *name);

/* The parameter a job summary shows, "TEST_DELAY(2.5)" (Ganeti's
 * OP_DSC_FIELD), or NULL if the opcode has none. */
const gchar *
gnt_op_def_get_summary_param(const GntOpDef *def);

/*
 * The opcode as JSON, with OP_ID and every parameter, private and secret
 * values redacted: "<redacted>" in place of the value, or, for a dict, of
 * each of its values. This is the only form that leaves the opcode: the job
 * store, queries, logs and APIs all get it. (transfer full)
 */
JsonObject *
gnt_opcode_to_json(const GntOpcode *self);

/* The private values only ({name: value}), or NULL if there are none: what
 * the job store keeps apart from the shown job. (transfer full) */
JsonObject *
gnt_opcode_dup_private(const GntOpcode *self);

/* Rebuilds a stored opcode: @shown from the job record plus @private_values
 * (may be NULL). Secrets stored as "<redacted>" are remembered as lost. */
GntOpcode *
gnt_opcode_new_from_store(JsonObject *shown, JsonObject *private_values, GError **error);
/* TRUE when the opcode had secret values that a restart lost. */
gboolean
gnt_opcode_lost_secrets(const GntOpcode *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntOpcode, gnt_opcode_unref)

G_END_DECLS
