#pragma once /* noded/gnt-noded-appliance.h: noded's install appliance procedures */

#include "gnt-hypervisor.h"
#include "gnt-noded-private.h"
#include "gnt-noded.h"
#include "gnt-rpc-server.h"

G_BEGIN_DECLS

/*
 * noded's install appliance procedures (doc/node-rpc.md, doc/appliance.md
 * "Running"), called with the GntRpcNode as user data
 * (gnt_rpc_node_add_instance_procedures registers them):
 *
 *	appliance_start [spec, token, options]
 *		options {"record", "package_url", "package_username",
 *		"package_password", "timeout", "debug", "reinstall", "steps"}:
 *		starts install session @token (gnt-noded-session.h) and
 *		answers at once. The session makes the instance's channel,
 *		pushes the record and the channel to metad, fetches and
 *		sanitizes the package and gives it to metad, boots the
 *		appliance and waits for it; tears everything down on every
 *		path. Its entries are the agent's progress reports, its
 *		result {"seconds", "steps": [progress entries],
 *		"console_tail"}; it fails naming the step the agent reported
 *		failed, or the timeout with the console's last lines.
 */
extern const GntRpcProcedure gnt_rpc_node_appliance_procedures[];

/* What appliance sessions a killed noded left (<run>/appliance/<name>):
 * the domain destroyed, the channel, metad's package, progress and record
 * (unless the instance keeps it), the directory. Called when noded
 * starts; failures are logged. */
void
gnt_rpc_node_appliance_recover(GntRpcNode *node);

/* Where the node keeps the built appliance: <data>/appliance (transfer full) */
gchar *
gnt_rpc_node_dup_appliance_dir(GntRpcNode *node);

/* The agent to run for the fake hypervisor: $GANTRY_APPLIANCE_AGENT, else
 * the built appliance's copy, else the installed one, else (daemons run
 * from a build tree) the source tree's. (transfer full) */
gchar *
gnt_rpc_node_dup_appliance_agent(GntRpcNode *node);

/* The environment variable that names the agent the fake hypervisor runs
 * (default: <appliance dir>/agent). */
#define GNT_APPLIANCE_AGENT_ENV "GANTRY_APPLIANCE_AGENT"
/* A test hook (doc/appliance.md "Reboots"): a file noded copies over the
 * appliance's manifest.json between two boots of one session, as if the
 * appliance had been rebuilt meanwhile. Tests only. */
#define GNT_APPLIANCE_SWAP_TEST_ENV "GANTRY_TEST_APPLIANCE_SWAP"

/* Set to "1" in noded's environment: never make taps, always use the slirp
 * fallback (for tests of the fallback on machines that can make taps). */
#define GNT_CHANNEL_SLIRP_ENV "GANTRY_CHANNEL_SLIRP"

/*
 * The link-local channel of instance @name (doc/metad.md "Channel"): for
 * the fake hypervisor metad's per-instance unix socket; else a routed tap
 * (gnt-channel.h) with metad's device-bound listener and DHCP for @mac/@ip
 * on it, or, where taps cannot be made, the slirp fallback to that unix
 * socket. metad must know the instance already (its record pushed). The
 * tap's name is kept in <run>/channel/<name> until
 * gnt_rpc_node_channel_close(). (transfer full)
 */
GntHvChannelNic *
gnt_rpc_node_channel_open(GntRpcNode *node, const gchar *hypervisor, const gchar *name,
			  const gchar *mac, const gchar *ip, GError **error);
/* Undoes gnt_rpc_node_channel_open(): metad's channel, the tap, the state
 * file. Anything already gone is fine; failures are logged, not returned
 * (teardown must go on). */
void
gnt_rpc_node_channel_close(GntRpcNode *node, const gchar *name);
/* Whether a channel of @name is open (its state file exists). */
gboolean
gnt_rpc_node_channel_is_open(GntRpcNode *node, const gchar *name);
/* The NIC of the open channel of @name (a reboot, a second start); NULL
 * when none is open or its tap is gone. (transfer full) */
GntHvChannelNic *
gnt_rpc_node_channel_dup_nic(GntRpcNode *node, const gchar *name, const gchar *mac);

/* Whether the spec's instance has communication=yes; then *@mac and *@ip
 * (borrowed) are its "communication_nic"'s, which must be there
 * (GNT_ERROR_INVALID naming the instance otherwise). */
gboolean
gnt_rpc_node_spec_get_communication(GntRpcNodeSpec *spec, gboolean *communication,
				    const gchar **mac, const gchar **ip, GError **error);

G_END_DECLS
