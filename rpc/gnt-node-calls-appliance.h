#pragma once

#include "gnt-node-calls.h"

G_BEGIN_DECLS

/*
 * The master's calls of noded's appliance_start (noded/gnt-noded-appliance.h,
 * doc/appliance.md "Running" and "Sessions"), for the install's appliance
 * step: @node is the node record, failures name the node. The session is
 * followed with gnt_node_call_session_follow() (gnt-node-calls-session.h).
 */

/* the session's timeout on the master is the options' "timeout" plus this
 * (the channel, the package's download, the teardown) */
#define GNT_NODE_CALL_APPLIANCE_MARGIN_S 600

/* One progress entry the agent reported ({"seq", "time", "step", "state",
 * "detail", "output"}, borrowed), in order, each once; called in the
 * calling thread. */
typedef void (*GntNodeCallApplianceProgressFunc)(JsonObject *entry, gpointer user_data);

/* Starts the install appliance for the spec's instance with @options
 * ({"record", "package_url", "package_username", "package_password",
 * "timeout", "debug", "reinstall", "steps"}); returns the session's token
 * (transfer full). */
gchar *
gnt_node_call_appliance_start(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			      JsonObject *options, GError **error);
/* How long the master follows a session started with @options. */
guint
gnt_node_call_appliance_timeout(JsonObject *options);

/*
 * Starts the appliance and follows its session to the end, handing each
 * progress entry to @progress (nullable), the ones the final answer
 * carries too. Returns the session's result {"seconds", "steps",
 * "console_tail"}. (transfer full)
 */
JsonObject *
gnt_node_call_appliance_run(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			    JsonObject *options, GntNodeCallApplianceProgressFunc progress,
			    gpointer user_data, GError **error);

G_END_DECLS
