/*
 * Public, private and secret OS parameters through the whole stack
 * (doc/secrets.md, doc/install.md): a cluster of two nodes on this machine
 * (the master's root and a second gantry-noded on its own root at
 * 127.0.0.2, joined with a token; the cluster's file storage directory is
 * one path on every node, so node2's disks are under the master's root on
 * this machine), every daemon logging at debug level with
 * its temporary files in a directory the test scans too, the fake
 * hypervisor, file disks and the gantry-report OS of os-scripts/, which
 * writes the SHA-256 digest of each OSP_* value onto disk 0.
 *
 * Instances are added (over LUXI, gnt-instance add and RAPI) on both nodes and
 * reinstalled (with gnt-instance reinstall, and over RAPI as one job of
 * shutdown, reinstall and startup) with known values; the digests on the
 * disks prove the scripts received all three kinds each time. Every answer
 * (LUXI Query, QueryInstances, job ops and logs, OP_INSTANCE_QUERY_DATA,
 * RAPI, gnt-instance info and list, error messages) shows "<redacted>" and
 * never a private or secret value. Then the daemons stop and every byte of
 * every file under both roots (and the daemons' temporary directory) is
 * scanned: a secret value is in none, a private one only in config.db (and
 * its WAL), where it is kept for reinstalls. The queue keeps a job's
 * private values only until it has run (doc/secrets.md): they must be gone
 * from queue.db and its WAL by then.
 */
#include <libsoup/soup.h>

#include "gnt-test-cluster.h"
#include "tools-test.h"

#define OS_NAME	      "gantry-report"
#define NODE2	      "node2.example.com"
#define NODE2_IP      "127.0.0.2"
#define JOB_TIMEOUT_S 120

/* The values, each unique enough to be found in any file. */
#define PUBLIC_1   "Zpub-greeting-31c4a9"
#define PRIVATE_1  "Zpriv-token-7e19a2"
#define SECRET_1   "Zsecr-password-b04d55"
#define PRIVATE_2  "Zpriv-token2-12f0be"
#define SECRET_2   "Zsecr-password2-9ac3e1"
#define PRIVATE_3  "Zpriv-token3-5d0c47"
#define SECRET_3   "Zsecr-password3-e2a6f8"
#define SECRET_BAD "Zsecr-undeclared-41b7c0"

static const gchar *const private_values[] = {PRIVATE_1, PRIVATE_2, PRIVATE_3, NULL};
static const gchar *const secret_values[] = {SECRET_1, SECRET_2, SECRET_3, SECRET_BAD, NULL};

#define RAPI_USER     "ops"
#define RAPI_PASSWORD "rapi-pass-31"

typedef struct {
	GntTestCluster cluster;
	gchar *scratch;	   /* the daemons' wrappers (bin/) and TMPDIR (tmp/) */
	gchar *node2_root; /* the second node's root */
	gchar *master;	   /* the master node's name */
	gchar *rapi_base;  /* https://localhost:PORT */
	SoupSession *rapi;
	GSubprocess *reaper; /* node2's daemons and the directories, should the test abort */
} SecFx;

/* ---- helpers ---- */

/* Wrappers named as the daemons, which run them with --debug and TMPDIR
 * in the scratch directory; GANTRY_DAEMON_DIR points at them. */
static void
make_daemon_wrappers(SecFx *fx)
{
	static const gchar *const daemons[] = {"gantry-masterd", "gantry-noded", "gantry-rapi"};
	g_autofree gchar *bin = g_build_filename(fx->scratch, "bin", NULL);
	g_autofree gchar *tmp = g_build_filename(fx->scratch, "tmp", NULL);
	const gchar *real_dir = g_getenv("GANTRY_DAEMON_DIR");

	g_assert_nonnull(real_dir);
	g_assert_cmpint(g_mkdir(bin, 0755), ==, 0);
	g_assert_cmpint(g_mkdir(tmp, 0700), ==, 0);
	for (guint i = 0; i < G_N_ELEMENTS(daemons); i++) {
		g_autofree gchar *path = g_build_filename(bin, daemons[i], NULL);
		g_autofree gchar *real = g_build_filename(real_dir, daemons[i], NULL);
		g_autofree gchar *script = g_strdup_printf(
			"#!/bin/sh\nTMPDIR='%s'; export TMPDIR\nexec '%s' --debug \"$@\"\n", tmp,
			real);

		gnt_test_write_file(NULL, path, script, 0755);
	}
	g_setenv("GANTRY_DAEMON_DIR", bin, TRUE);
}

/* A tool of $@env_var run under the cluster's root; its output. */
static Run *
tool(SecFx *fx, const gchar *env_var, const gchar *const *args)
{
	return run_in(fx->cluster.root, env_var, args);
}

#define INSTANCE(fx, ...)                                                                          \
	tool(fx, "GNT_TEST_GNT_INSTANCE", (const gchar *const[]){__VA_ARGS__, NULL})
#define NODE(fx, ...) tool(fx, "GNT_TEST_GNT_NODE", (const gchar *const[]){__VA_ARGS__, NULL})

/* @text shows no private or secret value. */
static void
assert_no_values(const gchar *what, const gchar *text)
{
	for (guint i = 0; private_values[i] != NULL; i++) {
		if (strstr(text, private_values[i]) != NULL)
			g_error("%s shows the private value '%s': %s", what, private_values[i],
				text);
	}
	for (guint i = 0; secret_values[i] != NULL; i++) {
		if (strstr(text, secret_values[i]) != NULL)
			g_error("%s shows the secret value '%s': %s", what, secret_values[i], text);
	}
}

static gchar *
node_to_text(JsonNode *node)
{
	return gnt_json_to_string(node);
}

/* A LUXI call whose answer must hold no value; @needle (nullable) must be
 * in it. (transfer full) */
static JsonNode *
luxi_checked(SecFx *fx, const gchar *method, const gchar *args, const gchar *needle)
{
	g_autoptr(GError) error = NULL;
	JsonNode *answer = gnt_test_cluster_call(&fx->cluster, method, args, &error);
	g_autofree gchar *text = NULL;

	g_assert_no_error(error);
	text = node_to_text(answer);
	assert_no_values(method, text);
	if (needle != NULL && strstr(text, needle) == NULL)
		g_error("%s %s: no '%s' in %s", method, args, needle, text);
	return answer;
}

/* Submits @op_json and waits: the row [status, opresult, oplog]; none of
 * it may show a value. */
static JsonArray *
run_op(SecFx *fx, const gchar *op_json)
{
	JsonArray *row = gnt_test_cluster_run_op(&fx->cluster, op_json, JOB_TIMEOUT_S);
	g_autofree gchar *text = gnt_test_cluster_row_to_string(row);

	assert_no_values("a job's result and log", text);
	return row;
}

static gchar *
sha256_hex(const gchar *value)
{
	return g_compute_checksum_for_string(G_CHECKSUM_SHA256, value, -1);
}

/* The report gantry-report wrote onto disk 0 of @instance under @root. */
static gchar *
read_report(const gchar *root, const gchar *instance)
{
	g_autofree gchar *dir =
		g_build_filename(root, "srv", "gantry", "file-storage", instance, NULL);
	g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError) error = NULL;
	g_autofree gchar *data = NULL;
	gsize len = 0;
	const gchar *end;

	gnt_test_cluster_list_files(dir, files);
	g_assert_cmpuint(files->len, ==, 1);
	g_assert_true(g_file_get_contents(files->pdata[0], &data, &len, &error));
	g_assert_no_error(error);
	g_assert_true(g_str_has_prefix(data, "gantry-report: instance "));
	end = strstr(data, "gantry-report: end\n");
	g_assert_nonnull(end);
	return g_strndup(data, (gsize)(end - data));
}

/* The OS scripts saw the three values: their digests are on the disk. */
static void
assert_report(const gchar *root, const gchar *instance, const gchar *greeting, const gchar *token,
	      const gchar *password, gboolean reinstall)
{
	g_autofree gchar *report = read_report(root, instance);
	const gchar *names[] = {"OSP_GREETING", "OSP_API_TOKEN", "OSP_ROOT_PASSWORD"};
	const gchar *values[] = {greeting, token, password};
	g_autofree gchar *head =
		g_strdup_printf("gantry-report: instance %s, OS %s, reinstall %d\n", instance,
				OS_NAME, reinstall ? 1 : 0);

	g_assert_true(g_str_has_prefix(report, head));
	for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
		g_autofree gchar *digest = sha256_hex(values[i]);
		g_autofree gchar *line = g_strdup_printf("%s sha256:%s\n", names[i], digest);

		if (strstr(report, line) == NULL)
			g_error("no '%s' in the report of %s:\n%s", line, instance, report);
	}
}

/* ---- RAPI over HTTPS, the cluster's CA verified ---- */

static void
rapi_set_up(SecFx *fx)
{
	g_autofree gchar *data_dir =
		g_build_filename(fx->cluster.root, "var", "lib", "gantry", NULL);
	g_autofree gchar *users_dir = g_build_filename(data_dir, "rapi", NULL);
	g_autofree gchar *users = g_build_filename(users_dir, "users", NULL);
	g_autofree gchar *port_file = g_build_filename(data_dir, "rapi-port", NULL);
	g_autofree gchar *ca = g_build_filename(data_dir, "tls", "ca.pem", NULL);
	g_autofree gchar *ha1 = g_compute_checksum_for_string(
		G_CHECKSUM_MD5, RAPI_USER ":Ganeti Remote API:" RAPI_PASSWORD, -1);
	g_autofree gchar *line = g_strdup_printf(RAPI_USER " {HA1}%s write\n", ha1);
	g_autofree gchar *port = NULL;
	g_autoptr(GTlsDatabase) database = NULL;
	g_autoptr(GError) error = NULL;

	g_assert_cmpint(g_mkdir_with_parents(users_dir, 0750), ==, 0);
	gnt_test_write_file(NULL, users, line, 0600);
	g_assert_true(g_file_get_contents(port_file, &port, NULL, &error));
	g_assert_no_error(error);
	fx->rapi_base = g_strdup_printf("https://localhost:%s", g_strstrip(port));
	database = g_tls_file_database_new(ca, &error);
	g_assert_no_error(error);
	fx->rapi = soup_session_new_with_options("proxy-resolver", NULL, "timeout", 60, NULL);
	soup_session_set_tls_database(fx->rapi, database);
}

/* @method @path with @body (nullable) as the RAPI user: the answer, which
 * must be 200 and show no value. (transfer full) */
static JsonNode *
rapi_call(SecFx *fx, const gchar *method, const gchar *path, const gchar *body)
{
	g_autofree gchar *uri = g_strconcat(fx->rapi_base, path, NULL);
	g_autoptr(SoupMessage) msg = soup_message_new(method, uri);
	g_autofree gchar *credentials = g_base64_encode((const guchar *)RAPI_USER ":" RAPI_PASSWORD,
							strlen(RAPI_USER ":" RAPI_PASSWORD));
	g_autofree gchar *authorization = g_strdup_printf("Basic %s", credentials);
	g_autoptr(GBytes) answer = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *text = NULL;
	JsonNode *node;

	g_assert_nonnull(msg);
	soup_message_headers_replace(soup_message_get_request_headers(msg), "Authorization",
				     authorization);
	if (body != NULL) {
		g_autoptr(GBytes) bytes = g_bytes_new(body, strlen(body));

		soup_message_set_request_body_from_bytes(msg, "application/json", bytes);
	}
	answer = soup_session_send_and_read(fx->rapi, msg, NULL, &error);
	g_assert_no_error(error);
	text = g_strndup(g_bytes_get_data(answer, NULL), g_bytes_get_size(answer));
	if (soup_message_get_status(msg) != SOUP_STATUS_OK)
		g_error("%s %s: %u %s", method, path, soup_message_get_status(msg), text);
	assert_no_values(path, text);
	node = gnt_json_parse(text, -1, &error);
	g_assert_no_error(error);
	return node;
}

/* ---- the fixture ---- */

/* node2: a gantry-noded on its own root at 127.0.0.2, joined with the
 * token gnt-node add prints. */
static void
add_node2(SecFx *fx)
{
	g_autofree gchar *port = g_strdup_printf("%u", tools_test_free_port(NODE2_IP));
	g_autofree gchar *listen = g_strdup_printf(NODE2_IP ":%s", port);
	g_autofree gchar *noded =
		g_build_filename(g_getenv("GANTRY_DAEMON_DIR"), "gantry-noded", NULL);
	g_autoptr(Run) first = NODE(fx, "add", "--primary-ip", NODE2_IP, "--noded-port", port,
				    "--join-timeout", "0", NODE2);
	g_autoptr(Run) joined = NULL;
	g_autoptr(Run) added = NULL;
	g_autofree gchar *token = NULL;

	expect(first, 0, NULL);
	token = tools_test_find_join_token(first->out);
	/* through the wrapper: debug logging, TMPDIR in the scratch directory */
	g_setenv("GNT_TEST_NODED_WRAPPED", noded, TRUE);
	joined = run_in(fx->node2_root, "GNT_TEST_NODED_WRAPPED",
			(const gchar *const[]){"--join", token, "--address", NODE2_IP, "--listen",
					       listen, NULL});
	expect(joined, 0, NULL);
	added = NODE(fx, "add", "--primary-ip", NODE2_IP, "--noded-port", port, NODE2);
	expect(added, 0, NULL);
}

static void
sec_set_up(SecFx *fx, gconstpointer data)
{
	g_autofree gchar *os_scripts =
		g_build_filename(g_getenv("GNT_TEST_SRCDIR"), "..", "os-scripts", NULL);
	g_autofree gchar *name = g_strdup_printf("osp%d.example.com", (gint)getpid());
	g_autoptr(GError) error = NULL;
	g_autofree gchar *commands = NULL;

	fx->scratch = g_dir_make_tmp("gos-XXXXXX", &error);
	g_assert_no_error(error);
	fx->node2_root = g_dir_make_tmp("gos2-XXXXXX", &error);
	g_assert_no_error(error);
	commands = g_strdup_printf("'%s' stop --root '%s' >/dev/null 2>&1; rm -rf '%s' '%s'",
				   g_getenv("GNT_TEST_GANTRY_DAEMONS"), fx->node2_root,
				   fx->node2_root, fx->scratch);
	fx->reaper = gnt_test_reaper_new(commands);
	make_daemon_wrappers(fx);
	gnt_test_cluster_init(&fx->cluster, name, "fake");
	gnt_test_cluster_set_os_search_path(&fx->cluster, os_scripts);
	fx->master = gnt_test_cluster_dup_master(&fx->cluster);
	add_node2(fx);
	rapi_set_up(fx);
}

static void
sec_tear_down(SecFx *fx, gconstpointer data)
{
	if (fx->node2_root != NULL) {
		g_autoptr(Run) stop = run_in(fx->node2_root, "GNT_TEST_GANTRY_DAEMONS",
					     (const gchar *const[]){"stop", NULL});
		g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", fx->node2_root);

		expect(stop, 0, NULL);
		g_assert_cmpint(system(cmd), ==, 0);
	}
	gnt_test_cluster_clear(&fx->cluster);
	if (fx->scratch != NULL) {
		g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", fx->scratch);

		g_assert_cmpint(system(cmd), ==, 0);
	}
	gnt_test_reaper_finish(&fx->reaper);
	g_clear_object(&fx->rapi);
	g_free(fx->scratch);
	g_free(fx->node2_root);
	g_free(fx->master);
	g_free(fx->rapi_base);
}

/* ---- the scan ---- */

/* Where the private value may be: the config store (reinstalls need it). */
static gboolean
may_hold_private(const gchar *name)
{
	return g_str_has_prefix(name, "config.db");
}

/* Every regular file under @dir: no secret value in any, a private value
 * only where may_hold_private() allows. The number of files read. */
static guint
scan_tree(const gchar *dir)
{
	return gnt_test_scan_tree(dir, secret_values, private_values, may_hold_private);
}

/* ---- the test ---- */

/* OP_INSTANCE_CREATE of @name on @node with one parameter of each kind. */
static gchar *
create_op(const gchar *name, const gchar *node, const gchar *private_value,
	  const gchar *secret_value)
{
	return g_strdup_printf(
		"{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": \"%s\", \"mode\": \"create\","
		" \"disk_template\": \"file\", \"disks\": [{\"size\": 4}], \"nics\": [],"
		" \"os_type\": \"" OS_NAME "\", \"hypervisor\": \"fake\", \"pnode\": \"%s\","
		" \"osparams\": {\"greeting\": \"" PUBLIC_1 "\"},"
		" \"osparams_private\": {\"api_token\": \"%s\"},"
		" \"osparams_secret\": {\"root_password\": \"%s\"}}",
		name, node, private_value, secret_value);
}

/* What every output shows of web1 and web2: the private parameter as
 * "<redacted>", never a value. */
static void
check_outputs(SecFx *fx)
{
	g_autoptr(JsonNode) query = NULL;
	g_autoptr(JsonNode) old_query = NULL;
	g_autoptr(JsonNode) jobs = NULL;
	g_autoptr(JsonNode) rapi_one = NULL;
	g_autoptr(JsonNode) rapi_bulk = NULL;
	g_autoptr(JsonNode) rapi_jobs = NULL;
	g_autoptr(JsonNode) info_job = NULL;
	g_autoptr(JsonArray) info_row = NULL;
	g_autoptr(Run) info = INSTANCE(fx, "info", "web1.example.com", "web2.example.com");
	g_autoptr(Run) list = INSTANCE(fx, "list", "--no-headers", "--separator=|", "-o",
				       "name,osparams,custom_osparams");
	g_autofree gchar *info_text = NULL;

	query = luxi_checked(fx, "Query",
			     "[\"instance\", [\"name\", \"osparams\", \"custom_osparams\"], null]",
			     "\"api_token\":\"<redacted>\"");
	old_query = luxi_checked(fx, "QueryInstances",
				 "[[], [\"name\", \"osparams\", \"custom_osparams\"], false]",
				 "\"api_token\":\"<redacted>\"");
	/* every job: its opcodes (private and secret values redacted), logs,
	 * results */
	jobs = luxi_checked(
		fx, "Query",
		"[\"job\", [\"id\", \"ops\", \"oplog\", \"opresult\", \"summary\"], null]",
		"\"root_password\":\"<redacted>\"");
	expect(info, 0, NULL);
	assert_no_values("gnt-instance info", info->out);
	gnt_test_assert_contains(info->out, "    api_token: <redacted>\n");
	gnt_test_assert_contains(info->out, "    greeting: " PUBLIC_1 "\n");
	gnt_test_assert_contains(
		info->out, "    secret parameters (give them again to reinstall): root_password\n");
	expect(list, 0, NULL);
	assert_no_values("gnt-instance list", list->out);
	gnt_test_assert_contains(list->out, "'api_token': '<redacted>'");
	rapi_one = rapi_call(fx, "GET", "/2/instances/web1.example.com", NULL);
	rapi_bulk = rapi_call(fx, "GET", "/2/instances?bulk=1", NULL);
	rapi_jobs = rapi_call(fx, "GET", "/2/jobs?bulk=1", NULL);
	info_job = rapi_call(fx, "GET", "/2/instances/web2.example.com/info?static=1", NULL);
	info_row = gnt_test_cluster_wait_job(&fx->cluster, (guint64)json_node_get_int(info_job),
					     JOB_TIMEOUT_S);
	info_text = gnt_test_cluster_row_to_string(info_row);
	assert_no_values("OP_INSTANCE_QUERY_DATA", info_text);
	g_assert_nonnull(strstr(info_text, "\"secret_names\":[\"root_password\"]"));
}

static void
test_secrecy(SecFx *fx, gconstpointer data)
{
	g_autofree gchar *create_web1 =
		create_op("web1.example.com", fx->master, PRIVATE_1, SECRET_1);
	g_autoptr(JsonArray) created = NULL;
	g_autoptr(JsonArray) refused = NULL;
	g_autoptr(Run) added = NULL;
	g_autoptr(Run) no_secret = NULL;
	g_autoptr(Run) stopped = NULL;
	g_autoptr(Run) reinstalled = NULL;
	g_autoptr(Run) modify_secret = NULL;
	g_autoptr(Run) placed = NULL;
	g_autoptr(Run) stop_node2 = NULL;
	g_autoptr(JsonNode) rapi_job = NULL;
	g_autoptr(JsonArray) rapi_row = NULL;
	g_autoptr(JsonNode) rapi_create = NULL;
	g_autoptr(JsonArray) rapi_created = NULL;
	g_autofree gchar *refused_text = NULL;
	g_autofree gchar *secrets_file = NULL;
	g_autofree gchar *tmp = NULL;
	guint n_files;

	/* web1 on the master, over LUXI */
	created = run_op(fx, create_web1);
	gnt_test_cluster_assert_success(created);
	assert_report(fx->cluster.root, "web1.example.com", PUBLIC_1, PRIVATE_1, SECRET_1, FALSE);

	/* web2 on node2, with gnt-instance add */
	added = INSTANCE(fx, "add", "-t", "file", "--disk", "0:size=4M", "--no-nics", "-o", OS_NAME,
			 "-H", "fake", "-n", NODE2, "-O", "greeting=" PUBLIC_1,
			 "--os-parameters-private", "api_token=" PRIVATE_1,
			 "--os-parameters-secret", "root_password=" SECRET_1, "web2.example.com");
	expect(added, 0, NULL);
	assert_no_values("gnt-instance add", added->out);
	gnt_test_assert_contains(added->out, "install step run_os_scripts (70): done in ");
	placed = INSTANCE(fx, "list", "--no-headers", "-o", "pnode", "web2.example.com");
	expect(placed, 0, NODE2 "\n");
	assert_report(fx->cluster.root, "web2.example.com", PUBLIC_1, PRIVATE_1, SECRET_1, FALSE);

	/* web3 on node2, over RAPI */
	rapi_create = rapi_call(
		fx, "POST", "/2/instances",
		"{\"__version__\": 1, \"mode\": \"create\", \"name\": \"web3.example.com\","
		" \"disk_template\": \"file\", \"disks\": [{\"size\": 4}], \"nics\": [],"
		" \"os\": \"" OS_NAME "\", \"hypervisor\": \"fake\", \"pnode\": \"" NODE2 "\","
		" \"osparams\": {\"greeting\": \"" PUBLIC_1 "\"},"
		" \"osparams_private\": {\"api_token\": \"" PRIVATE_3 "\"},"
		" \"osparams_secret\": {\"root_password\": \"" SECRET_3 "\"}}");
	rapi_created = gnt_test_cluster_wait_job(
		&fx->cluster, (guint64)json_node_get_int(rapi_create), JOB_TIMEOUT_S);
	gnt_test_cluster_assert_success(rapi_created);
	assert_report(fx->cluster.root, "web3.example.com", PUBLIC_1, PRIVATE_3, SECRET_3, FALSE);

	/* errors name parameters, never values: a secret the OS does not
	 * declare is refused before anything is made */
	refused = run_op(
		fx, "{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\":"
		    " \"web4.example.com\", \"mode\": \"create\", \"disk_template\": \"file\","
		    " \"disks\": [{\"size\": 4}], \"nics\": [], \"os_type\": \"" OS_NAME "\","
		    " \"hypervisor\": \"fake\", \"osparams_secret\": {\"undeclared\": \"" SECRET_BAD
		    "\"}, \"osparams_private\": {\"api_token\": \"" PRIVATE_1 "\"}}");
	refused_text = gnt_test_cluster_row_to_string(refused);
	g_assert_cmpstr(json_array_get_string_element(refused, 0), ==, "error");
	g_assert_nonnull(strstr(refused_text, "not supported by the OS " OS_NAME ": undeclared"));
	g_assert_cmpuint(gnt_test_cluster_count_instances(&fx->cluster, "web4.example.com"), ==, 0);

	check_outputs(fx);

	/* a reinstall needs the secret again, and takes new values */
	stopped = INSTANCE(fx, "shutdown", "web1.example.com");
	expect(stopped, 0, NULL);
	no_secret = INSTANCE(fx, "reinstall", "-f", "web1.example.com");
	expect_has(no_secret, 1,
		   "the secret OS parameters 'root_password' were given at its last "
		   "install and are never stored");
	assert_report(fx->cluster.root, "web1.example.com", PUBLIC_1, PRIVATE_1, SECRET_1, FALSE);
	/* the secret from a file, never on the command line (issue 12) */
	secrets_file = g_build_filename(fx->scratch, "secrets", NULL);
	gnt_test_write_file(NULL, secrets_file, "# web1's\nroot_password=" SECRET_2 "\n", 0600);
	reinstalled = INSTANCE(fx, "reinstall", "-f", "--os-parameters-private",
			       "api_token=" PRIVATE_2, "--os-parameters-secret-file", secrets_file,
			       "web1.example.com");
	expect(reinstalled, 0, NULL);
	assert_no_values("gnt-instance reinstall", reinstalled->out);
	assert_report(fx->cluster.root, "web1.example.com", PUBLIC_1, PRIVATE_2, SECRET_2, TRUE);
	/* and from standard input; a key given twice is refused */
	{
		const gchar *const args[] = {
			"reinstall",	    "-f", "--os-parameters-secret-file", "-",
			"web1.example.com", NULL};
		const gchar *const twice[] = {"reinstall",
					      "-f",
					      "--os-parameters-secret",
					      "root_password=" SECRET_3,
					      "--os-parameters-secret-file",
					      "-",
					      "web1.example.com",
					      NULL};
		g_autoptr(Run)
			from_stdin = run_in_with_input(fx->cluster.root, "GNT_TEST_GNT_INSTANCE",
						       args, "root_password=" SECRET_1 "\n");
		g_autoptr(Run)
			given_twice = run_in_with_input(fx->cluster.root, "GNT_TEST_GNT_INSTANCE",
							twice, "root_password=" SECRET_1 "\n");

		expect(from_stdin, 0, NULL);
		assert_report(fx->cluster.root, "web1.example.com", PUBLIC_1, PRIVATE_2, SECRET_1,
			      TRUE);
		expect_has(given_twice, 1, "secret OS parameter 'root_password' is given twice");
		assert_no_values("gnt-instance reinstall", given_twice->err);
		assert_report(fx->cluster.root, "web1.example.com", PUBLIC_1, PRIVATE_2, SECRET_1,
			      TRUE);
	}

	/* modify cannot keep a secret: refused before anything is sent */
	modify_secret = INSTANCE(fx, "modify", "--os-parameters-secret", "root_password=" SECRET_3,
				 "web1.example.com");
	expect_has(modify_secret, 1, "secret OS parameters are never stored");
	assert_no_values("gnt-instance modify", modify_secret->err);

	/* RAPI: web2 is running; one job shuts it down, reinstalls it with
	 * new private and secret values and starts it again */
	rapi_job = rapi_call(fx, "POST", "/2/instances/web2.example.com/reinstall",
			     "{\"osparams_private\": {\"api_token\": \"" PRIVATE_3 "\"},"
			     " \"osparams_secret\": {\"root_password\": \"" SECRET_3 "\"}}");
	rapi_row = gnt_test_cluster_wait_job(&fx->cluster, (guint64)json_node_get_int(rapi_job),
					     JOB_TIMEOUT_S);
	gnt_test_cluster_assert_success(rapi_row);
	assert_report(fx->cluster.root, "web2.example.com", PUBLIC_1, PRIVATE_3, SECRET_3, TRUE);

	check_outputs(fx);

	/* the master's stores as a crash now would leave them (no clean
	 * close to fold and delete the WAL): the jobs have ended, so their
	 * private values must already be gone from queue.db and its WAL */
	{
		g_autofree gchar *data_dir =
			g_build_filename(fx->cluster.root, "var", "lib", "gantry", NULL);

		g_assert_cmpuint(scan_tree(data_dir), >=, 2);
	}

	/* every byte on both nodes and in the daemons' temporary directory,
	 * with the daemons stopped (their logs complete) */
	stop_node2 = run_in(fx->node2_root, "GNT_TEST_GANTRY_DAEMONS",
			    (const gchar *const[]){"stop", NULL});
	expect(stop_node2, 0, NULL);
	gnt_test_cluster_stop(&fx->cluster);
	tmp = g_build_filename(fx->scratch, "tmp", NULL);
	n_files = scan_tree(fx->cluster.root) + scan_tree(fx->node2_root) + scan_tree(tmp);
	g_test_message("scanned %u files", n_files);
	/* the debug logs of both nodes' daemons, the OS logs, disks, stores */
	g_assert_cmpuint(n_files, >=, 10);
	/* the scan finds what is there: the private value is stored */
	{
		g_autofree gchar *config = g_build_filename(fx->cluster.root, "var", "lib",
							    "gantry", "config.db", NULL);
		g_autofree gchar *wal = g_strconcat(config, "-wal", NULL);
		g_autofree gchar *node2_log = g_build_filename(fx->node2_root, "var", "log",
							       "gantry", "gantry-noded.log", NULL);

		g_assert_true(gnt_test_file_contains(config, PRIVATE_2) ||
			      gnt_test_file_contains(wal, PRIVATE_2));
		g_assert_true(gnt_test_file_contains(node2_log, "DEBUG") ||
			      gnt_test_file_contains(node2_log, "debug"));
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/system/osparams-secrecy/two-nodes", SecFx, NULL, sec_set_up, test_secrecy,
		   sec_tear_down);
	return g_test_run();
}
