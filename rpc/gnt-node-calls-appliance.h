#pragma once

#include "gnt-node-calls.h"

G_BEGIN_DECLS

/*
 * The master's call of noded's appliance_run (noded/gnt-noded-appliance.h,
 * doc/appliance.md "Running"), for the install's appliance step, in the
 * manner of gnt_node_call_image_write(): @node is the node record,
 * failures name the node.
 */

/* how often the master asks for the progress while the appliance runs */
#define GNT_NODE_CALL_APPLIANCE_POLL_MS 500
/* the call's own timeout is the options' "timeout" plus this (the channel,
 * the package's download, the teardown) */
#define GNT_NODE_CALL_APPLIANCE_MARGIN_S 600

/* One progress entry the agent reported ({"seq", "time", "step", "state",
 * "detail", "output"}, borrowed), in order, each once; called in the
 * calling thread. */
typedef void (*GntNodeCallApplianceProgressFunc)(JsonObject *entry, gpointer user_data);

/*
 * Runs the install appliance for the spec's instance with @options
 * ({"record", "package_url", "package_username", "package_password",
 * "timeout", "debug"}, contracts §6) and hands each new progress entry to
 * @progress (nullable), asking the node every
 * GNT_NODE_CALL_APPLIANCE_POLL_MS; the entries of the final answer that
 * the polls missed follow before it returns. Returns the node's answer
 * {"seconds", "steps", "console_tail"}. (transfer full)
 */
JsonObject *
gnt_node_call_appliance_run(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			    JsonObject *options, GntNodeCallApplianceProgressFunc progress,
			    gpointer user_data, GError **error);

G_END_DECLS
