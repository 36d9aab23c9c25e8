#pragma once /* noded/gnt-noded-image.h: noded's disk image procedures */

#include "gnt-rpc-server.h"

G_BEGIN_DECLS

/*
 * noded's image procedures (doc/images.md), called with the GntRpcNode as
 * user data (gnt_rpc_node_add_instance_procedures registers them):
 *
 *	image_write [spec, location, sha256|null, token]
 *		writes the image (install/gnt-image-writer.h) onto disk 0 of
 *		the spec's instance; returns {"format", "image_bytes",
 *		"virtual_bytes", "disk_bytes", "seconds", "write_seconds",
 *		"mb_per_s", "sha256" (when one was given)}
 *	image_write_status [token]
 *		while that call runs: {"state": "running", "phase", "done",
 *		"total", "percent", "mb_per_s", "seconds", "line"}; else
 *		{"state": "unknown"}
 *
 * @token is chosen by the master for one write (a UUID), so that it can ask
 * for the progress of a call that is still running.
 */
extern const GntRpcProcedure gnt_rpc_node_image_procedures[];

G_END_DECLS
