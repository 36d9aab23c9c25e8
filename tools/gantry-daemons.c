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
	gboolean already_running = FALSE;

	if (!gnt_cli_daemon_start(gnt_cli_get_paths(cli), GNT_CLI_MASTERD, args, &already_running,
				  &error)) {
		g_printerr("%s\n", error->message);
		return 1;
	}
	if (already_running) {
		pid_t pid = 0;

		(void)gnt_cli_daemon_get_pid(gnt_cli_get_paths(cli), GNT_CLI_MASTERD, &pid, NULL);
		g_print("%s: already running (pid %d)\n", GNT_CLI_MASTERD, (int)pid);
	}
	return 0;
}

static gint
stop_daemons(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;

	if (!gnt_cli_daemon_stop(gnt_cli_get_paths(cli), GNT_CLI_MASTERD, STOP_TIMEOUT_S, &error)) {
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

static gint
daemons_status(GntCli *cli, gchar **args)
{
	g_autoptr(GError) error = NULL;
	pid_t pid = 0;

	if (!gnt_cli_daemon_get_pid(gnt_cli_get_paths(cli), GNT_CLI_MASTERD, &pid, &error)) {
		g_printerr("%s\n", error->message);
		return 4; /* LSB: status unknown */
	}
	if (pid == 0) {
		g_print("%s: stopped\n", GNT_CLI_MASTERD);
		return EXIT_NOT_RUNNING;
	}
	g_print("%s: running (pid %d)\n", GNT_CLI_MASTERD, (int)pid);
	return 0;
}

static const GntCliCommand commands[] = {
	{"restart", restart_daemons, 0, -1, GNT_CLI_OPT_NONE, NULL, "[-- <daemon-options>...]",
	 "Stops, then starts the daemons", NULL},
	{"start", start_daemons, 0, -1, GNT_CLI_OPT_NONE, NULL, "[-- <daemon-options>...]",
	 "Starts the daemons",
	 "Starts gantry-masterd under the root (arguments after \"--\" are passed to it, e.g. "
	 "-- --max-running-jobs 4) and returns once it is ready; if it fails to start, its "
	 "error is printed and the exit code is 1. A daemon already running is left alone. "
	 "The program is looked for in $GANTRY_DAEMON_DIR, next to this program, in "
	 "../daemons (the build tree), then in the installed sbindir."},
	{"status", daemons_status, 0, 0, GNT_CLI_OPT_NONE, NULL, "",
	 "Shows whether the daemons run",
	 "Prints \"gantry-masterd: running (pid N)\" and exits 0, or \"gantry-masterd: "
	 "stopped\" and exits 3 (LSB)."},
	{"stop", stop_daemons, 0, 0, GNT_CLI_OPT_NONE, NULL, "", "Stops the daemons",
	 "Sends SIGTERM and waits up to 30 seconds, then sends SIGKILL. Not running is fine."},
	{NULL},
};

int
main(int argc, char **argv)
{
	return gnt_cli_main(commands, argc, argv);
}
