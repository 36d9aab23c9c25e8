#include "gnt-paths.h"

#include <errno.h>
#include <sys/un.h>
#include <glib/gstdio.h>

#include "gnt-error.h"

struct _GntPaths {
	gchar *root;
	gchar *data_dir;
	gchar *run_dir;
	gchar *log_dir;
	gchar *socket_dir;
	gchar *luxi_socket;
	gchar *config_db;
	gchar *queue_db;
	gchar *tls_dir;
	gchar *ca_cert;
	gchar *ca_key;
	gchar *node_cert;
	gchar *node_key;
	gchar *master_cert;
	gchar *master_key;
	gchar *join_tokens;
	gchar *rapi_cert;
	gchar *rapi_key;
	gchar *rapi_users;
};

GntPaths *
gnt_paths_new(const gchar *root)
{
	GntPaths *self = g_new0(GntPaths, 1);

	if (root == NULL || root[0] == '\0')
		root = g_getenv(GNT_ROOT_ENV);
	if (root == NULL || root[0] == '\0')
		root = "/";
	self->root = g_canonicalize_filename(root, NULL);
	self->data_dir = g_build_filename(self->root, "var", "lib", "gantry", NULL);
	self->run_dir = g_build_filename(self->root, "run", "gantry", NULL);
	self->log_dir = g_build_filename(self->root, "var", "log", "gantry", NULL);
	self->socket_dir = g_build_filename(self->run_dir, "socket", NULL);
	self->luxi_socket = g_build_filename(self->socket_dir, "gantry-master", NULL);
	self->config_db = g_build_filename(self->data_dir, "config.db", NULL);
	self->queue_db = g_build_filename(self->data_dir, "queue.db", NULL);
	self->tls_dir = g_build_filename(self->data_dir, "tls", NULL);
	self->ca_cert = g_build_filename(self->tls_dir, "ca.pem", NULL);
	self->ca_key = g_build_filename(self->tls_dir, "ca.key", NULL);
	self->node_cert = g_build_filename(self->tls_dir, "node.pem", NULL);
	self->node_key = g_build_filename(self->tls_dir, "node.key", NULL);
	self->master_cert = g_build_filename(self->tls_dir, "master.pem", NULL);
	self->master_key = g_build_filename(self->tls_dir, "master.key", NULL);
	self->join_tokens = g_build_filename(self->tls_dir, "join-tokens.json", NULL);
	self->rapi_cert = g_build_filename(self->tls_dir, "rapi.pem", NULL);
	self->rapi_key = g_build_filename(self->tls_dir, "rapi.key", NULL);
	self->rapi_users = g_build_filename(self->data_dir, "rapi", "users", NULL);
	return self;
}

void
gnt_paths_free(GntPaths *self)
{
	if (self == NULL)
		return;
	g_free(self->root);
	g_free(self->data_dir);
	g_free(self->run_dir);
	g_free(self->log_dir);
	g_free(self->socket_dir);
	g_free(self->luxi_socket);
	g_free(self->config_db);
	g_free(self->queue_db);
	g_free(self->tls_dir);
	g_free(self->ca_cert);
	g_free(self->ca_key);
	g_free(self->node_cert);
	g_free(self->node_key);
	g_free(self->master_cert);
	g_free(self->master_key);
	g_free(self->join_tokens);
	g_free(self->rapi_cert);
	g_free(self->rapi_key);
	g_free(self->rapi_users);
	g_free(self);
}

const gchar *
gnt_paths_get_root(const GntPaths *self)
{
	return self->root;
}

const gchar *
gnt_paths_get_data_dir(const GntPaths *self)
{
	return self->data_dir;
}

const gchar *
gnt_paths_get_run_dir(const GntPaths *self)
{
	return self->run_dir;
}

const gchar *
gnt_paths_get_log_dir(const GntPaths *self)
{
	return self->log_dir;
}

const gchar *
gnt_paths_get_luxi_socket(const GntPaths *self)
{
	return self->luxi_socket;
}

const gchar *
gnt_paths_get_config_db(const GntPaths *self)
{
	return self->config_db;
}

const gchar *
gnt_paths_get_queue_db(const GntPaths *self)
{
	return self->queue_db;
}

const gchar *
gnt_paths_get_tls_dir(const GntPaths *self)
{
	return self->tls_dir;
}

const gchar *
gnt_paths_get_ca_cert(const GntPaths *self)
{
	return self->ca_cert;
}

const gchar *
gnt_paths_get_ca_key(const GntPaths *self)
{
	return self->ca_key;
}

const gchar *
gnt_paths_get_node_cert(const GntPaths *self)
{
	return self->node_cert;
}

const gchar *
gnt_paths_get_node_key(const GntPaths *self)
{
	return self->node_key;
}

const gchar *
gnt_paths_get_master_cert(const GntPaths *self)
{
	return self->master_cert;
}

const gchar *
gnt_paths_get_master_key(const GntPaths *self)
{
	return self->master_key;
}

const gchar *
gnt_paths_get_join_tokens(const GntPaths *self)
{
	return self->join_tokens;
}

const gchar *
gnt_paths_get_rapi_cert(const GntPaths *self)
{
	return self->rapi_cert;
}

const gchar *
gnt_paths_get_rapi_key(const GntPaths *self)
{
	return self->rapi_key;
}

const gchar *
gnt_paths_get_rapi_users(const GntPaths *self)
{
	return self->rapi_users;
}

gchar *
gnt_paths_dup_pid_file(const GntPaths *self, const gchar *daemon)
{
	g_autofree gchar *base = g_strconcat(daemon, ".pid", NULL);
	return g_build_filename(self->run_dir, base, NULL);
}

gchar *
gnt_paths_dup_log_file(const GntPaths *self, const gchar *daemon)
{
	g_autofree gchar *base = g_strconcat(daemon, ".log", NULL);
	return g_build_filename(self->log_dir, base, NULL);
}

gboolean
gnt_paths_ensure_dirs(const GntPaths *self, GError **error)
{
	const gchar *dirs[] = {self->data_dir, self->run_dir, self->socket_dir, self->log_dir};

	for (guint i = 0; i < G_N_ELEMENTS(dirs); i++) {
		if (g_mkdir_with_parents(dirs[i], 0750) != 0) {
			g_autofree gchar *what = g_strdup_printf("creating '%s'", dirs[i]);
			gnt_error_set_errno(error, errno, what);
			return FALSE;
		}
	}
	return TRUE;
}

gboolean
gnt_paths_check_socket(const gchar *path, GError **error)
{
	gsize max = sizeof(((struct sockaddr_un *)NULL)->sun_path) - 1;

	if (strlen(path) > max) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_INVALID,
			    "socket path '%s' is %" G_GSIZE_FORMAT
			    " bytes, more than the %" G_GSIZE_FORMAT
			    " a unix socket allows: choose a shorter root",
			    path, strlen(path), max);
		return FALSE;
	}
	return TRUE;
}
