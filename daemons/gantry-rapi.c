/*
 * gantry-rapi: Ganeti's Remote API v2 over HTTPS. Options, wiring and
 * signals only: the HTTP layer and the resources are rapi/, the TLS files
 * common/gnt-tls, and what every daemon does common/gnt-daemon.
 */
#include <glib-unix.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "gnt-cmdlib.h"
#include "gnt-daemon.h"
#include "gnt-error.h"
#include "gnt-paths.h"
#include "gnt-rapi-server.h"
#include "gnt-tls.h"

#define RAPI_NAME	  "gantry-rapi"
#define RAPI_DEFAULT_BIND "0.0.0.0"

typedef struct {
	gchar *root;
	gboolean foreground;
	gboolean debug;
	gboolean verbose;
	gchar *bind;
	gint port;
	gchar *ssl_key;
	gchar *ssl_cert;
	gboolean no_ssl;
	gboolean require_authentication;
	gint max_clients;
	gint workers;
	gint request_timeout;
	gint keep_alive_timeout;
	gchar *users;
	gboolean print_uri;
} RapiOptions;

static void
rapi_options_clear(RapiOptions *self)
{
	g_free(self->root);
	g_free(self->bind);
	g_free(self->ssl_key);
	g_free(self->ssl_cert);
	g_free(self->users);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(RapiOptions, rapi_options_clear)

static const gchar rapi_help[] =
	"Ganeti's Remote API (RAPI v2, doc/rapi.md) for a Gantry cluster: HTTPS on\n"
	"--bind and --port (default 0.0.0.0, port 5080; port 0: any free port),\n"
	"answering with masterd's data over LUXI. It runs on the master node.\n"
	"\n"
	"By default it presents <root>/var/lib/gantry/tls/rapi.pem (key rapi.key),\n"
	"signed by the cluster CA (tls/ca.pem) for the master's name, localhost,\n"
	"127.0.0.1 and ::1; a missing one is made at start-up from the CA key.\n"
	"-C and -K give another certificate and key; --no-ssl serves plain HTTP\n"
	"(for debugging only: passwords would cross the network in clear).\n"
	"\n"
	"Users come from <root>/var/lib/gantry/rapi/users (or --users FILE), one a\n"
	"line: \"NAME PASSWORD [read|write]\", the password plain, {CLEARTEXT}...\n"
	"or {HA1} and the MD5 of \"NAME:Ganeti Remote API:PASSWORD\". The file is\n"
	"read again when it changes and on SIGHUP; a broken one keeps the users\n"
	"loaded before. GETs need no user unless --require-authentication; PUT,\n"
	"POST and DELETE need a user with \"write\".\n"
	"\n"
	"The root is --root, else $GANTRY_ROOT, else /. Without --foreground the\n"
	"daemon detaches and the command returns once it is ready (exit 0) or has\n"
	"failed to start (exit 1, with the reason on stderr); its log is then\n"
	"<root>/var/log/gantry/gantry-rapi.log. With --print-uri it prints the URI\n"
	"it listens on (https://ADDRESS:PORT/) on stdout once ready. --debug logs\n"
	"one line per request (method, path, status, user); bodies are never\n"
	"logged. SIGTERM or SIGINT stop it.";

/* What runs once start-up is over. */
typedef struct {
	GntRapiServer *server;
	guint sighup;
} Rapi;

static void
rapi_clear(gpointer state)
{
	Rapi *self = state;

	if (self->sighup != 0)
		g_source_remove(self->sighup);
	self->sighup = 0;
	if (self->server != NULL)
		gnt_rapi_server_stop(self->server);
	g_clear_object(&self->server);
}

static gboolean
reload_users_cb(gpointer user_data)
{
	Rapi *self = user_data;
	g_autoptr(GError) error = NULL;

	if (!gnt_rapi_server_reload_users(self->server, &error))
		g_warning("%s; keeping the users loaded before", error->message);
	return G_SOURCE_CONTINUE;
}

/* The default certificate, made from the cluster CA if it is missing:
 * for the name this node's certificate carries. */
static gboolean
ensure_default_certificate(const GntPaths *paths, GError **error)
{
	g_autoptr(GTlsCertificate) node = NULL;
	g_autofree gchar *name = NULL;

	if (g_file_test(gnt_paths_get_rapi_cert(paths), G_FILE_TEST_EXISTS) &&
	    g_file_test(gnt_paths_get_rapi_key(paths), G_FILE_TEST_EXISTS))
		return TRUE;
	if (!g_file_test(gnt_paths_get_ca_key(paths), G_FILE_TEST_EXISTS)) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND,
			    "no RAPI certificate at '%s' and no cluster CA key '%s' to make one "
			    "(is this the master node? -C and -K give a certificate, --no-ssl "
			    "none)",
			    gnt_paths_get_rapi_cert(paths), gnt_paths_get_ca_key(paths));
		return FALSE;
	}
	node = gnt_tls_load_certificate(gnt_paths_get_node_cert(paths),
					gnt_paths_get_node_key(paths), error);
	if (node == NULL || (name = gnt_tls_certificate_dup_cn(node, error)) == NULL)
		return FALSE;
	g_message("no RAPI certificate at '%s': making one for '%s'",
		  gnt_paths_get_rapi_cert(paths), name);
	return gnt_tls_issue_rapi_certificate(paths, name, NULL, error);
}

static GTlsCertificate *
load_certificate(const GntPaths *paths, const RapiOptions *opts, GError **error)
{
	const gchar *cert = opts->ssl_cert;
	const gchar *key = opts->ssl_key;

	if (cert == NULL && key == NULL) {
		if (!ensure_default_certificate(paths, error))
			return NULL;
		cert = gnt_paths_get_rapi_cert(paths);
		key = gnt_paths_get_rapi_key(paths);
	} else if (cert == NULL || key == NULL) {
		/* Ganeti's habit: one PEM file holding both */
		cert = cert != NULL ? cert : key;
		key = key != NULL ? key : cert;
	}
	return gnt_tls_load_certificate(cert, key, error);
}

static gboolean
rapi_start(gpointer state, const GntPaths *paths, gconstpointer options, GError **error)
{
	Rapi *self = state;
	const RapiOptions *opts = options;
	g_autoptr(GTlsCertificate) certificate = NULL;
	g_autoptr(GError) users_error = NULL;
	g_autofree gchar *uri = NULL;
	const gchar *users = opts->users != NULL ? opts->users : gnt_paths_get_rapi_users(paths);
	GntRapiServerOptions server_options = {
		.max_clients = (guint)opts->max_clients,
		.n_workers = (guint)opts->workers,
		.request_timeout_s = (guint)opts->request_timeout,
		.keep_alive_s = (guint)opts->keep_alive_timeout,
		.require_authentication = opts->require_authentication,
	};

	if (!opts->no_ssl) {
		certificate = load_certificate(paths, opts, error);
		if (certificate == NULL)
			return FALSE;
	}
	self->server = gnt_rapi_server_new(gnt_rapi_routes(), gnt_paths_get_luxi_socket(paths),
					   users, certificate, &server_options);
	if (!gnt_rapi_server_reload_users(self->server, &users_error))
		g_warning("%s; starting without users", users_error->message);
	if (!g_file_test(users, G_FILE_TEST_EXISTS))
		g_message("no users file at '%s': only public GETs are possible", users);
	if (!gnt_rapi_server_listen(self->server, opts->bind, (guint)opts->port, error))
		return FALSE;
	self->sighup = g_unix_signal_add(SIGHUP, reload_users_cb, self);
	uri = gnt_rapi_server_dup_uri(self->server);
	g_message("started (pid %d, root '%s', listening on %s%s)", (int)getpid(),
		  gnt_paths_get_root(paths), uri, opts->no_ssl ? ", no TLS" : "");
	if (opts->print_uri) {
		g_print("%s\n", uri);
		fflush(stdout);
	}
	return TRUE;
}

static gboolean
check_range(const gchar *option, gint value, gint min, gint max, GError **error)
{
	if (value >= min && value <= max)
		return TRUE;
	g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
		    "%s must be from %d to %d, not '%d'", option, min, max, value);
	return FALSE;
}

static gboolean
parse_options(int *argc, char ***argv, RapiOptions *opts, GError **error)
{
	const GOptionEntry entries[] = {
		GNT_DAEMON_OPTION_ENTRIES(opts, "Log debug messages (one line per request)"),
		{"bind", 'b', 0, G_OPTION_ARG_STRING, &opts->bind,
		 "Listen on ADDRESS, an IPv4 or IPv6 literal (default: " RAPI_DEFAULT_BIND ")",
		 "ADDRESS"},
		{"port", 'p', 0, G_OPTION_ARG_INT, &opts->port,
		 "Listen on PORT (default: 5080; 0: any free port)", "PORT"},
		{"ssl-cert", 'C', 0, G_OPTION_ARG_FILENAME, &opts->ssl_cert,
		 "The certificate to present, PEM (default: <data>/tls/rapi.pem)", "FILE"},
		{"ssl-key", 'K', 0, G_OPTION_ARG_FILENAME, &opts->ssl_key,
		 "Its private key, PEM (default: <data>/tls/rapi.key)", "FILE"},
		{"no-ssl", 0, 0, G_OPTION_ARG_NONE, &opts->no_ssl,
		 "Serve plain HTTP (debugging only)", NULL},
		{"require-authentication", 0, 0, G_OPTION_ARG_NONE, &opts->require_authentication,
		 "Require a user for every request, GETs included", NULL},
		{"max-clients", 0, 0, G_OPTION_ARG_INT, &opts->max_clients,
		 "Serve at most N connections at once; more wait (default: 100)", "N"},
		{"workers", 0, 0, G_OPTION_ARG_INT, &opts->workers,
		 "Handle requests in N threads (default: 32)", "N"},
		{"request-timeout", 0, 0, G_OPTION_ARG_INT, &opts->request_timeout,
		 "Close a connection whose request is not complete after SECONDS (default: 30)",
		 "SECONDS"},
		{"keep-alive-timeout", 0, 0, G_OPTION_ARG_INT, &opts->keep_alive_timeout,
		 "Close a connection idle for SECONDS (default: 30)", "SECONDS"},
		{"users", 0, 0, G_OPTION_ARG_FILENAME, &opts->users,
		 "The users file (default: <data>/rapi/users)", "FILE"},
		{"print-uri", 0, 0, G_OPTION_ARG_NONE, &opts->print_uri,
		 "Print the URI listened on once ready", NULL},
		{NULL},
	};

	if (!gnt_daemon_parse_options(argc, argv, entries, "The Gantry remote API daemon.",
				      rapi_help, error))
		return FALSE;
	if (!check_range("--port", opts->port, 0, 65535, error) ||
	    !check_range("--max-clients", opts->max_clients, 1, 1000000, error) ||
	    !check_range("--workers", opts->workers, 1, 1024, error) ||
	    !check_range("--request-timeout", opts->request_timeout, 1, 86400, error) ||
	    !check_range("--keep-alive-timeout", opts->keep_alive_timeout, 1, 86400, error))
		return FALSE;
	if (opts->no_ssl && (opts->ssl_cert != NULL || opts->ssl_key != NULL)) {
		g_set_error_literal(error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
				    "--no-ssl cannot go with -C/--ssl-cert or -K/--ssl-key");
		return FALSE;
	}
	if (opts->bind == NULL)
		opts->bind = g_strdup(RAPI_DEFAULT_BIND);
	return TRUE;
}

int
main(int argc, char **argv)
{
	g_auto(RapiOptions) opts = {
		.port = GNT_RAPI_DEFAULT_PORT,
		.max_clients = GNT_RAPI_DEFAULT_MAX_CLIENTS,
		.workers = GNT_RAPI_DEFAULT_WORKERS,
		.request_timeout = GNT_RAPI_DEFAULT_REQUEST_TIMEOUT,
		.keep_alive_timeout = GNT_RAPI_DEFAULT_KEEP_ALIVE,
	};
	g_autoptr(GError) error = NULL;
	Rapi rapi = {0};

	gnt_daemon_use_system_malloc(argv);
	/* the defaults the resources fill in, as Ganeti's clients send them */
	gnt_opcode_register_table(&gnt_cmdlib_op_table);
	if (!parse_options(&argc, &argv, &opts, &error))
		return gnt_daemon_usage_error(RAPI_NAME, error);
	return gnt_daemon_main(&(const GntDaemonSpec){
		.name = RAPI_NAME,
		.root = opts.root,
		.foreground = opts.foreground,
		.verbose = opts.verbose,
		.debug = opts.debug,
		.start = rapi_start,
		.clear = rapi_clear,
		.state = &rapi,
		.options = &opts,
	});
}
