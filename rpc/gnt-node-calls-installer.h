#pragma once

#include "gnt-node-calls.h"

G_BEGIN_DECLS

/*
 * The master's call of noded's installer_run (noded/gnt-noded-installer.h,
 * doc/kickstart.md "Running the installer") for a kickstart install: @node
 * is the node record, failures name the node.
 */

/* The options' defaults when absent (the cluster's settings give them). */
#define GNT_INSTALLER_MEMORY_MIB      2048
#define GNT_INSTALLER_TIMEOUT_START_S 600
#define GNT_INSTALLER_TIMEOUT_END_S   3600
#define GNT_INSTALLER_GRACE_S	      60

/* how often the master asks for the installer's callbacks: the job log
 * shows start and end within this of their arrival */
#define GNT_NODE_CALL_INSTALLER_POLL_MS 50
/* the call's own timeout is the options' clocks and grace plus this (the
 * artifacts through the cache, the channel, the teardown) */
#define GNT_NODE_CALL_INSTALLER_MARGIN_S 900

/* One event of the installer's callbacks ({"seq", "time", "status",
 * "message"}, borrowed; status start, end, error, refused or ignored), in
 * order, each once, in the calling thread. */
typedef void (*GntNodeCallInstallerEventFunc)(JsonObject *event, gpointer user_data);

/*
 * Runs the installer for the spec's instance with @options (see
 * installer_run) and hands each new event to @event_cb (nullable); the
 * events of the final answer the polls missed follow before it returns.
 * Returns the node's answer {"seconds", "events", "console_tail"}.
 * (transfer full)
 */
JsonObject *
gnt_node_call_installer_run(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			    JsonObject *options, GntNodeCallInstallerEventFunc event_cb,
			    gpointer user_data, GError **error);

G_END_DECLS
