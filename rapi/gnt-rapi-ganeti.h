#pragma once

#include "gnt-rapi-route.h"

G_BEGIN_DECLS

/*
 * Ganeti's RAPI v2 resources (gnt-rapi-ganeti.c), the one list of what
 * Ganeti serves: a path of it that Gantry has no handler for answers 501
 * naming the resource, never a bare 404.
 */

/* @gantry's routes (ended by an all-NULL entry), followed by one route
 * with a NULL handler and the rlib2 class as resource for every path and
 * method of Ganeti's that @gantry lacks; ended by an all-NULL entry.
 * (transfer full: the array; its strings are static) */
GntRapiRoute *
gnt_rapi_ganeti_routes_new(const GntRapiRoute *gantry);

/* rlib2's class for @pattern ("/2/instances/{name}"), NULL if Ganeti has
 * no such resource. (transfer none) */
const gchar *
gnt_rapi_ganeti_resource(const gchar *pattern);

/* Whether Ganeti serves @method on @pattern. */
gboolean
gnt_rapi_ganeti_has(const gchar *pattern, const gchar *method);

G_END_DECLS
