#include "gnt-error.h"

#include <errno.h>
#include <string.h>

G_DEFINE_QUARK(gnt - error - quark, gnt_error)

static const gchar *const ecode_names[] = {
	[GNT_ERROR_INVALID] = "wrong_input",
	[GNT_ERROR_NOT_FOUND] = "unknown_entity",
	[GNT_ERROR_EXISTS] = "already_exists",
	[GNT_ERROR_WRONG_STATE] = "wrong_state",
	[GNT_ERROR_NO_RESOURCES] = "insufficient_resources",
	[GNT_ERROR_TEMP_NO_RESOURCES] = "temp_insufficient_resources",
	[GNT_ERROR_ENVIRONMENT] = "environment_error",
	[GNT_ERROR_FAULT] = "internal_error",
};
G_STATIC_ASSERT(G_N_ELEMENTS(ecode_names) == GNT_ERROR_LAST);

const gchar *
gnt_error_to_ecode(GntError code)
{
	g_return_val_if_fail(code < GNT_ERROR_LAST, "internal_error");
	return ecode_names[code];
}

GntError
gnt_error_from_ecode(const gchar *ecode)
{
	for (guint i = 0; ecode != NULL && i < G_N_ELEMENTS(ecode_names); i++) {
		if (g_strcmp0(ecode, ecode_names[i]) == 0)
			return (GntError)i;
	}
	return GNT_ERROR_FAULT;
}

void
gnt_error_convert(GError **error)
{
	GError *err;

	if (error == NULL || *error == NULL)
		return;
	err = *error;
	if (err->domain == GNT_ERROR)
		return;
	err->domain = GNT_ERROR;
	err->code = GNT_ERROR_ENVIRONMENT;
}

void
gnt_error_set_errno(GError **error, int errsv, const gchar *what)
{
	GntError code = GNT_ERROR_ENVIRONMENT;

	if (errsv == ENOENT)
		code = GNT_ERROR_NOT_FOUND;
	else if (errsv == EEXIST)
		code = GNT_ERROR_EXISTS;
	g_set_error(error, GNT_ERROR, code, "%s: %s", what, g_strerror(errsv));
}
