#pragma once

#include <glib.h>

#include "gnt-paths.h"
#include <sys/types.h>

G_BEGIN_DECLS

/*
 * What every Gantry daemon shares: a pid file guarded by an fcntl() lock,
 * detaching from the terminal, start-up reporting to whoever started it,
 * systemd's readiness protocol, process hardening and stop signals.
 *
 * A daemon's life runs, in this order (gnt_daemon_main() below does it all
 * once the options are parsed):
 *
 *	gnt_daemon_new()            (before any thread exists)
 *	gnt_daemon_detach()         (unless --foreground; returns in both processes)
 *	gnt_daemon_catch_stop(), gnt_daemon_harden(), gnt_daemon_lock_pid_file()
 *	its own set-up (listening sockets)
 *	gnt_daemon_run(): gnt_daemon_notify_ready() and the main loop
 *	                            (or gnt_daemon_notify_failed() and exit 1)
 *	gnt_daemon_notify_stopping(), its own shut-down, gnt_daemon_free()
 */

typedef struct _GntDaemon GntDaemon;

/* @name: "gantry-masterd"; @pid_file: where its pid file lives
 * (gnt_paths_dup_pid_file()). Nothing is touched until the calls below. */
GntDaemon *
gnt_daemon_new(const gchar *name, const gchar *pid_file);
/* Releases the pid file (removing it if this process holds its lock). */
void
gnt_daemon_free(GntDaemon *self);

/*
 * Detaches like a classic daemon: fork, setsid, fork again, chdir("/"),
 * umask 027, stdin/stdout/stderr on /dev/null. Must be called before any
 * thread exists (no GMainLoop, no g_unix_signal_add() yet).
 *
 * Returns in two processes. In the daemon, TRUE with *@is_daemon TRUE. In
 * the calling process, once the daemon has called notify_ready() (TRUE,
 * *@is_daemon FALSE: exit 0), or notify_failed() or died during start-up
 * (FALSE, the daemon's own error message, GNT_ERROR_ENVIRONMENT if it died
 * silently). A failed fork() fails in the calling process.
 */
gboolean
gnt_daemon_detach(GntDaemon *self, gboolean *is_daemon, GError **error);

/*
 * Takes the pid file: opens or creates it, takes an exclusive fcntl() lock
 * and writes our pid. Another live process holding the lock fails with
 * GNT_ERROR_EXISTS ("... is already running (pid N)"); a stale file left by
 * a killed process holds no lock and is simply reused. The lock belongs to
 * this process, so call it after gnt_daemon_detach().
 */
gboolean
gnt_daemon_lock_pid_file(GntDaemon *self, GError **error);

/*
 * Process hardening: no core dumps or ptrace by other users
 * (PR_SET_DUMPABLE 0: secrets must not reach a core file), RLIMIT_NOFILE
 * raised to its hard limit, SIGPIPE ignored.
 */
gboolean
gnt_daemon_harden(GError **error);

/* Start-up is over: tells the process waiting in gnt_daemon_detach() (if
 * any) and systemd (READY=1 when $NOTIFY_SOCKET is set). */
void
gnt_daemon_notify_ready(GntDaemon *self);
/* Start-up failed: hands @error's message to the waiting process, if any.
 * The caller still prints or logs it and exits. */
void
gnt_daemon_notify_failed(GntDaemon *self, const GError *error);
/* Tells systemd we are stopping (STOPPING=1). */
void
gnt_daemon_notify_stopping(GntDaemon *self);

/* Sends @state ("READY=1", ...) to $NOTIFY_SOCKET; FALSE if it is unset or
 * the datagram could not be sent (not an error for a daemon). */
gboolean
gnt_daemon_sd_notify(const gchar *state);

/* Calls @func (in the main context) on SIGTERM and SIGINT. */
void
gnt_daemon_add_stop_handler(GntDaemon *self, GSourceFunc func, gpointer user_data);

/*
 * Who holds the pid file at @pid_file: *@pid is the live process holding its
 * lock, or 0 when nobody does (missing or stale file). Fails only when the
 * file exists but cannot be read.
 */
gboolean
gnt_daemon_get_running_pid(const gchar *pid_file, pid_t *pid, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntDaemon, gnt_daemon_free)

/* Creates the root's directories and sets up logging: to
 * <root>/var/log/gantry/@name.log when detaching, else to stderr. */
gboolean
gnt_daemon_prepare(const GntPaths *paths, const gchar *name, gboolean foreground, gboolean verbose,
		   gboolean debug, GError **error);

/* Tells whoever started the daemon why start-up failed, and says it where
 * an operator sees it: stderr in the foreground, else the log. */
void
gnt_daemon_report_start_failure(GntDaemon *self, gboolean foreground, const GError *error);

/* Makes SIGTERM and SIGINT quit @loop from now on, also when they come
 * before it runs. Call before the daemon starts answering (listening
 * sockets): a client that sees it ready may stop it at once, and the
 * default action would kill it with its work half done. */
void
gnt_daemon_catch_stop(GntDaemon *self, GMainLoop *loop);

/* Runs @loop until SIGTERM or SIGINT (gnt_daemon_catch_stop() unless
 * done): tells whoever started the daemon (and systemd) that it is ready,
 * reopens the log on SIGHUP (logrotate), and tells systemd it is stopping
 * on the way out. @loop must outlive @self: the stop handler keeps a
 * pointer to it. */
void
gnt_daemon_run(GntDaemon *self, GMainLoop *loop);

/* GLib before 2.76 hands out small blocks from its slice allocator, which
 * keeps every page it ever used: one burst of jobs would stay resident for
 * the daemon's life. GLib reads G_SLICE once, before main() runs, so this
 * re-executes the daemon with G_SLICE=always-malloc (the system allocator,
 * which gives memory back). Call first thing in main(); returns only if
 * nothing had to change or the re-exec failed. */
void
gnt_daemon_use_system_malloc(char **argv);

/*
 * What a daemon tells gnt_daemon_main(): its name and the options every
 * daemon has, and its own parts. @state is what its start-up makes (a
 * struct in main()), @options its parsed options; both are handed back.
 */
typedef struct {
	const gchar *name; /* "gantry-masterd": messages, pid file, log file */
	const gchar *root; /* --root; NULL: $GANTRY_ROOT, else / */
	gboolean foreground;
	gboolean verbose;
	gboolean debug;
	/* Optional: a reason not to start at all, found before anything is
	 * created or detached (masterd: no cluster under the root). */
	gboolean (*check)(const GntPaths *paths, gconstpointer options, GError **error);
	/* The daemon's own start-up, in the daemon process, hardened, holding
	 * the pid file and with SIGTERM and SIGINT already caught: ends with it
	 * listening and logs that it started. */
	gboolean (*start)(gpointer state, const GntPaths *paths, gconstpointer options,
			  GError **error);
	/* Its own shut-down, after the main loop or a failed start-up, before
	 * the pid file is released; must cope with a half-made @state. */
	void (*clear)(gpointer state);
	gpointer state;
	gconstpointer options;
} GntDaemonSpec;

/*
 * A daemon's main() once its options are parsed: makes the root's
 * directories and the log (stderr: "NAME: MESSAGE", exit 1, on failure),
 * detaches unless foreground (the starting process exits 0 once the daemon
 * is ready, 1 with its message if not), then in the daemon: catches stop
 * signals, hardens, takes the pid file, @spec->start, runs until SIGTERM or
 * SIGINT, @spec->clear, logs "stopped" (in the log domain @spec->name).
 * Answers the exit code.
 */
int
gnt_daemon_main(const GntDaemonSpec *spec);

/* Parses a daemon's command line with @entries (--help shows @summary and
 * @description); an argument that is not an option is refused. */
gboolean
gnt_daemon_parse_options(int *argc, char ***argv, const GOptionEntry *entries, const gchar *summary,
			 const gchar *description, GError **error);

/* A command line @name could not parse: prints "NAME: MESSAGE" and the hint
 * to try --help on stderr, and answers 2, the exit code for it. */
int
gnt_daemon_usage_error(const gchar *name, const GError *error);

/* The options every daemon takes, as GOptionEntry initialisers over
 * @opts, a struct with the members root, foreground, debug and verbose;
 * @debug_text says what --debug logs. */
#define GNT_DAEMON_OPTION_ENTRIES(opts, debug_text)                                                \
	{"root",                                                                                   \
	 0,                                                                                        \
	 0,                                                                                        \
	 G_OPTION_ARG_FILENAME,                                                                    \
	 &(opts)->root,                                                                            \
	 "The root all cluster files live under (default: $GANTRY_ROOT, else /)",                  \
	 "DIR"},                                                                                   \
		{"foreground",                                                                     \
		 'f',                                                                              \
		 0,                                                                                \
		 G_OPTION_ARG_NONE,                                                                \
		 &(opts)->foreground,                                                              \
		 "Don't detach; log to stderr",                                                    \
		 NULL},                                                                            \
		{"debug", 'd', 0, G_OPTION_ARG_NONE, &(opts)->debug, debug_text, NULL},            \
	{                                                                                          \
		"verbose", 0, 0, G_OPTION_ARG_NONE, &(opts)->verbose,                              \
			"Log informational messages", NULL                                         \
	}

G_END_DECLS
