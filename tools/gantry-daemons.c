/* gantry-daemons: starts, stops and checks a node's daemons (Ganeti's
 * daemon-util), under the same --root as every other command. */
#include "gnt-cli-daemons.h"
#include "gnt-cli.h"

/* How long stop waits after SIGTERM before SIGKILL. */
#define STOP_TIMEOUT_S 30
/* LSB: "program is not running" */
#define EXIT_NOT_RUNNING 3

static gint
start_daemons(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) running = NULL;

	if (!gnt_cli_node_daemons_start(gnt_cli_get_paths(cli), args, &running, &error)) {
		g_printerr("%s\n", error->message);
		return 1;
	}
	for (guint i = 0; i < running->len; i++) {
		pid_t pid = 0;
		(void)gnt_cli_daemon_get_pid(gnt_cli_get_paths(cli), g_ptr_array_index(running, i),
					     &pid, NULL);
		g_print("%s: already running (pid %d)\n",
			(const gchar *)g_ptr_array_index(running, i), (int)pid);
	}
	return 0;
}

static gint
stop_daemons(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;

	if (!gnt_cli_node_daemons_stop(gnt_cli_get_paths(cli), STOP_TIMEOUT_S, &error)) {
		g_printerr("%s\n", error->message);
		return 1;
	}
	return 0;
}

static gint
restart_daemons(GntCli *cli, gchar **args)
{
	gint exit_code = stop_daemons(cli, args);

	return exit_code != 0 ? exit_code : start_daemons(cli, args);
}

/* One line per daemon; LSB's exit codes: 0 all running, 3 one stopped. */
static gint
daemons_status(GntCli *cli, gchar **args)
{
	g_autoptr(GPtrArray) daemons = gnt_cli_node_daemons(gnt_cli_get_paths(cli));
	gint exit_code = 0;

	for (guint i = 0; i < daemons->len; i++) {
		const gchar *daemon = g_ptr_array_index(daemons, i);
		g_autoptr(GError) error = NULL;
		pid_t pid = 0;

		if (!gnt_cli_daemon_get_pid(gnt_cli_get_paths(cli), daemon, &pid, &error)) {
			g_printerr("%s\n", error->message);
			return 4; /* LSB: status unknown */
		}
		if (pid == 0) {
			g_print("%s: stopped\n", daemon);
			exit_code = EXIT_NOT_RUNNING;
		} else {
			g_print("%s: running (pid %d)\n", daemon, (int)pid);
		}
	}
	return exit_code;
}

static const GntCliCommand commands[] = {
	{"restart", restart_daemons, 0, -1, GNT_CLI_OPT_NONE, NULL, "[-- <daemon-options>...]",
	 "Stops, then starts the daemons", NULL},
	{"start", start_daemons, 0, -1, GNT_CLI_OPT_NONE, NULL, "[-- <daemon-options>...]",
	 "Starts the daemons",
	 "Starts gantry-noded and gantry-metad, then (on the master, where the cluster config "
	 "is) "
	 "gantry-masterd and gantry-rapi under the root (arguments after \"--\" are passed to "
	 "masterd, e.g. -- --max-running-jobs 4; gantry-rapi listens on the port given at "
	 "init), and returns once they are ready; if one fails to start, "
	 "its error is printed and the exit code is 1. A daemon already running is left alone; one "
	 "that was just killed and is still exiting is waited for (30 s at most), then started. "
	 "The program is looked for in $GANTRY_DAEMON_DIR, next to this program, in "
	 "../daemons (the build tree), then in the installed sbindir."},
	{"status", daemons_status, 0, 0, GNT_CLI_OPT_NONE, NULL, "",
	 "Shows whether the daemons run",
	 "Prints \"DAEMON: running (pid N)\" or \"DAEMON: stopped\" for each daemon of this "
	 "node and exits 0 when all run, 3 (LSB) when one is stopped."},
	{"stop", stop_daemons, 0, 0, GNT_CLI_OPT_NONE, NULL, "", "Stops the daemons",
	 "Stops gantry-rapi, gantry-masterd, then gantry-metad and gantry-noded: SIGTERM, up "
	 "to 30 seconds, "
	 "then SIGKILL. "
	 "Not running is fine."},
	{NULL},
};

int
main(int argc, char **argv)
{
	return gnt_cli_main(commands, argc, argv);
}
