#pragma once

#include <gio/gio.h>

#include "gnt-config.h"
#include "gnt-queue.h"
#include "gnt-rpc-client.h"

G_BEGIN_DECLS

/*
 * masterd's LUXI server: a unix socket, persistent connections, one request
 * at a time per connection (the next one is read only after the previous
 * answer was written). Single-threaded: everything runs in the
 * thread-default GMainContext of the thread that calls
 * gnt_luxi_server_listen(), which must be the queue's. An idle connection
 * costs a socket, a GSource and a few hundred bytes; nothing blocks and no
 * thread is started per client. Answers are written with MSG_NOSIGNAL, so
 * a client that went away cannot raise SIGPIPE.
 */

#define GNT_TYPE_LUXI_SERVER (gnt_luxi_server_get_type())
G_DECLARE_FINAL_TYPE(GntLuxiServer, gnt_luxi_server, GNT, LUXI_SERVER, GObject)

/* @config may be NULL (QueryClusterInfo and friends then fail with
 * GNT_ERROR_WRONG_STATE). Both are referenced. (transfer full) */
GntLuxiServer *
gnt_luxi_server_new(GntQueue *queue, GntConfig *config);

/*
 * Listens on @socket_path (its directory must exist) with mode 0660. A
 * stale socket left by a dead daemon is removed; a live one (a daemon
 * answers there) fails with GNT_ERROR_EXISTS, so does a path that is not a
 * socket. Other failures are GNT_ERROR_ENVIRONMENT.
 */
gboolean
gnt_luxi_server_listen(GntLuxiServer *self, const gchar *socket_path, GError **error);

/* Closes the listener (removing the socket file) and every connection;
 * pending answers are dropped and WaitForJobChange watches removed. */
void
gnt_luxi_server_stop(GntLuxiServer *self);

/* The master's node RPC client (referenced; NULL: none), with which queries
 * of live fields (instance status, node memory, ...) ask the nodes; without
 * one those cells answer RS_NODATA. Set before listening. */
void
gnt_luxi_server_set_rpc(GntLuxiServer *self, GntRpcClient *rpc);

/* The largest request accepted, in bytes (default 64 MiB). A longer one is
 * answered "Failed to parse request: LUXI message exceeds the limit of N
 * bytes" and the connection is closed. */
void
gnt_luxi_server_set_max_message(GntLuxiServer *self, gsize max_message);

/* Open connections, and calls waiting on a job (for status and tests). */
guint
gnt_luxi_server_get_n_connections(GntLuxiServer *self);
guint
gnt_luxi_server_get_n_watching(GntLuxiServer *self);

G_END_DECLS
