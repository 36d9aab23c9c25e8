#pragma once

#include <sys/types.h>

#include "gnt-paths.h"

G_BEGIN_DECLS

/*
 * Starting and stopping a node's daemons, for gantry-daemons and
 * gnt-cluster init/destroy (Ganeti's daemon-util): gantry-noded and
 * gantry-metad on every node, gantry-masterd and gantry-rapi on the master (the node holding
 * config.db). The pid
 * file's fcntl() lock, not its content, tells whether a daemon runs, so a
 * stale file after kill -9 is harmless.
 */
#define GNT_CLI_MASTERD "gantry-masterd"
#define GNT_CLI_NODED	"gantry-noded"
#define GNT_CLI_RAPI	"gantry-rapi"
#define GNT_CLI_METAD	"gantry-metad"

/* The daemons this node runs, in start order (stop goes backwards):
 * gantry-noded, gantry-metad, then gantry-masterd and gantry-rapi where
 * there is a cluster config. (transfer container) */
GPtrArray *
gnt_cli_node_daemons(const GntPaths *paths);

/* Where gantry-noded listens, as given at init or join ("ADDR:PORT", kept
 * in <data>/noded-listen), or NULL for its default. (transfer full) */
gchar *
gnt_cli_dup_noded_listen(const GntPaths *paths);
gboolean
gnt_cli_set_noded_listen(const GntPaths *paths, const gchar *listen, GError **error);

/* The port gantry-rapi listens on, as given at init (kept in
 * <data>/rapi-port), or NULL for its default, 5080. (transfer full) */
gchar *
gnt_cli_dup_rapi_port(const GntPaths *paths);
gboolean
gnt_cli_set_rapi_port(const GntPaths *paths, guint port, GError **error);

/* Starts every daemon of gnt_cli_node_daemons() not yet running, giving
 * @masterd_args (may be NULL) to gantry-masterd; @already_running (may be
 * NULL) gets the names of those left alone. */
gboolean
gnt_cli_node_daemons_start(const GntPaths *paths, gchar **masterd_args, GPtrArray **already_running,
			   GError **error);
/* Stops them: gantry-rapi, gantry-masterd, then the rest. */
gboolean
gnt_cli_node_daemons_stop(const GntPaths *paths, guint timeout_s, GError **error);

/* Where the daemon programs are: $GANTRY_DAEMON_DIR, else the directory of
 * this program, else ../daemons next to it (the build tree), else the
 * installed sbindir. NULL with GNT_ERROR_NOT_FOUND naming the places
 * looked at. (transfer full) */
gchar *
gnt_cli_find_daemon(const gchar *daemon, GError **error);

/* The live process holding @daemon's pid file, or 0. */
gboolean
gnt_cli_daemon_get_pid(const GntPaths *paths, const gchar *daemon, pid_t *pid, GError **error);

/*
 * Starts @daemon under the root of @paths with @extra_args (may be NULL)
 * and returns once it is ready, or fails with its own start-up error. A
 * daemon already running is left alone: *@already_running (may be NULL) is
 * set and the call succeeds.
 */
gboolean
gnt_cli_daemon_start(const GntPaths *paths, const gchar *daemon, gchar **extra_args,
		     gboolean *already_running, GError **error);

/* Sends SIGTERM and waits up to @timeout_s seconds for the daemon to exit,
 * then SIGKILLs it. Not running is fine. */
gboolean
gnt_cli_daemon_stop(const GntPaths *paths, const gchar *daemon, guint timeout_s, GError **error);

G_END_DECLS
