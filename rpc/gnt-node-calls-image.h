#pragma once

#include "gnt-node-calls.h"

G_BEGIN_DECLS

/*
 * The master's call of noded's image_write (noded/gnt-noded-image.h,
 * doc/images.md), for the install's `write_image` step, in the manner of
 * gnt-node-calls.h: @node is the node record, failures name the node.
 */

/* how often the master asks for the progress while the write runs */
#define GNT_NODE_CALL_IMAGE_POLL_MS 1000
/* a progress line goes to @progress when the percentage passes a multiple
 * of 10, the phase changes, or this long after the last one */
#define GNT_NODE_CALL_IMAGE_LINE_INTERVAL_S 30

/* One line for the job log, "disk 0: writing 45% (966.4 of 2147.5 MB),
 * 1203.2 MB/s"; called in the calling thread. */
typedef void (*GntNodeCallImageProgressFunc)(const gchar *line, gpointer user_data);

/*
 * Writes the image @location (an absolute path on the node or an http(s)
 * URL) onto disk 0 of the spec's instance, checking @sha256 (64 hex
 * digits; nullable). While the node works, its progress is asked for every
 * GNT_NODE_CALL_IMAGE_POLL_MS and handed to @progress (nullable) as lines,
 * the last one the result: "disk 0: image written (qcow2, 2147.5 MB) in
 * 1.6 s, 1342.2 MB/s". Returns the node's answer, {"format", "image_bytes",
 * "virtual_bytes", "disk_bytes", "seconds", "write_seconds", "mb_per_s",
 * "sha256"}. (transfer full)
 */
JsonObject *
gnt_node_call_image_write(GntRpcClient *client, JsonObject *node, JsonObject *spec,
			  const gchar *location, const gchar *sha256,
			  GntNodeCallImageProgressFunc progress, gpointer user_data,
			  GError **error);
/* The same through the node's artifact cache (noded/gnt-noded-cache.h)
 * when @location is a URL and @sha256 is given: @cache_bytes is its cap
 * (0: not cached). The answer's "cache" says how the image was got: "hit",
 * "filled", "waited", "uncached" or "off". (transfer full) */
JsonObject *
gnt_node_call_image_write_cached(GntRpcClient *client, JsonObject *node, JsonObject *spec,
				 const gchar *location, const gchar *sha256, guint64 cache_bytes,
				 GntNodeCallImageProgressFunc progress, gpointer user_data,
				 GError **error);

G_END_DECLS
