#pragma once

#include <json-glib/json-glib.h>

#include "gnt-config.h"

G_BEGIN_DECLS

/* A node record by UUID or name. (transfer full) */
JsonObject *
gnt_lu_dup_node(GntConfig *config, const gchar *uuid_or_name, GError **error);
/* GNT_ERROR_WRONG_STATE "node 'x' is offline" for an offline node. */
gboolean
gnt_lu_check_node_online(JsonObject *node, GError **error);

/* The spec a node is sent about @instance (doc/node-rpc.md): the record,
 * filled hvparams and beparams, storage places, the OS search path.
 * Fails when the stored hvparams no longer validate. (transfer full) */
JsonObject *
gnt_lu_instance_spec_new(GntConfig *config, JsonObject *instance, GError **error);
/* An integer of the spec's filled beparams ("maxmem", "vcpus"), 0 if unset. */
gint64
gnt_lu_spec_get_be_int(JsonObject *spec, const gchar *name);

G_END_DECLS
