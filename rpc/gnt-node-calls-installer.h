#pragma once

#include "gnt-node-calls.h"

G_BEGIN_DECLS

/*
 * The master's calls of noded's installer_start (noded/gnt-noded-installer.h,
 * doc/kickstart.md "Running the installer") for a kickstart install: @node
 * is the node record, failures name the node. The session is followed with
 * gnt_node_call_session_follow() (gnt-node-calls-session.h): each callback
 * reaches the master as soon as metad has it.
 */

/* The options' defaults when absent (the cluster's settings give them). */
#define GNT_INSTALLER_MEMORY_MIB      2048
#define GNT_INSTALLER_TIMEOUT_START_S 600
#define GNT_INSTALLER_TIMEOUT_END_S   3600
#define GNT_INSTALLER_GRACE_S	      60

/* the session's timeout on the master is the options' clocks and grace
 * plus this (the artifacts through the cache, the channel, the teardown) */
#define GNT_NODE_CALL_INSTALLER_MARGIN_S 900

/* One event of the installer's callbacks ({"seq", "time", "status",
 * "message"}, borrowed; status start, end, error, refused or ignored), in
 * order, each once, in the calling thread. */
typedef void (*GntNodeCallInstallerEventFunc)(JsonObject *event, gpointer user_data);

/* Starts the installer's session (options: see installer_start); returns
 * its token (transfer full). */
gchar *
gnt_node_call_installer_start(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			      JsonObject *options, GError **error);
/* How long the master follows a session started with @options. */
guint
gnt_node_call_installer_timeout(JsonObject *options);

/*
 * Starts the installer for the spec's instance with @options and follows
 * its session, handing each event to @event_cb (nullable), the ones the
 * final answer carries too.
 * Returns the node's answer {"seconds", "events", "console_tail"}.
 * (transfer full)
 */
JsonObject *
gnt_node_call_installer_run(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			    JsonObject *options, GntNodeCallInstallerEventFunc event_cb,
			    gpointer user_data, GError **error);

G_END_DECLS
