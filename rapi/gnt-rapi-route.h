#pragma once

#include <json-glib/json-glib.h>

#include "gnt-luxi-client.h"

G_BEGIN_DECLS

/*
 * The contract between gantry-rapi's HTTP layer (gnt-rapi-server.c: TLS,
 * authentication, body limits, routing, error bodies) and its resources
 * (gnt-rapi-resources*.c: one handler per Ganeti RAPI v2 path and method,
 * turning a request into LUXI calls).
 *
 * Handlers run on a worker thread of the server, never on its main loop, so
 * they may block on LUXI (WaitForJobChange waits up to 10 s). They answer
 * with a JSON node (the server writes it followed by "\n", HTTP 200,
 * application/json) or fail with a GError that the server maps to Ganeti's
 * error body {code, message, explain}:
 *   GNT_ERROR_INVALID, GNT_ERROR_EXISTS, GNT_ERROR_WRONG_STATE -> 400
 *   GNT_ERROR_NOT_FOUND                                         -> 404
 *   GNT_ERROR_NO_RESOURCES, GNT_ERROR_TEMP_NO_RESOURCES          -> 503
 *   a LUXI transport failure (no master: class NoMasterError)   -> 502
 *   a LUXI timeout (class TimeoutError)                          -> 504
 *   anything else                                                -> 500
 * with the GError's message as "message". A handler may set another
 * status in GntRapiRequest.status (201 Created, 204 No Content, 409
 * Conflict) and a Location header.
 */

typedef enum {
	GNT_RAPI_ACCESS_NONE,  /* anyone (unless --require-authentication) */
	GNT_RAPI_ACCESS_READ,  /* a user with "read" or "write" */
	GNT_RAPI_ACCESS_WRITE, /* a user with "write" */
} GntRapiAccess;

typedef struct {
	const gchar *method; /* "GET", "PUT", "POST", "DELETE" */
	const gchar *path;   /* as requested, decoded, without the query */
	/* The path's variable parts in order: the {name} / {id} of the
	 * route's pattern, e.g. {"web1", NULL} for /2/instances/web1/startup */
	gchar **args;
	/* Query string: name -> GPtrArray of values (gchar *), in order;
	 * repeated names (tag=a&tag=b) keep every value */
	GHashTable *query;
	/* The decoded JSON body, NULL when there is none (no body or an empty
	 * one). The server has already refused non-JSON content types (415)
	 * and unparsable bodies (400). */
	JsonNode *body;
	/* The authenticated user, NULL for an anonymous request */
	const gchar *user;
	/* This worker thread's LUXI connection to masterd, connected and
	 * reconnected by the server as needed (transfer none). Never NULL:
	 * while masterd cannot be reached the server answers 502 without
	 * calling the handler. After a transport failure (the client's error
	 * class is one of GNT_LUXI_EXC_*) the server drops the connection
	 * and, for a GET, runs the handler once more on a new one. */
	GntLuxiClient *luxi;
	/* The matched route's data (GntRapiRoute.data) */
	gconstpointer data;
	/* Set by the handler: the HTTP status of its answer (0: 200) or of
	 * its failure (0: the error's, above); for 204 the answer is not
	 * sent. And the Location header's value (NULL: none; freed by the
	 * server). */
	guint status;
	gchar *location;
} GntRapiRequest;

/* Handles @request. (transfer full) the answer; NULL with @error set. */
typedef JsonNode *(*GntRapiHandlerFunc)(GntRapiRequest *request, GError **error);

typedef struct {
	/* "/2/instances/{name}/startup": "{...}" matches one path segment,
	 * [\w._-]+ for names, \d+ for a segment called {id} or {index},
	 * a tag without '/' ([\w.+*:@-]+) for one called {tag} */
	const gchar *pattern;
	const gchar *method;
	GntRapiAccess access;
	/* NULL: a resource of Ganeti's that Gantry does not implement; the
	 * server answers 501 naming @resource, before authentication (as for
	 * a method the resource does not have) */
	GntRapiHandlerFunc handler;
	/* rlib2's class name, "R_2_instances_name_migrate": set on the routes
	 * without a handler (gnt-rapi-ganeti.h) */
	const gchar *resource;
	/* what a handler shared by several routes needs to know of this one
	 * (the tag kind of a tags resource); the request carries it */
	gconstpointer data;
	/* the media type a body must have (NULL: application/json), and the
	 * largest body (0: the server's limit); else 415, 413 */
	const gchar *content_type;
	gsize max_body;
} GntRapiRoute;

/* Every route gantry-rapi serves, ended by an all-NULL entry: Gantry's
 * handlers, then Ganeti's resources that have none (gnt-rapi-ganeti.h).
 * A path that matches no pattern is a 404; one that matches a pattern but
 * not the method, a 501 "Method X is unsupported for path Y"; a route
 * without handler, a 501 "... is not implemented by Gantry". */
const GntRapiRoute *
gnt_rapi_routes(void);

/* The first value of query argument @name, or NULL. (transfer none) */
const gchar *
gnt_rapi_request_get_query(GntRapiRequest *request, const gchar *name);

G_END_DECLS
