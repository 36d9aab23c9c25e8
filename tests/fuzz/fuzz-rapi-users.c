/* libFuzzer target: gantry-rapi's users file parser (Ganeti's format, a
 * file an administrator edits by hand), then a password check against
 * what it read. */
#include "gnt-rapi-users.h"

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput(const guint8 *data, size_t size)
{
	g_autoptr(GPtrArray) warnings = NULL;
	GntRapiUsers *users = gnt_rapi_users_parse((const gchar *)data, size, &warnings, NULL);

	if (users == NULL)
		return 0;
	{
		GntRapiUserFlags flags = 0;

		(void)gnt_rapi_users_check(users, "admin", "secret", 6, &flags);
	}
	gnt_rapi_users_unref(users);
	return 0;
}
