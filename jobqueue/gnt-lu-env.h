#pragma once

#include "gnt-paths.h"

G_BEGIN_DECLS

typedef struct _GntConfig GntConfig;
typedef struct _GntRpcClient GntRpcClient;
typedef struct _GntLuEnv GntLuEnv;

/* What logical units reach besides their opcode: the cluster model, the
 * node's paths, and the nodes (NULL where no unit needs them, as in tests
 * of the queue alone). Owned by the daemon that creates the queue. */
struct _GntLuEnv {
	GntConfig *config;
	const GntPaths *paths;
	GntRpcClient *rpc;
};

G_END_DECLS
