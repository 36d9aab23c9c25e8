/* Opcodes of instances. */
#include "gnt-opcode-private.h"

const GntOpDef *const gnt_op_defs_instance[] = {
	NULL,
};
