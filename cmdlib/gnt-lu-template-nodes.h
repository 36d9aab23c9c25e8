#pragma once /* cmdlib/gnt-lu-template-nodes.h: a template's in-band steps on the nodes */

#include "gnt-lu.h"

G_BEGIN_DECLS

/*
 * Checks the in-band rows of @steps (already valid for the master's
 * registry) against what the nodes' install appliances can run
 * (doc/templates.md "In-band steps and the nodes"): every online,
 * vm-capable node is asked for its catalogue (appliance_catalogue), and
 * every node that answers must have each in-band step, every argument a
 * row gives (the master's own "timeout" aside) and give every argument the
 * node's step requires. A node that cannot be reached is left out with a
 * warning in the job log. GNT_ERROR_INVALID naming the template, the row,
 * the node and what it lacks; a node that answers with an error (no
 * catalogue, one that does not parse) refuses too, naming the node.
 * A row that needs the appliance's VM ("needs_vm" in the catalogue) while
 * every hypervisor the cluster enables runs the agent on the node itself
 * gets a warning in the job log: installs with it are refused until a
 * hypervisor that boots the VM is enabled.
 */
gboolean
gnt_lu_template_check_nodes(GntLu *lu, const gchar *template_name, JsonArray *steps,
			    GError **error);

G_END_DECLS
