#pragma once

/*
 * What the resource files of gantry-rapi share (gnt-rapi-resources*.c):
 * reading query arguments and bodies the way Ganeti's baserlib does,
 * calling LUXI, building opcodes from a body plus static parameters
 * (FillOpcode), submitting and waiting for jobs, and turning query rows
 * into the objects RAPI answers. Only the resources and their tests use it.
 */

#include "gnt-rapi-route.h"

G_BEGIN_DECLS

/* ---- query arguments ---- */

/* Every value of query argument @name in order, or NULL. (transfer none) */
GPtrArray *
gnt_rapi_request_get_query_all(GntRapiRequest *request, const gchar *name);
/* Ganeti's _checkIntVariable: the first value of @name as an integer,
 * @fallback when absent; anything else is GNT_ERROR_INVALID "Invalid value
 * for the '@name' parameter". */
gboolean
gnt_rapi_request_get_int(GntRapiRequest *request, const gchar *name, gint64 fallback, gint64 *out,
			 GError **error);
/* The same as a flag: bulk=1, dry-run=1, force=1 (any non-zero integer). */
gboolean
gnt_rapi_request_get_flag(GntRapiRequest *request, const gchar *name, gboolean *out,
			  GError **error);
/* "fields=a,b" split at commas and stripped, or a copy of @fallback when
 * the argument is absent. (transfer full) */
GStrv
gnt_rapi_request_get_fields(GntRapiRequest *request, const gchar *const *fallback);
/* Whether the query string has any argument but those in @except
 * (NULL-terminated, may be NULL). */
gboolean
gnt_rapi_request_has_query(GntRapiRequest *request, const gchar *const *except);

/* ---- bodies ---- */

/* The body as an object: NULL (no error) when there is none and
 * @required is FALSE; GNT_ERROR_INVALID when it is not an object, or is
 * missing and @required. (transfer none) */
gboolean
gnt_rapi_request_get_body_object(GntRapiRequest *request, gboolean required, JsonObject **out,
				 GError **error);

/* ---- LUXI ---- */

/* Calls @method with @args (transfer full) on the request's connection.
 * Failures keep the LUXI client's codes (gnt-rapi-route.h maps them), with
 * two refinements: a "Queue drained" GenericError is
 * GNT_ERROR_TEMP_NO_RESOURCES (Ganeti's 503) and a request masterd could
 * not parse is GNT_ERROR_INVALID "Invalid body parameters: ...". */
JsonNode *
gnt_rapi_call(GntRapiRequest *request, const gchar *method, JsonArray *args, GError **error);
/* Whether @node (may be NULL) is a list of strings. */
gboolean
gnt_rapi_node_is_string_list(JsonNode *node);
/* A JSON list of the strings of @strv. (transfer full) */
JsonArray *
gnt_rapi_strv_to_array(const gchar *const *strv);
/* The answer of a classic query (QueryInstances, QueryNodes, QueryJobs):
 * a list of rows, each a list. (transfer none: points into @result) */
gboolean
gnt_rapi_result_get_rows(JsonNode *result, guint n_fields, JsonArray **rows, GError **error);

/* ---- answers ---- */

/* Adds aliases and the like to one object of a list or item resource. */
typedef void (*GntRapiFixupFunc)(JsonObject *obj);

/*
 * A list resource over a classic query (@method: QueryInstances,
 * QueryNodes, QueryGroups) with rlib2's options: "bulk=1" answers one object
 * per item with @fields (or those of "fields=a,b"), each passed to @fixup
 * (may be NULL); otherwise the sorted [{@id_key: name, "uri": "@uri_prefix"
 * name}] (rlib2's uri_fields: "id", or "name" for groups). "lock=1" is
 * passed on (masterd refuses it, as luxid does). (transfer full)
 */
JsonNode *
gnt_rapi_list_objects(GntRapiRequest *request, const gchar *method, const gchar *const *fields,
		      const gchar *uri_prefix, const gchar *id_key, GntRapiFixupFunc fixup,
		      GError **error);
/* One item of it, named by the path's first argument: its object, or
 * GNT_ERROR_NOT_FOUND when the name is unknown (@what names it in the
 * message: "Instance"). (transfer full) */
JsonNode *
gnt_rapi_get_object(GntRapiRequest *request, const gchar *method, const gchar *what,
		    const gchar *const *fields, GntRapiFixupFunc fixup, GError **error);

/* Ganeti's MapFields: {field: value} of one row. The values are shared
 * with @row (single-threaded: the handler owns both). (transfer full) */
JsonObject *
gnt_rapi_row_to_object(const gchar *const *fields, JsonArray *row);
/* Ganeti's BuildUriList over the first column of @rows (names or job IDs):
 * [{@id_key: ID, "uri": "@prefix" ID}], sorted by name (numerically for
 * IDs). (transfer full) */
JsonNode *
gnt_rapi_uri_list(JsonArray *rows, const gchar *prefix, const gchar *id_key);

/* ---- opcodes and jobs ---- */

/* Whether @status (a job status string, may be NULL) is a final one:
 * success, error or canceled. */
gboolean
gnt_rapi_job_status_is_final(const gchar *status);

typedef struct {
	const gchar *from; /* as the client sends it */
	const gchar *to;   /* the opcode parameter */
} GntRapiRename;

/*
 * Ganeti's FillOpcode: an opcode @op_id from @body (NULL: none; its members
 * are shared, not copied, so no second copy of a secret is made), with the
 * names in @renames (NULL-terminated by from, may be NULL) renamed, then
 * @statics (transfer none) added. A renamed parameter given under both
 * names, or a body member that would override a static one (OP_ID and the
 * reason trail are static too) is GNT_ERROR_INVALID naming it. Adds the
 * reason trail: the "reason" query argument as gnt:user, then
 * gnt:library:rlib2:@resource. Types and unknown parameters are checked by
 * masterd when the job is submitted. (transfer full)
 */
JsonObject *
gnt_rapi_opcode_new(GntRapiRequest *request, const gchar *op_id, const gchar *resource,
		    JsonObject *body, const GntRapiRename *renames, JsonObject *statics,
		    GError **error);
/* SubmitJob of @ops (transfer full); the answer is the job ID as a JSON
 * integer. (transfer full) */
JsonNode *
gnt_rapi_submit_job(GntRapiRequest *request, JsonArray *ops, GError **error);
/* gnt_rapi_opcode_new() of one opcode, submitted as a job of its own. */
JsonNode *
gnt_rapi_submit_opcode(GntRapiRequest *request, const gchar *op_id, const gchar *resource,
		       JsonObject *body, const GntRapiRename *renames, JsonObject *statics,
		       GError **error);
/* Ganeti's cli.PollJob: waits for job @job_id to end and returns the
 * result of each opcode (a list); a job that did not succeed fails with
 * the error of its first failed opcode (OpPrereqError's ecode kept, else
 * GNT_ERROR_FAULT), or GNT_ERROR_WRONG_STATE when it was canceled.
 * (transfer full) */
JsonArray *
gnt_rapi_wait_for_job(GntRapiRequest *request, guint64 job_id, GError **error);

/* ---- the answer cache (gnt-rapi-resources-cache.c) ---- */

/* How long a cached answer is served: masterd's changes that this process
 * did not make or see show after this at most. */
#define GNT_RAPI_CACHE_TTL_US (1 * G_USEC_PER_SEC)

/* What becomes of a fresh answer. */
typedef enum {
	GNT_RAPI_CACHE_STORE,	      /* kept (the default) */
	GNT_RAPI_CACHE_SKIP,	      /* not kept: a job still running */
	GNT_RAPI_CACHE_STORE_CHANGED, /* kept, every other answer made stale: a
					 job seen finished */
} GntRapiCacheVerdict;

/* Asks masterd for a fresh answer (transfer full), and may set *@verdict. */
typedef JsonNode *(*GntRapiFetchFunc)(GntRapiRequest *request, gpointer user_data,
				      GntRapiCacheVerdict *verdict, GError **error);

/*
 * The answer for @key (what the request asks: resource, name, fields,
 * options) from the cache when it is younger than the TTL and nothing
 * changed since (gnt_rapi_cache_changed()), else from @fetch, which then
 * runs once for all the workers asking the same at the same time. Errors
 * are not cached. The answer is sealed and shared between threads: it
 * must not be changed. (transfer full)
 */
JsonNode *
gnt_rapi_cache_lookup(GntRapiRequest *request, const gchar *key, GntRapiFetchFunc fetch,
		      gpointer user_data, GError **error);
/* Something may have changed (a job was submitted, or seen to change):
 * every cached answer is stale. */
void
gnt_rapi_cache_changed(void);
/* For tests: the TTL in us (0: no caching); drops every cached answer. */
void
gnt_rapi_cache_set_ttl(gint64 ttl_us);

/* ---- tags (/2/tags, /2/instances/{name}/tags, ...) ---- */

/* GET (QueryTags: the list), PUT (OP_TAGS_SET) and DELETE (OP_TAGS_DEL of
 * the "tag" query arguments, with dry-run: the job ID) of the tags of the
 * route's {name}, or of the cluster; the route's data is the tag kind. */
JsonNode *
gnt_rapi_get_tags(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_put_tags(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_delete_tags(GntRapiRequest *request, GError **error);

/* ---- the handlers, one file per family ---- */

/* gnt-rapi-resources-steps.c: Gantry's install steps (issue 14) */
JsonNode *
gnt_rapi_get_install_steps(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_get_install_step(GntRapiRequest *request, GError **error);

/* gnt-rapi-resources-cluster.c */
JsonNode *
gnt_rapi_get_root(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_get_version(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_get_info(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_get_features(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_get_os(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_put_cluster_modify(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_get_query(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_put_query(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_get_query_fields(GntRapiRequest *request, GError **error);

/* gnt-rapi-resources-instances.c */
JsonNode *
gnt_rapi_get_instances(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_post_instances(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_get_instance(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_delete_instance(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_get_instance_info(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_put_instance_startup(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_put_instance_shutdown(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_post_instance_reboot(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_post_instance_reinstall(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_put_instance_modify(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_put_instance_rename(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_put_instance_activate_disks(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_put_instance_deactivate_disks(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_post_instance_disk_grow(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_get_instance_console(GntRapiRequest *request, GError **error);

/* gnt-rapi-resources-nodes.c */
JsonNode *
gnt_rapi_get_nodes(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_get_node(GntRapiRequest *request, GError **error);

/* gnt-rapi-resources-groups.c */
JsonNode *
gnt_rapi_get_groups(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_post_groups(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_get_group(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_delete_group(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_put_group_modify(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_put_group_rename(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_put_group_assign_nodes(GntRapiRequest *request, GError **error);

/* gnt-rapi-resources-images.c */
JsonNode *
gnt_rapi_get_images(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_post_images(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_get_image(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_put_image(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_delete_image(GntRapiRequest *request, GError **error);
/* gnt-rapi-resources-templates.c */
JsonNode *
gnt_rapi_get_install_templates(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_post_install_templates(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_get_install_template(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_patch_install_template(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_delete_install_template(GntRapiRequest *request, GError **error);

/* gnt-rapi-resources-jobs.c */
JsonNode *
gnt_rapi_get_jobs(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_get_job(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_delete_job(GntRapiRequest *request, GError **error);
JsonNode *
gnt_rapi_get_job_wait(GntRapiRequest *request, GError **error);

G_END_DECLS
