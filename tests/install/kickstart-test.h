#pragma once /* tests/install/kickstart-test.h: what the kickstart tests render with */

#include "gnt-kickstart-prepare.h"

/* An install's values: the image a tarball, two ssh keys (so the rendered
 * file has a line more than the template from there on), no stage2. */
static inline void
kickstart_test_set_values(GntKickstartRequest *request, const gchar *token)
{
	request->values[GNT_KICKSTART_VAR_LIVEIMG_URL] = GNT_KICKSTART_METAD_INSTALL
		"/image.tar.gz";
	request->values[GNT_KICKSTART_VAR_CALLBACK_URL] = GNT_KICKSTART_CALLBACK_URL;
	request->values[GNT_KICKSTART_VAR_AGENT_TOKEN] = token;
	request->values[GNT_KICKSTART_VAR_INSTANCE_NAME] = "web1.example.com";
	request->values[GNT_KICKSTART_VAR_HOSTNAME] = "web1";
	request->values[GNT_KICKSTART_VAR_SSH_KEYS] =
		"ssh-ed25519 AAAAC3Nz a@b\nssh-rsa AAAAB3 c@d";
}
