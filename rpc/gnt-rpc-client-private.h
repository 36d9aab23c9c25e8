#pragma once

#include "gnt-rpc-client.h"

G_BEGIN_DECLS

#define GNT_RPC_DEFAULT_TIMEOUT_S 60

/* One call as gnt_rpc_client_call() makes it, checking the node with
 * @database and presenting @certificate (NULL: none; the join endpoint).
 * For rpc/ and its tests. */
JsonNode *
gnt_rpc_call_with_database(GTlsDatabase *database, GTlsCertificate *certificate,
			   const gchar *node_name, const gchar *address, guint port,
			   const gchar *procedure, JsonArray *args, guint timeout_s,
			   GError **error);

G_END_DECLS
