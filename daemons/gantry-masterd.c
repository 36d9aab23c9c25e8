/*
 * gantry-masterd: the master daemon. Options, wiring and signals only: the
 * cluster model is config/, the job queue jobqueue/, the LUXI server luxi/,
 * and what every daemon does (pid file, detaching, systemd) common/gnt-daemon.
 */
#include <unistd.h>

#include "gnt-cmdlib.h"
#include "gnt-config.h"
#include "gnt-daemon.h"
#include "gnt-error.h"
#include "gnt-lu-env.h"
#include "gnt-luxi-server.h"
#include "gnt-paths.h"
#include "gnt-queue.h"
#include "gnt-recovery.h"
#include "gnt-rpc-client.h"
#include "gnt-ssconf.h"

#define MASTERD_NAME		   "gantry-masterd"
#define MASTERD_DEFAULT_MAX_JOBS   20
#define MASTERD_SHUTDOWN_GRACE_MS  5000
#define MASTERD_AUTO_ARCHIVE_AGE_S (6 * 3600)
/* how often half-made instances are looked for again (gnt-recovery.h) */
#define MASTERD_RECOVERY_INTERVAL_S 300

typedef struct {
	gchar *root;
	gboolean foreground;
	gboolean debug;
	gboolean verbose;
	gint max_running_jobs; /* 0: the cluster's setting */
	gint auto_archive_age; /* seconds; 0: never */
} MasterdOptions;

/* What runs once start-up is over; torn down in reverse order. */
typedef struct {
	GntLuEnv env;
	GntConfig *config;
	GntQueue *queue;
	GntLuxiServer *server;
	GntRecovery *recovery;
	guint recovery_timer;
	GntSsconfWatch *ssconf;
} Master;

static void
masterd_options_clear(MasterdOptions *self)
{
	g_free(self->root);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(MasterdOptions, masterd_options_clear)

static const gchar masterd_help[] =
	"The master daemon of a Gantry cluster: it owns the cluster configuration\n"
	"(<root>/var/lib/gantry/config.db) and the job queue (queue.db), runs jobs,\n"
	"and answers LUXI requests (what every gnt-* command sends) on the socket\n"
	"<root>/run/gantry/socket/gantry-master.\n"
	"\n"
	"The root is --root, else $GANTRY_ROOT, else /. Without --foreground the\n"
	"daemon detaches and the command returns once it is ready (exit 0) or has\n"
	"failed to start (exit 1, with the reason on stderr); its log is then\n"
	"<root>/var/log/gantry/gantry-masterd.log. In the foreground it logs to\n"
	"stderr and tells systemd when it is ready (Type=notify). Only one masterd\n"
	"runs per root: <root>/run/gantry/gantry-masterd.pid is locked while it runs.\n"
	"SIGTERM or SIGINT stop it: no new requests are read, running jobs get\n"
	"5 seconds to finish, and jobs still running fail at the next start.\n"
	"An instance whose create never finished (the master was killed, or the\n"
	"node could not undo it) is removed by a job masterd submits at start-up\n"
	"and every 5 minutes until none is left.\n"
	"\n"
	"There must be a cluster under the root: run gnt-cluster init first.";

static void
master_clear(gpointer state)
{
	Master *self = state;

	g_clear_handle_id(&self->recovery_timer, g_source_remove);
	if (self->server != NULL)
		gnt_luxi_server_stop(self->server);
	if (self->queue != NULL)
		gnt_queue_shutdown(self->queue, MASTERD_SHUTDOWN_GRACE_MS);
	g_clear_object(&self->server);
	g_clear_pointer(&self->recovery, gnt_recovery_free);
	g_clear_object(&self->queue);
	g_clear_object(&self->env.rpc);
	g_clear_pointer(&self->ssconf, gnt_ssconf_watch_free);
	g_clear_object(&self->config);
}

/* GNT_ERROR_NOT_FOUND: the root holds no cluster (no config database). */
static void
set_no_cluster_error(const GntPaths *paths, GError **error)
{
	g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND,
		    "no cluster under root '%s': run gnt-cluster init first",
		    gnt_paths_get_root(paths));
}

static gboolean
recovery_cb(gpointer user_data)
{
	Master *self = user_data;

	gnt_recovery_run(self->recovery);
	return G_SOURCE_CONTINUE;
}

static gboolean
master_start(gpointer state, const GntPaths *paths, gconstpointer options, GError **error)
{
	Master *self = state;
	const MasterdOptions *opts = options;
	g_autoptr(GError) rpc_error = NULL;
	gint64 max_running = opts->max_running_jobs;

	self->config = gnt_config_open(gnt_paths_get_config_db(paths), error);
	if (self->config == NULL) {
		if (g_error_matches(*error, GNT_ERROR, GNT_ERROR_NOT_FOUND)) {
			g_clear_error(error);
			set_no_cluster_error(paths, error);
		}
		return FALSE;
	}
	self->env.config = self->config;
	self->env.paths = paths;
	/* Ganeti's ssconf files, for scripts that read them (gnt-cluster getmaster) */
	self->ssconf = gnt_ssconf_watch_new(self->config, gnt_paths_get_data_dir(paths), error);
	if (self->ssconf == NULL)
		return FALSE;
	/* the cluster's certificates let units call the nodes */
	self->env.rpc = gnt_rpc_client_new_from_paths(paths, &rpc_error);
	if (self->env.rpc == NULL)
		g_message("jobs that need nodes will fail: %s", rpc_error->message);
	self->queue = gnt_queue_new(gnt_paths_get_queue_db(paths), &self->env, error);
	if (self->queue == NULL)
		return FALSE;
	gnt_queue_set_units(self->queue, gnt_cmdlib_units); /* by cmdlib's units */
	if (max_running <= 0)
		max_running = gnt_config_get_max_running_jobs(self->config);
	if (max_running <= 0)
		max_running = MASTERD_DEFAULT_MAX_JOBS;
	gnt_queue_set_max_running(self->queue, (guint)max_running);
	gnt_queue_set_auto_archive(self->queue, (guint)opts->auto_archive_age);
	self->server = gnt_luxi_server_new(self->queue, self->config);
	gnt_luxi_server_set_rpc(self->server, self->env.rpc);
	if (!gnt_luxi_server_listen(self->server, gnt_paths_get_luxi_socket(paths), error))
		return FALSE;
	gnt_queue_start(self->queue);
	/* what a killed master (or an unreachable node) left half done is
	 * undone now, and retried until nothing is left */
	self->recovery = gnt_recovery_new(self->queue, self->config);
	gnt_recovery_run(self->recovery);
	self->recovery_timer =
		g_timeout_add_seconds(MASTERD_RECOVERY_INTERVAL_S, recovery_cb, self);
	g_message("started (pid %d, root '%s', at most %" G_GINT64_FORMAT " jobs running)",
		  (int)getpid(), gnt_paths_get_root(paths), max_running);
	return TRUE;
}

static gboolean
parse_options(int *argc, char ***argv, MasterdOptions *opts, GError **error)
{
	const GOptionEntry entries[] = {
		GNT_DAEMON_OPTION_ENTRIES(opts, "Log debug messages"),
		{"max-running-jobs", 0, 0, G_OPTION_ARG_INT, &opts->max_running_jobs,
		 "Run at most N jobs at once (default: the cluster's max_running_jobs, 20)", "N"},
		{"auto-archive-age", 0, 0, G_OPTION_ARG_INT, &opts->auto_archive_age,
		 "Archive finished jobs once they are SECONDS old, checking every 5 minutes "
		 "(default: 21600, six hours, as Ganeti's watcher; 0: never)",
		 "SECONDS"},
		{NULL},
	};

	if (!gnt_daemon_parse_options(argc, argv, entries, "The Gantry master daemon.",
				      masterd_help, error))
		return FALSE;
	if (opts->auto_archive_age < 0) {
		g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "--auto-archive-age must be 0 or more seconds, not '%d'",
			    opts->auto_archive_age);
		return FALSE;
	}
	if (opts->max_running_jobs < 0) {
		g_set_error(
			error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			"--max-running-jobs must be 0 (the cluster's setting) or more, not '%d'",
			opts->max_running_jobs);
		return FALSE;
	}
	return TRUE;
}

/* Before anything is created or detached: there must be a cluster. */
static gboolean
check_cluster(const GntPaths *paths, gconstpointer options, GError **error)
{
	if (g_file_test(gnt_paths_get_config_db(paths), G_FILE_TEST_EXISTS))
		return TRUE;
	set_no_cluster_error(paths, error);
	return FALSE;
}

int
main(int argc, char **argv)
{
	g_auto(MasterdOptions) opts = {.auto_archive_age = MASTERD_AUTO_ARCHIVE_AGE_S};
	g_autoptr(GError) error = NULL;
	Master master = {0};

	gnt_daemon_use_system_malloc(argv);
	/* the engine runs the opcodes cmdlib/ defines */
	gnt_opcode_register_table(&gnt_cmdlib_op_table);
	if (!parse_options(&argc, &argv, &opts, &error))
		return gnt_daemon_usage_error(MASTERD_NAME, error);
	return gnt_daemon_main(&(const GntDaemonSpec){
		.name = MASTERD_NAME,
		.root = opts.root,
		.foreground = opts.foreground,
		.verbose = opts.verbose,
		.debug = opts.debug,
		.check = check_cluster,
		.start = master_start,
		.clear = master_clear,
		.state = &master,
		.options = &opts,
	});
}
