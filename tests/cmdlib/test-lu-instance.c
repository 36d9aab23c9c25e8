/* The instance units (create, reinstall, remove, modify) run by the job
 * queue against scripted nodes (tests/rpc/fake-node.h): their refusals,
 * the node calls they make and what they undo when one fails. */
#include "queue-fixture.h"

#include <glib/gstdio.h>

#include "fake-node.h"
#include "gnt-test-assert.h"
#include "gnt-install-steps-private.h"
#include "gnt-json.h"
#include "gnt-kickstart-additions.h"
#include "gnt-lu-instance-kickstart.h"
#include "gnt-recovery.h"

/* An OS the node has, whose scripts may run on the node itself. */
#define OS_ANSWER                                                                                  \
	"[{\"name\": \"debootstrap\", \"path\": \"/os/debootstrap\", \"valid\": true, "            \
	"\"status\": true, \"diagnose\": \"\", \"api_versions\": [20], \"variants\": [], "         \
	"\"parameters\": [], \"trusted\": true, \"create\": true}]"
#define CREATE_WEB1                                                                                \
	"{\"instance_name\": \"web1\", \"mode\": \"create\", \"os_type\": \"debootstrap\", "       \
	"\"disk_template\": \"file\", \"disks\": [{\"size\": 1024}], \"nics\": [], "               \
	"\"enable_safe_install\": false"

typedef struct {
	QueueFx q;
	FakeNode *nodes;
} LuFx;

static void
lu_fx_set_up(LuFx *fx, gconstpointer data)
{
	fx->nodes = fake_node_new();
	fake_node_answer(fx->nodes, "os_diagnose", OS_ANSWER);
	gnt_test_root_init(&fx->q.root, "node1.example.com");
	fx->q.env.config = fx->q.root.config;
	fx->q.env.paths = fx->q.root.paths;
	fx->q.env.rpc = fake_node_get_client(fx->nodes);
	/* the master's node, which the fake stands for */
	{
		g_autoptr(JsonObject) node = json_object_new();
		g_autoptr(GError) error = NULL;

		json_object_set_string_member(node, "name", "node1.example.com");
		json_object_set_string_member(node, "primary_ip", "192.0.2.1");
		g_assert_true(
			gnt_config_add_object(fx->q.root.config, GNT_OBJECT_NODE, node, &error));
		g_assert_no_error(error);
	}
	/* its OS scripts may run on the node itself (doc/install.md) */
	{
		g_autoptr(JsonObject) changes = json_object_new();
		g_autoptr(GError) error = NULL;
		JsonArray *trusted = json_array_new();

		json_array_add_string_element(trusted, "debootstrap");
		json_object_set_array_member(changes, "trusted_os", trusted);
		g_assert_true(gnt_config_set_cluster_settings(fx->q.root.config, changes, &error));
		g_assert_no_error(error);
	}
	queue_fx_open(&fx->q);
	gnt_queue_start(fx->q.queue);
}

static void
lu_fx_tear_down(LuFx *fx, gconstpointer data)
{
	queue_fx_tear_down(&fx->q, data);
	g_clear_pointer(&fx->nodes, fake_node_free);
}

/* Runs one opcode; its final status, and its error message in *@message
 * (nullable) when it failed. */
static gchar *
run_op(LuFx *fx, const gchar *op_id, const gchar *params, gchar **message)
{
	guint64 id = queue_fx_submit(&fx->q, queue_fx_job(op_id, params, NULL));
	gchar *status = queue_fx_wait_final(&fx->q, id);
	g_autoptr(JsonObject) record = queue_fx_record(&fx->q, id);
	JsonObject *op =
		json_array_get_object_element(json_object_get_array_member(record, "ops"), 0);
	JsonNode *result = json_object_get_member(op, "result");

	if (message != NULL) {
		*message = NULL;
		if (g_strcmp0(status, "error") == 0)
			*message = g_strdup(json_array_get_string_element(
				json_array_get_array_element(json_node_get_array(result), 1), 0));
	}
	return status;
}

#define REINSTALL_WEB1 "{\"instance_name\": \"web1\", \"enable_safe_install\": false}"

/* The stored record of instance @name, or NULL. (transfer full) */
static JsonObject *
dup_instance(LuFx *fx, const gchar *name)
{
	g_autoptr(GError) error = NULL;

	return gnt_config_dup_object(fx->q.root.config, GNT_OBJECT_INSTANCE, name, &error);
}

static void
assert_trace(LuFx *fx, const gchar *expected)
{
	g_autofree gchar *trace = fake_node_dup_trace(fx->nodes);

	g_assert_cmpstr(trace, ==, expected);
}

/* The name of the instance whose spec argument @call sent. */
static const gchar *
call_instance(const FakeCall *call)
{
	JsonObject *spec = gnt_rpc_args_get_object(call->args, "spec");

	return json_object_get_string_member(json_object_get_object_member(spec, "instance"),
					     "name");
}

/* Runs one opcode that must succeed. */
static void
expect_success(LuFx *fx, const gchar *op_id, const gchar *params)
{
	g_autofree gchar *message = NULL;
	g_autofree gchar *status = run_op(fx, op_id, params, &message);

	g_assert_cmpstr(message, ==, NULL);
	g_assert_cmpstr(status, ==, "success");
}

/* Runs one opcode that must fail with a message holding @needle. */
static void
expect_failure(LuFx *fx, const gchar *op_id, const gchar *params, const gchar *needle)
{
	g_autofree gchar *message = NULL;
	g_autofree gchar *status = run_op(fx, op_id, params, &message);

	g_assert_cmpstr(status, ==, "error");
	gnt_test_assert_contains(message, needle);
}

/* Asserts that web1's record is @before (NULL: there is none). */
static void
assert_web1_is(LuFx *fx, JsonObject *before)
{
	g_autoptr(JsonObject) after = dup_instance(fx, "web1");

	if (before == NULL)
		g_assert_null(after);
	else
		g_assert_true(after != NULL && json_object_equal(before, after));
}

/* A refusal before anything is done: the message holds @needle, no node
 * was called, web1's record is as it was. */
static void
expect_refused(LuFx *fx, const gchar *op_id, const gchar *params, const gchar *needle)
{
	g_autoptr(JsonObject) before = dup_instance(fx, "web1");

	fake_node_clear_calls(fx->nodes);
	expect_failure(fx, op_id, params, needle);
	assert_trace(fx, "");
	assert_web1_is(fx, before);
}

/* Instance web1, created (and started when @start), with the calls it made
 * forgotten. */
static void
create_web1(LuFx *fx, gboolean start)
{
	g_autofree gchar *params =
		g_strdup_printf(CREATE_WEB1 ", \"start\": %s}", start ? "true" : "false");

	expect_success(fx, "OP_INSTANCE_CREATE", params);
	fake_node_clear_calls(fx->nodes);
}

/* ---- create ----------------------------------------------------------- */

static void
test_create_calls(LuFx *fx, gconstpointer data)
{
	g_autoptr(JsonObject) web1 = NULL;
	const FakeCall *call;
	JsonObject *spec;

	expect_success(fx, "OP_INSTANCE_CREATE", CREATE_WEB1 "}");
	web1 = dup_instance(fx, "web1");
	/* the OS checked, the disks made, the OS installed on them, the
	 * instance started: all on the master's node */
	assert_trace(fx, "os_validate os_diagnose blockdev_create os_create instance_start");
	for (guint i = 0; i < fake_node_get_n_calls(fx->nodes); i++)
		g_assert_cmpstr(fake_node_get_call(fx->nodes, i)->node, ==, "node1.example.com");
	call = fake_node_find_call(fx->nodes, "os_validate", 1);
	g_assert_cmpstr(gnt_rpc_args_get_string(call->args, "os_name"), ==, "debootstrap");
	call = fake_node_find_call(fx->nodes, "blockdev_create", 1);
	g_assert_cmpstr(call_instance(call), ==, "web1");
	spec = gnt_rpc_args_get_object(call->args, "spec");
	g_assert_cmpuint(json_array_get_length(json_object_get_array_member(
				 json_object_get_object_member(spec, "instance"), "disks")),
			 ==, 1);
	call = fake_node_find_call(fx->nodes, "os_create", 1);
	g_assert_cmpstr(call_instance(call), ==, "web1");
	g_assert_false(gnt_rpc_args_get_bool(call->args, "reinstall"));
	call = fake_node_find_call(fx->nodes, "instance_start", 1);
	g_assert_cmpstr(call_instance(call), ==, "web1");
	g_assert_false(gnt_rpc_args_get_bool(call->args, "paused"));
	g_assert_nonnull(web1);
	g_assert_cmpstr(json_object_get_string_member(web1, "admin_state"), ==, "up");
}

/* Refused before anything is made: no node call, the config as it was. */
static void
test_create_refused(LuFx *fx, gconstpointer data)
{
	create_web1(fx, FALSE);
	expect_refused(fx, "OP_INSTANCE_CREATE", CREATE_WEB1 "}",
		       "Instance 'web1' is already in the cluster");
	expect_refused(fx, "OP_INSTANCE_CREATE",
		       "{\"instance_name\": \"web2\", \"mode\": \"create\", \"os_type\": "
		       "\"debootstrap\", \"disk_template\": \"plain\", \"disks\": [{\"size\": "
		       "1024}], \"nics\": []}",
		       "disk template 'plain' is not enabled in the cluster");
	g_assert_null(dup_instance(fx, "web2"));
}

/* An OS the node does not have: refused after asking the node, nothing
 * made. */
static void
test_create_refused_by_node(LuFx *fx, gconstpointer data)
{
	fake_node_fail(fx->nodes, "os_validate", 0, GNT_ERROR_NOT_FOUND,
		       "OS 'debootstrap' not found");
	expect_failure(fx, "OP_INSTANCE_CREATE", CREATE_WEB1 "}",
		       "os_validate: OS 'debootstrap' not found");
	assert_trace(fx, "os_validate");
	g_assert_null(dup_instance(fx, "web1"));
}

/* The OS script fails: the disks made go, and the record. */
static void
test_create_rolls_back(LuFx *fx, gconstpointer data)
{
	const FakeCall *call;

	fake_node_fail(fx->nodes, "os_create", 1, GNT_ERROR_ENVIRONMENT, "OS create script failed");
	/* the message as from a real node: node, address, procedure, reason */
	expect_failure(fx, "OP_INSTANCE_CREATE", CREATE_WEB1 "}",
		       "node 'node1.example.com' (192.0.2.1:1811): os_create: OS create script "
		       "failed");
	assert_trace(fx, "os_validate os_diagnose blockdev_create os_create blockdev_remove");
	call = fake_node_find_call(fx->nodes, "blockdev_remove", 1);
	g_assert_cmpstr(call_instance(call), ==, "web1");
	g_assert_null(dup_instance(fx, "web1"));
}

/* The disks fail: what the node may have made of them goes too. */
static void
test_create_rolls_back_disks(LuFx *fx, gconstpointer data)
{
	fake_node_fail(fx->nodes, "blockdev_create", 1, GNT_ERROR_NO_RESOURCES, "not enough space");
	expect_failure(fx, "OP_INSTANCE_CREATE", CREATE_WEB1 "}",
		       "blockdev_create: not enough space");
	assert_trace(fx, "os_validate os_diagnose blockdev_create blockdev_remove");
	g_assert_null(dup_instance(fx, "web1"));
}

/* The node cannot remove the disks either: the record stays, marked as
 * half made, for masterd's recovery (gnt-recovery.h). */
static void
test_create_roll_back_fails(LuFx *fx, gconstpointer data)
{
	g_autoptr(JsonObject) web1 = NULL;
	GntRecoveryOp op = GNT_RECOVERY_REMOVE;
	guint64 job = 0;

	fake_node_fail(fx->nodes, "instance_start", 1, GNT_ERROR_ENVIRONMENT, "no answer");
	fake_node_fail(fx->nodes, "blockdev_remove", 1, GNT_ERROR_ENVIRONMENT, "no answer");
	expect_failure(fx, "OP_INSTANCE_CREATE", CREATE_WEB1 "}", "instance_start: no answer");
	assert_trace(fx, "os_validate os_diagnose blockdev_create os_create instance_start "
			 "blockdev_remove");
	web1 = dup_instance(fx, "web1");
	g_assert_nonnull(web1);
	g_assert_true(gnt_recovery_get_mark(web1, &op, &job));
	g_assert_cmpint(op, ==, GNT_RECOVERY_CREATE);
}

/* ---- install templates (doc/install.md, "Templates and tags") --------- */

/* The templates the tests' lookup knows, by name; each lookup counted, a
 * template with "once" found only the first time (removed afterwards). */
typedef struct {
	GHashTable *templates; /* name -> JsonObject */
	guint lookups;
	gboolean once;
} TemplateStore;

static JsonObject *
store_lookup(const gchar *name, gpointer user_data)
{
	TemplateStore *store = user_data;
	JsonObject *template = g_hash_table_lookup(store->templates, name);

	if (template == NULL)
		return NULL;
	store->lookups++;
	template = gnt_json_object_deep_copy(template);
	if (store->once) /* a template removed right after the plan was built */
		g_hash_table_remove(store->templates, name);
	return template;
}

static void
store_add(TemplateStore *store, const gchar *json)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) node = gnt_json_parse(json, -1, &error);
	JsonObject *template;

	g_assert_no_error(error);
	template = json_node_get_object(node);
	g_hash_table_insert(store->templates,
			    g_strdup(json_object_get_string_member(template, "name")),
			    json_object_ref(template));
}

static void
store_init(TemplateStore *store)
{
	store->templates = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
						 (GDestroyNotify)json_object_unref);
	store->lookups = 0;
	store->once = FALSE;
	gnt_install_set_template_lookup(store_lookup, store);
}

static void
store_clear(TemplateStore *store)
{
	gnt_install_set_template_lookup(NULL, NULL);
	g_hash_table_unref(store->templates);
}

/* A disk grown, hvparams set before the disks are made, a core step
 * disabled. */
#define TEMPLATE_M                                                                                 \
	"{\"name\": \"CUSTOM_M\", \"serial_no\": 7, \"steps\": ["                                  \
	"{\"interface\": \"deploy\", \"step\": \"resize_disk\", \"args\": {\"disk\": 0, "          \
	"\"size\": \"2G\"}, \"priority\": 90},"                                                    \
	"{\"interface\": \"hypervisor\", \"step\": \"apply_settings\", \"args\": {\"hvparams\": "  \
	"{\"kernel_args\": \"quiet\"}}, \"priority\": 110},"                                       \
	"{\"interface\": \"deploy\", \"step\": \"personalize\", \"args\": {}, \"priority\": 0}]}"
#define CREATE_WEB1_M CREATE_WEB1 ", \"tags\": [\"CUSTOM_M\", \"plain-tag\"], \"start\": false"

static void
node1_set_tags(LuFx *fx, const gchar *tag)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) node = gnt_config_dup_object(fx->q.root.config, GNT_OBJECT_NODE,
							   "node1.example.com", &error);
	JsonArray *tags = json_array_new();

	g_assert_no_error(error);
	if (tag != NULL)
		json_array_add_string_element(tags, tag);
	json_object_set_array_member(node, "tags", tags);
	g_assert_true(gnt_config_update_object(fx->q.root.config, GNT_OBJECT_NODE, node, &error));
	g_assert_no_error(error);
}

/* The job's log messages, one line each. */
static gchar *
job_log_text(LuFx *fx, guint64 id)
{
	g_autoptr(JsonObject) record = queue_fx_record(&fx->q, id);
	JsonObject *op =
		json_array_get_object_element(json_object_get_array_member(record, "ops"), 0);
	JsonArray *log = json_object_get_array_member(op, "log");
	GString *out = g_string_new(NULL);

	for (guint i = 0; i < json_array_get_length(log); i++)
		g_string_append_printf(
			out, "%s\n",
			json_array_get_string_element(json_array_get_array_element(log, i), 3));
	return g_string_free(out, FALSE);
}

/* Runs one opcode that must succeed; its job's ID. */
static guint64
run_ok(LuFx *fx, const gchar *op_id, const gchar *params)
{
	guint64 id = queue_fx_submit(&fx->q, queue_fx_job(op_id, params, NULL));
	g_autofree gchar *status = queue_fx_wait_final(&fx->q, id);

	g_assert_cmpstr(status, ==, "success");
	return id;
}

/* ---- in-band steps: one install appliance session per run of them ---- */

/* Steps inside the install appliance at 95, 75 (with its own timeout) and
 * 45, on disks 0, 1, 2. */
#define TEMPLATE_I                                                                                 \
	"{\"name\": \"CUSTOM_I\", \"serial_no\": 1, \"steps\": ["                                  \
	"{\"interface\": \"appliance\", \"step\": \"zero_disk_start\", \"args\": {\"disk\": 0}, "  \
	"\"priority\": 95},"                                                                       \
	"{\"interface\": \"appliance\", \"step\": \"zero_disk_start\", \"args\": {\"disk\": 1, "   \
	"\"timeout\": 30}, \"priority\": 75},"                                                     \
	"{\"interface\": \"appliance\", \"step\": \"zero_disk_start\", \"args\": {\"disk\": 2}, "  \
	"\"priority\": 45}]}"
/* safe install on: the OS scripts run in the appliance too */
#define CREATE_WEB1_I                                                                                \
	"{\"instance_name\": \"web1\", \"mode\": \"create\", \"os_type\": \"debootstrap\", "         \
	"\"disk_template\": \"file\", \"disks\": [{\"size\": 64}, {\"size\": 64}, {\"size\": 64}], " \
	"\"nics\": [], \"start\": false, \"tags\": [\"CUSTOM_I\"]"

/* The node's install session (appliance_start, installer_start): its
 * session_wait hands on the entries (@result's member @entries: "steps",
 * "events"); @done: and ends with @result, else it goes on running. */
static void
fake_session_answer(LuFx *fx, gboolean done, const gchar *result, const gchar *entries)
{
	g_autoptr(JsonNode) parsed = gnt_json_parse(result, -1, NULL);
	g_autoptr(GString) answer = g_string_new(NULL);
	g_autofree gchar *list = NULL;
	g_autofree gchar *own = NULL;

	g_assert_nonnull(parsed);
	list = gnt_json_to_string(json_object_get_member(json_node_get_object(parsed), entries));
	own = gnt_json_to_string(parsed);
	if (done)
		g_string_printf(answer, "{\"state\": \"done\", \"entries\": %s, \"result\": %s}",
				list, own);
	else
		g_string_printf(answer, "{\"state\": \"running\", \"entries\": %s}", list);
	fake_node_answer(fx->nodes, "session_wait", answer->str);
}

static void
fake_session_done(LuFx *fx, const gchar *result, const gchar *entries)
{
	fake_session_answer(fx, TRUE, result, entries);
}

/* appliance_start's session as a node gives it: a start (metad's, naming the
 * row) and a result for each of @ids (NULL-terminated), whose agent step
 * is @steps'. */
static gchar *
appliance_answer(const gchar *const *ids, const gchar *const *steps)
{
	GString *out = g_string_new("{\"seconds\": 1.5, \"console_tail\": \"\", \"steps\": ["
				    "{\"seq\": 0, \"time\": 1.0, \"step\": \"appliance\", "
				    "\"state\": \"start\", \"detail\": \"\", \"output\": \"\"}");
	guint seq = 1;

	for (guint i = 0; ids[i] != NULL; i++, seq += 2)
		g_string_append_printf(
			out,
			",{\"seq\": %u, \"time\": 2.0, \"step\": \"%s\", \"state\": \"start\", "
			"\"detail\": \"%s\", \"output\": \"\"}"
			",{\"seq\": %u, \"time\": 2.5, \"step\": \"%s\", \"state\": \"done\", "
			"\"detail\": \"did %s\", \"output\": \"line of %s\\n\"}",
			seq, steps[i], ids[i], seq + 1, steps[i], ids[i], ids[i]);
	g_string_append_printf(out,
			       ",{\"seq\": %u, \"time\": 3.0, \"step\": \"appliance\", "
			       "\"state\": \"done\", \"detail\": \"\", \"output\": \"\"}]}",
			       seq);
	return g_string_free(out, FALSE);
}

/* The in-band rows at 95, 75, 70 (the OS scripts) and 45 with only host
 * rows that have nothing to do between them: one appliance boot that runs
 * them in order, each row's start, output and end in the job log, every
 * row of the plan in its place. */
static void
test_create_inband(LuFx *fx, gconstpointer data)
{
	static const gchar *const ids[] = {"CUSTOM_I#1", "CUSTOM_I#2", "deploy.run_os_scripts",
					   "CUSTOM_I#3", NULL};
	static const gchar *const steps[] = {"zero_disk_start", "zero_disk_start", "run_os_scripts",
					     "zero_disk_start"};
	static const gchar *const order[] = {
		"install step prepare (100): done",
		"* booting the install appliance for 4 in-band steps...",
		"install step appliance.zero_disk_start [CUSTOM_I#1] (95): started",
		"  did CUSTOM_I#1",
		"    line of CUSTOM_I#1",
		"install step appliance.zero_disk_start [CUSTOM_I#1] (95): done in 0.500s",
		"install step write_image (80): skipped, no disk image given",
		"install step appliance.zero_disk_start [CUSTOM_I#2] (75): started",
		"install step appliance.zero_disk_start [CUSTOM_I#2] (75): done",
		"install step run_os_scripts (70): started",
		"    line of deploy.run_os_scripts",
		"install step run_os_scripts (70): done",
		"install step personalize (65): skipped, no personalization package given",
		"install step prepare_boot (60): skipped",
		"install step appliance.zero_disk_start [CUSTOM_I#3] (45): started",
		"install step appliance.zero_disk_start [CUSTOM_I#3] (45): done",
		"install step tear_down_appliance (40): started",
		"install step boot (20): skipped",
		NULL,
	};
	g_autofree gchar *answer = appliance_answer(ids, steps);
	TemplateStore store;
	g_autofree gchar *log = NULL;
	g_autoptr(JsonObject) web1 = NULL;
	JsonArray *sent;
	const FakeCall *call;
	guint64 id;

	store_init(&store);
	store_add(&store, TEMPLATE_I);
	node1_set_tags(fx, "CUSTOM_I");
	fake_session_done(fx, answer, "steps");
	fake_node_clear_calls(fx->nodes);
	id = run_ok(fx, "OP_INSTANCE_CREATE", CREATE_WEB1_I "}");
	log = job_log_text(fx, id);
	gnt_test_assert_in_order(log, order);
	/* one boot, the in-band rows in the plan's order with their args */
	g_assert_nonnull(fake_node_find_call(fx->nodes, "appliance_start", 1));
	g_assert_null(fake_node_find_call(fx->nodes, "appliance_start", 2));
	call = fake_node_find_call(fx->nodes, "appliance_start", 1);
	sent = json_object_get_array_member(gnt_rpc_args_get_object(call->args, "options"),
					    "steps");
	g_assert_cmpuint(json_array_get_length(sent), ==, 4);
	for (guint i = 0; i < 4; i++) {
		JsonObject *step = json_array_get_object_element(sent, i);

		g_assert_cmpstr(json_object_get_string_member(step, "id"), ==, ids[i]);
		g_assert_cmpstr(json_object_get_string_member(step, "step"), ==, steps[i]);
		g_assert_cmpint(json_object_get_int_member(step, "timeout"), >, 0);
	}
	g_assert_cmpint(
		json_object_get_int_member(json_object_get_object_member(
						   json_array_get_object_element(sent, 3), "args"),
					   "disk"),
		==, 2);
	/* a row's own timeout, else the cluster's install timeout */
	g_assert_cmpint(json_object_get_int_member(json_array_get_object_element(sent, 1),
						   "timeout"),
			==, 30);
	g_assert_cmpint(json_object_get_int_member(json_array_get_object_element(sent, 0),
						   "timeout"),
			==, 1800);
	/* no row asks for more than the cluster's: the session has that */
	g_assert_cmpint(json_object_get_int_member(gnt_rpc_args_get_object(call->args, "options"),
						   "timeout"),
			==, 1800);
	web1 = dup_instance(fx, "web1");
	g_assert_cmpstr(json_object_get_string_member(
				json_object_get_object_member(web1, "install"), "state"),
			==, "done");
	store_clear(&store);
}

/* A row whose timeout is longer than the cluster's (7200 s against 1800)
 * extends its session by the difference, so that the row can use it. */
static void
test_create_inband_long_step(LuFx *fx, gconstpointer data)
{
	static const gchar *const ids[] = {"deploy.run_os_scripts", "CUSTOM_L#1", NULL};
	static const gchar *const steps[] = {"run_os_scripts", "zero_disk_start"};
	g_autofree gchar *answer = appliance_answer(ids, steps);
	TemplateStore store;
	const FakeCall *call;
	JsonObject *options;

	store_init(&store);
	store_add(&store, "{\"name\": \"CUSTOM_L\", \"serial_no\": 1, \"steps\": ["
			  "{\"interface\": \"appliance\", \"step\": \"zero_disk_start\", "
			  "\"args\": {\"disk\": 0, \"timeout\": 7200}, \"priority\": 45}]}");
	node1_set_tags(fx, "CUSTOM_L");
	fake_session_done(fx, answer, "steps");
	fake_node_clear_calls(fx->nodes);
	run_ok(fx, "OP_INSTANCE_CREATE",
	       "{\"instance_name\": \"web1\", \"mode\": \"create\", \"os_type\": "
	       "\"debootstrap\", \"disk_template\": \"file\", \"disks\": [{\"size\": 64}], "
	       "\"nics\": [], \"start\": false, \"tags\": [\"CUSTOM_L\"]}");
	call = fake_node_find_call(fx->nodes, "appliance_start", 1);
	g_assert_nonnull(call);
	options = gnt_rpc_args_get_object(call->args, "options");
	g_assert_cmpint(json_object_get_int_member(
				json_array_get_object_element(
					json_object_get_array_member(options, "steps"), 1),
				"timeout"),
			==, 7200);
	g_assert_cmpint(json_object_get_int_member(options, "timeout"), ==, 1800 + 5400);
	store_clear(&store);
}

/* A host row that does something between in-band rows (an image written
 * at 80) ends the session: a second boot for the rows after it. */
static void
test_create_inband_two_sessions(LuFx *fx, gconstpointer data)
{
	static const gchar *const ids[] = {"CUSTOM_I#1", NULL};
	static const gchar *const steps[] = {"zero_disk_start"};
	g_autofree gchar *answer = appliance_answer(ids, steps);
	TemplateStore store;
	g_autofree gchar *message = NULL;
	g_autofree gchar *status = NULL;
	const FakeCall *call;

	store_init(&store);
	store_add(&store, TEMPLATE_I);
	node1_set_tags(fx, "CUSTOM_I");
	fake_session_done(fx, answer, "steps");
	fake_node_answer(fx->nodes, "image_write", "{\"bytes\": 1}");
	fake_node_clear_calls(fx->nodes);
	/* the second session gets the first's answer: its rows never report */
	status = run_op(fx, "OP_INSTANCE_CREATE",
			CREATE_WEB1_I ", \"os_image\": \"/srv/images/base.img\"}", &message);
	g_assert_cmpstr(status, ==, "error");
	call = fake_node_find_call(fx->nodes, "appliance_start", 1);
	g_assert_cmpuint(json_array_get_length(json_object_get_array_member(
				 gnt_rpc_args_get_object(call->args, "options"), "steps")),
			 ==, 1);
	call = fake_node_find_call(fx->nodes, "appliance_start", 2);
	g_assert_nonnull(call);
	g_assert_cmpuint(json_array_get_length(json_object_get_array_member(
				 gnt_rpc_args_get_object(call->args, "options"), "steps")),
			 ==, 3);
	gnt_test_assert_contains(message,
				 "install step 'appliance.zero_disk_start' failed: the install "
				 "appliance powered off without reporting this step");
	/* the failed add removed what it made */
	g_assert_nonnull(fake_node_find_call(fx->nodes, "blockdev_remove", 1));
	g_assert_null(dup_instance(fx, "web1"));
	store_clear(&store);
}

/* A step that fails in the appliance fails the install naming it, the
 * later rows are not run, the disks made go. */
static void
test_create_inband_fails(LuFx *fx, gconstpointer data)
{
	TemplateStore store;
	g_autofree gchar *message = NULL;
	g_autofree gchar *status = NULL;

	store_init(&store);
	store_add(&store, TEMPLATE_I);
	node1_set_tags(fx, "CUSTOM_I");
	fake_node_answer(
		fx->nodes, "session_wait",
		"{\"state\": \"failed\", \"entries\": [], \"ecode\": \"environment_error\", "
		"\"error\": \"install appliance of instance 'web1': step 'zero_disk_start' "
		"failed: cannot zero the start of disk 0 '/dev/vda'; its output ended with: "
		"dd: I/O error\"}");
	fake_node_clear_calls(fx->nodes);
	status = run_op(fx, "OP_INSTANCE_CREATE", CREATE_WEB1_I "}", &message);
	g_assert_cmpstr(status, ==, "error");
	gnt_test_assert_contains(message,
				 "install step 'appliance.zero_disk_start' failed: node "
				 "'node1.example.com': appliance_start: install "
				 "appliance of instance 'web1': step 'zero_disk_start' failed");
	gnt_test_assert_contains(message, "dd: I/O error");
	g_assert_nonnull(fake_node_find_call(fx->nodes, "blockdev_remove", 1));
	g_assert_null(dup_instance(fx, "web1"));
	store_clear(&store);
}

/* appliance.find_root at 55: its result's data goes through the master's
 * post-step hook into the install record. */
#define TEMPLATE_R                                                                                 \
	"{\"name\": \"CUSTOM_R\", \"serial_no\": 1, \"steps\": ["                                  \
	"{\"interface\": \"appliance\", \"step\": \"find_root\", \"args\": {}, \"priority\": 55}]}"
#define CREATE_WEB1_R                                                                                \
	"{\"instance_name\": \"web1\", \"mode\": \"create\", \"os_type\": \"debootstrap\", "         \
	"\"disk_template\": \"file\", \"disks\": [{\"size\": 64}], \"nics\": [], \"start\": false, " \
	"\"tags\": [\"CUSTOM_R\"]}"

/* appliance_start's session result: the OS scripts, then find_root as
 * row 1 of @template reporting @data, then, with @zero_disk, zero_disk_start
 * as its row 2. (transfer full) */
static gchar *
find_root_answer(const gchar *template, const gchar *data, gboolean zero_disk)
{
	g_autoptr(GString) answer = g_string_new(NULL);
	guint seq = 5;

	g_string_append_printf(
		answer,
		"{\"seconds\": 1, \"console_tail\": \"\", \"steps\": ["
		"{\"seq\": 0, \"time\": 1.0, \"step\": \"run_os_scripts\", \"state\": \"start\", "
		"\"detail\": \"deploy.run_os_scripts\", \"output\": \"\"},"
		"{\"seq\": 1, \"time\": 1.5, \"step\": \"run_os_scripts\", \"state\": \"done\", "
		"\"detail\": \"\", \"output\": \"\"},"
		"{\"seq\": 2, \"time\": 2.0, \"step\": \"find_root\", \"state\": \"start\", "
		"\"detail\": \"%s#1\", \"output\": \"\"},"
		"{\"seq\": 3, \"time\": 2.1, \"step\": \"find_root\", \"state\": \"info\", "
		"\"detail\": ",
		template);
	gnt_json_append_string(answer, data);
	g_string_append(answer, ", \"output\": \"\"},"
				"{\"seq\": 4, \"time\": 2.2, \"step\": \"find_root\", \"state\": "
				"\"done\", \"detail\": \"found\", \"output\": \"\"},");
	if (zero_disk) {
		g_string_append_printf(
			answer,
			"{\"seq\": 5, \"time\": 2.3, \"step\": \"zero_disk_start\", \"state\": "
			"\"start\", \"detail\": \"%s#2\", \"output\": \"\"},"
			"{\"seq\": 6, \"time\": 2.4, \"step\": \"zero_disk_start\", \"state\": "
			"\"done\", \"detail\": \"zeroed\", \"output\": \"\"},",
			template);
		seq = 7;
	}
	g_string_append_printf(answer,
			       "{\"seq\": %u, \"time\": 3.0, \"step\": \"appliance\", \"state\": "
			       "\"done\", \"detail\": \"\", \"output\": \"\"}]}",
			       seq);
	return g_string_free(g_steal_pointer(&answer), FALSE);
}

/* The hook records the root device; a hook that fails fails its step and
 * the add (the disks go). */
static void
test_create_post_step_hook(LuFx *fx, gconstpointer data)
{
	g_autofree gchar *good =
		find_root_answer("CUSTOM_R", "data {\"root_device\":\"/dev/vda1\"}", FALSE);
	g_autofree gchar *bad =
		find_root_answer("CUSTOM_R", "data {\"root_device\":\"vda1\"}", FALSE);
	TemplateStore store;
	g_autoptr(JsonObject) web1 = NULL;
	g_autofree gchar *message = NULL;
	g_autofree gchar *status = NULL;
	g_autofree gchar *log = NULL;
	static const gchar *const order[] = {
		"install step run_os_scripts (70): done",
		"install step appliance.find_root [CUSTOM_R#1] (55): started",
		"  the install record's root device: /dev/vda1",
		"install step appliance.find_root [CUSTOM_R#1] (55): done",
		NULL,
	};
	guint64 id;

	store_init(&store);
	store_add(&store, TEMPLATE_R);
	node1_set_tags(fx, "CUSTOM_R");
	fake_session_done(fx, good, "steps");
	id = run_ok(fx, "OP_INSTANCE_CREATE", CREATE_WEB1_R);
	log = job_log_text(fx, id);
	gnt_test_assert_in_order(log, order);
	web1 = dup_instance(fx, "web1");
	g_assert_cmpstr(json_object_get_string_member(
				json_object_get_object_member(web1, "install"), "root_device"),
			==, "/dev/vda1");
	expect_success(fx, "OP_INSTANCE_REMOVE", "{\"instance_name\": \"web1\"}");

	fake_session_done(fx, bad, "steps");
	fake_node_clear_calls(fx->nodes);
	status = run_op(fx, "OP_INSTANCE_CREATE", CREATE_WEB1_R, &message);
	g_assert_cmpstr(status, ==, "error");
	gnt_test_assert_contains(message,
				 "install step 'appliance.find_root' failed: post-step hook: "
				 "the step reported no usable root device");
	g_assert_nonnull(fake_node_find_call(fx->nodes, "blockdev_remove", 1));
	g_assert_null(dup_instance(fx, "web1"));
	store_clear(&store);
}

/* find_root at 55 then zero_disk_start at 45, in one session. */
#define TEMPLATE_H                                                                                 \
	"{\"name\": \"CUSTOM_H\", \"serial_no\": 1, \"steps\": ["                                  \
	"{\"interface\": \"appliance\", \"step\": \"find_root\", \"args\": {}, \"priority\": 55}," \
	"{\"interface\": \"appliance\", \"step\": \"zero_disk_start\", \"args\": {\"disk\": 0}, "  \
	"\"priority\": 45}]}"

/* A reinstall whose find_root reports no usable device: its post-step
 * hook fails the step, the install fails naming it, and every row after
 * it (the in-band row at 45 of the same session included) is "not run"
 * in the job log and in the install record the instance keeps. The
 * session, still running on the node, is aborted there (else the master
 * would follow it to its end). */
static void
test_reinstall_post_step_hook_fails(LuFx *fx, gconstpointer data)
{
	g_autofree gchar *good =
		find_root_answer("CUSTOM_H", "data {\"root_device\":\"/dev/vda1\"}", TRUE);
	g_autofree gchar *bad =
		find_root_answer("CUSTOM_H", "data {\"root_device\":\"vda1\"}", TRUE);
	static const gchar *const order[] = {
		"install step run_os_scripts (70): done",
		"install step appliance.find_root [CUSTOM_H#1] (55): started",
		"install step appliance.find_root [CUSTOM_H#1] (55): failed after",
		"install steps not run: appliance.zero_disk_start [CUSTOM_H#2], tear_down_appliance, "
		"switch_networks, boot\n",
		NULL,
	};
	TemplateStore store;
	g_autoptr(JsonObject) web1 = NULL;
	g_autofree gchar *status = NULL;
	g_autofree gchar *log = NULL;
	JsonObject *install;
	JsonArray *recorded;
	guint64 id;
	guint after = 0;
	gboolean failed = FALSE;

	store_init(&store);
	store_add(&store, TEMPLATE_H);
	node1_set_tags(fx, "CUSTOM_H");
	fake_session_done(fx, good, "steps");
	expect_success(fx, "OP_INSTANCE_CREATE",
		       "{\"instance_name\": \"web1\", \"mode\": \"create\", "
		       "\"os_type\": \"debootstrap\", \"disk_template\": \"file\", "
		       "\"disks\": [{\"size\": 64}], \"nics\": [], \"start\": false, "
		       "\"tags\": [\"CUSTOM_H\"]}");

	fake_node_clear_calls(fx->nodes);
	fake_session_answer(fx, FALSE, bad, "steps");
	id = queue_fx_submit(&fx->q, queue_fx_job("OP_INSTANCE_REINSTALL",
						  "{\"instance_name\": \"web1\"}", NULL));
	status = queue_fx_wait_final(&fx->q, id);
	g_assert_cmpstr(status, ==, "error");
	log = job_log_text(fx, id);
	gnt_test_assert_in_order(log, order);
	/* the row after it is not recorded as done */
	g_assert_null(strstr(log, "[CUSTOM_H#2] (45): done"));
	/* the session was ended on the node */
	g_assert_nonnull(fake_node_find_call(fx->nodes, "session_abort", 1));
	web1 = dup_instance(fx, "web1");
	install = json_object_get_object_member(web1, "install");
	g_assert_cmpstr(json_object_get_string_member(install, "state"), ==, "failed");
	gnt_test_assert_contains(
		json_object_get_string_member(install, "error"),
		"install step 'appliance.find_root' failed: post-step hook: the step "
		"reported no usable root device");
	/* find_root failed, every row after it not run */
	recorded = json_object_get_array_member(install, "steps");
	for (guint i = 0; i < json_array_get_length(recorded); i++) {
		JsonObject *step = json_array_get_object_element(recorded, i);
		const gchar *name = json_object_get_string_member(step, "name");
		const gchar *result = json_object_get_string_member(step, "result");

		if (g_str_equal(name, "appliance.find_root [CUSTOM_H#1]")) {
			g_assert_cmpstr(result, ==, "failed");
			failed = TRUE;
		} else if (failed) {
			g_assert_cmpstr(result, ==, "not run");
			after++;
		}
	}
	g_assert_true(failed);
	/* zero_disk_start, tear_down_appliance, switch_networks, boot */
	g_assert_cmpuint(after, ==, 4);
	/* the refused device was not recorded */
	g_assert_cmpstr(json_object_get_string_member_with_default(install, "root_device", ""), !=,
			"vda1");
	store_clear(&store);
}

/* Refused while the node lacks the tag, nothing asked of the node; with
 * the tag the template's steps run in the plan's order and the record
 * keeps the plan, the template's serial number and what the steps did. */
static void
test_create_template(LuFx *fx, gconstpointer data)
{
	static const gchar *const order[] = {
		"install step hypervisor.apply_settings [CUSTOM_M#2] (110): started",
		"hypervisor parameters of the instance set: {\"kernel_args\":\"quiet\"}",
		"install step prepare (100): done",
		"install step deploy.resize_disk [CUSTOM_M#1] (90): started",
		"* growing disk 0 to 2.0G...",
		"install step deploy.resize_disk [CUSTOM_M#1] (90): done",
		"install step write_image (80): skipped",
		"install step run_os_scripts (70): done",
		"install step prepare_boot (60): skipped",
		NULL,
	};
	TemplateStore store;
	g_autoptr(JsonObject) web1 = NULL;
	g_autofree gchar *log = NULL;
	JsonObject *install;
	JsonObject *plan;
	JsonArray *steps;
	const FakeCall *call;
	guint64 id;

	store_init(&store);
	store_add(&store, TEMPLATE_M);
	expect_refused(fx, "OP_INSTANCE_CREATE", CREATE_WEB1_M "}",
		       "instance tag 'CUSTOM_M' selects the install template 'CUSTOM_M', which "
		       "node 'node1.example.com' does not allow: it lacks the tag 'CUSTOM_M' "
		       "(gnt-node add-tags node1.example.com CUSTOM_M)");
	g_assert_null(dup_instance(fx, "web1"));
	node1_set_tags(fx, "CUSTOM_M");
	fake_node_clear_calls(fx->nodes);
	id = run_ok(fx, "OP_INSTANCE_CREATE", CREATE_WEB1_M "}");
	assert_trace(fx, "os_validate os_diagnose blockdev_create blockdev_grow os_create");
	call = fake_node_find_call(fx->nodes, "blockdev_grow", 1);
	g_assert_cmpuint(gnt_rpc_args_get_uint(call->args, "new_size"), ==, 2048);
	log = job_log_text(fx, id);
	gnt_test_assert_in_order(log, order);
	g_assert_null(strstr(log, "install step personalize"));
	web1 = dup_instance(fx, "web1");
	/* what the steps did is the instance's now */
	g_assert_cmpstr(json_object_get_string_member(
				json_object_get_object_member(web1, "hvparams"), "kernel_args"),
			==, "quiet");
	g_assert_cmpint(
		json_object_get_int_member(json_array_get_object_element(
						   json_object_get_array_member(web1, "disks"), 0),
					   "size"),
		==, 2048);
	install = json_object_get_object_member(web1, "install");
	g_assert_cmpstr(json_object_get_string_member(install, "state"), ==, "done");
	plan = json_object_get_object_member(install, "plan");
	g_assert_cmpstr(json_object_get_string_member(
				json_array_get_object_element(
					json_object_get_array_member(plan, "templates"), 0),
				"name"),
			==, "CUSTOM_M");
	g_assert_cmpint(json_object_get_int_member(
				json_array_get_object_element(
					json_object_get_array_member(plan, "templates"), 0),
				"serial_no"),
			==, 7);
	steps = json_object_get_array_member(install, "steps");
	/* 7 core steps (personalize disabled) and 2 of the template */
	g_assert_cmpuint(json_array_get_length(steps), ==, 9);
	g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(steps, 0),
						      "id"),
			==, "CUSTOM_M#2");
	g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(steps, 0),
						      "template"),
			==, "CUSTOM_M");
	g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(steps, 2),
						      "step"),
			==, "deploy.resize_disk");
	g_assert_true(
		json_object_has_member(json_array_get_object_element(steps, 2), "start_time"));
	/* a template changed afterwards does not change the record */
	store_add(&store, "{\"name\": \"CUSTOM_M\", \"serial_no\": 8, \"steps\": [{\"interface\": "
			  "\"deploy\", \"step\": \"boot\", \"args\": {}, \"priority\": 0}]}");
	g_clear_pointer(&web1, json_object_unref);
	web1 = dup_instance(fx, "web1");
	g_assert_cmpint(
		json_object_get_int_member(
			json_array_get_object_element(
				json_object_get_array_member(
					json_object_get_object_member(
						json_object_get_object_member(web1, "install"),
						"plan"),
					"templates"),
				0),
			"serial_no"),
		==, 7);
	store_clear(&store);
}

/* The template goes while the install runs (after the plan was built):
 * the install runs as planned. */
static void
test_create_template_removed(LuFx *fx, gconstpointer data)
{
	TemplateStore store;

	store_init(&store);
	store_add(&store, TEMPLATE_M);
	store.once = TRUE;
	node1_set_tags(fx, "CUSTOM_M");
	expect_success(fx, "OP_INSTANCE_CREATE", CREATE_WEB1_M "}");
	g_assert_cmpuint(store.lookups, ==, 1);
	g_assert_cmpuint(g_hash_table_size(store.templates), ==, 0);
	assert_trace(fx, "os_validate os_diagnose blockdev_create blockdev_grow os_create");
	store_clear(&store);
}

/* print_plan: the plan as the job's result, nothing made, nothing stored. */
static void
test_create_print_plan(LuFx *fx, gconstpointer data)
{
	TemplateStore store;
	g_autoptr(JsonObject) record = NULL;
	JsonObject *op;
	JsonObject *result;
	JsonArray *rows;
	guint64 id;

	store_init(&store);
	store_add(&store, TEMPLATE_M);
	node1_set_tags(fx, "CUSTOM_M");
	fake_node_clear_calls(fx->nodes);
	id = run_ok(fx, "OP_INSTANCE_CREATE", CREATE_WEB1_M ", \"print_plan\": true}");
	/* only the checks' questions */
	assert_trace(fx, "os_validate os_diagnose");
	g_assert_null(dup_instance(fx, "web1"));
	record = queue_fx_record(&fx->q, id);
	op = json_array_get_object_element(json_object_get_array_member(record, "ops"), 0);
	result = json_object_get_object_member(op, "result");
	g_assert_cmpstr(json_object_get_string_member(result, "instance"), ==, "web1");
	rows = json_object_get_array_member(json_object_get_object_member(result, "plan"), "rows");
	g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(rows, 0), "id"),
			==, "CUSTOM_M#2");
	g_assert_cmpstr(json_object_get_string_member(json_array_get_object_element(rows, 2), "id"),
			==, "CUSTOM_M#1");
	store_clear(&store);
}

/* What the plan's steps refuse, before anything changes: the fake
 * hypervisor has no cpu_type; two templates growing the same disk. */
static void
test_create_template_refused(LuFx *fx, gconstpointer data)
{
	TemplateStore store;

	store_init(&store);
	store_add(&store,
		  "{\"name\": \"CUSTOM_VMX\", \"serial_no\": 1, \"steps\": [{\"interface\": "
		  "\"hypervisor\", \"step\": \"apply_settings\", \"args\": {\"hvparams\": "
		  "{\"cpu_type\": \"host\"}}, \"priority\": 110}]}");
	store_add(&store,
		  "{\"name\": \"CUSTOM_R\", \"serial_no\": 1, \"steps\": [{\"interface\": "
		  "\"deploy\", \"step\": \"resize_disk\", \"args\": {\"disk\": 0, \"size\": "
		  "4096}, \"priority\": 95}]}");
	store_add(&store, TEMPLATE_M);
	node1_set_tags(fx, NULL);
	{
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonObject) node = gnt_config_dup_object(
			fx->q.root.config, GNT_OBJECT_NODE, "node1.example.com", &error);
		JsonArray *tags = json_array_new();

		json_array_add_string_element(tags, "CUSTOM_VMX");
		json_array_add_string_element(tags, "CUSTOM_R");
		json_array_add_string_element(tags, "CUSTOM_M");
		json_object_set_array_member(node, "tags", tags);
		g_assert_true(
			gnt_config_update_object(fx->q.root.config, GNT_OBJECT_NODE, node, &error));
	}
	expect_refused(fx, "OP_INSTANCE_CREATE", CREATE_WEB1 ", \"tags\": [\"CUSTOM_VMX\"]}",
		       "template 'CUSTOM_VMX', step 1 (hypervisor.apply_settings): hypervisor "
		       "'fake' refuses the parameters: ");
	expect_refused(fx, "OP_INSTANCE_CREATE",
		       CREATE_WEB1 ", \"tags\": [\"CUSTOM_R\", \"CUSTOM_M\"]}",
		       "install templates 'CUSTOM_M' (step 1) and 'CUSTOM_R' (step 1) both give "
		       "deploy.resize_disk disk=0");
	g_assert_null(dup_instance(fx, "web1"));
	store_clear(&store);
}

/* A reinstall plans again: the node's tag is checked, a disk already
 * large enough is left. */
static void
test_reinstall_template(LuFx *fx, gconstpointer data)
{
	TemplateStore store;
	g_autofree gchar *log = NULL;
	guint64 id;

	store_init(&store);
	store_add(&store, TEMPLATE_M);
	node1_set_tags(fx, "CUSTOM_M");
	expect_success(fx, "OP_INSTANCE_CREATE", CREATE_WEB1_M "}");
	node1_set_tags(fx, NULL);
	/* refused once the node said the instance is not running */
	fake_node_clear_calls(fx->nodes);
	expect_failure(fx, "OP_INSTANCE_REINSTALL", REINSTALL_WEB1, "it lacks the tag 'CUSTOM_M'");
	assert_trace(fx, "instance_list");
	node1_set_tags(fx, "CUSTOM_M");
	fake_node_clear_calls(fx->nodes);
	id = run_ok(fx, "OP_INSTANCE_REINSTALL", REINSTALL_WEB1);
	assert_trace(fx, "instance_list os_validate os_diagnose os_create");
	log = job_log_text(fx, id);
	g_assert_nonnull(strstr(log, "install step deploy.resize_disk [CUSTOM_M#1] (90): skipped, "
				     "disk 0 is already 2.0G\n"));
	store_clear(&store);
}

/* ---- remove ----------------------------------------------------------- */

static void
test_remove_calls(LuFx *fx, gconstpointer data)
{
	const FakeCall *call;

	create_web1(fx, TRUE);
	expect_success(fx, "OP_INSTANCE_REMOVE",
		       "{\"instance_name\": \"web1\", \"shutdown_timeout\": 30}");
	assert_trace(fx, "instance_shutdown blockdev_remove");
	call = fake_node_find_call(fx->nodes, "instance_shutdown", 1);
	g_assert_cmpstr(call_instance(call), ==, "web1");
	g_assert_cmpuint(gnt_rpc_args_get_uint(call->args, "timeout"), ==, 30);
	g_assert_cmpstr(call_instance(fake_node_find_call(fx->nodes, "blockdev_remove", 1)), ==,
			"web1");
	g_assert_null(dup_instance(fx, "web1"));
}

static void
test_remove_refused(LuFx *fx, gconstpointer data)
{
	expect_failure(fx, "OP_INSTANCE_REMOVE", "{\"instance_name\": \"nope\"}",
		       "instance 'nope' does not exist");
	assert_trace(fx, "");
}

/* The disks cannot be removed: the record stays, marked as being removed,
 * for masterd to finish; with ignore_failures it goes all the same. */
static void
test_remove_fails(LuFx *fx, gconstpointer data)
{
	g_autoptr(JsonObject) web1 = NULL;
	GntRecoveryOp op = GNT_RECOVERY_CREATE;
	guint64 job = 0;

	create_web1(fx, FALSE);
	fake_node_fail(fx->nodes, "blockdev_remove", 0, GNT_ERROR_ENVIRONMENT, "disk busy");
	expect_failure(fx, "OP_INSTANCE_REMOVE", "{\"instance_name\": \"web1\"}",
		       "blockdev_remove: disk busy");
	assert_trace(fx, "instance_shutdown blockdev_remove");
	web1 = dup_instance(fx, "web1");
	g_assert_nonnull(web1);
	g_assert_true(gnt_recovery_get_mark(web1, &op, &job));
	g_assert_cmpint(op, ==, GNT_RECOVERY_REMOVE);

	expect_success(fx, "OP_INSTANCE_REMOVE",
		       "{\"instance_name\": \"web1\", \"ignore_failures\": true}");
	g_assert_null(dup_instance(fx, "web1"));
}

/* ---- reinstall -------------------------------------------------------- */

static void
test_reinstall_calls(LuFx *fx, gconstpointer data)
{
	const FakeCall *call;

	create_web1(fx, FALSE);
	expect_success(fx, "OP_INSTANCE_REINSTALL", REINSTALL_WEB1);
	/* not running, the OS checked, its create script run again */
	assert_trace(fx, "instance_list os_validate os_diagnose os_create");
	call = fake_node_find_call(fx->nodes, "os_create", 1);
	g_assert_nonnull(call);
	g_assert_cmpstr(call_instance(call), ==, "web1");
	g_assert_true(gnt_rpc_args_get_bool(call->args, "reinstall"));
	/* the disks stay: none made, none removed */
	g_assert_null(fake_node_find_call(fx->nodes, "blockdev_create", 1));
	g_assert_null(fake_node_find_call(fx->nodes, "blockdev_remove", 1));
}

static void
test_reinstall_refused(LuFx *fx, gconstpointer data)
{
	create_web1(fx, TRUE);
	expect_refused(fx, "OP_INSTANCE_REINSTALL", REINSTALL_WEB1,
		       "Instance 'web1' is marked to be up, cannot reinstall");
}

static void
test_reinstall_fails(LuFx *fx, gconstpointer data)
{
	g_autoptr(JsonObject) before = NULL;
	g_autoptr(JsonObject) after = NULL;
	JsonObject *install;

	create_web1(fx, FALSE);
	before = dup_instance(fx, "web1");
	fake_node_fail(fx->nodes, "os_create", 0, GNT_ERROR_ENVIRONMENT, "OS create script failed");
	expect_failure(fx, "OP_INSTANCE_REINSTALL", REINSTALL_WEB1,
		       "os_create: OS create script failed");
	assert_trace(fx, "instance_list os_validate os_diagnose os_create");
	/* the disks stay */
	g_assert_null(fake_node_find_call(fx->nodes, "blockdev_remove", 1));
	after = dup_instance(fx, "web1");
	/* the disks and the admin state as they were; the install record
	 * says what failed */
	g_assert_true(json_node_equal(json_object_get_member(before, "disks"),
				      json_object_get_member(after, "disks")));
	g_assert_cmpstr(json_object_get_string_member(after, "admin_state"), ==, "down");
	install = json_object_get_object_member(after, "install");
	g_assert_cmpstr(json_object_get_string_member(install, "state"), ==, "failed");
	g_assert_true(json_object_get_boolean_member(install, "reinstall"));
	gnt_test_assert_contains(json_object_get_string_member(install, "error"),
				 "os_create: OS create script failed");
}

/* ---- modify ----------------------------------------------------------- */

static void
test_modify_add_disk(LuFx *fx, gconstpointer data)
{
	g_autoptr(JsonObject) web1 = NULL;
	const FakeCall *call;

	create_web1(fx, FALSE);
	expect_success(
		fx, "OP_INSTANCE_SET_PARAMS",
		"{\"instance_name\": \"web1\", \"disks\": [[\"add\", -1, {\"size\": 512}]]}");
	assert_trace(fx, "blockdev_add");
	call = fake_node_find_call(fx->nodes, "blockdev_add", 1);
	g_assert_cmpstr(call_instance(call), ==, "web1");
	g_assert_cmpuint(gnt_rpc_args_get_uint(call->args, "disk_index"), ==, 1);
	web1 = dup_instance(fx, "web1");
	g_assert_cmpuint(json_array_get_length(json_object_get_array_member(web1, "disks")), ==, 2);
}

static void
test_modify_add_disk_fails(LuFx *fx, gconstpointer data)
{
	g_autoptr(JsonObject) before = NULL;

	create_web1(fx, FALSE);
	before = dup_instance(fx, "web1");
	fake_node_fail(fx->nodes, "blockdev_add", 1, GNT_ERROR_NO_RESOURCES, "not enough space");
	expect_failure(fx, "OP_INSTANCE_SET_PARAMS",
		       "{\"instance_name\": \"web1\", \"disks\": [[\"add\", -1, {\"size\": 512}]]}",
		       "blockdev_add: not enough space");
	assert_trace(fx, "blockdev_add");
	assert_web1_is(fx, before);
}

static void
test_modify_refused(LuFx *fx, gconstpointer data)
{
	create_web1(fx, TRUE);
	expect_refused(fx, "OP_INSTANCE_SET_PARAMS", "{\"instance_name\": \"web1\"}",
		       "No changes submitted");
	expect_refused(fx, "OP_INSTANCE_SET_PARAMS",
		       "{\"instance_name\": \"web1\", \"offline\": true}",
		       "Instance 'web1' is marked to be up, can't change to offline");
	/* a disk of a size the cluster refuses: checked before the node */
	expect_refused(fx, "OP_INSTANCE_SET_PARAMS",
		       "{\"instance_name\": \"web1\", \"disks\": [[\"add\", -1, {\"size\": "
		       "0}]]}",
		       "disk modification 0: disk 0: 'size' is missing or not a positive size");
}

/* ---- kickstart (doc/kickstart.md) ------------------------------------ */

/* A catalog image with an installer: RHEL 9 by its family (added by
 * ks_fx_prepare()). */
#define KS_IMAGE	"rocky9"
#define KS_IMAGE_SHA256 "abababababababababababababababababababababababababababababababab"

#define CREATE_KS                                                                                  \
	"{\"instance_name\": \"web1\", \"mode\": \"create\", \"os_image\": \"" KS_IMAGE "\", "     \
	"\"disk_template\": \"file\", \"disks\": [{\"size\": 10240}], \"nics\": [], "              \
	"\"ssh_keys\": [\"ssh-ed25519 AAAAC3Nz ops@example.com\"]"

/* The kickstart directory, made, and ksvalidator the vendored one. */
static gchar *
ks_fx_prepare(LuFx *fx)
{
	g_autoptr(GntCluster) cluster = gnt_config_dup_cluster(fx->q.root.config);
	g_autoptr(JsonObject) changes = json_object_new();
	g_autoptr(GError) error = NULL;
	gchar *dir = g_strdup(json_object_get_string_member(cluster->settings, "kickstart_dir"));

	guint64 id = queue_fx_submit(
		&fx->q,
		queue_fx_job("OP_IMAGE_ADD",
			     "{\"image_name\": \"" KS_IMAGE "\", \"url\": "
			     "\"http://images.test/rocky9.img\", \"format\": \"raw\", "
			     "\"sha256\": \"" KS_IMAGE_SHA256 "\", \"os_distro\": \"Rocky\", "
			     "\"os_version\": \"9.4\", \"installer_kernel\": "
			     "\"http://images.test/vmlinuz\", \"installer_initrd\": "
			     "\"/srv/installer/initrd.img\", \"installer_start_timeout\": 120}",
			     NULL));
	g_autofree gchar *status = queue_fx_wait_final(&fx->q, id);

	g_assert_cmpstr(status, ==, "success");
	g_assert_cmpint(g_mkdir_with_parents(dir, 0700), ==, 0);
	json_object_set_string_member(changes, "ksvalidator", g_getenv("GNT_TEST_KSVALIDATOR"));
	g_assert_true(gnt_config_set_cluster_settings(fx->q.root.config, changes, &error));
	g_assert_no_error(error);
	return dir;
}

/* --dry-run --print-kickstart: the rendered default template, the token
 * redacted, the real ksvalidator's verdict; nothing made, no node called. */
static void
test_kickstart_print(LuFx *fx, gconstpointer data)
{
	G_GNUC_UNUSED g_autofree gchar *dir = ks_fx_prepare(fx);
	guint64 id = queue_fx_submit(
		&fx->q,
		queue_fx_job("OP_INSTANCE_CREATE",
			     CREATE_KS ", \"dry_run\": true, \"print_kickstart\": true}", NULL));
	g_autofree gchar *status = queue_fx_wait_final(&fx->q, id);
	g_autofree gchar *log = job_log_text(fx, id);

	g_assert_cmpstr(status, ==, "success");
	gnt_test_assert_contains(log, "kickstart: template 'default' (the built-in's), sha256 ");
	gnt_test_assert_contains(log,
				 "kickstart: Gantry's checks and ksvalidator -v RHEL9 passed\n");
	gnt_test_assert_contains(log,
				 "\nliveimg --url=http://169.254.169.254/gantry/latest/install/"
				 "image.img\n");
	gnt_test_assert_contains(log, "network --bootproto=dhcp --device=link --activate "
				      "--hostname=web1\n");
	gnt_test_assert_contains(log, "\nssh-ed25519 AAAAC3Nz ops@example.com\n");
	gnt_test_assert_contains(log, "\"agent_token\": \"<redacted>\"");
	g_assert_null(strstr(log, "%traceback"));
	assert_trace(fx, "");
	g_assert_null(dup_instance(fx, "web1"));
}

static void
test_kickstart_refused(LuFx *fx, gconstpointer data)
{
	g_autofree gchar *dir = ks_fx_prepare(fx);
	g_autofree gchar *twice = g_build_filename(dir, "twice.ks", NULL);
	g_autofree gchar *params = NULL;

	g_assert_true(g_file_set_contents(twice,
					  "autopart\nliveimg --url=http://a/b.tar\n"
					  "liveimg --url=http://a/c.tar\n",
					  -1, NULL));
	expect_refused(fx, "OP_INSTANCE_CREATE",
		       CREATE_KS ", \"ks_template\": \"file:///etc/shadow\"}",
		       "'/etc/shadow' is not under the kickstart directory");
	params = g_strdup_printf(CREATE_KS ", \"ks_template\": \"file://%s\"}", twice);
	expect_refused(fx, "OP_INSTANCE_CREATE", params,
		       "line 3: a second liveimg (the first is on line 2)");
	/* a source of no known form: refused with the opcode itself */
	{
		g_autoptr(JsonParser) parser = json_parser_new();
		g_autoptr(GError) error = NULL;
		g_autoptr(GntOpcode) op = NULL;

		g_assert_true(json_parser_load_from_data(
			parser,
			CREATE_KS
			", \"OP_ID\": \"OP_INSTANCE_CREATE\", \"ks_template\": \"ftp://x/ks\"}",
			-1, NULL));
		op = gnt_opcode_new_from_json(json_node_get_object(json_parser_get_root(parser)),
					      &error);
		g_assert_null(op);
		gnt_test_assert_contains(error->message,
					 "is neither file:///PATH, an http(s) URL nor 'default'");
	}
	/* an install that is no kickstart install has nothing to print (its
	 * OS checked on the node first) */
	expect_failure(fx, "OP_INSTANCE_CREATE", CREATE_WEB1 ", \"print_kickstart\": true}",
		       "instance 'web1' has no kickstart install to print");
	g_unlink(twice);
}

/* The @nth installer_start the node got: the catalog's installer and image,
 * the cluster's clocks, the rendered file with its token; the token. */
static gchar *
assert_installer_call(LuFx *fx, guint nth)
{
	const FakeCall *call = fake_node_find_call(fx->nodes, "installer_start", nth);
	JsonObject *options = NULL;
	const gchar *token = NULL;

	g_assert_nonnull(call);
	options = gnt_rpc_args_get_object(call->args, "options");
	token = json_object_get_string_member(options, "agent_token");
	g_assert_cmpuint(strlen(token), ==, 43);
	g_assert_nonnull(strstr(json_object_get_string_member(options, "kickstart"), token));
	g_assert_cmpstr(json_object_get_string_member(
				json_object_get_object_member(options, "initrd"), "url"),
			==, "/srv/installer/initrd.img");
	g_assert_cmpstr(json_object_get_string_member(
				json_object_get_object_member(options, "liveimg"), "sha256"),
			==, KS_IMAGE_SHA256);
	g_assert_cmpstr(json_object_get_string_member(options, "liveimg_name"), ==, "image.img");
	/* the image's clock, else the cluster's */
	g_assert_cmpint(json_object_get_int_member(options, "timeout_start"), ==, 120);
	g_assert_cmpint(json_object_get_int_member(options, "timeout_end"), ==, 3600);
	g_assert_cmpint(json_object_get_int_member(options, "grace"), ==, 60);
	/* no image_write: the installer writes the disks */
	g_assert_null(fake_node_find_call(fx->nodes, "image_write", 1));
	return g_strdup(token);
}

/* An installer session as the node gives it: start, then end. */
#define KS_SESSION_OK                                                                              \
	"{\"seconds\": 2.5, \"console_tail\": \"\", \"events\": ["                                 \
	"{\"seq\": 0, \"status\": \"start\", \"message\": \"installing\"},"                        \
	"{\"seq\": 1, \"status\": \"end\", \"message\": \"done\"}]}"

/* The record keeps the template's source and SHA-256; a reinstall fetches
 * it again; the installer runs with a new token each time. */
static void
test_kickstart_record(LuFx *fx, gconstpointer data)
{
	g_autofree gchar *dir = ks_fx_prepare(fx);
	g_autofree gchar *path = g_build_filename(dir, "web.ks", NULL);
	g_autofree gchar *source = g_strconcat("file://", path, NULL);
	g_autofree gchar *params =
		g_strdup_printf(CREATE_KS ", \"start\": false, \"ks_template\": \"%s\"}", source);
	const gchar *first = "autopart\n";
	const gchar *second = "autopart --type=plain\n";
	g_autofree gchar *first_sha = g_compute_checksum_for_string(G_CHECKSUM_SHA256, first, -1);
	g_autofree gchar *second_sha = g_compute_checksum_for_string(G_CHECKSUM_SHA256, second, -1);
	g_autoptr(JsonObject) web1 = NULL;
	g_autofree gchar *first_token = NULL;
	g_autofree gchar *second_token = NULL;
	JsonObject *ks;

	g_assert_true(g_file_set_contents(path, first, -1, NULL));
	/* the installer's run on the node, its callbacks in its answer */
	fake_session_done(fx, KS_SESSION_OK, "events");
	expect_success(fx, "OP_INSTANCE_CREATE", params);
	web1 = dup_instance(fx, "web1");
	ks = json_object_get_object_member(json_object_get_object_member(web1, "install"),
					   "kickstart");
	g_assert_cmpstr(json_object_get_string_member(ks, "source"), ==, source);
	g_assert_cmpstr(json_object_get_string_member(ks, "origin"), ==, "instance");
	g_assert_cmpstr(json_object_get_string_member(ks, "sha256"), ==, first_sha);
	g_assert_cmpstr(json_object_get_string_member(ks, "syntax"), ==, "RHEL9");
	first_token = assert_installer_call(fx, 1);
	g_clear_pointer(&web1, json_object_unref);
	g_assert_true(g_file_set_contents(path, second, -1, NULL));
	expect_success(fx, "OP_INSTANCE_REINSTALL", "{\"instance_name\": \"web1\"}");
	web1 = dup_instance(fx, "web1");
	ks = json_object_get_object_member(json_object_get_object_member(web1, "install"),
					   "kickstart");
	g_assert_cmpstr(json_object_get_string_member(ks, "sha256"), ==, second_sha);
	/* a new attempt, a new token */
	second_token = assert_installer_call(fx, 2);
	g_assert_cmpstr(first_token, !=, second_token);
	g_unlink(path);
}

/* A personalization package in kickstart mode: the node gets its URL and
 * credentials to fetch it for metad; the file served has a %post
 * --nochroot fetching it from metad with the token and unpacking it onto
 * the installed system, before the end report (it passed ksvalidator);
 * the personalize row says where it was done. */
static void
test_kickstart_package(LuFx *fx, gconstpointer data)
{
	g_autofree gchar *token = NULL;
	g_autofree gchar *log = NULL;
	g_autofree gchar *header = NULL;
	const FakeCall *call;
	JsonObject *options;
	const gchar *ks;
	const gchar *post;
	guint64 id;

	fake_session_done(fx, KS_SESSION_OK, "events");
	/* the kickstart directory and the vendored ksvalidator */
	g_free(ks_fx_prepare(fx));
	id = run_ok(fx, "OP_INSTANCE_CREATE",
		    CREATE_KS ", \"start\": false,"
			      " \"osparams\": {\"os-package\": \"https://p.test/web.tar.gz\"},"
			      " \"osparams_secret\": {\"os-package-username\": \"deploy\","
			      " \"os-package-password\": \"s3cret\"}}");
	token = assert_installer_call(fx, 1);
	call = fake_node_find_call(fx->nodes, "installer_start", 1);
	options = gnt_rpc_args_get_object(call->args, "options");
	g_assert_cmpstr(json_object_get_string_member(options, "package_url"), ==,
			"https://p.test/web.tar.gz");
	g_assert_cmpstr(json_object_get_string_member(options, "package_username"), ==, "deploy");
	ks = json_object_get_string_member(options, "kickstart");
	/* never the credentials in the file */
	g_assert_null(strstr(ks, "s3cret"));
	g_assert_null(strstr(ks, "p.test"));
	post = strstr(ks, "%post --nochroot --erroronfail\n");
	g_assert_nonnull(post);
	header = g_strdup_printf("-H '" GNT_KICKSTART_TOKEN_HEADER ": %s'", token);
	gnt_test_assert_contains(post, header);
	gnt_test_assert_contains(post, "'" GNT_KICKSTART_PACKAGE_URL "'");
	gnt_test_assert_contains(post, "root=\"${ANA_INSTALL_PATH:-/mnt/sysroot}\"");
	gnt_test_assert_contains(
		post, "tar -xzf /tmp/gantry-package.tar.gz --numeric-owner -C \"$root\"");
	/* before the end report */
	g_assert_nonnull(strstr(post, "\"agent_status\": \"end\""));
	log = job_log_text(fx, id);
	gnt_test_assert_contains(log, "%post --nochroot unpacking the personalization package");
	gnt_test_assert_contains(log, "the kickstart's %post --nochroot unpacked it");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	gnt_opcode_register_table(&gnt_cmdlib_op_table); /* the real opcodes */
#define ADD(path, func)                                                                            \
	g_test_add("/cmdlib/instance/" path, LuFx, NULL, lu_fx_set_up, func, lu_fx_tear_down)
	ADD("create/calls", test_create_calls);
	ADD("create/refused", test_create_refused);
	ADD("create/refused-by-node", test_create_refused_by_node);
	ADD("create/rolls-back", test_create_rolls_back);
	ADD("create/rolls-back-disks", test_create_rolls_back_disks);
	ADD("create/roll-back-fails", test_create_roll_back_fails);
	ADD("create/template", test_create_template);
	ADD("create/inband", test_create_inband);
	ADD("create/inband-two-sessions", test_create_inband_two_sessions);
	ADD("create/inband-long-step", test_create_inband_long_step);
	ADD("create/inband-fails", test_create_inband_fails);
	ADD("create/post-step-hook", test_create_post_step_hook);
	ADD("reinstall/post-step-hook-fails", test_reinstall_post_step_hook_fails);
	ADD("create/template-removed", test_create_template_removed);
	ADD("create/print-plan", test_create_print_plan);
	ADD("create/template-refused", test_create_template_refused);
	ADD("reinstall/template", test_reinstall_template);
	ADD("remove/calls", test_remove_calls);
	ADD("remove/refused", test_remove_refused);
	ADD("remove/fails", test_remove_fails);
	ADD("reinstall/calls", test_reinstall_calls);
	ADD("reinstall/refused", test_reinstall_refused);
	ADD("reinstall/fails", test_reinstall_fails);
	ADD("modify/add-disk", test_modify_add_disk);
	ADD("modify/add-disk-fails", test_modify_add_disk_fails);
	ADD("modify/refused", test_modify_refused);
	ADD("kickstart/print", test_kickstart_print);
	ADD("kickstart/package", test_kickstart_package);
	ADD("kickstart/refused", test_kickstart_refused);
	ADD("kickstart/record", test_kickstart_record);
#undef ADD
	return g_test_run();
}
