#pragma once

#include "gnt-locks.h"
#include "gnt-lu.h"
#include "gnt-opcode.h"

G_BEGIN_DECLS

/* One parameter of an opcode: a row of the declarative table. */
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
} GntParamDef;

struct _GntOpDef {
	const gchar *id;
	const gchar *summary_param;
	const GntParamDef *params; /* terminated by a row with name NULL */
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

G_END_DECLS
