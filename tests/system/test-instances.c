/*
 * Instance units through the whole stack: gnt-cluster init, masterd and
 * noded on a temporary root, opcodes over LUXI, the fake hypervisor, file
 * disks, Debian's ganeti-os-noop and the test OS of tests/data/os-defs
 * ("sample", first on the cluster's search path: its create script writes
 * its environment onto disk 0). Checks what the config, the disks and the
 * databases hold after each step, failures included.
 */
#include "gnt-test-util.h"

#include "gnt-json.h"
#include "gnt-luxi-client.h"

typedef struct {
	gchar *dir;
	GntPaths *paths;
	GntLuxiClient *client;
} InstFx;

static void
run_tool(InstFx *fx, const gchar *env_name, const gchar *const *args)
{
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_autofree gchar *out = NULL;
	g_autofree gchar *err = NULL;
	g_auto(GStrv) env = g_environ_setenv(g_get_environ(), "GANTRY_ROOT", fx->dir, TRUE);
	gint status = -1;

	g_ptr_array_add(argv, (gpointer)g_getenv(env_name));
	for (guint i = 0; args[i] != NULL; i++)
		g_ptr_array_add(argv, (gpointer)args[i]);
	g_ptr_array_add(argv, NULL);
	g_assert_true(g_spawn_sync(NULL, (gchar **)argv->pdata, env, G_SPAWN_DEFAULT, NULL, NULL,
				   &out, &err, &status, NULL));
	if (status != 0)
		g_printerr("%s: %s%s\n", (const gchar *)argv->pdata[0], out, err);
	g_assert_cmpint(status, ==, 0);
}

static void
inst_set_up(InstFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *os_defs =
		g_build_filename(g_getenv("GNT_TEST_SRCDIR"), "data", "os-defs", NULL);
	/* the OS scripts run on the node: safe install off, the OSes trusted */
	const gchar *init[] = {"init",	"--noded-port",		 "0",  "--os-search-path",
			       os_defs, "--enable-safe-install", "no", "cluster.example.com",
			       NULL};
	const gchar *trust_noop[] = {"modify", "--trusted", "yes", "noop", NULL};
	const gchar *trust_sample[] = {"modify", "--trusted", "yes", "sample", NULL};

	if (!g_file_test("/usr/share/ganeti/os/noop/create", G_FILE_TEST_IS_EXECUTABLE)) {
		g_test_skip("Debian's ganeti-os-noop is not installed (scripts/install-deps)");
		return;
	}
	fx->dir = g_dir_make_tmp("gnt-inst-XXXXXX", &error);
	g_assert_no_error(error);
	fx->paths = gnt_paths_new(fx->dir);
	run_tool(fx, "GNT_TEST_GNT_CLUSTER", init);
	run_tool(fx, "GNT_TEST_GNT_OS", trust_noop);
	run_tool(fx, "GNT_TEST_GNT_OS", trust_sample);
	fx->client = gnt_luxi_client_new(gnt_paths_get_luxi_socket(fx->paths), &error);
	g_assert_no_error(error);
}

static void
inst_tear_down(InstFx *fx, gconstpointer data)
{
	const gchar *destroy[] = {"destroy", "--yes-do-it", NULL};
	g_autofree gchar *cmd = NULL;

	if (fx->dir == NULL)
		return;
	g_clear_object(&fx->client);
	run_tool(fx, "GNT_TEST_GNT_CLUSTER", destroy);
	cmd = g_strdup_printf("rm -rf '%s'", fx->dir);
	g_assert_cmpint(system(cmd), ==, 0);
	gnt_paths_free(fx->paths);
	g_free(fx->dir);
}

/* Submits one opcode (JSON text) and waits for the job; returns its
 * [status, opresult, oplog] (transfer full). */
static JsonArray *
run_op(InstFx *fx, const gchar *op_json)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) op = gnt_json_parse(op_json, -1, &error);
	g_autoptr(JsonArray) ops = json_array_new();
	g_autoptr(JsonArray) fields = json_array_new();
	g_autofree gchar *args = NULL;
	guint64 id = 0;

	g_assert_no_error(error);
	json_array_add_element(ops, json_node_ref(op));
	g_assert_true(gnt_luxi_client_submit_job(fx->client, ops, &id, &error));
	g_assert_no_error(error);
	json_array_add_string_element(fields, "status");
	for (;;) {
		g_autoptr(JsonNode) res = gnt_luxi_client_wait_for_job_change(
			fx->client, id, fields, NULL, -1, 30, &error);
		g_assert_no_error(error);
		if (JSON_NODE_HOLDS_ARRAY(res)) {
			const gchar *st = json_array_get_string_element(
				json_array_get_array_element(json_node_get_array(res), 0), 0);
			if (g_strcmp0(st, "success") == 0 || g_strcmp0(st, "error") == 0 ||
			    g_strcmp0(st, "canceled") == 0)
				break;
		}
	}
	args = g_strdup_printf("[[%" G_GUINT64_FORMAT "], [\"status\", \"opresult\", \"oplog\"]]",
			       id);
	{
		g_autoptr(JsonNode) argn = gnt_json_parse(args, -1, NULL);
		g_autoptr(JsonNode)
			rows = gnt_luxi_client_call(fx->client, "QueryJobs", argn, &error);
		g_assert_no_error(error);
		return json_array_ref(json_array_get_array_element(json_node_get_array(rows), 0));
	}
}

static void
assert_job_ok(JsonArray *row)
{
	g_autoptr(JsonNode) node = gnt_json_node_new_array(json_array_ref(row));
	g_autofree gchar *text = gnt_json_to_string(node);

	if (g_strcmp0(json_array_get_string_element(row, 0), "success") != 0)
		g_error("job failed: %s", text);
}

/* The job failed with @klass and a message containing @needle. */
static void
assert_job_failed(JsonArray *row, const gchar *klass, const gchar *needle)
{
	JsonArray *exc = json_array_get_array_element(json_array_get_array_element(row, 1), 0);
	const gchar *message =
		json_array_get_string_element(json_array_get_array_element(exc, 1), 0);

	g_assert_cmpstr(json_array_get_string_element(row, 0), ==, "error");
	g_assert_cmpstr(json_array_get_string_element(exc, 0), ==, klass);
	if (strstr(message, needle) == NULL)
		g_error("expected '%s' in '%s'", needle, message);
}

/* Rows of QueryInstances [name, admin_state, disk.sizes]. (transfer full) */
static JsonArray *
instances(InstFx *fx)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) args = gnt_json_parse(
		"[[], [\"name\", \"admin_state\", \"disk.sizes\"], false]", -1, NULL);
	g_autoptr(JsonNode) rows = gnt_luxi_client_call(fx->client, "QueryInstances", args, &error);

	g_assert_no_error(error);
	return json_array_ref(json_node_get_array(rows));
}

/* How many files lie under the cluster's file storage directory. */
static guint
count_disk_files(InstFx *fx, const gchar *sub)
{
	g_autofree gchar *dir =
		g_build_filename(fx->dir, "srv", "gantry", "file-storage", sub, NULL);
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	guint n = 0;

	while (d != NULL && g_dir_read_name(d) != NULL)
		n++;
	return n;
}

#define CREATE(name, extra)                                                                        \
	"{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": \"" name                           \
	"\", \"mode\": \"create\","                                                                \
	" \"disk_template\": \"file\", \"disks\": [{\"size\": 64}], \"nics\": [{}],"               \
	" \"os_type\": \"noop\", \"hypervisor\": \"fake\"" extra "}"

static void
test_lifecycle(InstFx *fx, gconstpointer data)
{
	g_autoptr(JsonArray) created = NULL;
	g_autoptr(JsonArray) modified = NULL;
	g_autoptr(JsonArray) renamed = NULL;
	g_autoptr(JsonArray) removed = NULL;
	g_autoptr(JsonArray) stopped = NULL;
	g_autoptr(JsonArray) rows = NULL;
	JsonArray *row;

	if (fx->dir == NULL)
		return;
	created = run_op(fx, CREATE("web1.example.com", ""));
	assert_job_ok(created);
	rows = instances(fx);
	row = json_array_get_array_element(rows, 0);
	g_assert_cmpstr(json_array_get_string_element(row, 0), ==, "web1.example.com");
	g_assert_cmpstr(json_array_get_string_element(row, 1), ==, "up");
	g_assert_cmpuint(count_disk_files(fx, "web1.example.com"), ==, 1);

	modified = run_op(fx, "{\"OP_ID\": \"OP_INSTANCE_SET_PARAMS\", \"instance_name\": \"web1\","
			      " \"disks\": [[\"add\", -1, {\"size\": \"32M\"}]]}");
	assert_job_ok(modified);
	g_assert_cmpuint(count_disk_files(fx, "web1.example.com"), ==, 2);

	stopped = run_op(fx, "{\"OP_ID\": \"OP_INSTANCE_SHUTDOWN\", \"instance_name\": \"web1\"}");
	assert_job_ok(stopped);
	renamed = run_op(fx, "{\"OP_ID\": \"OP_INSTANCE_RENAME\", \"instance_name\": \"web1\","
			     " \"new_name\": \"web9.example.com\"}");
	assert_job_ok(renamed);
	g_assert_cmpuint(count_disk_files(fx, "web1.example.com"), ==, 0);
	g_assert_cmpuint(count_disk_files(fx, "web9.example.com"), ==, 2);
	g_clear_pointer(&rows, json_array_unref);
	rows = instances(fx);
	row = json_array_get_array_element(rows, 0);
	g_assert_cmpstr(json_array_get_string_element(row, 0), ==, "web9.example.com");
	g_assert_cmpstr(json_array_get_string_element(row, 1), ==, "down");
	g_assert_cmpint(json_array_get_int_element(json_array_get_array_element(row, 2), 1), ==,
			32);

	removed = run_op(fx, "{\"OP_ID\": \"OP_INSTANCE_REMOVE\", \"instance_name\": \"web9\"}");
	assert_job_ok(removed);
	g_clear_pointer(&rows, json_array_unref);
	rows = instances(fx);
	g_assert_cmpuint(json_array_get_length(rows), ==, 0);
	g_assert_cmpuint(count_disk_files(fx, ""), ==, 0);
}

/* OP_INSTANCE_QUERY_DATA (RAPI's /info): the record, filled parameters,
 * and the run state asked of the node; unknown names refused. */
static void
test_query_data(InstFx *fx, gconstpointer data)
{
	g_autoptr(JsonArray) created = NULL;
	g_autoptr(JsonArray) running = NULL;
	g_autoptr(JsonArray) stopped = NULL;
	g_autoptr(JsonArray) static_only = NULL;
	g_autoptr(JsonArray) unknown = NULL;
	JsonObject *info;
	JsonObject *disk;

	if (fx->dir == NULL)
		return;
	created = run_op(fx, CREATE("db1.example.com",
				    ", \"beparams\": {\"vcpus\": 2},"
				    " \"osparams_private\": {\"pw\": \"s3cr3t-pw\"}"));
	assert_job_ok(created);

	running = run_op(fx, "{\"OP_ID\": \"OP_INSTANCE_QUERY_DATA\", \"instances\": [\"db1\"]}");
	assert_job_ok(running);
	info = json_object_get_object_member(
		json_array_get_object_element(json_array_get_array_element(running, 1), 0),
		"db1.example.com");
	g_assert_nonnull(info);
	g_assert_cmpstr(json_object_get_string_member(info, "config_state"), ==, "up");
	g_assert_cmpstr(json_object_get_string_member(info, "run_state"), ==, "up");
	g_assert_cmpstr(json_object_get_string_member(info, "os"), ==, "noop");
	g_assert_cmpstr(json_object_get_string_member(info, "hypervisor"), ==, "fake");
	g_assert_cmpint(json_object_get_int_member(
				json_object_get_object_member(info, "be_instance"), "vcpus"),
			==, 2);
	/* filled from the cluster's defaults */
	g_assert_true(
		json_object_has_member(json_object_get_object_member(info, "be_actual"), "maxmem"));
	disk = json_array_get_object_element(json_object_get_array_member(info, "disks"), 0);
	g_assert_cmpstr(json_object_get_string_member(disk, "iv_name"), ==, "disk/0");
	g_assert_cmpint(json_object_get_int_member(disk, "size"), ==, 64);
	g_assert_cmpuint(json_array_get_length(json_object_get_array_member(info, "nics")), ==, 1);
	{
		g_autoptr(JsonNode) node = gnt_json_node_new_array(json_array_ref(running));
		g_autofree gchar *text = gnt_json_to_string(node);

		g_assert_null(strstr(text, "s3cr3t-pw"));
	}

	stopped = run_op(fx, "{\"OP_ID\": \"OP_INSTANCE_SHUTDOWN\", \"instance_name\": \"db1\"}");
	assert_job_ok(stopped);
	static_only = run_op(fx, "{\"OP_ID\": \"OP_INSTANCE_QUERY_DATA\", \"static\": true}");
	assert_job_ok(static_only);
	info = json_object_get_object_member(
		json_array_get_object_element(json_array_get_array_element(static_only, 1), 0),
		"db1.example.com");
	g_assert_cmpstr(json_object_get_string_member(info, "config_state"), ==, "down");
	g_assert_true(JSON_NODE_HOLDS_NULL(json_object_get_member(info, "run_state")));

	unknown = run_op(fx, "{\"OP_ID\": \"OP_INSTANCE_QUERY_DATA\", \"instances\": [\"nope\"]}");
	assert_job_failed(unknown, "OpPrereqError", "nope");
}

/* Bad input is refused before anything is made; a step failing on the
 * node undoes what came before. */
static void
test_refusals_leave_nothing(InstFx *fx, gconstpointer data)
{
	static const struct {
		const gchar *op;
		const gchar *klass;
		const gchar *needle;
	} cases[] = {
		{CREATE("a.example.com", ", \"os_type\": \"nosuchos\""), "OpPrereqError",
		 "nosuchos"},
		/* nothing to install now, but the OS must still exist */
		{CREATE("a2.example.com", ", \"os_type\": \"nosuchos\", \"no_install\": true"),
		 "OpPrereqError", "nosuchos"},
		{"{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": \"b.example.com\","
		 " \"mode\": \"create\", \"disk_template\": \"file\", \"disks\": [{\"size\": \"1Q\"}],"
		 " \"nics\": [], \"os_type\": \"noop\"}",
		 "OpPrereqError", "invalid size '1Q'"},
		{CREATE("c.example.com", ", \"hvparams\": {\"bogus\": 1}"), "OpPrereqError",
		 "bogus"},
		{"{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": \"d.example.com\","
		 " \"mode\": \"create\", \"disk_template\": \"plain\", \"disks\": [{\"size\": 64}],"
		 " \"nics\": [], \"os_type\": \"noop\"}",
		 "OpPrereqError", "disk template 'plain' is not enabled"},
		{CREATE("e.example.com", ", \"pnode\": \"nosuchnode\""), "OpPrereqError",
		 "nosuchnode"},
		{CREATE("f.example.com", ", \"hypervisor\": \"kvm\""), "OpPrereqError",
		 "hypervisor 'kvm' is not enabled"},
		/* refused by the node (no space): the record made first is gone again */
		{"{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": \"g.example.com\","
		 " \"mode\": \"create\", \"disk_template\": \"file\", \"disks\": [{\"size\": \"900T\"}],"
		 " \"nics\": [], \"os_type\": \"noop\", \"hypervisor\": \"fake\"}",
		 "OpExecError", "free"},
	};
	g_autoptr(JsonArray) first = NULL;
	g_autoptr(JsonArray) again = NULL;
	g_autoptr(JsonArray) rows = NULL;

	if (fx->dir == NULL)
		return;
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(JsonArray) row = run_op(fx, cases[i].op);
		assert_job_failed(row, cases[i].klass, cases[i].needle);
	}
	rows = instances(fx);
	g_assert_cmpuint(json_array_get_length(rows), ==, 0);
	g_assert_cmpuint(count_disk_files(fx, ""), ==, 0);

	first = run_op(fx, CREATE("h.example.com", ", \"start\": false"));
	assert_job_ok(first);
	again = run_op(fx, CREATE("h.example.com", ", \"start\": false"));
	assert_job_failed(again, "OpPrereqError", "is already in the cluster");

	/* 16 disks at most (Ganeti's MAX_DISKS), added one at a time too */
	for (guint i = 1; i < 16; i++) {
		g_autoptr(JsonArray) added = run_op(
			fx,
			"{\"OP_ID\": \"OP_INSTANCE_SET_PARAMS\", \"instance_name\": \"h.example.com\","
			" \"disks\": [[\"add\", -1, {\"size\": 1}]]}");
		assert_job_ok(added);
	}
	g_assert_cmpuint(count_disk_files(fx, "h.example.com"), ==, 16);
	{
		g_autoptr(JsonArray) seventeenth = run_op(
			fx,
			"{\"OP_ID\": \"OP_INSTANCE_SET_PARAMS\", \"instance_name\": \"h.example.com\","
			" \"disks\": [[\"add\", -1, {\"size\": 1}]]}");
		assert_job_failed(seventeenth, "OpPrereqError",
				  "Instance has too many disks (16), cannot add more");
	}
	g_assert_cmpuint(count_disk_files(fx, "h.example.com"), ==, 16);
}

/* run_op() of a job that must succeed, or fail with @klass and @needle. */
static void
run_ok(InstFx *fx, const gchar *op_json)
{
	g_autoptr(JsonArray) row = run_op(fx, op_json);

	assert_job_ok(row);
}

static void
run_refused(InstFx *fx, const gchar *op_json, const gchar *klass, const gchar *needle)
{
	g_autoptr(JsonArray) row = run_op(fx, op_json);

	assert_job_failed(row, klass, needle);
}

/* Whether the job's log (the oplog of run_op()'s row) has an entry
 * containing @needle. */
static gboolean
job_log_has(JsonArray *row, const gchar *needle)
{
	JsonArray *per_op = json_array_get_array_element(row, 2);

	for (guint o = 0; o < json_array_get_length(per_op); o++) {
		JsonArray *entries = json_array_get_array_element(per_op, o);

		for (guint e = 0; e < json_array_get_length(entries); e++) {
			JsonArray *entry = json_array_get_array_element(entries, e);
			const gchar *message = json_array_get_string_element(entry, 3);

			if (message != NULL && strstr(message, needle) != NULL)
				return TRUE;
		}
	}
	return FALSE;
}

/* The only file of an instance's file disk directory: disk 0. */
static gchar *
disk0_path(InstFx *fx, const gchar *instance)
{
	g_autofree gchar *dir =
		g_build_filename(fx->dir, "srv", "gantry", "file-storage", instance, NULL);
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	const gchar *name;

	g_assert_nonnull(d);
	name = g_dir_read_name(d);
	g_assert_nonnull(name);
	g_assert_null(g_dir_read_name(d));
	return g_build_filename(dir, name, NULL);
}

/* The environment the sample OS's create script wrote onto disk 0: one
 * "KEY=VALUE" per line. (transfer full) */
static gchar *
disk0_env(InstFx *fx, const gchar *instance)
{
	g_autofree gchar *path = disk0_path(fx, instance);
	g_autoptr(GError) error = NULL;
	gchar *text = NULL;

	g_assert_true(g_file_get_contents(path, &text, NULL, &error));
	g_assert_no_error(error);
	return text;
}

static void
assert_has_line(const gchar *text, const gchar *line)
{
	g_autofree gchar *needle = g_strdup_printf("\n%s\n", line);
	g_autofree gchar *framed = g_strdup_printf("\n%s", text);

	if (strstr(framed, needle) == NULL)
		g_error("expected the line '%s' in:\n%s", line, text);
}

/* QueryInstances [os, custom_osparams, admin_state] of @name. (transfer full) */
static JsonArray *
instance_os(InstFx *fx, const gchar *name)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *text = g_strdup_printf(
		"[[\"%s\"], [\"os\", \"custom_osparams\", \"admin_state\"], false]", name);
	g_autoptr(JsonNode) args = gnt_json_parse(text, -1, NULL);
	g_autoptr(JsonNode) rows = gnt_luxi_client_call(fx->client, "QueryInstances", args, &error);

	g_assert_no_error(error);
	return json_array_ref(json_array_get_array_element(json_node_get_array(rows), 0));
}

/* OP_INSTANCE_QUERY_DATA's install of @name: a failed reinstall, the
 * failing step and those not run. */
static void
assert_install_failed(InstFx *fx, const gchar *name)
{
	g_autofree gchar *op = g_strdup_printf(
		"{\"OP_ID\": \"OP_INSTANCE_QUERY_DATA\", \"instances\": [\"%s\"], \"static\": true}",
		name);
	g_autoptr(JsonArray) row = run_op(fx, op);
	JsonObject *install;
	JsonArray *steps;

	assert_job_ok(row);
	install = json_object_get_object_member(
		json_object_get_object_member(
			json_array_get_object_element(json_array_get_array_element(row, 1), 0),
			name),
		"install");
	g_assert_cmpstr(json_object_get_string_member(install, "state"), ==, "failed");
	g_assert_true(json_object_get_boolean_member(install, "reinstall"));
	g_assert_nonnull(strstr(json_object_get_string_member(install, "error"),
				"install step 'run_os_scripts' failed"));
	steps = json_object_get_array_member(install, "steps");
	g_assert_cmpuint(json_array_get_length(steps), ==, 8);
	g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(steps, 0),
						      "result"),
			==, "skipped");
	g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(steps, 2),
						      "name"),
			==, "run_os_scripts");
	g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(steps, 2),
						      "result"),
			==, "failed");
	g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(steps, 7),
						      "result"),
			==, "not run");
	/* names of the secrets the last good install had, never values */
	g_assert_cmpstr(json_array_get_string_element(
				json_object_get_array_member(install, "secret_names"), 0),
			==, "secret.token");
}

/* A value is in a database file, its WAL included. */
static gboolean
db_contains(const gchar *db, const gchar *needle)
{
	g_autofree gchar *wal = g_strconcat(db, "-wal", NULL);

	return gnt_test_file_contains(db, needle) || gnt_test_file_contains(wal, needle);
}

#define REINSTALL(extra)                                                                           \
	"{\"OP_ID\": \"OP_INSTANCE_REINSTALL\", \"instance_name\": \"re1\"" extra "}"

/* Reinstall runs the OS create script again on the existing disks, with
 * INSTANCE_REINSTALL=1; it is refused while the instance runs; the OS and
 * parameters given replace the stored ones (private ones stored and shown
 * redacted, secrets never stored); a failing script keeps the old record. */
static void
test_reinstall(InstFx *fx, gconstpointer data)
{
	const gchar *config_db;
	const gchar *queue_db;
	g_autoptr(JsonArray) reinstalled = NULL;
	g_autoptr(JsonArray) failed = NULL;
	g_autoptr(JsonArray) info = NULL;
	g_autofree gchar *env = NULL;
	g_autofree gchar *path = NULL;
	JsonObject *osparams;

	if (fx->dir == NULL)
		return;
	config_db = gnt_paths_get_config_db(fx->paths);
	queue_db = gnt_paths_get_queue_db(fx->paths);
	run_ok(fx,
	       "{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": \"re1.example.com\","
	       " \"mode\": \"create\", \"disk_template\": \"file\", \"disks\": [{\"size\": 16}],"
	       " \"nics\": [], \"os_type\": \"sample+default\", \"hypervisor\": \"fake\","
	       " \"start\": false, \"osparams\": {\"filesystem\": \"ext4\"},"
	       " \"osparams_private\": {\"root-size\": \"private-R1\"},"
	       " \"osparams_secret\": {\"secret.token\": \"secret-S1\"}}");
	env = disk0_env(fx, "re1.example.com");
	assert_has_line(env, "OSP_SECRET_TOKEN=secret-S1");
	g_assert_null(strstr(env, "INSTANCE_REINSTALL"));
	g_clear_pointer(&env, g_free);

	/* refused while it runs: as recorded, and as the node sees it */
	run_ok(fx, "{\"OP_ID\": \"OP_INSTANCE_STARTUP\", \"instance_name\": \"re1\"}");
	run_refused(fx, REINSTALL(""), "OpPrereqError",
		    "Instance 're1.example.com' is marked to be up, cannot reinstall");
	run_ok(fx, "{\"OP_ID\": \"OP_INSTANCE_SHUTDOWN\", \"instance_name\": \"re1\"}");
	run_ok(fx, "{\"OP_ID\": \"OP_INSTANCE_STARTUP\", \"instance_name\": \"re1\","
		   " \"no_remember\": true}");
	run_refused(fx, REINSTALL(""), "OpPrereqError",
		    "Instance 're1.example.com' is running, cannot reinstall");
	run_ok(fx, "{\"OP_ID\": \"OP_INSTANCE_SHUTDOWN\", \"instance_name\": \"re1\"}");

	/* the script runs again, on the same disk, with the new OS and values */
	path = disk0_path(fx, "re1.example.com");
	g_assert_true(g_file_set_contents(path, "overwritten\n", -1, NULL));
	reinstalled =
		run_op(fx, REINSTALL(", \"os_type\": \"sample+minimal\","
				     " \"osparams\": {\"filesystem\": \"ext3\"},"
				     " \"osparams_private\": {\"root-size\": \"private-R2\"},"
				     " \"osparams_secret\": {\"secret.token\": \"secret-S2\"}"));
	assert_job_ok(reinstalled);
	g_assert_true(job_log_has(reinstalled, "Changing OS scripts to 'sample+minimal'"));
	env = disk0_env(fx, "re1.example.com");
	assert_has_line(env, "INSTANCE_REINSTALL=1");
	assert_has_line(env, "OS_VARIANT=minimal");
	assert_has_line(env, "OSP_FILESYSTEM=ext3");
	assert_has_line(env, "OSP_ROOT_SIZE=private-R2");
	assert_has_line(env, "OSP_SECRET_TOKEN=secret-S2");
	g_clear_pointer(&env, g_free);
	info = instance_os(fx, "re1");
	g_assert_cmpstr(json_array_get_string_element(info, 0), ==, "sample+minimal");
	osparams = json_array_get_object_element(info, 1);
	g_assert_cmpstr(json_object_get_string_member(osparams, "filesystem"), ==, "ext3");
	g_assert_cmpstr(json_object_get_string_member(osparams, "root-size"), ==, "<redacted>");
	g_assert_cmpstr(json_array_get_string_element(info, 2), ==, "down");
	/* the private value is stored (a reinstall needs it), the secret nowhere */
	g_assert_true(db_contains(config_db, "private-R2"));
	g_assert_false(db_contains(config_db, "secret-S1"));
	g_assert_false(db_contains(config_db, "secret-S2"));
	g_assert_false(db_contains(queue_db, "secret-S1"));
	g_assert_false(db_contains(queue_db, "secret-S2"));

	/* secrets are not stored: without the one the last install had, the
	 * reinstall is refused before anything runs */
	run_refused(fx, REINSTALL(""), "OpPrereqError",
		    "the secret OS parameters 'secret.token' were given at its last install");
	/* given again: the stored parameters and the new secret */
	run_ok(fx, REINSTALL(", \"osparams_secret\": {\"secret.token\": \"secret-S3\"}"));
	env = disk0_env(fx, "re1.example.com");
	assert_has_line(env, "INSTANCE_OS=sample+minimal");
	assert_has_line(env, "OSP_FILESYSTEM=ext3");
	assert_has_line(env, "OSP_ROOT_SIZE=private-R2");
	assert_has_line(env, "OSP_SECRET_TOKEN=secret-S3");
	g_clear_pointer(&env, g_free);

	/* a failing script: its output's tail in the job log, the last line
	 * in the error, the record kept and its install "failed" */
	failed = run_op(fx, REINSTALL(", \"os_type\": \"sample+default\","
				      " \"osparams\": {\"behaviour\": \"fail\"},"
				      " \"osparams_secret\": {\"secret.token\": \"secret-S4\"}"));
	assert_job_failed(failed, "OpExecError", "install step 'run_os_scripts' failed: node ");
	assert_job_failed(failed, "OpExecError",
			  "OS create script failed (exited with exit code 3)");
	assert_job_failed(failed, "OpExecError", "ending with: disk 0 is not usable");
	g_assert_true(job_log_has(failed, "disk 0 is not usable"));
	g_assert_true(job_log_has(failed, "progress line 30"));
	g_assert_true(job_log_has(failed, "install step run_os_scripts (70): failed after "));
	g_assert_true(job_log_has(failed, "install steps not run: personalize, prepare_boot, "
					  "tear_down_appliance, switch_networks, boot"));
	g_assert_true(job_log_has(failed, "its OS and OS parameters are unchanged"));
	assert_install_failed(fx, "re1.example.com");
	g_clear_pointer(&info, json_array_unref);
	info = instance_os(fx, "re1");
	g_assert_cmpstr(json_array_get_string_element(info, 0), ==, "sample+minimal");
	osparams = json_array_get_object_element(info, 1);
	g_assert_false(json_object_has_member(osparams, "behaviour"));
	g_assert_cmpstr(json_object_get_string_member(osparams, "filesystem"), ==, "ext3");

	/* refused before anything runs, naming the culprit */
	run_refused(fx, REINSTALL(", \"os_type\": \"nosuchos\""), "OpPrereqError", "nosuchos");
	run_refused(fx, REINSTALL(", \"osparams\": {\"colour\": \"red\"}"), "OpPrereqError",
		    "colour");
	g_clear_pointer(&info, json_array_unref);
	info = instance_os(fx, "re1");
	g_assert_cmpstr(json_array_get_string_element(info, 0), ==, "sample+minimal");
}

/* The record the fake hypervisor wrote for the one instance running on the
 * node: what noded was given. (transfer full) */
static JsonObject *
fake_hv_record(InstFx *fx)
{
	g_autofree gchar *dir =
		g_build_filename(gnt_paths_get_data_dir(fx->paths), "fake-hv", NULL);
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	g_autoptr(GError) error = NULL;
	g_autofree gchar *path = NULL;
	g_autofree gchar *text = NULL;
	g_autoptr(JsonNode) root = NULL;
	const gchar *name;

	g_assert_nonnull(d);
	name = g_dir_read_name(d);
	g_assert_nonnull(name);
	g_assert_null(g_dir_read_name(d));
	path = g_build_filename(dir, name, NULL);
	g_assert_true(g_file_get_contents(path, &text, NULL, &error));
	g_assert_no_error(error);
	root = gnt_json_parse(text, -1, &error);
	g_assert_no_error(error);
	return json_object_ref(json_node_get_object(root));
}

static void
assert_same_object(JsonObject *got, JsonObject *want, const gchar *what)
{
	g_autoptr(JsonNode) got_node = gnt_json_node_new_object(json_object_ref(got));
	g_autoptr(JsonNode) want_node = gnt_json_node_new_object(json_object_ref(want));

	if (!json_node_equal(got_node, want_node)) {
		g_autofree gchar *got_text = gnt_json_to_string(got_node);
		g_autofree gchar *want_text = gnt_json_to_string(want_node);

		g_error("%s: %s, but the node was given %s", what, got_text, want_text);
	}
}

/* The effective parameters a query shows are those the node gets: the
 * cluster's hvparams, then the os_hvp of the instance's OS (its full name,
 * variant included, as Ganeti), then the instance's own; the same for
 * beparams. Compared: Query(instance) hvparams/beparams, the filled values
 * of OP_INSTANCE_QUERY_DATA (RAPI /info), the fake hypervisor's record of
 * what it started, and the OS script's environment. */
static void
test_filled_params(InstFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) args = NULL;
	g_autoptr(JsonNode) rows = NULL;
	g_autoptr(JsonArray) query_data = NULL;
	g_autoptr(JsonObject) record = NULL;
	g_autofree gchar *env = NULL;
	JsonArray *row;
	JsonObject *hvparams;
	JsonObject *beparams;
	JsonObject *info;

	if (fx->dir == NULL)
		return;
	/* an os_hvp entry the hypervisor's table refuses is refused when set */
	run_refused(fx,
		    "{\"OP_ID\": \"OP_CLUSTER_SET_PARAMS\","
		    " \"os_hvp\": {\"sample\": {\"fake\": {\"acpi\": true}}}}",
		    "OpPrereqError", "os_hvp of 'sample': unknown hypervisor parameter 'acpi'");
	run_ok(fx, "{\"OP_ID\": \"OP_CLUSTER_SET_PARAMS\","
		   " \"hvparams\": {\"fake\": {\"kernel_args\": \"ro cluster\"}},"
		   " \"beparams\": {\"maxmem\": 256},"
		   " \"os_hvp\": {\"sample+minimal\": {\"fake\": {\"kernel_args\": \"ro os\"}},"
		   "              \"sample\": {\"fake\": {\"kernel_args\": \"ro base\"}}}}");
	run_ok(fx, "{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": \"fill1.example.com\","
		   " \"mode\": \"create\", \"disk_template\": \"file\", \"disks\": [{\"size\": 8}],"
		   " \"nics\": [{}], \"os_type\": \"sample+minimal\", \"hypervisor\": \"fake\","
		   " \"beparams\": {\"vcpus\": 2}}");

	args = gnt_json_parse("[[\"fill1.example.com\"], [\"hvparams\", \"beparams\"], false]", -1,
			      NULL);
	rows = gnt_luxi_client_call(fx->client, "QueryInstances", args, &error);
	g_assert_no_error(error);
	row = json_array_get_array_element(json_node_get_array(rows), 0);
	hvparams = json_array_get_object_element(row, 0);
	beparams = json_array_get_object_element(row, 1);
	/* the OS's own value wins over the cluster's; "sample" is another OS */
	g_assert_cmpstr(json_object_get_string_member(hvparams, "kernel_args"), ==, "ro os");
	g_assert_cmpint(json_object_get_int_member(beparams, "maxmem"), ==, 256);
	g_assert_cmpint(json_object_get_int_member(beparams, "vcpus"), ==, 2);

	record = fake_hv_record(fx);
	assert_same_object(hvparams, json_object_get_object_member(record, "hvparams"),
			   "Query hvparams");
	g_assert_cmpint(json_object_get_int_member(record, "memory_mib"), ==, 256);
	g_assert_cmpint(json_object_get_int_member(record, "vcpus"), ==, 2);

	query_data =
		run_op(fx, "{\"OP_ID\": \"OP_INSTANCE_QUERY_DATA\", \"instances\": [\"fill1\"]}");
	assert_job_ok(query_data);
	info = json_object_get_object_member(
		json_array_get_object_element(json_array_get_array_element(query_data, 1), 0),
		"fill1.example.com");
	assert_same_object(json_object_get_object_member(info, "hv_actual"),
			   json_object_get_object_member(record, "hvparams"),
			   "OP_INSTANCE_QUERY_DATA hv_actual");
	assert_same_object(beparams, json_object_get_object_member(info, "be_actual"),
			   "Query beparams against OP_INSTANCE_QUERY_DATA be_actual");

	/* the OS create script ran with the same values */
	env = disk0_env(fx, "fill1.example.com");
	assert_has_line(env, "INSTANCE_HV_kernel_args=ro os");
	assert_has_line(env, "INSTANCE_BE_maxmem=256");
	assert_has_line(env, "INSTANCE_BE_vcpus=2");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/system/instances/lifecycle", InstFx, NULL, inst_set_up, test_lifecycle,
		   inst_tear_down);
	g_test_add("/system/instances/query-data", InstFx, NULL, inst_set_up, test_query_data,
		   inst_tear_down);
	g_test_add("/system/instances/refusals-leave-nothing", InstFx, NULL, inst_set_up,
		   test_refusals_leave_nothing, inst_tear_down);
	g_test_add("/system/instances/reinstall", InstFx, NULL, inst_set_up, test_reinstall,
		   inst_tear_down);
	g_test_add("/system/instances/filled-params", InstFx, NULL, inst_set_up, test_filled_params,
		   inst_tear_down);
	return g_test_run();
}
