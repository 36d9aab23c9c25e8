#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define GNT_ERROR (gnt_error_quark())

/**
 * GntError:
 *
 * The one error domain of Gantry. The codes follow Ganeti's ECODE_* set, so
 * that every layer (LUXI, RAPI, the job log) can report the same class of
 * failure the way a Ganeti client expects it.
 */
typedef enum {
	GNT_ERROR_INVALID,	     /* wrong_input: bad argument, parse error */
	GNT_ERROR_NOT_FOUND,	     /* unknown_entity */
	GNT_ERROR_EXISTS,	     /* already_exists */
	GNT_ERROR_WRONG_STATE,	     /* wrong_state */
	GNT_ERROR_NO_RESOURCES,	     /* insufficient_resources */
	GNT_ERROR_TEMP_NO_RESOURCES, /* temp_insufficient_resources */
	GNT_ERROR_ENVIRONMENT,	     /* environment_error: disk, network, peer */
	GNT_ERROR_FAULT,	     /* internal_error: a bug or a broken invariant */
	GNT_ERROR_LAST
} GntError;

GQuark
gnt_error_quark(void);

/* Ganeti's error-class string for @code ("wrong_input", ...). */
const gchar *
gnt_error_to_ecode(GntError code);

/* The GntError for a Ganeti error-class string; GNT_ERROR_FAULT if unknown. */
GntError
gnt_error_from_ecode(const gchar *ecode);

/* Converts any foreign error into GNT_ERROR in place, keeping the message
 * (GIO and file errors become GNT_ERROR_ENVIRONMENT). */
void
gnt_error_convert(GError **error);

/* Sets @error from errno with the message "@what: strerror". */
void
gnt_error_set_errno(GError **error, int errsv, const gchar *what);

G_END_DECLS
