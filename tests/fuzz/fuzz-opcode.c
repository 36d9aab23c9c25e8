/* libFuzzer target: opcode parsing, as SubmitJob feeds it (the JSON text of
 * one opcode object), then its JSON form and a rebuild from the store. */
#include "gnt-cmdlib.h"
#include "gnt-json.h"
#include "gnt-luxi-codec.h"
#include "gnt-opcode.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv);
int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size);

/* the opcodes masterd runs (it registers the same table) */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	gnt_opcode_register_table(&gnt_cmdlib_op_table);
	return 0;
}

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size)
{
	g_autoptr(JsonNode) root = NULL;
	g_autoptr(GntOpcode) op = NULL;
	g_autoptr(JsonObject) shown = NULL;
	g_autoptr(JsonObject) private_values = NULL;
	g_autoptr(GntOpcode) again = NULL;

	/* LUXI refuses deep nesting before any JSON parser runs (json-glib
	 * recurses and would overflow the stack); do the same here */
	if (!gnt_json_check_nesting((const gchar *)data, size, GNT_JSON_MAX_NESTING, NULL))
		return 0;
	root = gnt_json_parse((const gchar *)data, (gssize)size, NULL);
	if (root == NULL || !JSON_NODE_HOLDS_OBJECT(root))
		return 0;
	op = gnt_opcode_new_from_json(json_node_get_object(root), NULL);
	if (op == NULL)
		return 0;
	shown = gnt_opcode_to_json(op);
	private_values = gnt_opcode_dup_private(op);
	again = gnt_opcode_new_from_store(shown, private_values, NULL);
	if (gnt_opcode_get_id(op) == NULL || shown == NULL || again == NULL)
		__builtin_trap();
	return 0;
}
