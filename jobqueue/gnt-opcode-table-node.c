/* Opcodes of nodes, tags, OS definitions and cluster settings. */
#include "gnt-opcode-private.h"

const GntOpDef *const gnt_op_defs_node[] = {
	NULL,
};
