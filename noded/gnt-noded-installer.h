#pragma once /* noded/gnt-noded-installer.h: kickstart installs on the node */

#include "gnt-node-calls-installer.h"
#include "gnt-noded-private.h"
#include "gnt-noded.h"
#include "gnt-rpc-server.h"

G_BEGIN_DECLS

/*
 * noded's kickstart install procedures (doc/kickstart.md "Running the
 * installer"), with the GntRpcNode as user data:
 *
 *	installer_start [spec, token, options]
 *		options {"record", "kickstart", "agent_token",
 *		"kernel", "initrd", "stage2", "liveimg": {"url", "sha256"}
 *		(a path on the node, or an http(s) URL with its SHA-256,
 *		through the artifact cache; stage2 and liveimg nullable),
 *		"liveimg_name", "memory" (MiB), "kernel_args",
 *		"timeout_start", "timeout_end", "grace" (seconds),
 *		"cache_bytes"}: pushes the record and opens the instance's
 *		channel, gives metad the install session, boots a transient
 *		installer domain (direct kernel boot, the instance's disks,
 *		firmware and channel as its only network) and judges the
 *		installer's callbacks by two clocks: time to "start", time
 *		from "start" to "end". After "end" it waits the grace period
 *		for the power-off, then destroys the domain. Tears everything
 *		down on every path (domain, tap, metad's session and record,
 *		the cache's artifacts), in an install session named @token
 *		(gnt-noded-session.h) it answers with at once. The session's
 *		entries are metad's events (start, end, error, refused,
 *		ignored), its result {"seconds", "events", "console_tail"};
 *		it fails with the installer's error message, "installer
 *		powered off without reporting end", or a clock's timeout,
 *		each with the console's last lines.
 */
extern const GntRpcProcedure gnt_rpc_node_installer_procedures[];

/* What sessions a killed noded left (their work directories under
 * <run>/installer, gnt_noded_session_find_left()): the installer domain
 * destroyed, metad's session (when metad answers) and the channel removed,
 * the record unless the instance keeps it, the directory. Called when
 * noded starts; failures are logged. */
void
gnt_rpc_node_installer_recover(GntRpcNode *node);

/* The kernel command line of an installer for channel address @ip and the
 * image's @extra_args (nullable): inst.ks, inst.stage2 (with @stage2),
 * inst.cmdline, console=ttyS0, the channel's static address. (transfer
 * full) */
gchar *
gnt_installer_dup_cmdline(const gchar *ip, gboolean stage2, const gchar *extra_args);

G_END_DECLS
