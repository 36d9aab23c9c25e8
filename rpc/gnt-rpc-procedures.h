#pragma once /* rpc/gnt-rpc-procedures.h: the node-RPC procedure table, shared by both sides */

#include <json-glib/json-glib.h>

#include "gnt-secret-dict.h"

G_BEGIN_DECLS

/*
 * Every procedure of node RPC, written once (Ganeti's rpc_defs): its name,
 * how long the master waits for it, and its arguments, in order, with their
 * types. The master's typed calls (gnt-node-calls*.c) encode their
 * arguments from it; noded's server decodes and checks each request against
 * it before a procedure runs, so a procedure reads typed values
 * (gnt_rpc_args_get_*()) and never the raw JSON list. doc/node-rpc.md
 * describes the table; tests/rpc/test-rpc-procedures.c walks it.
 */

/* How the JSON value of one argument looks. */
typedef enum {
	GNT_RPC_ARG_BOOL,
	GNT_RPC_ARG_UINT,   /* an integer 0 to the row's max */
	GNT_RPC_ARG_NUMBER, /* any number 0 to the row's max (seconds) */
	GNT_RPC_ARG_STRING,
	GNT_RPC_ARG_STRING_OR_NULL,
	GNT_RPC_ARG_STRV, /* a list of strings */
	GNT_RPC_ARG_OBJECT,
	GNT_RPC_ARG_OBJECT_OR_NULL,
	/* the instance spec the master builds (gnt-node-calls.h), an object;
	 * noded reads it with gnt_rpc_node_spec_new() */
	GNT_RPC_ARG_SPEC,
	/* a GntSecretDict on the master, sent as placeholders filled in
	 * protected memory (gnt-secret-dict.h); an object or null on the node */
	GNT_RPC_ARG_SECRETS,
} GntRpcArgType;

typedef enum {
	GNT_RPC_PROCEDURE_FLAGS_NONE = 0,
	/* Needs no client certificate: only the join endpoint, which checks
	 * its own proof (rpc/gnt-join.h). */
	GNT_RPC_PROCEDURE_PUBLIC = 1 << 0,
} GntRpcProcedureFlags;

#define GNT_RPC_MAX_ARGS 6

typedef struct {
	const gchar *name; /* as errors quote it: 'timeout' must be ... */
	GntRpcArgType type;
	guint64 max; /* UINT and NUMBER: the largest value */
	/* may be left out, with every argument after it (a master that
	 * predates it); only at the end */
	gboolean optional;
	/* may carry secrets: noded wipes the request's strings once the
	 * procedure has returned, and the procedure keeps no reference */
	gboolean secret;
} GntRpcArgDef;

typedef struct {
	const gchar *name; /* the URL path without '/': "instance_start" */
	guint timeout_s;   /* how long the master waits for the answer */
	/* NULL, or a UINT argument (a guest's timeout) the master waits more */
	const gchar *timeout_arg;
	GntRpcProcedureFlags flags;
	GntRpcArgDef args[GNT_RPC_MAX_ARGS + 1]; /* ended by a NULL name */
} GntRpcProcedureDef;

/* noded stops an OS script this much before the master stops waiting, so
 * that the script's log tail reaches the job log. */
#define GNT_RPC_SCRIPT_MARGIN_S 30

/* Every procedure gantry-noded serves, ended by a row with a NULL name. */
extern const GntRpcProcedureDef gnt_rpc_procedure_defs[];

/* The row of @name, or NULL. */
const GntRpcProcedureDef *
gnt_rpc_procedure_def_lookup(const gchar *name);
/* Whether an argument of @def may carry secrets. */
gboolean
gnt_rpc_procedure_def_has_secrets(const GntRpcProcedureDef *def);
/* The number of arguments of @def (the optional ones included). */
guint
gnt_rpc_procedure_def_get_n_args(const GntRpcProcedureDef *def);
/* "instance spec, paused": the arguments for messages. (transfer full) */
gchar *
gnt_rpc_procedure_def_dup_usage(const GntRpcProcedureDef *def);
/* Checks one row: a name, argument names unique and of a known type, the
 * optional ones last, a timeout, timeout_arg naming a UINT argument.
 * GNT_ERROR_INVALID naming the procedure and argument otherwise. */
gboolean
gnt_rpc_procedure_def_check(const GntRpcProcedureDef *def, GError **error);

/* A STRV value as JSON: [string, ...] (NULL: empty). (transfer full) */
JsonArray *
gnt_rpc_strv_to_array(const gchar *const *strv);
/* A list of strings from JSON; GNT_ERROR_INVALID naming @what ("'search_path'")
 * otherwise. (transfer full) */
GStrv
gnt_rpc_strv_from_json(JsonNode *node, const gchar *what, GError **error);

/* --- the master's side: encoding ---------------------------------------- */

/* One argument's value, the member its type says: BOOL .b, UINT .u,
 * NUMBER .d, STRING(_OR_NULL) .s, STRV .strv, OBJECT(_OR_NULL) and SPEC
 * .obj, SECRETS .secrets (NULL: null). */
typedef struct {
	gboolean b;
	guint64 u;
	gdouble d;
	const gchar *s;
	const gchar *const *strv;
	JsonObject *obj;
	const GntSecretDict *secrets;
} GntRpcValue;

/* "@values, @n_values" for the values written: GNT_RPC_VALUES({.obj =
 * spec}, {.b = paused}). */
#define GNT_RPC_VALUES(...)                                                                        \
	((const GntRpcValue[]){__VA_ARGS__}),                                                      \
		(guint)G_N_ELEMENTS(((const GntRpcValue[]){__VA_ARGS__}))

/* The request's argument list for @def from @values (@n_values of them:
 * every argument, or all but optional ones at the end). A count or value
 * that does not fit the row is a programmer error. (transfer full) */
JsonArray *
gnt_rpc_args_encode(const GntRpcProcedureDef *def, const GntRpcValue *values, guint n_values);
/* How long the master waits: the row's timeout, plus the value of its
 * timeout_arg in @values. */
guint
gnt_rpc_procedure_def_get_timeout(const GntRpcProcedureDef *def, const GntRpcValue *values,
				  guint n_values);
/* The secrets of @values' SECRETS argument, or NULL. (transfer none) */
const GntSecretDict *
gnt_rpc_values_get_secrets(const GntRpcProcedureDef *def, const GntRpcValue *values,
			   guint n_values);

/* --- the node's side: decoding ------------------------------------------ */

/* A request's arguments, checked against their row. */
typedef struct _GntRpcArgs GntRpcArgs;

/* Checks @array against @def: the count ("takes 2 arguments (instance
 * spec, paused), not 3"), then each argument's type and range ("'timeout'
 * must be 0 to 86400, not -1"). GNT_ERROR_INVALID naming the argument
 * otherwise. @array is referenced. (transfer full) */
GntRpcArgs *
gnt_rpc_args_decode(const GntRpcProcedureDef *def, JsonArray *array, GError **error);
void
gnt_rpc_args_free(GntRpcArgs *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GntRpcArgs, gnt_rpc_args_free)

/* The row the arguments were checked against. */
const GntRpcProcedureDef *
gnt_rpc_args_get_def(const GntRpcArgs *self);
/* The request's list itself (transfer none). */
JsonArray *
gnt_rpc_args_get_array(const GntRpcArgs *self);
/* Whether argument @name was sent (FALSE only for an optional one left
 * out). */
gboolean
gnt_rpc_args_has(const GntRpcArgs *self, const gchar *name);

/* The typed getters: @name must be an argument of the row of the type the
 * getter reads (a programmer error otherwise). An optional argument left
 * out reads as FALSE, 0, NULL. All (transfer none). */
gboolean
gnt_rpc_args_get_bool(const GntRpcArgs *self, const gchar *name);
guint64
gnt_rpc_args_get_uint(const GntRpcArgs *self, const gchar *name);
gdouble
gnt_rpc_args_get_number(const GntRpcArgs *self, const gchar *name);
/* STRING, STRING_OR_NULL (NULL for null) */
const gchar *
gnt_rpc_args_get_string(const GntRpcArgs *self, const gchar *name);
const gchar *const *
gnt_rpc_args_get_strv(const GntRpcArgs *self, const gchar *name);
/* OBJECT, OBJECT_OR_NULL, SPEC, SECRETS (NULL for null) */
JsonObject *
gnt_rpc_args_get_object(const GntRpcArgs *self, const gchar *name);

G_END_DECLS
