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
	const GntLuClass *lu;
	/* running it again after a crash is harmless (tests, queries): its
	 * unit may start before "running" is durable, so a crash at that
	 * moment queues it again instead of failing it */
	gboolean idempotent;
};

/* The table, one part per area, each NULL-terminated: the core opcodes
 * (gnt-opcode-table.c), instances (gnt-opcode-table-instance.c), nodes,
 * tags, OS and cluster settings (gnt-opcode-table-node.c), exports
 * (gnt-opcode-table-backup.c). */
extern const GntOpDef *const gnt_op_defs_core[];
extern const GntOpDef *const gnt_op_defs_instance[];
extern const GntOpDef *const gnt_op_defs_node[];
extern const GntOpDef *const gnt_op_defs_backup[];
extern const GntOpDef *const gnt_op_defs_verify[]; /* gnt-opcode-table-verify.c */
extern const GntOpDef *const gnt_op_defs_group[];  /* gnt-opcode-table-group.c */

/* The parts, NULL-terminated (gnt-opcode-table.c). */
extern const GntOpDef *const *const gnt_op_tables[];
/* The parameters every opcode takes (dry_run, priority, depends, ...). */
extern const GntParamDef gnt_op_common_params[];

G_END_DECLS
