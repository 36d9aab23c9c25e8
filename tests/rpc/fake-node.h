#pragma once /* tests/rpc/fake-node.h: nodes that a test scripts, for units without daemons */

#include "gnt-error.h"
#include "gnt-rpc-client.h"
#include "gnt-rpc-procedures.h"

G_BEGIN_DECLS

/*
 * A transport (gnt_rpc_client_new_with_transport()) that stands for every
 * node: it records each call's node, procedure and arguments, decoded and
 * checked against the procedure table as noded would (secrets filled in),
 * and answers from a script per procedure, failing the calls a test chose.
 * Thread-safe: units call it from job worker threads.
 */
typedef struct {
	gchar *node;
	gchar *procedure;
	GntRpcArgs *args;
} FakeCall;

typedef struct _FakeNode FakeNode;

FakeNode *
fake_node_new(void);
void
fake_node_free(FakeNode *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(FakeNode, fake_node_free)

/* The client whose calls this answers; lives as long as @self. */
GntRpcClient *
fake_node_get_client(FakeNode *self);

/* Every later call of @procedure answers @json. Without one: null, or an
 * empty list/object or {"forced": false} where the typed call needs one. */
void
fake_node_answer(FakeNode *self, const gchar *procedure, const gchar *json);
/* Call @nth (1-based, counting every call of @procedure so far and later;
 * 0: every one) of @procedure fails with @code and @message. */
void
fake_node_fail(FakeNode *self, const gchar *procedure, guint nth, GntError code,
	       const gchar *message);

/* What noded parses of a request with @args: their text with @secrets
 * (nullable) filled in, as the client sends it. (transfer full) */
JsonNode *
fake_node_send(JsonArray *args, const GntSecretDict *secrets, GError **error);

guint
fake_node_get_n_calls(FakeNode *self);
/* (transfer none) */
const FakeCall *
fake_node_get_call(FakeNode *self, guint index);
/* Call @nth (1-based) of @procedure, or NULL. (transfer none) */
const FakeCall *
fake_node_find_call(FakeNode *self, const gchar *procedure, guint nth);
/* The procedures called, in order, separated by spaces. (transfer full) */
gchar *
fake_node_dup_trace(FakeNode *self);
/* Forgets the calls made so far (not the script). */
void
fake_node_clear_calls(FakeNode *self);

G_END_DECLS
