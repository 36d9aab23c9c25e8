#pragma once /* cmdlib/gnt-lu-instance-kickstart.h: the kickstart of create and reinstall */

#include <json-glib/json-glib.h>

#include "gnt-config.h"
#include "gnt-lu.h"
#include "gnt-secret.h"
#include "gnt-opcode.h"
#include "gnt-rpc-client.h"

G_BEGIN_DECLS

/*
 * Kickstart installs (doc/kickstart.md) in the create and reinstall units.
 * An install is a kickstart install when the instance has a kickstart
 * template of its own (ks_template, kept in its install parameters) or its
 * catalog image has a `ks_template` or an `installer_kernel` property; its
 * template is then the instance's, else the image's, else the cluster's
 * default_ks_template, else Gantry's shipped default. The template is
 * fetched again at every install, made into the file the installer is
 * served (gnt-kickstart-prepare.h) with a new token, and checked before
 * anything changes; the record's install keeps
 * "kickstart": {"source", "origin", "sha256", "syntax"}.
 */

/* Sets @record's install parameter ks_template from the opcode's: absent
 * (null) keeps it, "" removes it. @record must have an install member. */
void
gnt_lu_instance_kickstart_set_template(JsonObject *record, const GntOpcode *op);

/*
 * For a kickstart install of @record (its install parameters as they are
 * to be), fetches, renders and checks its kickstart file; the job log
 * gets what Gantry changed and which checks ran, and with the opcode's
 * print_kickstart the file, its token redacted. Records the source and its
 * SHA-256 in @record's install member. Nothing to do (TRUE) for other
 * installs, except that print_kickstart is refused there.
 * GNT_ERROR_INVALID (the template, its source, the image) or
 * GNT_ERROR_ENVIRONMENT (fetching, ksvalidator).
 */
gboolean
gnt_lu_instance_kickstart_check(GntLu *lu, JsonObject *record, GError **error);

/* Whether @record's install is a kickstart install (see above). */
gboolean
gnt_lu_instance_kickstart_is_install(GntLu *lu, JsonObject *record);

/*
 * Runs the kickstart install of @record on @node (noded's installer_run,
 * gnt-node-calls-installer.h): the file rendered and checked again with a
 * new token for this attempt, the catalog image's installer and liveimg,
 * the cluster's clocks; the job log gets each callback as it comes
 * ("  installer: start: ..."). With a personalization package (the
 * record's os-package, its credentials in @secrets, nullable), the node
 * fetches it for metad and the kickstart's %post applies it. Fails with
 * the installer's error, its power-off without end or a clock's timeout.
 */
gboolean
gnt_lu_instance_kickstart_run(GntLu *lu, GntRpcClient *rpc, JsonObject *node, JsonObject *spec,
			      JsonObject *record, const GntSecretDict *secrets, GError **error);

G_END_DECLS
