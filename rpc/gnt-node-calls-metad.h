#pragma once

#include "gnt-node-calls.h"

G_BEGIN_DECLS

/*
 * The master's calls of noded's metad procedures (noded/gnt-noded-metad.h,
 * doc/metad.md), in the manner of gnt-node-calls.h: @node is the node
 * record (the instance's primary node), failures name the node.
 */

/*
 * Gives the node's metad the metadata of instance @name: @record is what
 * metadata/gnt-metadata.h describes, without "osparams_secret", which
 * @osparams_secret (nullable; {name: value}) supplies: the secrets go in
 * this request only (metad keeps them in memory until the next push).
 */
gboolean
gnt_node_call_metad_push(GntRpcClient *client, JsonObject *node, const gchar *name,
			 JsonObject *record, const GntSecretDict *osparams_secret, GError **error);

/* Makes the node's metad forget instance @name (unknown: not an error). */
gboolean
gnt_node_call_metad_remove(GntRpcClient *client, JsonObject *node, const gchar *name,
			   GError **error);

G_END_DECLS
