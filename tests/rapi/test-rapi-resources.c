/*
 * gantry-rapi's resources driven directly, without HTTP: each test builds a
 * GntRapiRequest, finds its route in gnt_rapi_routes() and calls the
 * handler against a real gantry-masterd and gantry-noded on a temporary
 * root (gnt-cluster init: the fake hypervisor, diskless instances, Debian's
 * ganeti-os-noop). Checks the answers' content, the jobs they submit, and
 * that bad input is refused with GNT_ERROR_INVALID naming the culprit and
 * nothing submitted.
 */
#include <string.h>
#include <sys/stat.h>

#include "gnt-cmdlib.h"
#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-luxi-client.h"
#include "gnt-paths.h"
#include "gnt-rapi-ganeti.h"
#include "gnt-rapi-resources-private.h"
#include "gnt-rapi-resources.h"
#include "tools/tools-test.h"

#define NOOP_OS "/usr/share/ganeti/os/noop/create"

typedef struct {
	gchar *dir;
	const gchar *root; /* dir, for tools-test.h's RUN() */
	GntPaths *paths;
	GntLuxiClient *luxi;
} RapiFx;

/* gnt-cluster @args... under the fixture's root; it must succeed. */
#define GNT_CLUSTER(fx, ...)                                                                       \
	G_STMT_START                                                                               \
	{                                                                                          \
		g_autoptr(Run) run_ = RUN(fx, "GNT_TEST_GNT_CLUSTER", __VA_ARGS__);                \
		expect(run_, 0, NULL);                                                             \
	}                                                                                          \
	G_STMT_END

static void
rapi_set_up(RapiFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;

	/* answers cached from the previous test's cluster are not this one's */
	gnt_rapi_cache_set_ttl(GNT_RAPI_CACHE_TTL_US);
	fx->dir = g_dir_make_tmp("gnt-rapi-XXXXXX", &error);
	g_assert_no_error(error);
	fx->root = fx->dir;
	fx->paths = gnt_paths_new(fx->dir);
	GNT_CLUSTER(fx, "init", "--noded-port", "0", "cluster.example.com");
	fx->luxi = gnt_luxi_client_new(gnt_paths_get_luxi_socket(fx->paths), &error);
	g_assert_no_error(error);
}

static void
rapi_tear_down(RapiFx *fx, gconstpointer data)
{
	g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", fx->dir);

	g_clear_object(&fx->luxi);
	GNT_CLUSTER(fx, "destroy", "--yes-do-it");
	g_assert_cmpint(system(cmd), ==, 0);
	gnt_paths_free(fx->paths);
	g_free(fx->dir);
}

/* ---- requests through the route table ---- */

/* The route for @method and @path, with the path's variable parts. */
static const GntRapiRoute *
find_route(const gchar *method, const gchar *path, GStrv *args)
{
	g_auto(GStrv) have = g_strsplit(path, "/", -1);
	const GntRapiRoute *routes = gnt_rapi_routes();

	for (guint r = 0; routes[r].pattern != NULL; r++) {
		g_auto(GStrv) want = g_strsplit(routes[r].pattern, "/", -1);
		g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func(g_free);
		gboolean match = g_strv_length(want) == g_strv_length(have) &&
				 g_strcmp0(routes[r].method, method) == 0;

		for (guint i = 0; match && want[i] != NULL; i++) {
			if (want[i][0] == '{')
				g_ptr_array_add(found, g_strdup(have[i]));
			else
				match = g_strcmp0(want[i], have[i]) == 0;
		}
		if (match) {
			g_ptr_array_add(found, NULL);
			*args = (GStrv)g_ptr_array_free(g_steal_pointer(&found), FALSE);
			return &routes[r];
		}
	}
	g_error("no route for %s %s", method, path);
	return NULL;
}

static void
query_add(GHashTable *query, const gchar *name, const gchar *value)
{
	GPtrArray *values = g_hash_table_lookup(query, name);

	if (values == NULL) {
		values = g_ptr_array_new_with_free_func(g_free);
		g_hash_table_insert(query, g_strdup(name), values);
	}
	g_ptr_array_add(values, g_strdup(value));
}

/* Calls the handler of @method @target ("/2/x?a=1&tag=t") with @body (JSON
 * text, NULL: none). (transfer full) */
static JsonNode *
call(RapiFx *fx, const gchar *method, const gchar *target, const gchar *body, GError **error)
{
	g_auto(GStrv) parts = g_strsplit(target, "?", 2);
	g_autoptr(GHashTable) query = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
							    (GDestroyNotify)g_ptr_array_unref);
	g_autoptr(JsonNode) body_node = NULL;
	g_auto(GStrv) args = NULL;
	const GntRapiRoute *route = find_route(method, parts[0], &args);
	GntRapiRequest request = {0};

	if (parts[1] != NULL) {
		g_auto(GStrv) pairs = g_strsplit(parts[1], "&", -1);

		for (guint i = 0; pairs[i] != NULL; i++) {
			g_auto(GStrv) kv = g_strsplit(pairs[i], "=", 2);
			g_autofree gchar *name = g_uri_unescape_string(kv[0], NULL);
			g_autofree gchar *value = g_uri_unescape_string(kv[1] ? kv[1] : "", NULL);

			query_add(query, name, value);
		}
	}
	if (body != NULL) {
		body_node = gnt_json_parse(body, -1, NULL);
		g_assert_nonnull(body_node);
	}
	request.method = method;
	request.path = parts[0];
	request.args = args;
	request.query = query;
	request.body = body_node;
	request.user = "tester";
	request.luxi = fx->luxi;
	request.data = route->data;
	return route->handler(&request, error);
}

/* The answer of a request that must succeed. (transfer full) */
static JsonNode *
call_ok(RapiFx *fx, const gchar *method, const gchar *target, const gchar *body)
{
	g_autoptr(GError) error = NULL;
	JsonNode *answer = call(fx, method, target, body, &error);

	if (error != NULL)
		g_error("%s %s: %s", method, target, error->message);
	g_assert_nonnull(answer);
	return answer;
}

/* A request that must fail with @code and a message holding @needle. */
static void
call_fails(RapiFx *fx, const gchar *method, const gchar *target, const gchar *body, GntError code,
	   const gchar *needle)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) answer = call(fx, method, target, body, &error);

	g_assert_null(answer);
	if (!g_error_matches(error, GNT_ERROR, code) || strstr(error->message, needle) == NULL)
		g_error("%s %s: expected code %d with '%s', got %d '%s'", method, target, code,
			needle, error->code, error->message);
}

static gchar *
to_text(JsonNode *node)
{
	return gnt_json_to_string(node);
}

static gint64
job_id_of(JsonNode *answer)
{
	g_assert_true(gnt_json_node_is_int(answer)); /* a JSON integer, as Ganeti's */
	g_assert_cmpint(json_node_get_int(answer), >, 0);
	return json_node_get_int(answer);
}

/* Waits for job @id through /2/jobs/{id}/wait and answers its status. */
static gchar *
wait_job(RapiFx *fx, gint64 id)
{
	g_autofree gchar *target = g_strdup_printf("/2/jobs/%" G_GINT64_FORMAT "/wait", id);
	g_autoptr(JsonNode) prev = gnt_json_node_new_null();

	for (;;) {
		g_autofree gchar *prev_text = to_text(prev);
		g_autofree gchar *body = g_strdup_printf(
			"{\"fields\": [\"status\"], \"previous_job_info\": %s}", prev_text);
		g_autoptr(JsonNode) answer = call_ok(fx, "GET", target, body);
		JsonObject *obj;
		const gchar *status;

		if (JSON_NODE_HOLDS_NULL(answer))
			continue; /* nothing changed within 10 s */
		obj = json_node_get_object(answer);
		status = json_array_get_string_element(
			json_object_get_array_member(obj, "job_info"), 0);
		if (g_strcmp0(status, "success") == 0 || g_strcmp0(status, "error") == 0 ||
		    g_strcmp0(status, "canceled") == 0)
			return g_strdup(status);
		g_clear_pointer(&prev, json_node_unref);
		prev = json_node_copy(json_object_get_member(obj, "job_info"));
	}
}

/* The job must end "success"; shows its result otherwise. */
static void
assert_job_succeeds(RapiFx *fx, JsonNode *answer)
{
	gint64 id = job_id_of(answer);
	g_autofree gchar *status = wait_job(fx, id);

	if (g_strcmp0(status, "success") != 0) {
		g_autofree gchar *target = g_strdup_printf("/2/jobs/%" G_GINT64_FORMAT, id);
		g_autoptr(JsonNode) job = call_ok(fx, "GET", target, NULL);
		g_autofree gchar *text = to_text(job);

		g_error("job %" G_GINT64_FORMAT " ended %s: %s", id, status, text);
	}
}

/* How many jobs the queue has: to prove a refusal submitted nothing. */
static guint
count_jobs(RapiFx *fx)
{
	g_autoptr(JsonNode) jobs = call_ok(fx, "GET", "/2/jobs", NULL);

	return json_array_get_length(json_node_get_array(jobs));
}

static JsonObject *
get_object(RapiFx *fx, const gchar *target)
{
	g_autoptr(JsonNode) answer = call_ok(fx, "GET", target, NULL);

	g_assert_true(JSON_NODE_HOLDS_OBJECT(answer));
	return json_object_ref(json_node_get_object(answer));
}

/* GET /2/jobs/ID of the job whose ID is @answer. (transfer full) */
static JsonObject *
get_job(RapiFx *fx, JsonNode *answer)
{
	g_autofree gchar *target = g_strdup_printf("/2/jobs/%" G_GINT64_FORMAT, job_id_of(answer));

	return get_object(fx, target);
}

static gboolean
array_has_string(JsonArray *array, const gchar *value)
{
	for (guint i = 0; i < json_array_get_length(array); i++) {
		JsonNode *item = json_array_get_element(array, i);

		if (JSON_NODE_HOLDS_VALUE(item) &&
		    g_strcmp0(json_node_get_string(item), value) == 0)
			return TRUE;
	}
	return FALSE;
}

static gboolean
have_noop_os(void)
{
	if (g_file_test(NOOP_OS, G_FILE_TEST_IS_EXECUTABLE))
		return TRUE;
	g_test_skip("Debian's ganeti-os-noop is not installed (scripts/install-deps)");
	return FALSE;
}

#define CREATE_JSON(name, disks, extra)                                                            \
	"{\"__version__\": 1, \"mode\": \"create\", \"name\": \"" name "\", " disks ","            \
	" \"nics\": [], \"os\": \"noop\", \"hypervisor\": \"fake\"" extra "}"
#define CREATE_BODY(name, extra)                                                                   \
	CREATE_JSON(name, "\"disk_template\": \"diskless\", \"disks\": []", extra)
/* one small file disk: a reinstall needs a disk to install onto */
#define CREATE_BODY_FILE(name, extra)                                                              \
	CREATE_JSON(name, "\"disk_template\": \"file\", \"disks\": [{\"size\": 16}]", extra)

/* Creates @name through POST /2/instances and waits for it. */
static void
create_instance(RapiFx *fx, const gchar *body)
{
	g_autoptr(JsonNode) job = call_ok(fx, "POST", "/2/instances", body);

	assert_job_succeeds(fx, job);
}

/* ---- the table ---- */

static void
test_routes(void)
{
	const GntRapiRoute *routes = gnt_rapi_routes();
	guint n = 0;
	guint own = 0;

	for (; routes[n].pattern != NULL; n++) {
		const GntRapiRoute *r = &routes[n];

		g_assert_true(r->pattern[0] == '/');
		/* every route is one of Ganeti's, with a handler or its 501, or
		 * one of Gantry's own paths (Ganeti has nothing there) with a
		 * handler */
		if (gnt_rapi_ganeti_resource(r->pattern) == NULL) {
			g_assert_nonnull(r->handler);
			own++;
		} else {
			g_assert_true(gnt_rapi_ganeti_has(r->pattern, r->method));
		}
		if (r->handler == NULL) {
			g_assert_cmpstr(r->resource, ==, gnt_rapi_ganeti_resource(r->pattern));
			continue;
		}
		/* Ganeti's access rules (section 3.2 of the reference sheet) */
		if (g_str_has_prefix(r->pattern, "/2/query/") ||
		    g_strcmp0(r->pattern, "/2/instances/{name}/console") == 0)
			g_assert_cmpint(r->access, ==, GNT_RAPI_ACCESS_READ);
		else if (g_strcmp0(r->method, "GET") != 0)
			g_assert_cmpint(r->access, ==, GNT_RAPI_ACCESS_WRITE);
		else if (g_strcmp0(r->pattern, "/2/jobs/{id}/wait") == 0)
			g_assert_cmpint(r->access, ==, GNT_RAPI_ACCESS_WRITE);
		else
			g_assert_cmpint(r->access, ==, GNT_RAPI_ACCESS_NONE);
		/* one handler per path and method */
		for (guint j = 0; j < n; j++)
			g_assert_false(g_strcmp0(routes[j].pattern, r->pattern) == 0 &&
				       g_strcmp0(routes[j].method, r->method) == 0);
	}
	/* Ganeti's 62 resources have 84 paths and methods, each here once */
	g_assert_cmpuint(n - own, ==, 84);
	/* the cluster itself */
	g_assert_cmpstr(gnt_rapi_ganeti_resource("/2/modify"), ==, "R_2_cluster_modify");
	g_assert_null(gnt_rapi_ganeti_resource("/2/nothing"));
	g_assert_false(gnt_rapi_ganeti_has("/2/instances/{name}/console", "PUT"));
}

static void
test_query_arguments(void)
{
	g_autoptr(GHashTable) query = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
							    (GDestroyNotify)g_ptr_array_unref);
	GntRapiRequest request = {.method = "GET", .path = "/2/tags", .query = query};

	g_assert_null(gnt_rapi_request_get_query(&request, "tag"));
	query_add(query, "tag", "a");
	query_add(query, "tag", "b");
	g_assert_cmpstr(gnt_rapi_request_get_query(&request, "tag"), ==, "a");
	request.query = NULL;
	g_assert_null(gnt_rapi_request_get_query(&request, "tag"));
}

/* ---- the cluster ---- */

static void
test_cluster(RapiFx *fx, gconstpointer data)
{
	g_autoptr(JsonNode) root = call_ok(fx, "GET", "/", NULL);
	g_autoptr(JsonNode) two = call_ok(fx, "GET", "/2", NULL);
	g_autoptr(JsonNode) version = call_ok(fx, "GET", "/version", NULL);
	g_autoptr(JsonNode) features = call_ok(fx, "GET", "/2/features", NULL);
	g_autoptr(JsonObject) info = get_object(fx, "/2/info");
	g_autofree gchar *features_text = to_text(features);
	g_autofree gchar *master = NULL;

	g_assert_true(JSON_NODE_HOLDS_NULL(root));
	g_assert_true(JSON_NODE_HOLDS_NULL(two));
	g_assert_true(gnt_json_node_is_int(version));
	g_assert_cmpint(json_node_get_int(version), ==, 2);
	g_assert_cmpstr(
		features_text, ==,
		"[\"instance-create-reqv1\",\"instance-reinstall-reqv1\",\"install-steps\",\"install-templates\"]");

	g_assert_cmpstr(json_object_get_string_member(info, "name"), ==, "cluster.example.com");
	g_assert_cmpint(json_object_get_int_member(info, "protocol_version"), ==, 3000000);
	master = g_strdup(json_object_get_string_member(info, "master"));
	g_assert_nonnull(master);
	/* the old names rlib2 adds */
	g_assert_true(json_object_has_member(info, "vg_name"));
	g_assert_true(JSON_NODE_HOLDS_NULL(json_object_get_member(info, "vg_name")));
	g_assert_true(json_object_has_member(info, "drbd_helper"));
	g_assert_true(array_has_string(json_object_get_array_member(info, "enabled_hypervisors"),
				       "fake"));
}

static void
test_cluster_tags(RapiFx *fx, gconstpointer data)
{
	g_autoptr(JsonNode) none = call_ok(fx, "GET", "/2/tags", NULL);
	g_autoptr(JsonNode) added = call_ok(fx, "PUT", "/2/tags?tag=prod&tag=web", NULL);
	g_autoptr(JsonNode) both = NULL;
	g_autoptr(JsonNode) dry = NULL;
	g_autoptr(JsonNode) dry_after = NULL;
	g_autoptr(JsonNode) removed = NULL;
	g_autoptr(JsonNode) left = NULL;
	g_autofree gchar *both_text = NULL;
	g_autofree gchar *left_text = NULL;
	g_autofree gchar *dry_text = NULL;

	g_assert_cmpuint(json_array_get_length(json_node_get_array(none)), ==, 0);
	assert_job_succeeds(fx, added);
	both = call_ok(fx, "GET", "/2/tags", NULL);
	both_text = to_text(both);
	g_assert_cmpstr(both_text, ==, "[\"prod\",\"web\"]");

	/* dry-run: the job checks and changes nothing */
	dry = call_ok(fx, "DELETE", "/2/tags?tag=prod&dry-run=1", NULL);
	assert_job_succeeds(fx, dry);
	dry_after = call_ok(fx, "GET", "/2/tags", NULL);
	dry_text = to_text(dry_after);
	g_assert_cmpstr(dry_text, ==, "[\"prod\",\"web\"]");

	removed = call_ok(fx, "DELETE", "/2/tags?tag=prod", NULL);
	assert_job_succeeds(fx, removed);
	left = call_ok(fx, "GET", "/2/tags", NULL);
	left_text = to_text(left);
	g_assert_cmpstr(left_text, ==, "[\"web\"]");
}

/* Gantry's install steps: the registry's, no master needed. */
static void
test_install_steps(RapiFx *fx, gconstpointer data)
{
	g_autoptr(JsonNode) names = call_ok(fx, "GET", "/2/install-steps", NULL);
	g_autoptr(JsonNode) bulk = call_ok(fx, "GET", "/2/install-steps?bulk=1", NULL);
	g_autoptr(JsonNode) one = call_ok(fx, "GET", "/2/install-steps/deploy.resize_disk", NULL);
	g_autofree gchar *names_text = to_text(names);
	g_autofree gchar *one_text = to_text(one);
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) none = NULL;

	g_assert_nonnull(strstr(names_text, "{\"name\":\"deploy.resize_disk\",\"uri\":\"/2/"
					    "install-steps/deploy.resize_disk\"}"));
	g_assert_null(strstr(names_text, "test."));
	g_assert_cmpuint(json_array_get_length(json_node_get_array(bulk)), ==,
			 json_array_get_length(json_node_get_array(names)));
	g_assert_cmpstr(
		one_text, ==,
		"{\"name\":\"deploy.resize_disk\",\"interface\":\"deploy\",\"step\":\"resize_"
		"disk\",\"runs_on\":\"host\",\"default_priority\":0,\"core\":false,"
		"\"priorities\":[21,99],\"description\":\"grows a disk of the instance to at "
		"least the given size\",\"args\":[{\"name\":\"disk\",\"type\":\"integer\","
		"\"required\":true,\"description\":\"the index of the disk to grow (0 is the "
		"first)\"},{\"name\":\"size\",\"type\":\"size\",\"required\":true,"
		"\"description\":\"the size it must have at least: MiB, or with a unit "
		"(\\\"10G\\\")\"}]}");
	/* the test-only steps are not there at all */
	none = call(fx, "GET", "/2/install-steps/test.fail", NULL, &error);
	g_assert_null(none);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	g_assert_cmpstr(error->message, ==,
			"install step 'test.fail' does not exist (GET /2/install-steps lists "
			"them)");
}

static void
test_os(RapiFx *fx, gconstpointer data)
{
	g_autoptr(JsonNode) names = NULL;
	g_autoptr(JsonNode) bulk = NULL;
	JsonObject *noop = NULL;

	if (!have_noop_os())
		return;
	names = call_ok(fx, "GET", "/2/os", NULL);
	/* noop has no variants: its bare name */
	g_assert_true(array_has_string(json_node_get_array(names), "noop"));

	bulk = call_ok(fx, "GET", "/2/os?bulk=1", NULL);
	for (guint i = 0; i < json_array_get_length(json_node_get_array(bulk)); i++) {
		JsonObject *os = json_array_get_object_element(json_node_get_array(bulk), i);

		if (g_strcmp0(json_object_get_string_member(os, "name"), "noop") == 0)
			noop = os;
	}
	g_assert_nonnull(noop);
	g_assert_true(json_object_get_boolean_member(noop, "valid"));
	g_assert_false(json_object_get_boolean_member(noop, "hidden"));
	g_assert_false(json_object_get_boolean_member(noop, "blacklisted"));
	/* trusted: an administrator's mark (gnt-os modify --trusted), none here;
	 * noop has no untrusted create script */
	g_assert_false(json_object_get_boolean_member(noop, "trusted"));
	g_assert_cmpuint(
		json_array_get_length(json_object_get_array_member(noop, "untrusted_scripts")), ==,
		0);
	g_assert_true(JSON_NODE_HOLDS_ARRAY(json_object_get_member(noop, "variants")));
	g_assert_true(JSON_NODE_HOLDS_ARRAY(json_object_get_member(noop, "parameters")));
	/* noop's ganeti_api_version says 5 and 10; Gantry speaks 10 of them */
	g_assert_cmpint(
		json_array_get_int_element(json_object_get_array_member(noop, "api_versions"), 0),
		==, 10);
}

/* ---- instances ---- */

/* Ganeti 3.0's rlib2.I_FIELDS, spelled out here on purpose rather than taken
 * from gnt-rapi-resources-instances.c: it is the expected value, which a
 * mistake in the resource's own list must not change. */
static const gchar *const i_fields[] = {
	"name",
	"admin_state",
	"os",
	"pnode",
	"snodes",
	"disk_template",
	"nic.ips",
	"nic.macs",
	"nic.modes",
	"nic.uuids",
	"nic.names",
	"nic.links",
	"nic.networks",
	"nic.networks.names",
	"nic.bridges",
	"network_port",
	"disk.sizes",
	"disk.spindles",
	"disk_usage",
	"disk.uuids",
	"disk.names",
	"beparams",
	"hvparams",
	"oper_state",
	"oper_ram",
	"oper_vcpus",
	"status",
	"custom_hvparams",
	"custom_beparams",
	"custom_nicparams",
	"custom_osparams",
	"ctime",
	"mtime",
	"uuid",
	"serial_no",
	"tags",
	NULL,
};

static void
assert_instance_state(RapiFx *fx, const gchar *name, const gchar *admin_state, const gchar *status)
{
	g_autofree gchar *target = g_strconcat("/2/instances/", name, NULL);
	g_autoptr(JsonObject) instance = get_object(fx, target);

	g_assert_cmpstr(json_object_get_string_member(instance, "admin_state"), ==, admin_state);
	g_assert_cmpstr(json_object_get_string_member(instance, "status"), ==, status);
}

static void
test_instances(RapiFx *fx, gconstpointer data)
{
	g_autoptr(JsonNode) list = NULL;
	g_autoptr(JsonNode) bulk = NULL;
	g_autoptr(JsonNode) some = NULL;
	g_autoptr(JsonObject) one = NULL;
	g_autoptr(JsonObject) by_short_name = NULL;
	g_autofree gchar *list_text = NULL;
	g_autofree gchar *some_text = NULL;
	JsonObject *instance;
	JsonObject *beparams;

	if (!have_noop_os())
		return;
	/* name and os are rlib2's renames of instance_name and os_type */
	create_instance(fx, CREATE_BODY("web1.example.com", ", \"beparams\": {\"maxmem\": 256}"));
	create_instance(fx, CREATE_BODY("db1.example.com", ", \"start\": false"));

	list = call_ok(fx, "GET", "/2/instances", NULL);
	list_text = to_text(list);
	g_assert_cmpstr(list_text, ==,
			"[{\"id\":\"db1.example.com\",\"uri\":\"/2/instances/db1.example.com\"},"
			"{\"id\":\"web1.example.com\",\"uri\":\"/2/instances/web1.example.com\"}]");

	bulk = call_ok(fx, "GET", "/2/instances?bulk=1", NULL);
	g_assert_cmpuint(json_array_get_length(json_node_get_array(bulk)), ==, 2);
	instance = json_array_get_object_element(json_node_get_array(bulk), 1);
	for (guint i = 0; i_fields[i] != NULL; i++) {
		if (!json_object_has_member(instance, i_fields[i]))
			g_error("bulk instance lacks '%s'", i_fields[i]);
	}
	g_assert_cmpuint(json_object_get_size(instance), ==, g_strv_length((gchar **)i_fields));
	g_assert_cmpstr(json_object_get_string_member(instance, "name"), ==, "web1.example.com");
	g_assert_cmpstr(json_object_get_string_member(instance, "os"), ==, "noop");
	g_assert_cmpstr(json_object_get_string_member(instance, "disk_template"), ==, "diskless");
	g_assert_true(json_object_get_boolean_member(instance, "oper_state"));
	g_assert_cmpstr(json_object_get_string_member(instance, "status"), ==, "running");
	/* "memory", the old name of maxmem */
	beparams = json_object_get_object_member(instance, "beparams");
	g_assert_cmpint(json_object_get_int_member(beparams, "maxmem"), ==, 256);
	g_assert_cmpint(json_object_get_int_member(beparams, "memory"), ==, 256);

	some = call_ok(fx, "GET", "/2/instances?bulk=1&fields=name,admin_state", NULL);
	some_text = to_text(some);
	g_assert_cmpstr(some_text, ==,
			"[{\"name\":\"db1.example.com\",\"admin_state\":\"down\"},"
			"{\"name\":\"web1.example.com\",\"admin_state\":\"up\"}]");

	one = get_object(fx, "/2/instances/db1.example.com");
	g_assert_cmpuint(json_object_get_size(one), ==, g_strv_length((gchar **)i_fields));
	g_assert_cmpstr(json_object_get_string_member(one, "status"), ==, "ADMIN_down");
	/* Ganeti's lookup takes an unambiguous short name */
	by_short_name = get_object(fx, "/2/instances/db1");
	g_assert_cmpstr(json_object_get_string_member(by_short_name, "name"), ==,
			"db1.example.com");

	call_fails(fx, "GET", "/2/instances/nosuch.example.com", NULL, GNT_ERROR_NOT_FOUND,
		   "nosuch.example.com");
	/* luxid refuses locking queries; so does masterd */
	call_fails(fx, "GET", "/2/instances?bulk=1&lock=1", NULL, GNT_ERROR_INVALID,
		   "Sync queries are not allowed");
	call_fails(fx, "GET", "/2/instances?bulk=yes", NULL, GNT_ERROR_INVALID,
		   "Invalid value for the 'bulk' parameter");
	call_fails(fx, "GET", "/2/instances?bulk=1&fields=name,nosuchfield", NULL,
		   GNT_ERROR_INVALID, "nosuchfield");
}

static void
test_instance_operations(RapiFx *fx, gconstpointer data)
{
	g_autoptr(JsonNode) shutdown = NULL;
	g_autoptr(JsonNode) startup = NULL;
	g_autoptr(JsonNode) reboot = NULL;
	g_autoptr(JsonNode) modify = NULL;
	g_autoptr(JsonNode) stop_again = NULL;
	g_autoptr(JsonNode) rename = NULL;
	g_autoptr(JsonNode) remove = NULL;
	g_autoptr(JsonNode) dry_remove = NULL;
	g_autoptr(JsonObject) reboot_job = NULL;
	g_autoptr(JsonObject) modified = NULL;
	JsonObject *reboot_op;

	if (!have_noop_os())
		return;
	create_instance(fx, CREATE_BODY("web1.example.com", ""));
	assert_instance_state(fx, "web1.example.com", "up", "running");

	shutdown = call_ok(fx, "PUT", "/2/instances/web1.example.com/shutdown", "{\"timeout\": 5}");
	assert_job_succeeds(fx, shutdown);
	assert_instance_state(fx, "web1.example.com", "down", "ADMIN_down");

	/* the body of a startup is ignored, as in rlib2 */
	startup = call_ok(fx, "PUT", "/2/instances/web1.example.com/startup?force=1",
			  "{\"ignored\": true}");
	assert_job_succeeds(fx, startup);
	assert_instance_state(fx, "web1.example.com", "up", "running");

	reboot = call_ok(fx, "POST", "/2/instances/web1.example.com/reboot", NULL);
	assert_job_succeeds(fx, reboot);
	reboot_job = get_job(fx, reboot);
	reboot_op =
		json_array_get_object_element(json_object_get_array_member(reboot_job, "ops"), 0);
	g_assert_cmpstr(json_object_get_string_member(reboot_op, "OP_ID"), ==,
			"OP_INSTANCE_REBOOT");
	g_assert_cmpstr(json_object_get_string_member(reboot_op, "reboot_type"), ==, "hard");
	g_assert_false(json_object_get_boolean_member(reboot_op, "ignore_secondaries"));
	g_assert_false(json_object_get_boolean_member(reboot_op, "dry_run"));
	/* the reason trail names this library's resource */
	g_assert_cmpstr(json_array_get_string_element(
				json_array_get_array_element(
					json_object_get_array_member(reboot_op, "reason"), 0),
				0),
			==, "gnt:library:rlib2:instances_name_reboot");

	/* custom_beparams is rlib2's name of beparams */
	modify = call_ok(fx, "PUT", "/2/instances/web1.example.com/modify",
			 "{\"custom_beparams\": {\"vcpus\": 2}}");
	assert_job_succeeds(fx, modify);
	modified = get_object(fx, "/2/instances/web1.example.com?fields=custom_beparams,beparams");
	g_assert_cmpint(json_object_get_int_member(json_object_get_object_member(modified,
										 "custom_beparams"),
						   "vcpus"),
			==, 2);

	stop_again = call_ok(fx, "PUT", "/2/instances/web1.example.com/shutdown", NULL);
	assert_job_succeeds(fx, stop_again);
	rename = call_ok(fx, "PUT", "/2/instances/web1.example.com/rename",
			 "{\"new_name\": \"web2.example.com\", \"name_check\": false,"
			 " \"ip_check\": false}");
	assert_job_succeeds(fx, rename);
	assert_instance_state(fx, "web2.example.com", "down", "ADMIN_down");
	call_fails(fx, "GET", "/2/instances/web1.example.com", NULL, GNT_ERROR_NOT_FOUND,
		   "web1.example.com");

	dry_remove = call_ok(fx, "DELETE", "/2/instances/web2.example.com?dry-run=1", NULL);
	assert_job_succeeds(fx, dry_remove);
	assert_instance_state(fx, "web2.example.com", "down", "ADMIN_down");
	remove =
		call_ok(fx, "DELETE", "/2/instances/web2.example.com", "{\"shutdown_timeout\": 5}");
	assert_job_succeeds(fx, remove);
	call_fails(fx, "GET", "/2/instances/web2.example.com", NULL, GNT_ERROR_NOT_FOUND,
		   "web2.example.com");
}

/* The opcode result of the job whose ID is @answer, once it succeeded.
 * (transfer full) */
static JsonNode *
job_opresult(RapiFx *fx, JsonNode *answer)
{
	g_autoptr(JsonObject) job = NULL;

	assert_job_succeeds(fx, answer);
	job = get_job(fx, answer);
	return json_node_copy(
		json_array_get_element(json_object_get_array_member(job, "opresult"), 0));
}

static gint64
file_size(const gchar *path)
{
	struct stat st;

	g_assert_cmpint(stat(path, &st), ==, 0);
	return (gint64)st.st_size;
}

static void
test_instance_disks(RapiFx *fx, gconstpointer data)
{
	g_autoptr(JsonNode) activated = NULL;
	g_autoptr(JsonNode) grown = NULL;
	g_autoptr(JsonNode) deactivate = NULL;
	g_autoptr(JsonNode) forced = NULL;
	g_autoptr(JsonNode) stop = NULL;
	g_autoptr(JsonNode) job = NULL;
	g_autoptr(JsonObject) record = NULL;
	g_autoptr(JsonObject) failed = NULL;
	g_autofree gchar *status = NULL;
	g_autofree gchar *opresult = NULL;
	JsonArray *row;
	const gchar *path;

	if (!have_noop_os())
		return;
	create_instance(fx, CREATE_BODY_FILE("web1.example.com", ""));

	/* Ganeti's answer: [[node, iv_name, device path]] */
	activated = job_opresult(fx, call_ok(fx, "PUT",
					     "/2/instances/web1.example.com/activate-disks", NULL));
	g_assert_cmpuint(json_array_get_length(json_node_get_array(activated)), ==, 1);
	row = json_array_get_array_element(json_node_get_array(activated), 0);
	g_assert_cmpuint(json_array_get_length(row), ==, 3);
	g_assert_cmpstr(json_array_get_string_element(row, 1), ==, "disk/0");
	path = json_array_get_string_element(row, 2);
	g_assert_true(g_path_is_absolute(path));
	g_assert_cmpint(file_size(path), ==, 16 << 20);
	record = get_object(fx, "/2/instances/web1.example.com?fields=disks_active,disk.sizes");
	g_assert_true(json_object_get_boolean_member(record, "disks_active"));
	g_clear_pointer(&record, json_object_unref);

	/* grow by 16 MiB: the file and the record */
	grown = job_opresult(fx, call_ok(fx, "POST", "/2/instances/web1.example.com/disk/0/grow",
					 "{\"amount\": 16}"));
	g_assert_cmpint(file_size(path), ==, 32 << 20);
	record = get_object(fx, "/2/instances/web1.example.com?fields=disk.sizes");
	g_assert_cmpint(
		json_array_get_int_element(json_object_get_array_member(record, "disk.sizes"), 0),
		==, 32);
	g_clear_pointer(&record, json_object_unref);
	/* absolute: to 48 MiB; smaller than now is refused, as is growing by 0
	 * or a disk the instance does not have */
	g_clear_pointer(&grown, json_node_unref);
	grown = job_opresult(fx, call_ok(fx, "POST", "/2/instances/web1.example.com/disk/0/grow",
					 "{\"amount\": 48, \"absolute\": true}"));
	g_assert_cmpint(file_size(path), ==, 48 << 20);
	job = call_ok(fx, "POST", "/2/instances/web1.example.com/disk/0/grow",
		      "{\"amount\": 32, \"absolute\": true}");
	status = wait_job(fx, job_id_of(job));
	g_assert_cmpstr(status, ==, "error");
	failed = get_job(fx, job);
	opresult = gnt_json_to_string(json_object_get_member(failed, "opresult"));
	g_assert_nonnull(strstr(opresult, "is smaller than current disk size"));
	g_assert_cmpint(file_size(path), ==, 48 << 20);
	call_fails(fx, "POST", "/2/instances/web1.example.com/disk/0/grow", "{\"amount\": 0}",
		   GNT_ERROR_INVALID, "amount");
	g_clear_pointer(&job, json_node_unref);
	g_clear_pointer(&status, g_free);
	job = call_ok(fx, "POST", "/2/instances/web1.example.com/disk/3/grow", "{\"amount\": 1}");
	status = wait_job(fx, job_id_of(job));
	g_assert_cmpstr(status, ==, "error");

	/* deactivating under a running instance needs force */
	deactivate = call_ok(fx, "PUT", "/2/instances/web1.example.com/deactivate-disks", NULL);
	g_clear_pointer(&status, g_free);
	status = wait_job(fx, job_id_of(deactivate));
	g_assert_cmpstr(status, ==, "error");
	forced = call_ok(fx, "PUT", "/2/instances/web1.example.com/deactivate-disks?force=1", NULL);
	assert_job_succeeds(fx, forced);
	record = get_object(fx, "/2/instances/web1.example.com?fields=disks_active");
	g_assert_false(json_object_get_boolean_member(record, "disks_active"));
	stop = call_ok(fx, "PUT", "/2/instances/web1.example.com/shutdown", NULL);
	assert_job_succeeds(fx, stop);
	g_clear_pointer(&deactivate, json_node_unref);
	deactivate = call_ok(fx, "PUT", "/2/instances/web1.example.com/deactivate-disks", NULL);
	assert_job_succeeds(fx, deactivate);
}

static void
test_instance_tags(RapiFx *fx, gconstpointer data)
{
	g_autoptr(JsonNode) added = NULL;
	g_autoptr(JsonNode) tags = NULL;
	g_autoptr(JsonObject) instance = NULL;
	g_autofree gchar *text = NULL;

	if (!have_noop_os())
		return;
	create_instance(fx, CREATE_BODY("web1.example.com", ", \"start\": false"));
	added = call_ok(fx, "PUT", "/2/instances/web1.example.com/tags?tag=a&tag=b", NULL);
	assert_job_succeeds(fx, added);
	tags = call_ok(fx, "GET", "/2/instances/web1.example.com/tags", NULL);
	text = to_text(tags);
	g_assert_cmpstr(text, ==, "[\"a\",\"b\"]");
	instance = get_object(fx, "/2/instances/web1.example.com?fields=tags");
	g_assert_cmpuint(json_array_get_length(json_object_get_array_member(instance, "tags")), ==,
			 2);
	call_fails(fx, "GET", "/2/instances/nosuch.example.com/tags", NULL, GNT_ERROR_NOT_FOUND,
		   "nosuch.example.com");
}

/* One job of shutdown, OP_INSTANCE_REINSTALL and startup; the legacy query
 * form without the startup. */
static void
test_instance_reinstall(RapiFx *fx, gconstpointer data)
{
	g_autoptr(JsonNode) body_form = NULL;
	g_autoptr(JsonNode) legacy = NULL;
	g_autoptr(JsonObject) job = NULL;
	g_autoptr(JsonObject) legacy_job = NULL;
	g_autoptr(JsonNode) with_secrets = NULL;
	g_autoptr(JsonObject) secrets_job = NULL;
	JsonArray *ops;
	JsonObject *reinstall;

	if (!have_noop_os())
		return;
	create_instance(fx, CREATE_BODY_FILE("web1.example.com", ""));

	body_form = call_ok(fx, "POST", "/2/instances/web1.example.com/reinstall",
			    "{\"os\": \"noop\", \"start\": true, \"osparams\": {}}");
	job = get_job(fx, body_form);
	ops = json_object_get_array_member(job, "ops");
	g_assert_cmpuint(json_array_get_length(ops), ==, 3);
	g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(ops, 0),
						      "OP_ID"),
			==, "OP_INSTANCE_SHUTDOWN");
	reinstall = json_array_get_object_element(ops, 1);
	g_assert_cmpstr(json_object_get_string_member(reinstall, "OP_ID"), ==,
			"OP_INSTANCE_REINSTALL");
	g_assert_cmpstr(json_object_get_string_member(reinstall, "instance_name"), ==,
			"web1.example.com");
	g_assert_cmpstr(json_object_get_string_member(reinstall, "os_type"), ==, "noop");
	g_assert_cmpuint(json_object_get_size(json_object_get_object_member(reinstall, "osparams")),
			 ==, 0);
	g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(ops, 2),
						      "OP_ID"),
			==, "OP_INSTANCE_STARTUP");
	assert_job_succeeds(fx, body_form);
	assert_instance_state(fx, "web1.example.com", "up", "running");

	/* Gantry's: private and secret parameters too, shown redacted */
	with_secrets = call_ok(fx, "POST", "/2/instances/web1.example.com/reinstall",
			       "{\"osparams_private\": {\"token\": \"Zpriv-rapi-1\"},"
			       " \"osparams_secret\": {\"pw\": \"Zsecret-rapi-2\"}}");
	secrets_job = get_job(fx, with_secrets);
	reinstall =
		json_array_get_object_element(json_object_get_array_member(secrets_job, "ops"), 1);
	g_assert_cmpstr(json_object_get_string_member(
				json_object_get_object_member(reinstall, "osparams_private"),
				"token"),
			==, "<redacted>");
	g_assert_cmpstr(json_object_get_string_member(
				json_object_get_object_member(reinstall, "osparams_secret"), "pw"),
			==, "<redacted>");
	g_assert_true(json_node_is_null(json_object_get_member(reinstall, "os_type")));
	assert_job_succeeds(fx, with_secrets);
	{
		g_autoptr(JsonObject) job_again = get_job(fx, with_secrets);
		g_autoptr(JsonNode) node = json_node_init_object(json_node_alloc(), job_again);
		g_autofree gchar *job_text = to_text(node);

		g_assert_null(strstr(job_text, "Zpriv-rapi-1"));
		g_assert_null(strstr(job_text, "Zsecret-rapi-2"));
	}
	assert_instance_state(fx, "web1.example.com", "up", "running");

	/* the legacy query form; nostartup leaves it stopped */
	legacy = call_ok(fx, "POST", "/2/instances/web1.example.com/reinstall?os=noop&nostartup=1",
			 NULL);
	legacy_job = get_job(fx, legacy);
	g_assert_cmpuint(json_array_get_length(json_object_get_array_member(legacy_job, "ops")), ==,
			 2);
	assert_job_succeeds(fx, legacy);
	assert_instance_state(fx, "web1.example.com", "down", "ADMIN_down");
}

/* The result of job @answer, which must have succeeded: its first opcode's.
 * (transfer full) */
static JsonObject *
job_result(RapiFx *fx, JsonNode *answer)
{
	g_autoptr(JsonObject) job = NULL;
	JsonNode *result;

	assert_job_succeeds(fx, answer);
	job = get_job(fx, answer);
	result = json_array_get_element(json_object_get_array_member(job, "opresult"), 0);
	g_assert_true(JSON_NODE_HOLDS_OBJECT(result));
	return json_object_ref(json_node_get_object(result));
}

/* /info is OP_INSTANCE_QUERY_DATA as a job; its result holds the
 * instance, without the node's view with ?static=1. */
static void
test_instance_info(RapiFx *fx, gconstpointer data)
{
	g_autoptr(JsonNode) static_job = NULL;
	g_autoptr(JsonNode) live_job = NULL;
	g_autoptr(JsonObject) job = NULL;
	g_autoptr(JsonObject) static_result = NULL;
	g_autoptr(JsonObject) live_result = NULL;
	g_autofree gchar *names = NULL;
	JsonObject *op;
	JsonObject *entry;

	if (!have_noop_os())
		return;
	create_instance(fx, CREATE_BODY("web1.example.com", ""));

	/* a short name works: masterd expands it */
	static_job = call_ok(fx, "GET", "/2/instances/web1/info?static=1", NULL);
	job = get_job(fx, static_job);
	op = json_array_get_object_element(json_object_get_array_member(job, "ops"), 0);
	g_assert_cmpstr(json_object_get_string_member(op, "OP_ID"), ==, "OP_INSTANCE_QUERY_DATA");
	names = to_text(json_object_get_member(op, "instances"));
	g_assert_cmpstr(names, ==, "[\"web1\"]");
	g_assert_true(json_object_get_boolean_member(op, "static"));
	static_result = job_result(fx, static_job);
	g_assert_cmpuint(json_object_get_size(static_result), ==, 1);
	entry = json_object_get_object_member(static_result, "web1.example.com");
	g_assert_nonnull(entry);
	g_assert_cmpstr(json_object_get_string_member(entry, "name"), ==, "web1.example.com");
	g_assert_cmpstr(json_object_get_string_member(entry, "os"), ==, "noop");
	g_assert_cmpstr(json_object_get_string_member(entry, "config_state"), ==, "up");
	g_assert_true(JSON_NODE_HOLDS_NULL(json_object_get_member(entry, "run_state")));

	live_job = call_ok(fx, "GET", "/2/instances/web1.example.com/info", NULL);
	live_result = job_result(fx, live_job);
	entry = json_object_get_object_member(live_result, "web1.example.com");
	g_assert_nonnull(entry);
	g_assert_cmpstr(json_object_get_string_member(entry, "run_state"), ==, "up");

	call_fails(fx, "GET", "/2/instances/web1.example.com/info?static=yes", NULL,
		   GNT_ERROR_INVALID, "'static'");
}

/* ---- bad input: a clear GNT_ERROR_INVALID (400), nothing submitted ---- */

static void
test_bad_input(RapiFx *fx, gconstpointer data)
{
	static const struct {
		const gchar *method;
		const gchar *target;
		const gchar *body;
		const gchar *needle;
	} cases[] = {
		{"POST", "/2/instances", "[1, 2]", "must be a JSON object, not list"},
		{"POST", "/2/instances", NULL, "must be a JSON object"},
		{"POST", "/2/instances", "{\"mode\": \"create\"}",
		 "version 0 is no longer supported"},
		{"POST", "/2/instances", "{\"__version__\": 0}",
		 "version 0 is no longer supported"},
		{"POST", "/2/instances", "{\"__version__\": 2}",
		 "Unsupported request data version 2"},
		{"POST", "/2/instances", "{\"__version__\": \"1\"}", "not string"},
		{"POST", "/2/instances",
		 CREATE_BODY("a.example.com", ", \"instance_name\": \"b.example.com\""),
		 "'name' was renamed to 'instance_name', but both are specified"},
		{"POST", "/2/instances", CREATE_BODY("a.example.com", ", \"bogus\": 1"),
		 "Invalid body parameters: OP_INSTANCE_CREATE: unknown parameter 'bogus'"},
		{"POST", "/2/instances", CREATE_BODY("a.example.com", ", \"start\": \"yes\""),
		 "parameter 'start' must be"},
		{"POST", "/2/instances", CREATE_BODY("a.example.com", ", \"beparams\": [1]"),
		 "parameter 'beparams' must be"},
		{"POST", "/2/instances", CREATE_BODY("a.example.com", ", \"dry_run\": true"),
		 "Can't overwrite static parameters 'dry_run'"},
		{"POST", "/2/instances",
		 CREATE_BODY("a.example.com", ", \"OP_ID\": \"OP_TEST_DELAY\""),
		 "Can't overwrite static parameters 'OP_ID'"},
		{"POST", "/2/instances", CREATE_BODY("a.example.com", ", \"reason\": []"),
		 "Can't overwrite static parameters 'reason'"},
		{"PUT", "/2/instances/web1/shutdown", "{\"instance_name\": \"other\"}",
		 "Can't overwrite static parameters 'instance_name'"},
		{"PUT", "/2/instances/web1/shutdown", "{\"no_remember\": true}",
		 "Can't overwrite static parameters 'no_remember'"},
		{"PUT", "/2/instances/web1/shutdown", "\"now\"",
		 "must be a JSON object, not string"},
		{"PUT", "/2/instances/web1/shutdown?no_remember=maybe", NULL,
		 "Invalid value for the 'no_remember' parameter"},
		{"POST", "/2/instances/web1/reboot", "{\"reboot_type\": \"soft\"}",
		 "Can't overwrite static parameters 'reboot_type'"},
		{"POST", "/2/instances/web1/reboot?type=gentle", NULL,
		 "'reboot_type' must be one of"},
		{"PUT", "/2/instances/web1/modify",
		 "{\"custom_beparams\": {\"vcpus\": 1}, \"beparams\": {}}", "both are specified"},
		{"PUT", "/2/instances/web1/modify", "{\"nosuch\": 1}",
		 "unknown parameter 'nosuch'"},
		{"PUT", "/2/instances/web1/rename", "{\"new_name\": 7}",
		 "parameter 'new_name' must be"},
		{"PUT", "/2/instances/web1/rename", "{}", "'new_name' is required"},
		{"DELETE", "/2/instances/web1", "{\"ignore_failures\": true}",
		 "Can't overwrite static parameters 'ignore_failures'"},
		{"POST", "/2/instances/web1/reinstall", "[\"noop\"]", "not a dictionary"},
		{"POST", "/2/instances/web1/reinstall",
		 "{\"os\": \"noop\", \"osparams_secrets\": {}}", "not 'osparams_secrets'"},
		{"POST", "/2/instances/web1/reinstall", "{\"osparams_secret\": \"pw=x\"}",
		 "'osparams_secret' parameter must be an object"},
		{"POST", "/2/instances/web1/reinstall", "{\"os_image\": 3}",
		 "'os_image' parameter must be a string"},
		{"POST", "/2/instances/web1/reinstall", "{\"start\": \"yes\"}",
		 "'start' parameter must be a boolean"},
		{"POST", "/2/instances/web1/reinstall", "{\"os\": [\"noop\"]}",
		 "'os' parameter must be a string"},
		{"POST", "/2/instances/web1/reinstall", "{\"osparams\": \"x=1\"}",
		 "'osparams' parameter must be an object"},
		{"POST", "/2/instances/web1/reinstall?nostartup=1", "{\"os\": \"noop\"}",
		 "Can't combine query and body parameters"},
		{"POST", "/2/instances/web1/reinstall?nostartup=x", NULL,
		 "Invalid value for the 'nostartup' parameter"},
		{"GET", "/2/jobs/1/wait", "[\"status\"]", "must be a JSON object, not list"},
		{"GET", "/2/jobs/1/wait", NULL, "must be a JSON object"},
		{"GET", "/2/jobs/1/wait", "{}", "Required parameter 'fields' is missing"},
		{"GET", "/2/jobs/1/wait", "{\"fields\": \"status\"}",
		 "The 'fields' parameter should be a list"},
		{"GET", "/2/jobs/1/wait", "{\"fields\": [\"status\"], \"previous_job_info\": 3}",
		 "'previous_job_info' parameter should be a list"},
		{"GET", "/2/jobs/1/wait",
		 "{\"fields\": [\"status\"], \"previous_log_serial\": \"1\"}",
		 "'previous_log_serial' parameter should be a number"},
		{"GET", "/2/query/instance", NULL, "Missing 'fields' query argument"},
		{"PUT", "/2/query/instance", "[\"name\"]", "must be a JSON object, not list"},
		{"PUT", "/2/query/instance", "{\"fields\": \"name\"}", "must be a list of strings"},
		{"GET", "/2/query/cluster?fields=name", NULL, "cluster"},
		{"PUT", "/2/tags?tag=a&dry-run=perhaps", NULL,
		 "Invalid value for the 'dry-run' parameter"},
		{"GET", "/2/os?bulk=2x", NULL, "Invalid value for the 'bulk' parameter"},
	};
	guint before = count_jobs(fx);

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++)
		call_fails(fx, cases[i].method, cases[i].target, cases[i].body, GNT_ERROR_INVALID,
			   cases[i].needle);
	g_assert_cmpuint(count_jobs(fx), ==, before);
}

static void
test_unknown_things(RapiFx *fx, gconstpointer data)
{
	call_fails(fx, "GET", "/2/instances/nosuch", NULL, GNT_ERROR_NOT_FOUND, "nosuch");
	call_fails(fx, "GET", "/2/nodes/nosuch", NULL, GNT_ERROR_NOT_FOUND, "nosuch");
	call_fails(fx, "GET", "/2/nodes/nosuch/tags", NULL, GNT_ERROR_NOT_FOUND, "nosuch");
	call_fails(fx, "GET", "/2/jobs/999999", NULL, GNT_ERROR_NOT_FOUND, "Job 999999 not found");
	call_fails(fx, "GET", "/2/jobs/99999999999999999999999", NULL, GNT_ERROR_NOT_FOUND,
		   "99999999999999999999999");
	call_fails(fx, "GET", "/2/jobs/999999/wait", "{\"fields\": [\"status\"]}",
		   GNT_ERROR_NOT_FOUND, "Job 999999 not found");
}

/* osparams_secret reaches masterd, and neither an error message nor any
 * file under the root ever holds its value. */
static void
test_secret_never_shown(RapiFx *fx, gconstpointer data)
{
	static const gchar secret[] = "hunter2-rapi-5ecret";
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) refused = NULL;
	g_autofree gchar *cmd = NULL;

	if (!have_noop_os())
		return;
	refused = call(fx, "POST", "/2/instances",
		       CREATE_BODY("a.example.com", ", \"osparams_secret\": {\"pw\":"
						    " \"hunter2-rapi-5ecret\"}, \"bogus\": 1"),
		       &error);
	g_assert_null(refused);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_null(strstr(error->message, "hunter2"));
	g_clear_error(&error);
	g_clear_pointer(&refused, json_node_unref);
	refused =
		call(fx, "POST", "/2/instances",
		     CREATE_BODY("a.example.com", ", \"osparams_secret\": \"hunter2-rapi-5ecret\""),
		     &error);
	g_assert_null(refused);
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_assert_null(strstr(error->message, "hunter2"));

	create_instance(fx,
			CREATE_BODY("web1.example.com",
				    ", \"osparams_secret\": {\"pw\": \"hunter2-rapi-5ecret\"}"));
	/* grep exits 1 when no file holds it */
	cmd = g_strdup_printf("grep -r -q -a '%s' '%s'", secret, fx->dir);
	g_assert_cmpint(system(cmd), !=, 0);
}

/* ---- nodes ---- */

/* Ganeti 3.0's rlib2.N_FIELDS, spelled out on purpose as i_fields is. */
static const gchar *const n_fields[] = {
	"name",
	"offline",
	"master_candidate",
	"drained",
	"dtotal",
	"dfree",
	"sptotal",
	"spfree",
	"mtotal",
	"mnode",
	"mfree",
	"pinst_cnt",
	"sinst_cnt",
	"ctotal",
	"cnos",
	"cnodes",
	"csockets",
	"pip",
	"sip",
	"role",
	"pinst_list",
	"sinst_list",
	"master_capable",
	"vm_capable",
	"ndparams",
	"group.uuid",
	"ctime",
	"mtime",
	"uuid",
	"serial_no",
	"tags",
	NULL,
};

static void
test_nodes(RapiFx *fx, gconstpointer data)
{
	g_autoptr(JsonObject) info = get_object(fx, "/2/info");
	const gchar *master = json_object_get_string_member(info, "master");
	g_autoptr(JsonNode) list = call_ok(fx, "GET", "/2/nodes", NULL);
	g_autoptr(JsonNode) bulk = call_ok(fx, "GET", "/2/nodes?bulk=1", NULL);
	g_autofree gchar *target = g_strconcat("/2/nodes/", master, NULL);
	g_autofree gchar *tags_target = g_strconcat("/2/nodes/", master, "/tags", NULL);
	g_autofree gchar *put_target = g_strconcat(tags_target, "?tag=rack1", NULL);
	g_autoptr(JsonObject) node = get_object(fx, target);
	g_autoptr(JsonNode) tagged = call_ok(fx, "PUT", put_target, NULL);
	g_autoptr(JsonNode) tags = NULL;
	g_autofree gchar *tags_text = NULL;
	JsonObject *entry = json_array_get_object_element(json_node_get_array(list), 0);
	JsonObject *first = json_array_get_object_element(json_node_get_array(bulk), 0);

	g_assert_cmpuint(json_array_get_length(json_node_get_array(list)), ==, 1);
	g_assert_cmpstr(json_object_get_string_member(entry, "id"), ==, master);
	g_assert_cmpstr(json_object_get_string_member(entry, "uri"), ==, target);

	for (guint i = 0; n_fields[i] != NULL; i++) {
		if (!json_object_has_member(first, n_fields[i]))
			g_error("bulk node lacks '%s'", n_fields[i]);
	}
	g_assert_cmpstr(json_object_get_string_member(first, "secondary_ip"), ==,
			json_object_get_string_member(first, "sip"));
	g_assert_cmpstr(json_object_get_string_member(node, "name"), ==, master);
	g_assert_cmpstr(json_object_get_string_member(node, "role"), ==, "M");
	g_assert_true(json_object_get_boolean_member(node, "master_candidate"));
	g_assert_cmpstr(json_object_get_string_member(node, "secondary_ip"), ==,
			json_object_get_string_member(node, "sip"));

	assert_job_succeeds(fx, tagged);
	tags = call_ok(fx, "GET", tags_target, NULL);
	tags_text = to_text(tags);
	g_assert_cmpstr(tags_text, ==, "[\"rack1\"]");
}

/* ---- node groups ---- */

/* rlib2.G_FIELDS */
static const gchar *const g_fields[] = {
	"alloc_policy", "name",
	"node_cnt",	"node_list",
	"ipolicy",	"custom_ipolicy",
	"diskparams",	"custom_diskparams",
	"ndparams",	"custom_ndparams",
	"ctime",	"mtime",
	"uuid",		"serial_no",
	"tags",		NULL,
};

/* The job of @answer must end "error" with a message holding @needle. */
static void
assert_job_fails(RapiFx *fx, JsonNode *answer, const gchar *needle)
{
	g_autofree gchar *status = wait_job(fx, job_id_of(answer));
	g_autoptr(JsonObject) job = get_job(fx, answer);
	g_autofree gchar *result = to_text(json_object_get_member(job, "opresult"));

	g_assert_cmpstr(status, ==, "error");
	if (strstr(result, needle) == NULL)
		g_error("job result %s lacks '%s'", result, needle);
}

/* The reinstall body's kickstart keys reach OP_INSTANCE_REINSTALL; masterd
 * refuses a kickstart install without a catalog image (doc/kickstart.md). */
static void
test_instance_reinstall_kickstart(RapiFx *fx, gconstpointer data)
{
	g_autoptr(JsonNode) answer = NULL;
	g_autoptr(JsonObject) job = NULL;
	JsonObject *reinstall;

	if (!have_noop_os())
		return;
	create_instance(fx, CREATE_BODY_FILE("web1.example.com", ""));
	call_fails(fx, "POST", "/2/instances/web1.example.com/reinstall",
		   "{\"print_kickstart\": \"yes\"}", GNT_ERROR_INVALID,
		   "'print_kickstart' parameter must be a boolean");
	answer = call_ok(fx, "POST", "/2/instances/web1.example.com/reinstall",
			 "{\"start\": false, \"ks_template\": \"https://ks.example.com/web.ks\","
			 " \"print_kickstart\": true}");
	job = get_job(fx, answer);
	reinstall = json_array_get_object_element(json_object_get_array_member(job, "ops"), 1);
	g_assert_cmpstr(json_object_get_string_member(reinstall, "ks_template"), ==,
			"https://ks.example.com/web.ks");
	g_assert_true(json_object_get_boolean_member(reinstall, "print_kickstart"));
	assert_job_fails(fx, answer, "a kickstart install needs a catalog image with os_distro");
}

static void
test_groups(RapiFx *fx, gconstpointer data)
{
	g_autoptr(JsonObject) info = get_object(fx, "/2/info");
	const gchar *master = json_object_get_string_member(info, "master");
	g_autoptr(JsonNode) list = call_ok(fx, "GET", "/2/groups", NULL);
	g_autoptr(JsonNode) bulk = call_ok(fx, "GET", "/2/groups?bulk=1", NULL);
	JsonObject *entry = json_array_get_object_element(json_node_get_array(list), 0);
	JsonObject *first = json_array_get_object_element(json_node_get_array(bulk), 0);
	g_autoptr(JsonObject) group = NULL;
	g_autoptr(JsonObject) node = NULL;
	g_autoptr(JsonNode) job = NULL;
	g_autoptr(JsonNode) tags = NULL;
	g_autofree gchar *node_target = g_strconcat("/2/nodes/", master, NULL);
	g_autofree gchar *assign_body = g_strdup_printf("{\"nodes\": [\"%s\"]}", master);
	g_autofree gchar *tags_text = NULL;

	/* the default group, holding the master */
	g_assert_cmpuint(json_array_get_length(json_node_get_array(list)), ==, 1);
	g_assert_cmpstr(json_object_get_string_member(entry, "name"), ==,
			"default"); /* rlib2: name, not id */
	g_assert_cmpstr(json_object_get_string_member(entry, "uri"), ==, "/2/groups/default");
	for (guint i = 0; g_fields[i] != NULL; i++) {
		if (!json_object_has_member(first, g_fields[i]))
			g_error("bulk group lacks '%s'", g_fields[i]);
	}
	g_assert_cmpint(json_object_get_int_member(first, "node_cnt"), ==, 1);
	g_assert_cmpstr(
		json_array_get_string_element(json_object_get_array_member(first, "node_list"), 0),
		==, master);
	node = get_object(fx, node_target);
	g_assert_cmpstr(json_object_get_string_member(node, "group.uuid"), ==,
			json_object_get_string_member(first, "uuid"));

	/* add (R_2_groups renames "name"), modify (custom_* renamed) */
	job = call_ok(fx, "POST", "/2/groups",
		      "{\"name\": \"rack2\", \"alloc_policy\": \"last_resort\","
		      " \"ipolicy\": {\"vcpu-ratio\": 3.0}}");
	assert_job_succeeds(fx, job);
	g_clear_pointer(&job, json_node_unref);
	job = call_ok(
		fx, "PUT", "/2/groups/rack2/modify",
		"{\"custom_ndparams\": {\"ssh_port\": 2200}, \"alloc_policy\": \"preferred\"}");
	assert_job_succeeds(fx, job);
	group = get_object(fx, "/2/groups/rack2");
	g_assert_cmpstr(json_object_get_string_member(group, "alloc_policy"), ==, "preferred");
	g_assert_cmpint(
		json_object_get_int_member(json_object_get_object_member(group, "custom_ndparams"),
					   "ssh_port"),
		==, 2200);
	g_assert_cmpfloat(json_object_get_double_member(
				  json_object_get_object_member(group, "ipolicy"), "vcpu-ratio"),
			  ==, 3.0);
	g_assert_cmpint(json_object_get_int_member(group, "node_cnt"), ==, 0);

	/* bad input: refused before a job, or by the job */
	call_fails(fx, "POST", "/2/groups", "{\"name\": \"x\", \"group_name\": \"y\"}",
		   GNT_ERROR_INVALID, "group_name");
	g_clear_pointer(&job, json_node_unref);
	job = call_ok(fx, "POST", "/2/groups", "{\"name\": \"rack2\"}");
	assert_job_fails(fx, job, "already exists");
	g_clear_pointer(&job, json_node_unref);
	job = call_ok(fx, "PUT", "/2/groups/rack2/modify", "{\"ipolicy\": {\"vcpu-ratio\": -1}}");
	assert_job_fails(fx, job, "vcpu-ratio");

	/* the master moves; the group it left is empty and can go, the one it
	 * is in can not */
	g_clear_pointer(&job, json_node_unref);
	job = call_ok(fx, "PUT", "/2/groups/rack2/assign-nodes", assign_body);
	assert_job_succeeds(fx, job);
	g_clear_pointer(&node, json_object_unref);
	node = get_object(fx, node_target);
	g_assert_cmpstr(json_object_get_string_member(node, "group.uuid"), ==,
			json_object_get_string_member(group, "uuid"));
	g_clear_pointer(&job, json_node_unref);
	job = call_ok(fx, "DELETE", "/2/groups/rack2", NULL);
	assert_job_fails(fx, job, "not empty");
	g_clear_pointer(&job, json_node_unref);
	job = call_ok(fx, "DELETE", "/2/groups/default", NULL);
	assert_job_succeeds(fx, job);
	g_clear_pointer(&job, json_node_unref);
	job = call_ok(fx, "DELETE", "/2/groups/rack2", NULL);
	assert_job_fails(fx, job, "not empty");

	/* rename and tags */
	g_clear_pointer(&job, json_node_unref);
	job = call_ok(fx, "PUT", "/2/groups/rack2/rename", "{\"new_name\": \"rack3\"}");
	assert_job_succeeds(fx, job);
	g_clear_pointer(&job, json_node_unref);
	job = call_ok(fx, "PUT", "/2/groups/rack3/tags?tag=cold&tag=b", NULL);
	assert_job_succeeds(fx, job);
	g_clear_pointer(&job, json_node_unref);
	job = call_ok(fx, "DELETE", "/2/groups/rack3/tags?tag=b", NULL);
	assert_job_succeeds(fx, job);
	tags = call_ok(fx, "GET", "/2/groups/rack3/tags", NULL);
	tags_text = to_text(tags);
	g_assert_cmpstr(tags_text, ==, "[\"cold\"]");
	call_fails(fx, "GET", "/2/groups/rack2", NULL, GNT_ERROR_NOT_FOUND, "rack2");
}

/* ---- the image catalog ---- */

#define IMAGE_SHA256 "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"

static void
test_images(RapiFx *fx, gconstpointer data)
{
	g_autoptr(JsonNode) job = NULL;
	g_autoptr(JsonNode) list = NULL;
	g_autoptr(JsonNode) bulk = NULL;
	g_autoptr(JsonObject) image = NULL;
	JsonObject *entry;

	/* POST renames "name", as R_2_groups does */
	job = call_ok(fx, "POST", "/2/images",
		      "{\"name\": \"rocky-9\", \"url\": \"https://images.example.com/r9.qcow2\","
		      " \"format\": \"qcow2\", \"sha256\": \"" IMAGE_SHA256 "\","
		      " \"os_distro\": \"Rocky\", \"installer_memory\": 2048}");
	assert_job_succeeds(fx, job);
	list = call_ok(fx, "GET", "/2/images", NULL);
	entry = json_array_get_object_element(json_node_get_array(list), 0);
	g_assert_cmpstr(json_object_get_string_member(entry, "name"), ==, "rocky-9");
	g_assert_cmpstr(json_object_get_string_member(entry, "uri"), ==, "/2/images/rocky-9");
	bulk = call_ok(fx, "GET", "/2/images?bulk=1", NULL);
	entry = json_array_get_object_element(json_node_get_array(bulk), 0);
	g_assert_cmpstr(json_object_get_string_member(entry, "sha256"), ==, IMAGE_SHA256);
	g_assert_cmpint(json_object_get_int_member(entry, "installer_memory"), ==, 2048);
	g_assert_true(json_object_get_null_member(entry, "ks_template"));

	/* PUT changes it */
	g_clear_pointer(&job, json_node_unref);
	job = call_ok(fx, "PUT", "/2/images/rocky-9",
		      "{\"os_version\": \"9.4\", \"remove_properties\": [\"installer_memory\"]}");
	assert_job_succeeds(fx, job);
	image = get_object(fx, "/2/images/rocky-9");
	g_assert_cmpstr(json_object_get_string_member(image, "os_version"), ==, "9.4");
	g_assert_true(json_object_get_null_member(image, "installer_memory"));

	/* bad input refused before a job; a missing image is a 404 */
	call_fails(
		fx, "POST", "/2/images",
		"{\"name\": \"x\", \"url\": \"https://u:p@h.example.com/x\", \"format\": \"raw\","
		" \"sha256\": \"" IMAGE_SHA256 "\"}",
		GNT_ERROR_INVALID, "credentials in a URL are refused");
	call_fails(fx, "PUT", "/2/images/rocky-9", "{\"format\": \"iso\"}", GNT_ERROR_INVALID,
		   "format");
	call_fails(fx, "GET", "/2/images/nope", NULL, GNT_ERROR_NOT_FOUND, "nope");
	g_clear_pointer(&job, json_node_unref);
	job = call_ok(fx, "PUT", "/2/images/nope", "{\"os_version\": \"1\"}");
	assert_job_fails(fx, job, "image 'nope' does not exist");

	/* DELETE */
	g_clear_pointer(&job, json_node_unref);
	job = call_ok(fx, "DELETE", "/2/images/rocky-9?dry-run=1", NULL);
	assert_job_succeeds(fx, job);
	g_clear_pointer(&image, json_object_unref);
	image = get_object(fx, "/2/images/rocky-9");
	g_clear_pointer(&job, json_node_unref);
	job = call_ok(fx, "DELETE", "/2/images/rocky-9", NULL);
	assert_job_succeeds(fx, job);
	call_fails(fx, "GET", "/2/images/rocky-9", NULL, GNT_ERROR_NOT_FOUND, "rocky-9");
}

/* ---- jobs ---- */

static const gchar *const j_fields[] = {
	"id",	    "ops",    "status", "summary",  "opstatus", "received_ts",
	"start_ts", "end_ts", "oplog",	"opresult", NULL,
};

/* Submits OP_TEST_DELAY over LUXI (no RAPI resource makes one). */
static gint64
submit_delay(RapiFx *fx, const gchar *params)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *text = g_strdup_printf("[{\"OP_ID\": \"OP_TEST_DELAY\", %s}]", params);
	g_autoptr(JsonNode) ops = gnt_json_parse(text, -1, NULL);
	guint64 id = 0;

	g_assert_true(gnt_luxi_client_submit_job(fx->luxi, json_node_get_array(ops), &id, &error));
	g_assert_no_error(error);
	return (gint64)id;
}

static void
test_jobs(RapiFx *fx, gconstpointer data)
{
	g_autoptr(JsonNode) tagged = call_ok(fx, "PUT", "/2/tags?tag=x", NULL);
	gint64 id = job_id_of(tagged);
	g_autofree gchar *target = g_strdup_printf("/2/jobs/%" G_GINT64_FORMAT, id);
	g_autofree gchar *wait_target = g_strconcat(target, "/wait", NULL);
	g_autofree gchar *status = wait_job(fx, id);
	g_autoptr(JsonNode) list = call_ok(fx, "GET", "/2/jobs", NULL);
	g_autoptr(JsonNode) bulk = call_ok(fx, "GET", "/2/jobs?bulk=1", NULL);
	g_autoptr(JsonObject) job = get_object(fx, target);
	g_autoptr(JsonNode) done = NULL;
	g_autoptr(JsonNode) cancel_done = NULL;
	JsonObject *entry = json_array_get_object_element(json_node_get_array(list), 0);
	JsonObject *first = json_array_get_object_element(json_node_get_array(bulk), 0);
	JsonArray *pair;

	g_assert_cmpstr(status, ==, "success");
	g_assert_cmpuint(json_array_get_length(json_node_get_array(list)), ==, 1);
	g_assert_cmpint(json_object_get_int_member(entry, "id"), ==, id);
	g_assert_true(gnt_json_node_is_int(json_object_get_member(entry, "id")));
	g_assert_cmpstr(json_object_get_string_member(entry, "uri"), ==, target);
	g_assert_cmpuint(json_object_get_size(first), ==, 8);
	g_assert_cmpstr(
		json_array_get_string_element(json_object_get_array_member(first, "summary"), 0),
		==, "TAGS_SET");

	for (guint i = 0; j_fields[i] != NULL; i++)
		g_assert_true(json_object_has_member(job, j_fields[i]));
	g_assert_cmpuint(json_object_get_size(job), ==, 10);
	g_assert_true(gnt_json_node_is_int(json_object_get_member(job, "id")));
	g_assert_cmpint(json_object_get_int_member(job, "id"), ==, id);
	g_assert_cmpstr(json_object_get_string_member(job, "status"), ==, "success");
	g_assert_cmpstr(json_array_get_string_element(json_object_get_array_member(job, "opstatus"),
						      0),
			==, "success");

	/* a finished job answers at once, all its log included */
	done = call_ok(fx, "GET", wait_target, "{\"fields\": [\"id\", \"status\"]}");
	pair = json_object_get_array_member(json_node_get_object(done), "job_info");
	g_assert_cmpint(json_array_get_int_element(pair, 0), ==, id);
	g_assert_cmpstr(json_array_get_string_element(pair, 1), ==, "success");
	g_assert_true(JSON_NODE_HOLDS_ARRAY(
		json_object_get_member(json_node_get_object(done), "log_entries")));

	/* cancelling a finished job fails as CancelJob says */
	cancel_done = call_ok(fx, "DELETE", target, NULL);
	pair = json_node_get_array(cancel_done);
	g_assert_cmpuint(json_array_get_length(pair), ==, 2);
	g_assert_false(json_array_get_boolean_element(pair, 0));
}

static void
test_job_cancel(RapiFx *fx, gconstpointer data)
{
	/* a job waiting for the lock a running one holds */
	gint64 hold = submit_delay(fx, "\"duration\": 2, \"no_locks\": false");
	gint64 queued = submit_delay(fx, "\"duration\": 0, \"no_locks\": false");
	g_autofree gchar *target = g_strdup_printf("/2/jobs/%" G_GINT64_FORMAT, queued);
	g_autoptr(JsonNode) answer = call_ok(fx, "DELETE", target, NULL);
	g_autofree gchar *queued_status = wait_job(fx, queued);
	g_autofree gchar *hold_status = wait_job(fx, hold);
	JsonArray *pair = json_node_get_array(answer);

	g_assert_true(json_array_get_boolean_element(pair, 0));
	g_assert_nonnull(strstr(json_array_get_string_element(pair, 1), "cancel"));
	g_assert_cmpstr(queued_status, ==, "canceled");
	g_assert_cmpstr(hold_status, ==, "success");
}

/* /wait answers null when nothing changed for 10 s (rlib2._WFJC_TIMEOUT). */
static void
test_job_wait_unchanged(RapiFx *fx, gconstpointer data)
{
	gint64 id = submit_delay(fx, "\"duration\": 12");
	g_autofree gchar *target = g_strdup_printf("/2/jobs/%" G_GINT64_FORMAT "/wait", id);
	g_autoptr(JsonNode) unchanged = NULL;
	g_autofree gchar *status = NULL;
	gint64 start;

	/* until it runs */
	for (;;) {
		g_autoptr(JsonNode) answer = call_ok(fx, "GET", target,
						     "{\"fields\": [\"status\"],"
						     " \"previous_job_info\": [\"queued\"]}");
		JsonArray *info =
			json_object_get_array_member(json_node_get_object(answer), "job_info");

		if (g_strcmp0(json_array_get_string_element(info, 0), "running") == 0)
			break;
	}
	start = g_get_monotonic_time();
	unchanged = call_ok(fx, "GET", target,
			    "{\"fields\": [\"status\"], \"previous_job_info\": [\"running\"],"
			    " \"previous_log_serial\": 0}");
	g_assert_true(JSON_NODE_HOLDS_NULL(unchanged));
	g_assert_cmpint(g_get_monotonic_time() - start, >=, 9 * G_USEC_PER_SEC);
	status = wait_job(fx, id);
	g_assert_cmpstr(status, ==, "success");
}

/* ---- query2 ---- */

static void
test_query(RapiFx *fx, gconstpointer data)
{
	g_autoptr(JsonObject) info = get_object(fx, "/2/info");
	const gchar *master = json_object_get_string_member(info, "master");
	g_autoptr(JsonObject) nodes = get_object(fx, "/2/query/node?fields=name,role");
	g_autoptr(JsonNode) filtered = call_ok(fx, "PUT", "/2/query/node",
					       "{\"fields\": [\"name\"],"
					       " \"qfilter\": [\"==\", \"role\", \"D\"]}");
	g_autoptr(JsonNode) legacy = call_ok(fx, "PUT", "/2/query/node?fields=name",
					     "{\"filter\": [\"==\", \"role\", \"M\"]}");
	g_autoptr(JsonObject) fields = get_object(fx, "/2/query/node/fields?fields=name,nosuch");
	g_autoptr(JsonObject) all_fields = get_object(fx, "/2/query/job/fields");
	JsonArray *row =
		json_array_get_array_element(json_object_get_array_member(nodes, "data"), 0);
	JsonArray *defs = json_object_get_array_member(fields, "fields");

	g_assert_cmpuint(json_array_get_length(json_object_get_array_member(nodes, "fields")), ==,
			 2);
	/* [status, value] cells */
	g_assert_cmpint(json_array_get_int_element(json_array_get_array_element(row, 0), 0), ==, 0);
	g_assert_cmpstr(json_array_get_string_element(json_array_get_array_element(row, 0), 1), ==,
			master);
	g_assert_cmpstr(json_array_get_string_element(json_array_get_array_element(row, 1), 1), ==,
			"M");
	g_assert_cmpuint(json_array_get_length(json_object_get_array_member(
				 json_node_get_object(filtered), "data")),
			 ==, 0);
	g_assert_cmpuint(json_array_get_length(json_object_get_array_member(
				 json_node_get_object(legacy), "data")),
			 ==, 1);
	g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(defs, 0),
						      "kind"),
			==, "text");
	g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(defs, 1),
						      "kind"),
			==, "unknown");
	g_assert_cmpuint(json_array_get_length(json_object_get_array_member(all_fields, "fields")),
			 >, 10);
}

/* ---- the answer cache ---- */

static void
test_cache_shared(RapiFx *fx, gconstpointer data)
{
	g_autoptr(JsonNode) first = call_ok(fx, "GET", "/2/info", NULL);
	g_autoptr(JsonNode) second = call_ok(fx, "GET", "/2/info", NULL);
	g_autoptr(GBytes) text1 = gnt_rapi_answer_to_bytes(first);
	g_autoptr(GBytes) text2 = gnt_rapi_answer_to_bytes(second);
	g_autoptr(JsonNode) tagged = NULL;
	g_autoptr(JsonNode) fresh = NULL;
	g_autoptr(JsonNode) parsed = NULL;
	g_autofree gchar *text = NULL;
	gsize len = 0;
	const gchar *bytes = g_bytes_get_data(text1, &len);

	/* one answer, sealed, shared; its text written once, "\n" ended */
	g_assert_true(first == second);
	g_assert_true(json_node_is_immutable(first));
	g_assert_true(g_bytes_get_data(text1, NULL) == g_bytes_get_data(text2, NULL));
	g_assert_cmpint(bytes[len - 1], ==, '\n');
	parsed = gnt_json_parse(bytes, (gssize)len, NULL);
	g_assert_true(json_node_equal(parsed, first));

	/* a job submitted here makes it stale at once */
	tagged = call_ok(fx, "PUT", "/2/tags?tag=fresh", NULL);
	assert_job_succeeds(fx, tagged);
	fresh = call_ok(fx, "GET", "/2/info", NULL);
	g_assert_true(fresh != first);
	text = to_text(json_object_get_member(json_node_get_object(fresh), "tags"));
	g_assert_cmpstr(text, ==, "[\"fresh\"]");
}

/* Waits for job @id over LUXI alone, unseen by the resources. */
static void
luxi_wait(RapiFx *fx, gint64 id)
{
	g_autoptr(JsonArray) fields = json_array_new();

	json_array_add_string_element(fields, "status");
	for (;;) {
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) change = gnt_luxi_client_wait_for_job_change(
			fx->luxi, (guint64)id, fields, NULL, -1, 10, &error);

		g_assert_no_error(error);
		if (JSON_NODE_HOLDS_ARRAY(change) &&
		    gnt_rapi_job_status_is_final(json_array_get_string_element(
			    json_array_get_array_element(json_node_get_array(change), 0), 0)))
			return;
	}
}

/* A change made elsewhere (here: straight over LUXI) shows once the TTL
 * has passed. */
static void
test_cache_ttl(RapiFx *fx, gconstpointer data)
{
	g_autoptr(JsonNode) before = NULL;
	g_autoptr(JsonNode) ops = gnt_json_parse("[{\"OP_ID\": \"OP_TAGS_SET\", \"kind\":"
						 " \"cluster\", \"tags\": [\"outside\"]}]",
						 -1, NULL);
	g_autoptr(GError) error = NULL;
	guint64 id = 0;
	gint64 changed;

	gnt_rapi_cache_set_ttl(200 * 1000);
	before = call_ok(fx, "GET", "/2/info", NULL);
	g_assert_true(gnt_luxi_client_submit_job(fx->luxi, json_node_get_array(ops), &id, &error));
	g_assert_no_error(error);
	luxi_wait(fx, (gint64)id);
	changed = g_get_monotonic_time();
	for (;;) {
		g_autoptr(JsonNode) now = call_ok(fx, "GET", "/2/info", NULL);
		JsonArray *tags = json_object_get_array_member(json_node_get_object(now), "tags");

		if (array_has_string(tags, "outside"))
			break;
		/* stale, but never for longer than the TTL (and a slow machine) */
		g_assert_cmpint(g_get_monotonic_time() - changed, <, 2 * G_USEC_PER_SEC);
	}
	gnt_rapi_cache_set_ttl(GNT_RAPI_CACHE_TTL_US);
}

static void
test_cache_running_job(RapiFx *fx, gconstpointer data)
{
	gint64 hold = submit_delay(fx, "\"duration\": 2, \"no_locks\": false");
	g_autofree gchar *target = g_strdup_printf("/2/jobs/%" G_GINT64_FORMAT, hold);
	g_autoptr(JsonNode) first = call_ok(fx, "GET", target, NULL);
	g_autoptr(JsonNode) second = call_ok(fx, "GET", target, NULL);
	g_autofree gchar *status = wait_job(fx, hold);
	g_autoptr(JsonNode) done = call_ok(fx, "GET", target, NULL);
	g_autoptr(JsonNode) done_again = call_ok(fx, "GET", target, NULL);

	/* unfinished: asked every time */
	g_assert_false(gnt_rapi_job_status_is_final(
		json_object_get_string_member(json_node_get_object(first), "status")));
	g_assert_true(first != second);
	/* finished: kept */
	g_assert_cmpstr(status, ==, "success");
	g_assert_cmpstr(json_object_get_string_member(json_node_get_object(done), "status"), ==,
			"success");
	g_assert_true(done == done_again);
}

typedef struct {
	RapiFx *fx;
	const gchar *target;
	gint done;
	guint answers;
} Hammer;

/* A worker as gantry-rapi runs them: its own LUXI connection, answers
 * written to bytes and dropped. */
static gpointer
hammer_thread(gpointer data)
{
	Hammer *h = data;
	g_autoptr(GError) error = NULL;
	g_autoptr(GntLuxiClient)
		luxi = gnt_luxi_client_new(gnt_paths_get_luxi_socket(h->fx->paths), &error);
	RapiFx own = *h->fx;

	g_assert_no_error(error);
	own.luxi = luxi;
	while (!g_atomic_int_get(&h->done)) {
		g_autoptr(JsonNode) answer = call_ok(&own, "GET", h->target, NULL);
		g_autoptr(GBytes) text = gnt_rapi_answer_to_bytes(answer);
		g_autoptr(JsonNode) parsed = gnt_json_parse(g_bytes_get_data(text, NULL),
							    (gssize)g_bytes_get_size(text), NULL);

		g_assert_nonnull(parsed);
		g_assert_true(json_node_equal(parsed, answer));
		h->answers++;
	}
	return NULL;
}

/* Workers share cached answers while they expire and are made stale all
 * the time (run under ASan in CI). */
static void
test_cache_threads(RapiFx *fx, gconstpointer data)
{
	const gchar *targets[] = {"/2/info", "/2/instances?bulk=1", "/2/nodes?bulk=1", "/2/info",
				  "/2/jobs/1"};
	Hammer hammers[G_N_ELEMENTS(targets)];
	GThread *threads[G_N_ELEMENTS(targets)];
	g_autoptr(JsonNode) job = call_ok(fx, "PUT", "/2/tags?tag=t0", NULL);

	g_assert_cmpint(job_id_of(job), ==, 1);
	g_free(wait_job(fx, 1));
	gnt_rapi_cache_set_ttl(2000);
	for (guint i = 0; i < G_N_ELEMENTS(targets); i++) {
		hammers[i] = (Hammer){fx, targets[i], 0, 0};
		threads[i] = g_thread_new("hammer", hammer_thread, &hammers[i]);
	}
	for (guint i = 0; i < 20; i++) {
		g_autofree gchar *target = g_strdup_printf("/2/tags?tag=t%u", i + 1);
		g_autoptr(JsonNode) tagged = call_ok(fx, "PUT", target, NULL);

		assert_job_succeeds(fx, tagged);
	}
	for (guint i = 0; i < G_N_ELEMENTS(targets); i++) {
		g_atomic_int_set(&hammers[i].done, 1);
		g_thread_join(threads[i]);
		g_assert_cmpuint(hammers[i].answers, >, 0);
	}
	gnt_rapi_cache_set_ttl(GNT_RAPI_CACHE_TTL_US);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	gnt_opcode_register_table(&gnt_cmdlib_op_table); /* as gantry-rapi does */
	g_test_add_func("/rapi/resources/routes", test_routes);
	g_test_add_func("/rapi/resources/query-arguments", test_query_arguments);
#define ADD(path, func) g_test_add(path, RapiFx, NULL, rapi_set_up, func, rapi_tear_down)
	ADD("/rapi/resources/cluster", test_cluster);
	ADD("/rapi/resources/cluster-tags", test_cluster_tags);
	ADD("/rapi/resources/os", test_os);
	ADD("/rapi/resources/install-steps", test_install_steps);
	ADD("/rapi/resources/instances/list", test_instances);
	ADD("/rapi/resources/instances/operations", test_instance_operations);
	ADD("/rapi/resources/instances/tags", test_instance_tags);
	ADD("/rapi/resources/instances/disks", test_instance_disks);
	ADD("/rapi/resources/instances/info", test_instance_info);
	ADD("/rapi/resources/instances/reinstall", test_instance_reinstall);
	ADD("/rapi/resources/instances/reinstall-kickstart", test_instance_reinstall_kickstart);
	ADD("/rapi/resources/bad-input", test_bad_input);
	ADD("/rapi/resources/unknown-things", test_unknown_things);
	ADD("/rapi/resources/secret-never-shown", test_secret_never_shown);
	ADD("/rapi/resources/nodes", test_nodes);
	ADD("/rapi/resources/groups", test_groups);
	ADD("/rapi/resources/images", test_images);
	ADD("/rapi/resources/jobs", test_jobs);
	ADD("/rapi/resources/jobs/cancel", test_job_cancel);
	ADD("/rapi/resources/jobs/wait-unchanged", test_job_wait_unchanged);
	ADD("/rapi/resources/query", test_query);
	ADD("/rapi/resources/cache/shared", test_cache_shared);
	ADD("/rapi/resources/cache/ttl", test_cache_ttl);
	ADD("/rapi/resources/cache/running-job", test_cache_running_job);
	ADD("/rapi/resources/cache/threads", test_cache_threads);
#undef ADD
	return g_test_run();
}
