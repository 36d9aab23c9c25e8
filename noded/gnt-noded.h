#pragma once

#include "gnt-hypervisor.h"
#include "gnt-paths.h"
#include "gnt-rpc-server.h"

G_BEGIN_DECLS

/*
 * The procedures every gantry-noded answers, whatever else is registered
 * (their arguments: rpc/gnt-rpc-procedures.c):
 *
 *	version		{"protocol": 1, "software": "0.1.0"}
 *	test_delay	sleeps (OP_TEST_DELAY on_nodes), null
 *	join_status	{"node": CN, "cluster": ..., "ca_fingerprint": ...,
 *			 "join_endpoint": whether this node serves "join"}
 *
 * @paths must outlive @server.
 */
void
gnt_rpc_node_add_procedures(GntRpcServer *server, const GntPaths *paths);

/*
 * What noded's instance, disk and OS procedures share: the node's paths and
 * one GntHypervisor per hypervisor name, made on first use and then used by
 * every worker thread (the hypervisor objects are thread-safe).
 */
typedef struct _GntRpcNode GntRpcNode;

typedef struct {
	const gchar *libvirt_uri;    /* kvm; NULL: GNT_HV_DEFAULT_URI (qemu:///system) */
	const gchar *fake_state_dir; /* NULL: <root>/var/lib/gantry/fake-hv */
	/* before each instance name in the hypervisor; NULL: "gnt-<cluster>-",
	 * the cluster named by the CA's CN, so that two clusters sharing a
	 * libvirtd never meet */
	const gchar *hv_prefix;
} GntRpcNodeOptions;

/* @paths must outlive the result; @options may be NULL. Reads the cluster
 * name from the CA certificate unless @options gives a prefix
 * (GNT_ERROR_NOT_FOUND naming the file when it is missing). (transfer full) */
GntRpcNode *
gnt_rpc_node_new(const GntPaths *paths, const GntRpcNodeOptions *options, GError **error);
void
gnt_rpc_node_free(GntRpcNode *self);

/* The hypervisor @name ("kvm", "fake"), made on first use; GNT_ERROR_INVALID
 * for an unknown name. (transfer full) */
GntHypervisor *
gnt_rpc_node_get_hypervisor(GntRpcNode *self, const gchar *name, GError **error);

/*
 * Registers the instance, disk and OS procedures (their arguments:
 * rpc/gnt-rpc-procedures.c; doc/node-rpc.md describes them and their
 * results):
 *
 *	node_info, instance_list, instance_start, instance_shutdown,
 *	instance_reboot, instance_console, blockdev_create, blockdev_remove,
 *	blockdev_add, blockdev_rename, os_diagnose, os_create, os_rename,
 *	os_validate
 *
 * @node must outlive @server and every procedure still running in it
 * (gnt_rpc_server_get_n_running()).
 */
void
gnt_rpc_node_add_instance_procedures(GntRpcServer *server, GntRpcNode *node);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntRpcNode, gnt_rpc_node_free)

G_END_DECLS
