#pragma once

#include "gnt-paths.h"

G_BEGIN_DECLS

typedef struct _GntConfig GntConfig;
typedef struct _GntLuEnv GntLuEnv;

/* What logical units reach besides their opcode: the cluster model and the
 * node's paths. Owned by the daemon that creates the queue. */
struct _GntLuEnv {
	GntConfig *config;
	const GntPaths *paths;
};

G_END_DECLS
