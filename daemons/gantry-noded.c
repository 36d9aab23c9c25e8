/*
 * gantry-noded: the node daemon. Options, wiring and signals only: the RPC
 * server, its procedures and the join protocol are rpc/, the TLS files
 * common/gnt-tls, and what every daemon does common/gnt-daemon.
 */
#include <stdio.h>
#include <unistd.h>

#include "gnt-child.h"
#include "gnt-daemon.h"
#include "gnt-error.h"
#include "gnt-join.h"
#include "gnt-paths.h"
#include "gnt-noded-appliance.h"
#include "gnt-noded-installer.h"
#include "gnt-noded.h"
#include "gnt-rpc-server.h"
#include "gnt-secret.h"

#define NODED_NAME	     "gantry-noded"
#define NODED_JOIN_TIMEOUT_S 30

typedef struct {
	gchar *root;
	gboolean foreground;
	gboolean debug;
	gboolean verbose;
	gchar *listen;
	gboolean print_uri;
	gchar *join;
	gchar **addresses;
	gchar *libvirt_uri;
} NodedOptions;

/* What runs once start-up is over; torn down in reverse order. */
typedef struct {
	GntRpcNode *rpc_node; /* the hypervisors; outlives the server's procedures */
	GntRpcServer *server;
	GntJoinAuthority *authority; /* the master node only */
} Node;

static void
noded_options_clear(NodedOptions *self)
{
	g_free(self->root);
	g_free(self->listen);
	gnt_secret_wipe_string(self->join); /* it holds the token's secret */
	g_free(self->join);
	g_strfreev(self->addresses);
	g_free(self->libvirt_uri);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(NodedOptions, noded_options_clear)

static const gchar noded_help[] =
	"The node daemon of a Gantry cluster: it answers the master's node RPC\n"
	"(HTTPS with mutual TLS, doc/node-rpc.md) on --listen, by default all\n"
	"addresses, port 1811. It presents <root>/var/lib/gantry/tls/node.pem and\n"
	"answers only a client holding the master certificate of the cluster whose\n"
	"CA is tls/ca.pem. On the master node (tls/ca.key present) it also serves\n"
	"the join endpoint.\n"
	"\n"
	"A new node joins with --join TOKEN (the token the master printed for it):\n"
	"it makes its own key, gets its certificate from the master, writes the\n"
	"TLS files and then starts as usual. --address adds the node's addresses\n"
	"to that certificate.\n"
	"\n"
	"The root is --root, else $GANTRY_ROOT, else /. Without --foreground the\n"
	"daemon detaches and the command returns once it is ready (exit 0) or has\n"
	"failed to start (exit 1, with the reason on stderr); its log is then\n"
	"<root>/var/log/gantry/gantry-noded.log. With --print-uri it prints the\n"
	"URI it listens on (https://ADDRESS:PORT/) on stdout once ready.\n"
	"\n"
	"Instances run under the kvm hypervisor through libvirt at --libvirt-uri\n"
	"(default qemu:///system), or under the fake one, whose state is kept in\n"
	"<root>/var/lib/gantry/fake-hv; their serial consoles are logged to\n"
	"<root>/var/log/gantry/console/<instance>.log.\n"
	"SIGTERM or SIGINT stop it.";

static void
node_clear(gpointer state)
{
	Node *self = state;

	if (self->server != NULL) {
		gnt_rpc_server_stop(self->server);
		/* the procedures still running use rpc_node */
		if (gnt_rpc_server_get_n_running(self->server) > 0)
			g_message("waiting for %u running procedures",
				  gnt_rpc_server_get_n_running(self->server));
		while (gnt_rpc_server_get_n_running(self->server) > 0)
			g_main_context_iteration(NULL, TRUE);
	}
	g_clear_object(&self->server);
	g_clear_pointer(&self->authority, gnt_join_authority_free);
	g_clear_pointer(&self->rpc_node, gnt_rpc_node_free);
	while (g_main_context_iteration(NULL, FALSE)) /* connections close in idle callbacks */
		;
}

static gboolean
node_start(gpointer state, const GntPaths *paths, gconstpointer options, GError **error)
{
	Node *self = state;
	const NodedOptions *opts = options;
	g_autofree gchar *address = NULL;
	g_autofree gchar *uri = NULL;
	g_autofree gchar *children_dir = NULL;
	guint port = 0;
	const GntRpcNodeOptions rpc_options = {.libvirt_uri = opts->libvirt_uri};

	if (!gnt_rpc_parse_listen_address(opts->listen, GNT_RPC_DEFAULT_PORT, &address, &port,
					  error))
		return FALSE;
	/* what a killed noded's OS scripts and tools left running ends now,
	 * before anything new is started (common/gnt-child.h) */
	children_dir = g_build_filename(gnt_paths_get_run_dir(paths), "noded-children", NULL);
	gnt_child_set_record_dir(children_dir);
	gnt_child_kill_leftovers();
	if (opts->join != NULL &&
	    !gnt_join_cluster(paths, opts->join, (const gchar *const *)opts->addresses,
			      NODED_JOIN_TIMEOUT_S, error))
		return FALSE;
	self->server = gnt_rpc_server_new_from_paths(paths, error);
	if (self->server == NULL) {
		if (g_error_matches(*error, GNT_ERROR, GNT_ERROR_NOT_FOUND))
			g_prefix_error(error, "this node has not joined a cluster (join it with "
					      "--join TOKEN, or run gnt-cluster init): ");
		return FALSE;
	}
	gnt_rpc_node_add_procedures(self->server, paths);
	self->rpc_node = gnt_rpc_node_new(paths, &rpc_options, error);
	if (self->rpc_node == NULL)
		return FALSE;
	gnt_rpc_node_add_instance_procedures(self->server, self->rpc_node);
	/* kickstart installs a killed noded left (doc/kickstart.md) */
	gnt_rpc_node_installer_recover(self->rpc_node);
	gnt_rpc_node_appliance_recover(self->rpc_node);
	if (g_file_test(gnt_paths_get_ca_key(paths), G_FILE_TEST_EXISTS)) {
		self->authority = gnt_join_authority_new(paths, error);
		if (self->authority == NULL)
			return FALSE;
		gnt_join_authority_add_endpoint(self->authority, self->server);
	}
	if (!gnt_rpc_server_listen(self->server, address, port, error))
		return FALSE;
	uri = gnt_rpc_server_dup_uri(self->server);
	g_message("started (pid %d, root '%s', listening on %s%s)", (int)getpid(),
		  gnt_paths_get_root(paths), uri, self->authority != NULL ? ", join endpoint" : "");
	if (opts->print_uri) {
		g_print("%s\n", uri);
		fflush(stdout);
	}
	return TRUE;
}

static gboolean
parse_options(int *argc, char ***argv, NodedOptions *opts, GError **error)
{
	const GOptionEntry entries[] = {
		GNT_DAEMON_OPTION_ENTRIES(opts, "Log debug messages"),
		{"listen", 0, 0, G_OPTION_ARG_STRING, &opts->listen,
		 "Listen on ADDRESS:PORT (default: 0.0.0.0:1811; port 0: any free port)",
		 "ADDRESS:PORT"},
		{"print-uri", 0, 0, G_OPTION_ARG_NONE, &opts->print_uri,
		 "Print the URI listened on once ready", NULL},
		{"join", 0, 0, G_OPTION_ARG_STRING, &opts->join,
		 "Join the cluster with the one-time TOKEN the master made for this node", "TOKEN"},
		{"address", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opts->addresses,
		 "With --join: an address of this node for its certificate (repeatable)",
		 "ADDRESS"},
		{"libvirt-uri", 0, 0, G_OPTION_ARG_STRING, &opts->libvirt_uri,
		 "The libvirt connection of the kvm hypervisor (default: " GNT_HV_DEFAULT_URI ")",
		 "URI"},
		{NULL},
	};

	if (!gnt_daemon_parse_options(argc, argv, entries, "The Gantry node daemon.", noded_help,
				      error))
		return FALSE;
	if (opts->listen == NULL)
		opts->listen = g_strdup("0.0.0.0:1811");
	return TRUE;
}

int
main(int argc, char **argv)
{
	g_auto(NodedOptions) opts = {0};
	g_autoptr(GError) error = NULL;
	Node node = {0};

	gnt_daemon_use_system_malloc(argv);
	if (!parse_options(&argc, &argv, &opts, &error))
		return gnt_daemon_usage_error(NODED_NAME, error);
	return gnt_daemon_main(&(const GntDaemonSpec){
		.name = NODED_NAME,
		.root = opts.root,
		.foreground = opts.foreground,
		.verbose = opts.verbose,
		.debug = opts.debug,
		.start = node_start,
		.clear = node_clear,
		.state = &node,
		.options = &opts,
	});
}
