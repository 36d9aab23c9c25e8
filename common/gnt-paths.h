#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * Every file a node keeps lives under one root: state in
 * <root>/var/lib/gantry, sockets and pid files in <root>/run/gantry, logs in
 * <root>/var/log/gantry. The root is --root DIR, else $GANTRY_ROOT, else "/",
 * so several clusters can run side by side under different roots.
 */

#define GNT_ROOT_ENV "GANTRY_ROOT"

typedef struct _GntPaths GntPaths;

/* @root: NULL to use $GANTRY_ROOT or "/". Relative roots are made absolute. */
GntPaths *
gnt_paths_new(const gchar *root);
void
gnt_paths_free(GntPaths *self);

const gchar *
gnt_paths_get_root(const GntPaths *self);
const gchar *
gnt_paths_get_data_dir(const GntPaths *self); /* <root>/var/lib/gantry */
const gchar *
gnt_paths_get_run_dir(const GntPaths *self); /* <root>/run/gantry */
const gchar *
gnt_paths_get_log_dir(const GntPaths *self); /* <root>/var/log/gantry */
const gchar *
gnt_paths_get_luxi_socket(const GntPaths *self); /* <run>/socket/gantry-master */
const gchar *
gnt_paths_get_config_db(const GntPaths *self); /* <data>/config.db */
const gchar *
gnt_paths_get_queue_db(const GntPaths *self); /* <data>/queue.db */

/* The cluster's TLS files (doc/node-rpc.md), in <data>/tls (mode 0700). */
const gchar *
gnt_paths_get_tls_dir(const GntPaths *self); /* <data>/tls */
const gchar *
gnt_paths_get_ca_cert(const GntPaths *self); /* <tls>/ca.pem, every node */
const gchar *
gnt_paths_get_ca_key(const GntPaths *self); /* <tls>/ca.key, the master node only */
const gchar *
gnt_paths_get_node_cert(const GntPaths *self); /* <tls>/node.pem: noded's certificate */
const gchar *
gnt_paths_get_node_key(const GntPaths *self); /* <tls>/node.key */
const gchar *
gnt_paths_get_master_cert(const GntPaths *self); /* <tls>/master.pem: the master role */
const gchar *
gnt_paths_get_master_key(const GntPaths *self); /* <tls>/master.key */
const gchar *
gnt_paths_get_join_tokens(const GntPaths *self); /* <tls>/join-tokens.json */
const gchar *
gnt_paths_get_rapi_cert(const GntPaths *self); /* <tls>/rapi.pem: gantry-rapi's certificate */
const gchar *
gnt_paths_get_rapi_key(const GntPaths *self); /* <tls>/rapi.key */

/* gantry-rapi's users file (doc/rapi.md): <data>/rapi/users */
const gchar *
gnt_paths_get_rapi_users(const GntPaths *self);

/* <run>/<daemon>.pid and <log>/<daemon>.log. (transfer full) */
gchar *
gnt_paths_dup_pid_file(const GntPaths *self, const gchar *daemon);
gchar *
gnt_paths_dup_log_file(const GntPaths *self, const gchar *daemon);

/* Whether @path fits a unix socket address (107 bytes on Linux); a root
 * too deep for the LUXI socket fails here with a message saying so. */
gboolean
gnt_paths_check_socket(const gchar *path, GError **error);

/* Creates the state, run, socket and log directories (mode 0750). */
gboolean
gnt_paths_ensure_dirs(const GntPaths *self, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntPaths, gnt_paths_free)

G_END_DECLS
