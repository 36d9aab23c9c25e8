#pragma once /* noded/gnt-noded-catalogue.h: the node's install appliance catalogue */

#include "gnt-noded.h"
#include "gnt-rpc-server.h"

G_BEGIN_DECLS

/*
 * appliance_catalogue [] (doc/node-rpc.md, doc/appliance.md "The node's
 * catalogue"), called with the GntRpcNode as user data:
 *	{"catalogue": the appliance's steps.json (the built appliance's
 *	manifest.json's "steps", else the steps.json next to the fake
 *	hypervisor's agent) as gnt_metadata_catalogue_parse() reads it,
 *	"path": where the node read it, "manifest_sha256": the SHA-256 of
 *	the built appliance's manifest.json or null};
 *	GNT_ERROR_NOT_FOUND when the node has no catalogue, GNT_ERROR_INVALID
 *	naming what is wrong with one that does not parse.
 */
extern const GntRpcProcedure gnt_rpc_node_catalogue_procedures[];

G_END_DECLS
