#pragma once

#include "gnt-config.h"
#include "gnt-object-query.h"
#include "gnt-rpc-client.h"

G_BEGIN_DECLS

/*
 * Asking the nodes for what a query's live fields show (memory and disk
 * of a node, what runs on it): the one place that knows which node
 * procedure answers which live field and how its answer becomes
 * GntLiveData's shape (doc/query.md, "Asking the nodes"). masterd's LUXI
 * queries collect it for every node at once; a logical unit asks one
 * node at a time.
 */

/* How long a query waits for each node (per step: connect, handshake,
 * answer). */
#define GNT_LIVE_PROBE_TIMEOUT_S 5

/*
 * What @node (its config record) runs under @hypervisors, as GntLiveData's
 * "instances": {NAME: {"state", "memory", "vcpus", ...}}, a guest that shut
 * itself off being "shutdown" as Ganeti's hypervisors say; waiting
 * @timeout_s, or with 0 the procedure table's timeout. NULL with @error
 * when the node cannot be asked or answers something else than an
 * object. (transfer full)
 */
JsonObject *
gnt_live_probe_instances(GntRpcClient *rpc, JsonObject *node, const gchar *const *hypervisors,
			 guint timeout_s, GError **error);

/*
 * Collects the live data of a query of @kind (GNT_OBJECT_INSTANCE: the
 * nodes that are primary of an instance, about their instances'
 * hypervisors; GNT_OBJECT_NODE: every node, node_info about the enabled
 * hypervisors and the default template's storage). Offline and
 * non-vm_capable nodes are not asked; a node that fails is marked failed
 * (gnt_live_data_set_node_failed()), which is an answer, not an error.
 * The nodes are asked from worker threads; @callback runs in the thread
 * default main context of the caller. Everything needed is copied out of
 * @config before this returns.
 */
void
gnt_live_probe_collect_async(GntConfig *config, GntRpcClient *rpc, GntObjectKind kind,
			     GAsyncReadyCallback callback, gpointer user_data);
/* (transfer full) */
GntLiveData *
gnt_live_probe_collect_finish(GAsyncResult *result, GError **error);

/* Frees @live (transfer full) on a pool thread: what the nodes said about
 * 10,000 running instances takes 20 ms to free. Nothing else may refer
 * to it. */
void
gnt_live_data_free_later(GntLiveData *live);

G_END_DECLS
