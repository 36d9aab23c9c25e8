#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * A blocking LUXI client, one connection to the master daemon, used by the
 * gnt-* tools, gantry-rapi, tests and benchmarks. One call at a time; not
 * thread-safe (use one client per thread). Requests may hold secrets: the
 * request bytes are wiped once sent.
 */

/* Ganeti's classes (rpc/errors.py) for failures of the connection itself */
#define GNT_LUXI_EXC_NO_MASTER	       "NoMasterError"
#define GNT_LUXI_EXC_PERMISSION	       "PermissionError"
#define GNT_LUXI_EXC_TIMEOUT	       "TimeoutError"
#define GNT_LUXI_EXC_CONNECTION_CLOSED "ConnectionClosedError"
#define GNT_LUXI_EXC_PROTOCOL	       "ProtocolError"

#define GNT_TYPE_LUXI_CLIENT (gnt_luxi_client_get_type())
G_DECLARE_FINAL_TYPE(GntLuxiClient, gnt_luxi_client, GNT, LUXI_CLIENT, GObject)

/* Connects to the socket at @socket_path. A missing socket or a refused
 * connection fails with GNT_ERROR_ENVIRONMENT "cannot connect to the master
 * daemon at '%s': ... (is gantry-masterd running?)"; other failures (say,
 * permission denied) with GNT_ERROR_ENVIRONMENT too. (transfer full) */
GntLuxiClient *
gnt_luxi_client_new(const gchar *socket_path, GError **error);
/* The same; on failure *@exc_class (may be NULL; static string) gets
 * Ganeti's class for it: GNT_LUXI_EXC_PERMISSION when the socket may not be
 * used, GNT_LUXI_EXC_TIMEOUT when connecting timed out, else
 * GNT_LUXI_EXC_NO_MASTER. */
GntLuxiClient *
gnt_luxi_client_new_full(const gchar *socket_path, const gchar **exc_class, GError **error);

/* Seconds one send or receive may block before the call fails with
 * GNT_ERROR_ENVIRONMENT (class GNT_LUXI_EXC_TIMEOUT); default 180 (Ganeti's LUXI_DEF_RWTO), 0: forever. */
void
gnt_luxi_client_set_timeout(GntLuxiClient *self, guint timeout_s);

/*
 * Calls @method with @args (a JSON array; transfer none) and blocks for the
 * answer. (transfer full) result, or NULL with:
 * - the server's failure: OpPrereqError takes the GNT_ERROR code of its
 *   ecode, a plain-string answer (a request the server could not parse) is
 *   GNT_ERROR_INVALID, every other exception class GNT_ERROR_FAULT; the
 *   message is the exception's message;
 * - GNT_ERROR_ENVIRONMENT when the connection fails or closes, or
 *   GNT_ERROR_INVALID when the answer cannot be parsed; after those the
 *   client is closed and every later call fails at once.
 */
JsonNode *
gnt_luxi_client_call(GntLuxiClient *self, const gchar *method, JsonNode *args, GError **error);

/* The exception class ("OpPrereqError", "OpExecError", "JobLost", ...) of
 * the last failed call, NULL for a plain-string error or a successful call.
 * A transport failure has Ganeti's class for it: GNT_LUXI_EXC_TIMEOUT,
 * GNT_LUXI_EXC_PERMISSION, GNT_LUXI_EXC_CONNECTION_CLOSED or else
 * GNT_LUXI_EXC_PROTOCOL. (transfer none) */
const gchar *
gnt_luxi_client_get_error_class(GntLuxiClient *self);
/* The arguments (a JSON array) of the exception the server sent for the
 * last failed call, exactly as encoded: [msg, ecode] for OpPrereqError,
 * ["host", ...] for ResolverError, ... NULL for a plain-string error, a
 * transport failure or a successful call. (transfer none) */
JsonNode *
gnt_luxi_client_get_error_args(GntLuxiClient *self);

/* SubmitJob: @ops is a list of opcode objects. */
gboolean
gnt_luxi_client_submit_job(GntLuxiClient *self, JsonArray *ops, guint64 *job_id, GError **error);

/* WaitForJobChange: @prev_info NULL for none, @prev_serial -1 for none.
 * The result is [job_info, log_entries], or the string "nochange" on
 * timeout. A job that is not found fails with class "JobLost". */
JsonNode *
gnt_luxi_client_wait_for_job_change(GntLuxiClient *self, guint64 job_id, JsonArray *fields,
				    JsonNode *prev_info, gint64 prev_serial, guint timeout_s,
				    GError **error);

/* Query: @filter NULL for none. The result is {"fields": [...], "data": [...]}. */
JsonNode *
gnt_luxi_client_query(GntLuxiClient *self, const gchar *what, JsonArray *fields, JsonNode *filter,
		      GError **error);

G_END_DECLS
