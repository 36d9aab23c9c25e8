/*
 * gantry-metad: the metadata service instances read (doc/metad.md).
 * Options, wiring and signals only: the store, trees and sockets are
 * metadata/, what every daemon does common/gnt-daemon.
 */
#include <stdio.h>
#include <unistd.h>

#include "gnt-daemon.h"
#include "gnt-metad-server.h"
#include "gnt-paths.h"

#define METAD_NAME "gantry-metad"

typedef struct {
	gchar *root;
	gboolean foreground;
	gboolean debug;
	gboolean verbose;
	gboolean print_socket;
} MetadOptions;

static void
metad_options_clear(MetadOptions *self)
{
	g_free(self->root);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(MetadOptions, metad_options_clear)

static const gchar metad_help[] =
	"Serves each instance its metadata (doc/metad.md): Ganeti's tree\n"
	"(/ganeti/latest/meta_data.json, os/parameters.json, os/scripts/NAME,\n"
	"os/package, read, write), OpenStack's (/openstack/VERSION/meta_data.json,\n"
	"user_data, network_data.json, vendor_data.json), EC2's (/latest/ and\n"
	"/2009-04-04/ meta-data/..., user-data) and Gantry's install tree for the\n"
	"install appliance (/gantry/latest/install/environment, script, progress).\n"
	"It runs on every node and keeps everything in memory: secret OS parameters\n"
	"never reach the disk, and a restarted metad knows nothing until noded\n"
	"pushes the instances again.\n"
	"\n"
	"Each instance has its own channel: a unix socket\n"
	"<root>/run/gantry/metad/INSTANCE.sock (the fake hypervisor's channel; try\n"
	"curl --unix-socket SOCKET http://metad/ganeti/latest/meta_data.json) and,\n"
	"once noded sets it, a TCP listener on 169.254.169.254:80 bound to the\n"
	"instance's tap (SO_BINDTODEVICE) with a DHCP responder: the channel, never\n"
	"the request, says which instance is asking. Every listener speaks HTTP/1.1\n"
	"with keep-alive. noded pushes and removes instances, channels, packages\n"
	"and reads the install progress through the control socket\n"
	"<root>/run/gantry/socket/gantry-metad (mode 0600).\n"
	"\n"
	"The root is --root, else $GANTRY_ROOT, else /. Without --foreground the\n"
	"daemon detaches and the command returns once it is ready (exit 0) or has\n"
	"failed to start (exit 1, with the reason on stderr); its log is then\n"
	"<root>/var/log/gantry/gantry-metad.log. With --print-socket it prints the\n"
	"control socket's path on stdout once ready. --debug logs one line per\n"
	"request (instance, method, path, status); bodies are never logged.\n"
	"SIGTERM or SIGINT stop it.";

typedef struct {
	GntMetadServer *server;
} Metad;

static void
metad_clear(gpointer state)
{
	Metad *self = state;

	if (self->server != NULL)
		gnt_metad_server_stop(self->server);
	g_clear_object(&self->server);
}

static gboolean
metad_start(gpointer state, const GntPaths *paths, gconstpointer options, GError **error)
{
	Metad *self = state;
	const MetadOptions *opts = options;
	g_autofree gchar *control = gnt_metad_dup_control_socket(paths);
	g_autofree gchar *dir = gnt_metad_dup_instance_dir(paths);

	self->server = gnt_metad_server_new(control, dir);
	if (!gnt_metad_server_listen(self->server, error))
		return FALSE;
	g_message("started (pid %d, root '%s', control socket '%s', channels in '%s')",
		  (int)getpid(), gnt_paths_get_root(paths), control, dir);
	if (opts->print_socket) {
		g_print("%s\n", control);
		fflush(stdout);
	}
	return TRUE;
}

int
main(int argc, char **argv)
{
	g_auto(MetadOptions) opts = {0};
	g_autoptr(GError) error = NULL;
	Metad metad = {0};
	const GOptionEntry entries[] = {
		GNT_DAEMON_OPTION_ENTRIES(&opts, "Log debug messages (one line per request)"),
		{"print-socket", 0, 0, G_OPTION_ARG_NONE, &opts.print_socket,
		 "Print the control socket's path once ready", NULL},
		{NULL},
	};

	gnt_daemon_use_system_malloc(argv);
	if (!gnt_daemon_parse_options(&argc, &argv, entries, "The Gantry metadata daemon.",
				      metad_help, &error))
		return gnt_daemon_usage_error(METAD_NAME, error);
	return gnt_daemon_main(&(const GntDaemonSpec){
		.name = METAD_NAME,
		.root = opts.root,
		.foreground = opts.foreground,
		.verbose = opts.verbose,
		.debug = opts.debug,
		.start = metad_start,
		.clear = metad_clear,
		.state = &metad,
		.options = &opts,
	});
}
