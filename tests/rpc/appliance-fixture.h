#pragma once /* tests/rpc/appliance-fixture.h: noded in process and a real gantry-metad */

/*
 * What the appliance tests (test-appliance-rpc.c) and the in-band step
 * benchmark (bench/bench-inband-steps.c) share: node1 (noded in process
 * over TLS, the fake hypervisor, and kvm when libvirtd runs), a real
 * gantry-metad on its root, the agent of the source tree; an instance's
 * spec with its disks made, appliance_run's options.
 */
#include "gnt-json.h"
#include "rpc-test-server.h"

G_BEGIN_DECLS

#define MAC	     "52:54:00:ab:cd:ef"
#define IP	     "169.254.12.34"
#define SECRET_VALUE "s3cr3t-package-pw"

typedef struct {
	TestNode node1; /* the node under test */
	GSubprocess *metad;
	gchar *control;
	gchar *os_dir;
	gchar *work; /* the test's own files, outside the root */
} ApplFx;

void
appl_set_up(ApplFx *fx, gconstpointer data);
void
appl_tear_down(ApplFx *fx, gconstpointer data);
/* The spec of instance @name (one 8 MiB disk, made on node1) on
 * @hypervisor, with the channel's NIC. (transfer full) */
JsonObject *
make_spec_for(ApplFx *fx, const gchar *name, const gchar *hypervisor, gboolean communication);
JsonObject *
make_spec(ApplFx *fx, const gchar *name, gboolean communication);
/* appliance_run's options: the record with @script as the create script
 * and the package credentials among the secrets. (transfer full) */
JsonObject *
make_options(const gchar *name, const gchar *script, guint timeout_s);
/* make_options() with the session's in-band steps (a JSON array).
 * (transfer full) */
JsonObject *
make_session_options(const gchar *name, const gchar *script, const gchar *steps_json);
/* Copies the built appliance GNT_TEST_APPLIANCE_DIR names to node1's
 * appliance directory; FALSE (the test skipped) when none is named. */
gboolean
install_real_appliance(ApplFx *fx);

G_END_DECLS
