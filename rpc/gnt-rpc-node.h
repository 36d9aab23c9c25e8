#pragma once

#include "gnt-paths.h"
#include "gnt-rpc-server.h"

G_BEGIN_DECLS

/*
 * The procedures every gantry-noded answers, whatever else is registered:
 *
 *	version []		{"protocol": 1, "software": "0.1.0"}
 *	test_delay [seconds]	sleeps (OP_TEST_DELAY on_nodes), null
 *	join_status []		{"node": CN, "cluster": ..., "ca_fingerprint": ...,
 *				 "join_endpoint": whether this node serves "join"}
 *
 * @paths must outlive @server.
 */
void
gnt_rpc_node_add_procedures(GntRpcServer *server, const GntPaths *paths);

G_END_DECLS
