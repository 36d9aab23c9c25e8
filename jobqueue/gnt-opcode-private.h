#pragma once

#include "gnt-locks.h"
#include "gnt-lu.h"
#include "gnt-opcode.h"

G_BEGIN_DECLS

/*
 * One parameter of an opcode: a row of the declarative table, written with
 * designated initialisers so that a row names only what differs from the
 * usual (public, not nullable, no extra check, any value). The table is the
 * one home of a parameter's type, default, choices and help: the CLI reads
 * them through gnt_op_param_*() (gnt-opcode.h), the units through the typed
 * getters, and tests/jobqueue/test-opcode-table.c checks every row.
 */
typedef struct {
	const gchar *name;
	GntParamType type;
	/* JSON text of the default; NULL: the parameter is required */
	const gchar *default_json;
	/* also accept null (Ganeti's optional parameters) */
	gboolean nullable;
	GntParamVisibility visibility;
	/* extra check after the type check; @value is never null here */
	gboolean (*validate)(JsonNode *value, GError **error);
	/* for a string: the values allowed, "a|b|c"; NULL: any */
	const gchar *choices;
	/* what the parameter means, for --help texts and doc/; NULL: no CLI
	 * option shows it */
	const gchar *help;
	/* for a required string: what Ganeti's clients (gnt-*, RAPI) send
	 * when the user names none ("hard" for reboot_type); NULL: nothing */
	const gchar *client_default;
} GntParamDef;

/* Ganeti's optional parameters: null unless given, and null accepted. */
#define GNT_PARAM_OPTIONAL .default_json = "null", .nullable = TRUE

/* How long an instance has to shut down, in seconds: Ganeti's
 * DEFAULT_SHUTDOWN_TIMEOUT, written once for every opcode that stops one. */
#define GNT_PARAM_SHUTDOWN_TIMEOUT(param_name, help_text)                                          \
	{                                                                                          \
		.name = (param_name), .type = GNT_PARAM_TYPE_NUMBER, .default_json = "120",        \
		.help = (help_text)                                                                \
	}
#define GNT_SHUTDOWN_TIMEOUT_HELP "Maximum time (in seconds) to wait for instance shutdown"

struct _GntOpDef {
	const gchar *id;
	const gchar *summary_param;
	const GntParamDef *params; /* terminated by a row with name NULL */
	/* more rows, built once from another table (OP_CLUSTER_SET_PARAMS's
	 * from the cluster settings); NULL: none */
	const GntParamDef *(*more_params)(void);
	/* the cluster-level lock every run of this opcode takes */
	GntLockMode bgl;
	/* running it again after a crash is harmless (tests, queries): its
	 * unit may start before "running" is durable, so a crash at that
	 * moment queues it again instead of failing it */
	gboolean idempotent;
};

/* An opcode table: every opcode the engine can run. jobqueue/ knows no
 * opcode itself; the daemon registers a table before the first job is
 * parsed (gnt_opcode_register_table(): masterd registers cmdlib's,
 * gnt_cmdlib_op_table in gnt-cmdlib.h). */
struct _GntOpTable {
	/* the parts, each a NULL-terminated list of rows; NULL-terminated */
	const GntOpDef *const *const *parts;
	/* the parameters every opcode takes (dry_run, priority, depends, ...) */
	const GntParamDef *common_params;
	/* Ganeti's OP_IDs, NULL-terminated: one missing from @parts is "not
	 * supported by Gantry" rather than unknown */
	const gchar *const *ganeti_op_ids;
};

/* Whether @value (not null) has the row's type, is one of its choices and
 * passes its check: what parsing an opcode asks of every given value and
 * the table self-test of every default and choice. */
gboolean
gnt_param_def_check_value(const GntParamDef *pdef, JsonNode *value, GError **error);

/* The rows of @def, in the order they are parsed and shown: its own, the
 * built ones, the common ones (each terminated by a row with name NULL). */
#define GNT_OP_DEF_N_PARAM_TABLES 3
void
gnt_op_def_get_param_tables(const GntOpDef *def,
			    const GntParamDef *tables[GNT_OP_DEF_N_PARAM_TABLES]);

/* @def's row (or the common one) named @name, or NULL. */
const GntParamDef *
gnt_op_def_find_param(const GntOpDef *def, const gchar *name);

G_END_DECLS
