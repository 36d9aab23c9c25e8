#pragma once

#include "gnt-node-calls.h"

G_BEGIN_DECLS

/*
 * The master's call of noded's node_verify (noded/gnt-noded-verify.c,
 * doc/node-rpc.md), in the manner of gnt-node-calls.h: @node is the node
 * record, failures name the node.
 */

/*
 * What cluster verify needs from @node. @hypervisors: the cluster's
 * enabled ones; @storage: {"volume_group_name", "file_storage_dir"} (the
 * instance spec's "storage"); @os_search_path: the cluster's. The answer:
 * {"version": [protocol, software], "time": [s, us], "node_info": (as
 * gnt_node_call_node_info()), "instance_list": (as
 * gnt_node_call_instance_list()), "os_diagnose": (as
 * gnt_node_call_os_diagnose()), "certificate": {"path", "not_before",
 * "not_after" (s)} or {"path", "error"}, "volumes": {"file"|"plain":
 * {"<volume>": bytes}, "file_error"|"plain_error": message}, "taps":
 * [{"name", "instance" (or null)}]}; a part that failed is missing and
 * "<part>_error" holds why. (transfer full)
 */
JsonObject *
gnt_node_call_node_verify(GntRpcClient *client, JsonObject *node, const gchar *const *hypervisors,
			  JsonObject *storage, const gchar *const *os_search_path, GError **error);

G_END_DECLS
