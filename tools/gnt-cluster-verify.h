#pragma once /* tools/gnt-cluster-verify.h: gnt-cluster verify and verify-disks */

#include "gnt-cli.h"

G_BEGIN_DECLS

extern const GOptionEntry gnt_cluster_verify_entries[];
extern const GOptionEntry gnt_cluster_verify_disks_entries[];

gint
gnt_cluster_verify(GntCli *cli, gchar **args);
gint
gnt_cluster_verify_disks(GntCli *cli, gchar **args);

#define GNT_CLUSTER_VERIFY_HELP                                                                    \
	"Submits OP_CLUSTER_VERIFY, which submits one job checking the configuration and one per " \
	"node group checking its nodes and instances, and waits for them, printing their "         \
	"findings. Exit code 0 when no job failed and none found an error, 1 otherwise; "          \
	"warnings and errors given to --ignore-errors do not count. doc/verify.md lists the "      \
	"checks and codes."
#define GNT_CLUSTER_VERIFY_DISKS_HELP                                                              \
	"Submits OP_CLUSTER_VERIFY_DISKS (one OP_GROUP_VERIFY_DISKS job per node group) and "      \
	"reports nodes that could not be asked and instances whose disks are missing; exit code "  \
	"1 then."

G_END_DECLS
