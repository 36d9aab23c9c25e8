#pragma once /* tests/rpc/rpc-test-server.h: what the node RPC tests share */

#include <gio/gio.h>

#include "gnt-paths.h"
#include "gnt-rpc-client.h"
#include "gnt-noded.h"
#include "gnt-rpc-server.h"

G_BEGIN_DECLS

#define CLUSTER "cluster.example.com"

/* A server in its own thread; "block" waits until released. */
typedef struct {
	GntPaths *paths;
	GntRpcNode *rpc_node; /* NULL: no instance procedures */
	gboolean join_endpoint;
	gsize max_body_size;
	GntRpcServer *server; /* while running */
	GThread *thread;
	GMainContext *context;
	GMainLoop *loop;
	GMutex lock;
	GCond cond;
	guint port; /* 0 until listening */
	gboolean released;
} TestServer;

/* Starts a server for @paths in its own thread, with noded's base
 * procedures, "block" (waits until released) and "fail"; with the join
 * endpoint if asked, and @rpc_node's instance procedures if given. */
TestServer *
test_server_start(GntPaths *paths, gboolean join_endpoint, gsize max_body_size);
TestServer *
test_server_start_node(GntPaths *paths, gboolean join_endpoint, gsize max_body_size,
		       GntRpcNode *rpc_node);
void
test_server_release(TestServer *srv);
/* The master's record of node "node1" at 127.0.0.1:@port. (transfer full) */
JsonObject *
test_node_record(guint port);
/* Stops listening and waits for the thread; the port stays known. */
void
test_server_stop(TestServer *srv);
void
test_server_free(TestServer *srv);

/* A node under test, "node1" of a cluster on a temporary root: noded's
 * procedures served in a thread of the test, the master's client, and the
 * master's record of the node. */
typedef struct {
	GPtrArray *dirs; /* temporary directories, removed by test_node_stop() */
	GntPaths *paths;
	GntRpcNode *rpc_node;
	TestServer *server;
	GntRpcClient *client;
	JsonObject *record;
	gchar *file_dir; /* its file storage directory (not made) */
} TestNode;

/* @options: NULL for noded's defaults. */
void
test_node_start(TestNode *self, const GntRpcNodeOptions *options);
/* Stops the server and removes every directory of self->dirs. */
void
test_node_stop(TestNode *self);

/* A new temporary root, added to @dirs: a cluster's master node called
 * @node_name, or an empty one for NULL. */
GntPaths *
make_root(GPtrArray *dirs, const gchar *node_name);
/* Removes every directory of @dirs and frees it. */
void
remove_dirs(GPtrArray *dirs);

void
assert_error_has(const GError *error, const gchar *needle);

/* Starts gantry-noded ($GNT_TEST_NODED) on @paths' root listening on a free
 * loopback port, with @extra and @extra_value (may be NULL) added; its port. */
guint
start_noded(GntPaths *paths, const gchar *extra, const gchar *extra_value, GSubprocess **noded);
/* SIGTERM, and a clean exit. */
void
stop_noded(GSubprocess *noded);

/* Starts gantry-metad ($GNT_TEST_METAD) on @paths' root, its stderr into
 * @log, with --debug when @debug; *@control: its control socket. */
GSubprocess *
start_metad(GntPaths *paths, const gchar *log, gboolean debug, gchar **control);

G_END_DECLS
