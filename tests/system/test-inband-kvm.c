/*
 * In-band install steps end to end (doc/install.md "In-band steps"): a
 * template made with gnt-template puts appliance steps at 95, 75 and 45
 * around an untrusted OS, whose create script runs in the appliance at 70.
 * masterd, noded and metad are the real daemons; the appliance is the
 * agent on the host (the fake hypervisor) or the built appliance on real
 * libvirt (qemu TCG). The job log must show every row of the plan in
 * priority order, and the appliance must boot once per run of adjacent
 * in-band rows:
 *
 *   no image:   95, 75, 70, 45 with nothing between them   -> 1 boot
 *   an image:   95 | write_image at 80 on the host | 75, 70, 45 -> 2 boots
 *
 * On libvirt the boots are counted from `virsh event --all --loop
 * --timestamp`, running for the whole install; with the fake hypervisor
 * from the job log's "booting the install appliance" lines. find_root at 45
 * goes through its post-step hook into the install record.
 */
#include "gnt-test-cluster.h"

#include <signal.h>

#include "gnt-test-process.h"

#define JOB_TIMEOUT_S 300
#define OS_NAME	      "untrusted-steps"
#define TEMPLATE_NAME "CUSTOM_INBAND"
/* zero_disk_start on disks 1 and 2, find_root (disk 0) */
#define TEMPLATE_STEPS                                                                             \
	"[{\"interface\": \"appliance\", \"step\": \"zero_disk_start\", \"args\": {\"disk\": 1},"  \
	" \"priority\": 95},"                                                                      \
	" {\"interface\": \"appliance\", \"step\": \"zero_disk_start\", \"args\": {\"disk\": 2},"  \
	" \"priority\": 75},"                                                                      \
	" {\"interface\": \"appliance\", \"step\": \"find_root\", \"args\": {}, \"priority\": 45}]"

typedef struct {
	GntTestCluster cluster;
	gchar *work;
	gchar *os_dir;
	gboolean kvm;
	gchar *skip;
} InbandFx;

/* An OS whose only create script for the guest is untrusted: it says where
 * it ran; the host's must never run. */
static void
make_os(InbandFx *fx)
{
	g_autofree gchar *dir = g_build_filename(fx->os_dir, OS_NAME, NULL);
	g_autofree gchar *untrusted = g_build_filename(dir, "untrusted", NULL);
	const gchar *never = "#!/bin/sh\necho 'must not run on the host' >&2\nexit 1\n";

	g_assert_cmpint(g_mkdir_with_parents(untrusted, 0755), ==, 0);
	gnt_test_write_file(dir, "ganeti_api_version", "20\n", 0644);
	gnt_test_write_file(dir, "variants.list", "default\n", 0644);
	gnt_test_write_file(dir, "parameters.list", "", 0644);
	static const gchar *const scripts[] = {"create", "export", "import", "rename"};

	for (guint i = 0; i < G_N_ELEMENTS(scripts); i++)
		gnt_test_write_file(dir, scripts[i], never, 0755);
	gnt_test_write_file(dir, "verify", "#!/bin/sh\nexit 0\n", 0755);
	gnt_test_write_file(untrusted, "create",
			    "#!/bin/sh\necho \"untrusted create of $INSTANCE_NAME: $DISK_COUNT "
			    "disks\"\n",
			    0755);
}

static void
inband_set_up(InbandFx *fx, gconstpointer data)
{
	g_autofree gchar *name = NULL;
	g_autoptr(GError) error = NULL;

	fx->kvm = g_str_has_prefix(data, "kvm");
#ifdef __SANITIZE_ADDRESS__
	/* qemu is not what the sanitizers check, the daemons are (the fake
	 * cases): CI's time goes to the gcc pass's boots */
	if (fx->kvm) {
		fx->skip = g_strdup("real libvirt boots run in the build without sanitizers");
		return;
	}
#endif
	if (fx->kvm) {
		g_autofree gchar *kernel = gnt_test_find_cloud_kernel();

		fx->skip = gnt_test_dup_libvirt_missing();
		if (fx->skip != NULL)
			return;
		if (kernel == NULL || !g_file_test("/bin/busybox", G_FILE_TEST_IS_EXECUTABLE)) {
			fx->skip = g_strdup("no /boot/vmlinuz-*-cloud-amd64 or /bin/busybox "
					    "(install linux-image-cloud-amd64 busybox-static)");
			return;
		}
	}
	fx->work = g_dir_make_tmp("gtinb-XXXXXX", &error);
	g_assert_no_error(error);
	fx->os_dir = g_build_filename(fx->work, "os", NULL);
	make_os(fx);
	name = g_strdup_printf("inb%d.example.com", (gint)getpid());
	if (fx->kvm) {
		g_autofree gchar *kernel = gnt_test_find_cloud_kernel();
		g_autofree gchar *build = gnt_test_source_path("appliance", "build-appliance");
		g_autofree gchar *out = NULL;

		gnt_test_cluster_init_kvm(&fx->cluster, name, kernel);
		/* the node's appliance: <root>/var/lib/gantry/appliance */
		out = g_build_filename(fx->cluster.root, "var", "lib", "gantry", "appliance", NULL);
		{
			const gchar *argv[] = {build, out, NULL};

			gnt_test_run_checked(argv);
		}
	} else {
		gnt_test_cluster_init(&fx->cluster, name, "fake");
	}
	gnt_test_cluster_set_os_search_path(&fx->cluster, fx->os_dir);
}

static void
inband_tear_down(InbandFx *fx, gconstpointer data)
{
	if (fx->cluster.root != NULL)
		gnt_test_cluster_clear(&fx->cluster);
	if (fx->work != NULL)
		gnt_test_remove_tree(fx->work);
	g_free(fx->work);
	g_free(fx->os_dir);
	g_free(fx->skip);
}

/* The template through gnt-template, the node tagged with its name. */
static void
add_template(InbandFx *fx)
{
	g_autofree gchar *master = gnt_test_cluster_dup_master(&fx->cluster);
	g_autofree gchar *tag = NULL;
	g_autoptr(JsonArray) row = NULL;

	g_assert_cmpint(GNT_TEST_CLUSTER_RUN(&fx->cluster, "GNT_TEST_GNT_TEMPLATE", "add",
					     "--steps", TEMPLATE_STEPS, TEMPLATE_NAME),
			==, 0);
	tag = g_strdup_printf("{\"OP_ID\": \"OP_TAGS_SET\", \"kind\": \"node\", \"name\": \"%s\","
			      " \"tags\": [\"" TEMPLATE_NAME "\"]}",
			      master);
	row = gnt_test_cluster_run_op(&fx->cluster, tag, 60);
	gnt_test_cluster_assert_success(row);
}

/* `virsh event --all --loop --timestamp` into @path until stopped. */
static GSubprocess *
watch_events(const gchar *path)
{
	g_autoptr(GSubprocessLauncher)
		launcher = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_STDERR_SILENCE);
	g_autoptr(GError) error = NULL;
	GSubprocess *proc;

	g_subprocess_launcher_set_stdout_file_path(launcher, path);
	proc = g_subprocess_launcher_spawn(launcher, &error, "virsh", "-c", GNT_HV_DEFAULT_URI,
					   "event", "--all", "--loop", "--timestamp", NULL);
	g_assert_no_error(error);
	/* its connection and registration: libvirt has no "ready" to wait on */
	g_usleep(1500 * 1000);
	return proc;
}

/* How many times the install appliance's domain of @fx's cluster started,
 * from the events in @path (lines "<time>: event 'lifecycle' for domain
 * 'appliance-gnt-<cluster>-<instance>': Started Booted"), and how many
 * times it stopped. */
static guint
count_boots(InbandFx *fx, const gchar *path, guint *stops)
{
	g_autofree gchar *text = NULL;
	g_autofree gchar *needle = g_strdup_printf("'appliance-gnt-%s-", fx->cluster.name);
	g_auto(GStrv) lines = NULL;
	guint starts = 0;

	g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
	g_test_message("virsh event:\n%s", text);
	lines = g_strsplit(text, "\n", -1);
	*stops = 0;
	for (guint i = 0; lines[i] != NULL; i++) {
		if (strstr(lines[i], needle) == NULL || strstr(lines[i], "'lifecycle'") == NULL)
			continue;
		starts += strstr(lines[i], ": Started") != NULL ? 1 : 0;
		*stops += strstr(lines[i], ": Stopped") != NULL ? 1 : 0;
	}
	return starts;
}

static guint
count_lines_with(const gchar *text, const gchar *needle)
{
	guint n = 0;

	for (const gchar *at = strstr(text, needle); at != NULL; at = strstr(at + 1, needle))
		n++;
	return n;
}

/* The template's steps around the untrusted OS; @data's "+image" gives an
 * image, written by the host at 80 between the rows at 95 and 75. */
static void
test_install(InbandFx *fx, gconstpointer data)
{
	gboolean image = strstr(data, "+image") != NULL;
	guint want_boots = image ? 2 : 1;
	GntTestCluster *cluster = &fx->cluster;
	g_autofree gchar *events = NULL;
	g_autofree gchar *image_path = NULL;
	g_autofree gchar *op = NULL;
	g_autofree gchar *log = NULL;
	g_autoptr(GSubprocess) watcher = NULL;
	g_autoptr(JsonArray) row = NULL;
	const gchar *no_image[] = {
		"install step prepare (100): done",
		"* booting the install appliance for 4 in-band steps...",
		"install step appliance.zero_disk_start [" TEMPLATE_NAME "#1] (95): started",
		"zeroed the first MiB of disk 1",
		"install step appliance.zero_disk_start [" TEMPLATE_NAME "#1] (95): done",
		"install step write_image (80): skipped",
		"install step appliance.zero_disk_start [" TEMPLATE_NAME "#2] (75): started",
		"zeroed the first MiB of disk 2",
		"install step appliance.zero_disk_start [" TEMPLATE_NAME "#2] (75): done",
		"install step run_os_scripts (70): started",
		"untrusted create of web.example.com: 3 disks",
		"install step run_os_scripts (70): done",
		"install step personalize (65): skipped",
		"install step appliance.find_root [" TEMPLATE_NAME "#3] (45): started",
		"  the install record's root device: ",
		"install step appliance.find_root [" TEMPLATE_NAME "#3] (45): done",
		"install step tear_down_appliance (40): done",
		NULL,
	};
	const gchar *with_image[] = {
		"install step prepare (100): done",
		"* booting the install appliance for 1 in-band step...",
		"install step appliance.zero_disk_start [" TEMPLATE_NAME "#1] (95): done",
		"install step write_image (80): started",
		"install step write_image (80): done",
		"* booting the install appliance for 3 in-band steps...",
		"install step appliance.zero_disk_start [" TEMPLATE_NAME "#2] (75): done",
		"install step run_os_scripts (70): done",
		"install step appliance.find_root [" TEMPLATE_NAME "#3] (45): done",
		"install step tear_down_appliance (40): done",
		NULL,
	};
	gint64 t0;

	if (fx->skip != NULL) {
		g_test_skip(fx->skip);
		return;
	}
	add_template(fx);
	if (image) {
		g_autofree gchar *bytes = g_strnfill(1024 * 1024, 'g');

		image_path = g_build_filename(fx->work, "base.img", NULL);
		g_assert_true(g_file_set_contents(image_path, bytes, 1024 * 1024, NULL));
	}
	op = g_strdup_printf(
		"{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": \"web.example.com\","
		" \"mode\": \"create\", \"hypervisor\": \"%s\", \"disk_template\": \"file\","
		" \"disks\": [{\"size\": 32}, {\"size\": 8}, {\"size\": 8}], \"nics\": [],"
		" \"os_type\": \"" OS_NAME "+default\", \"start\": false,"
		" \"enable_safe_install\": true, \"beparams\": {\"memory\": 256},"
		" \"hvparams\": {%s}, \"tags\": [\"" TEMPLATE_NAME "\"]%s%s%s}",
		fx->kvm ? "kvm" : "fake", fx->kvm ? "\"accel\": \"tcg\"" : "",
		image ? ", \"os_image\": \"" : "", image ? image_path : "", image ? "\"" : "");
	if (fx->kvm) {
		events = g_build_filename(fx->work, "virsh-events.txt", NULL);
		watcher = watch_events(events);
	}
	t0 = g_get_monotonic_time();
	row = gnt_test_cluster_run_op(cluster, op, JOB_TIMEOUT_S);
	gnt_test_cluster_assert_success(row);
	g_test_message("the install (%s, %u boot%s) took %.2f s", fx->kvm ? "kvm" : "fake",
		       want_boots, want_boots == 1 ? "" : "s",
		       (gdouble)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC);

	/* every row in priority order */
	log = gnt_test_job_log_text(row);
	gnt_test_assert_in_order(log, image ? with_image : no_image);
	g_assert_cmpuint(count_lines_with(log, "* booting the install appliance"), ==, want_boots);

	/* libvirt's own account of the boots */
	if (fx->kvm) {
		guint stops = 0;

		g_assert_false(gnt_test_cluster_install_domain_left(cluster));
		g_subprocess_send_signal(watcher, SIGTERM);
		g_assert_true(g_subprocess_wait(watcher, NULL, NULL));
		g_assert_cmpuint(count_boots(fx, events, &stops), ==, want_boots);
		g_assert_cmpuint(stops, ==, want_boots);
	}

	/* find_root's hook: the record's root device */
	{
		g_autoptr(JsonArray) queried = gnt_test_cluster_run_op(
			cluster,
			"{\"OP_ID\": \"OP_INSTANCE_QUERY_DATA\", \"instances\": "
			"[\"web.example.com\"], \"static\": true}",
			60);
		JsonObject *install;

		gnt_test_cluster_assert_success(queried);
		install = json_object_get_object_member(
			json_object_get_object_member(
				json_array_get_object_element(
					json_array_get_array_element(queried, 1), 0),
				"web.example.com"),
			"install");
		g_assert_cmpstr(json_object_get_string_member(install, "state"), ==, "done");
		g_assert_true(g_str_has_prefix(
			json_object_get_string_member_with_default(install, "root_device", ""),
			"/"));
	}
	if (fx->kvm)
		g_assert_cmpuint(gnt_test_cluster_count_domains(cluster), ==, 0);
}

/* Submits OP_INSTALL_TEMPLATE_@what for @name with @steps; the job's row
 * as one string (status, result and log). (transfer full) */
static gchar *
template_op(InbandFx *fx, const gchar *what, const gchar *name, const gchar *steps)
{
	g_autofree gchar *op = g_strdup_printf(
		"{\"OP_ID\": \"OP_INSTALL_TEMPLATE_%s\", \"template_name\": \"%s\", \"steps\": %s}",
		what, name, steps);
	g_autoptr(JsonArray) row = gnt_test_cluster_run_op(&fx->cluster, op, 60);

	return gnt_test_cluster_row_to_string(row);
}

/* The node's install appliance carries a catalogue without find_root (an
 * appliance built from an older tree): a template naming find_root is
 * refused when added and when changed to name it, naming the node; one
 * without it is stored. With noded down the node is left out with a
 * warning and the template is stored. */
static void
test_node_catalogue(InbandFx *fx, gconstpointer data)
{
	g_autofree gchar *source = gnt_test_source_path("appliance", "steps.json");
	g_autofree gchar *dir =
		g_build_filename(fx->cluster.root, "var", "lib", "gantry", "appliance", NULL);
	g_autofree gchar *master = gnt_test_cluster_dup_master(&fx->cluster);
	g_autofree gchar *lacks = g_strdup_printf(
		"step 3 (appliance.find_root): node '%s' cannot run it: its install appliance has "
		"no step 'find_root' (catalogue version ",
		master);
	g_autofree gchar *left_out = g_strdup_printf(
		"WARNING: install template 'CUSTOM_LATER': node %s left out of the check", master);
	const gchar *without = "[{\"interface\": \"appliance\", \"step\": \"zero_disk_start\", "
			       "\"args\": {\"disk\": 1}, \"priority\": 95}]";
	g_autoptr(JsonNode) catalogue = NULL;
	g_autoptr(JsonArray) kept = json_array_new();
	g_autoptr(GError) error = NULL;
	g_autofree gchar *text = NULL;
	g_autofree gchar *row = NULL;
	g_autofree gchar *manifest = NULL;
	JsonArray *steps;
	GPid noded;

	/* appliance/steps.json without find_root in the node's appliance's
	 * manifest (build-appliance's "steps") */
	g_assert_true(g_file_get_contents(source, &text, NULL, NULL));
	catalogue = gnt_json_parse(text, -1, &error);
	g_assert_no_error(error);
	steps = json_object_get_array_member(json_node_get_object(catalogue), "steps");
	for (guint i = 0; i < json_array_get_length(steps); i++) {
		JsonObject *step = json_array_get_object_element(steps, i);

		if (!g_str_equal(json_object_get_string_member(step, "name"), "find_root"))
			json_array_add_object_element(kept, json_object_ref(step));
	}
	json_object_set_array_member(json_node_get_object(catalogue), "steps",
				     json_array_ref(kept));
	g_clear_pointer(&text, g_free);
	text = gnt_json_to_string(catalogue);
	g_clear_pointer(&manifest, g_free);
	manifest = g_strdup_printf("{\"sha256\": {}, \"steps\": %s}", text);
	g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
	gnt_test_write_file(dir, "manifest.json", manifest, 0644);

	row = template_op(fx, "ADD", TEMPLATE_NAME, TEMPLATE_STEPS);
	gnt_test_assert_contains(row, "\"error\"");
	gnt_test_assert_contains(row, lacks);
	g_clear_pointer(&row, g_free);
	row = template_op(fx, "ADD", TEMPLATE_NAME, without);
	gnt_test_assert_contains(row, "[\"success\"");
	g_clear_pointer(&row, g_free);
	row = template_op(fx, "SET_PARAMS", TEMPLATE_NAME, TEMPLATE_STEPS);
	gnt_test_assert_contains(row, lacks);

	/* noded down: left out, with a warning */
	noded = gnt_test_cluster_daemon_pid(&fx->cluster, "gantry-noded");
	g_assert_cmpint(kill(noded, SIGTERM), ==, 0);
	g_assert_true(gnt_test_process_ends(noded));
	g_clear_pointer(&row, g_free);
	row = template_op(fx, "ADD", "CUSTOM_LATER", TEMPLATE_STEPS);
	gnt_test_assert_contains(row, "[\"success\"");
	gnt_test_assert_contains(row, left_out);
}

/* A step's timeout in fake mode through the real daemons: the cluster's
 * install timeout (3 s) is the OS scripts' step timeout, and a template row
 * that asks for 60 s extends the session so that the step's own timeout,
 * not the session's, stops the create script that hangs. The install fails
 * naming the step with its output's tail; the rows after it are not run;
 * the script's child is gone. */
static void
test_step_timeout(InbandFx *fx, gconstpointer data)
{
	g_autofree gchar *dir = g_build_filename(fx->os_dir, "hangs", "untrusted", NULL);
	g_autofree gchar *master = gnt_test_cluster_dup_master(&fx->cluster);
	g_autofree gchar *op = NULL;
	g_autofree gchar *text = NULL;
	g_autofree gchar *log = NULL;
	g_autoptr(JsonArray) row = NULL;
	const gchar *order[] = {
		"install step run_os_scripts (70): started",
		"install step run_os_scripts (70): failed",
		"install steps not run: personalize, prepare_boot, appliance.zero_disk_start "
		"[CUSTOM_SLOW#1], tear_down_appliance",
		NULL,
	};
	gint64 t0;

	/* the OS "hangs": its create script never ends */
	g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
	{
		g_autofree gchar *os = g_path_get_dirname(dir);
		const gchar *never = "#!/bin/sh\nexit 1\n";

		gnt_test_write_file(os, "ganeti_api_version", "20\n", 0644);
		gnt_test_write_file(os, "variants.list", "default\n", 0644);
		gnt_test_write_file(os, "parameters.list", "", 0644);
		gnt_test_write_file(os, "create", never, 0755);
		gnt_test_write_file(os, "export", never, 0755);
		gnt_test_write_file(os, "import", never, 0755);
		gnt_test_write_file(os, "rename", never, 0755);
		gnt_test_write_file(os, "verify", "#!/bin/sh\nexit 0\n", 0755);
	}
	gnt_test_write_file(dir, "create", "#!/bin/sh\necho hanging\nsleep 617\n", 0755);
	row = gnt_test_cluster_run_op(
		&fx->cluster, "{\"OP_ID\": \"OP_CLUSTER_SET_PARAMS\", \"install_timeout\": 3}", 60);
	gnt_test_cluster_assert_success(row);
	g_clear_pointer(&row, json_array_unref);
	g_assert_cmpint(GNT_TEST_CLUSTER_RUN(
				&fx->cluster, "GNT_TEST_GNT_TEMPLATE", "add", "--steps",
				"[{\"interface\": \"appliance\", \"step\": \"zero_disk_start\","
				" \"args\": {\"disk\": 0, \"timeout\": 60}, \"priority\": 45}]",
				"CUSTOM_SLOW"),
			==, 0);
	op = g_strdup_printf("{\"OP_ID\": \"OP_TAGS_SET\", \"kind\": \"node\", \"name\": \"%s\","
			     " \"tags\": [\"CUSTOM_SLOW\"]}",
			     master);
	row = gnt_test_cluster_run_op(&fx->cluster, op, 60);
	gnt_test_cluster_assert_success(row);
	g_clear_pointer(&row, json_array_unref);

	t0 = g_get_monotonic_time();
	row = gnt_test_cluster_run_op(
		&fx->cluster,
		"{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": \"slow.example.com\","
		" \"mode\": \"create\", \"hypervisor\": \"fake\", \"disk_template\": \"file\","
		" \"disks\": [{\"size\": 8}], \"nics\": [], \"os_type\": \"hangs+default\","
		" \"start\": false, \"enable_safe_install\": true, \"tags\": [\"CUSTOM_SLOW\"]}",
		JOB_TIMEOUT_S);
	g_test_message("the install that timed out took %.2f s",
		       (gdouble)(g_get_monotonic_time() - t0) / G_USEC_PER_SEC);
	text = gnt_test_cluster_row_to_string(row);
	g_assert_cmpstr(json_array_get_string_element(row, 0), ==, "error");
	gnt_test_assert_contains(text, "install step 'run_os_scripts' failed: ");
	gnt_test_assert_contains(text, "the create script timed out after 3 s; its output ended "
				       "with: hanging");
	log = gnt_test_job_log_text(row);
	gnt_test_assert_in_order(log, order);
	/* the step's 3 s, not the session's 60 */
	g_assert_cmpint(g_get_monotonic_time() - t0, <, 40 * G_USEC_PER_SEC);
	/* the script's child went with the agent */
	g_assert_cmpint(system("pgrep -x -f 'sleep 617' >/dev/null"), !=, 0);
	g_assert_cmpint(gnt_test_cluster_count_instances(&fx->cluster, "slow.example.com"), ==, 0);
}

/* The instance's record as the config keeps it, by the fields a change
 * would move: serial_no, mtime, os, tags. (transfer full) */
static gchar *
dup_record_facts(InbandFx *fx, const gchar *name)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) fields = json_array_new();
	g_autoptr(JsonNode) result = NULL;
	JsonArray *data;

	json_array_add_string_element(fields, "name");
	json_array_add_string_element(fields, "serial_no");
	json_array_add_string_element(fields, "mtime");
	json_array_add_string_element(fields, "os");
	json_array_add_string_element(fields, "tags");
	result = gnt_luxi_client_query(fx->cluster.client, "instance", fields, NULL, &error);
	g_assert_no_error(error);
	data = json_object_get_array_member(json_node_get_object(result), "data");
	for (guint i = 0; i < json_array_get_length(data); i++) {
		JsonArray *row = json_array_get_array_element(data, i);
		JsonArray *cell = json_array_get_array_element(row, 0);

		if (g_strcmp0(json_array_get_string_element(cell, 1), name) == 0) {
			g_autoptr(JsonNode) node = json_node_alloc();

			json_node_init_array(node, row);
			return gnt_json_to_string(node);
		}
	}
	g_error("no instance '%s' in the config", name);
}

static gint
compare_paths(gconstpointer a, gconstpointer b)
{
	return g_strcmp0(*(const gchar *const *)a, *(const gchar *const *)b);
}

/* The files of @name's disks with their sizes and modification times, one
 * a line ("" for none). (transfer full) */
static gchar *
dup_disk_files(InbandFx *fx, const gchar *name)
{
	g_autofree gchar *dir = gnt_test_cluster_dup_file_storage_dir(&fx->cluster);
	g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GString) out = g_string_new(NULL);

	gnt_test_cluster_list_files(dir, files);
	g_ptr_array_sort(files, compare_paths);
	for (guint i = 0; i < files->len; i++) {
		const gchar *path = g_ptr_array_index(files, i);
		GStatBuf st;

		if (strstr(path, name) == NULL)
			continue;
		g_assert_cmpint(g_stat(path, &st), ==, 0);
		g_string_append_printf(out, "%s %" G_GINT64_FORMAT " %ld.%09ld\n", path,
				       (gint64)st.st_size, (long)st.st_mtim.tv_sec,
				       (long)st.st_mtim.tv_nsec);
	}
	return g_string_free(g_steal_pointer(&out), FALSE);
}

/* The add of @name on fake with two disks the mirror template fits,
 * tagged @tag. (transfer full) */
static gchar *
mirror_create_op(const gchar *name, const gchar *tag)
{
	return g_strdup_printf(
		"{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": \"%s\","
		" \"mode\": \"create\", \"hypervisor\": \"fake\", \"disk_template\": \"file\","
		" \"disks\": [{\"size\": 600}, {\"size\": 600}], \"nics\": [],"
		" \"os_type\": \"" OS_NAME "+default\", \"start\": false,"
		" \"enable_safe_install\": true, \"tags\": [\"%s\"]}",
		name, tag);
}

/* Runs @op (@what: "the add", ...) of an instance tagged with the shipped
 * mirror template on fake: refused in its checks, naming the template, the
 * first step and why, before any install step. */
static void
assert_mirror_refused(InbandFx *fx, const gchar *op, const gchar *what)
{
	g_autoptr(JsonArray) row = gnt_test_cluster_run_op(&fx->cluster, op, JOB_TIMEOUT_S);
	g_autofree gchar *text = gnt_test_cluster_row_to_string(row);

	g_test_message("%s with the mirror on fake: %s", what, text);
	g_assert_cmpstr(json_array_get_string_element(row, 0), ==, "error");
	gnt_test_assert_contains(
		text, "template 'CUSTOM_RAID1_LVM', step 1 (appliance.wipe_disks): hypervisor "
		      "'fake' runs the in-band steps on the node itself, not in an install "
		      "appliance VM, and this step runs only inside that VM: on the node it would "
		      "act on the node's own disks");
	gnt_test_assert_lacks(text, "install step");
}

/* The storage layout's steps need the install appliance's VM; the fake
 * hypervisor runs the agent on the node itself, where they would act on
 * the node's disks. So an install that would run them on fake is refused
 * when its plan is built, naming the template, the step and the reason:
 * an add with the shipped mirror template (CUSTOM_RAID1_LVM) leaves no
 * instance and no disk, a reinstall with it leaves the record and the
 * disks as they were; an in-band template without storage steps installs
 * the same instance on fake. A storage template added on this cluster
 * (fake alone enabled) is stored with a warning saying so. */
static void
test_fake_storage_refused(InbandFx *fx, gconstpointer data)
{
	const gchar *name = "mirror.example.com";
	g_autofree gchar *op = NULL;
	g_autofree gchar *text = NULL;
	g_autofree gchar *log = NULL;
	g_autofree gchar *facts = NULL;
	g_autofree gchar *facts_after = NULL;
	g_autofree gchar *disks = NULL;
	g_autofree gchar *disks_after = NULL;
	g_autoptr(JsonArray) row = NULL;

	gnt_test_cluster_tag_master(&fx->cluster, "CUSTOM_RAID1_LVM");
	gnt_test_cluster_tag_master(&fx->cluster, "CUSTOM_ZERO");
	g_assert_cmpint(GNT_TEST_CLUSTER_RUN(&fx->cluster, "GNT_TEST_GNT_TEMPLATE", "add",
					     "--steps",
					     "[{\"interface\": \"appliance\", \"step\":"
					     " \"zero_disk_start\", \"args\": {\"disk\": 1},"
					     " \"priority\": 95}]",
					     "CUSTOM_ZERO"),
			==, 0);

	/* the add: refused before a disk or a record is made */
	op = mirror_create_op(name, "CUSTOM_RAID1_LVM");
	assert_mirror_refused(fx, op, "the add");
	g_assert_cmpuint(gnt_test_cluster_count_instances(&fx->cluster, name), ==, 0);
	disks = dup_disk_files(fx, name);
	g_assert_cmpstr(disks, ==, "");

	/* an in-band template without storage steps installs it on fake */
	g_clear_pointer(&op, g_free);
	op = mirror_create_op(name, "CUSTOM_ZERO");
	row = gnt_test_cluster_run_op(&fx->cluster, op, JOB_TIMEOUT_S);
	gnt_test_cluster_assert_success(row);
	log = gnt_test_job_log_text(row);
	gnt_test_assert_contains(log,
				 "install step appliance.zero_disk_start [CUSTOM_ZERO#1] (95): "
				 "done");

	/* the reinstall with the mirror: refused, nothing changed */
	g_clear_pointer(&op, g_free);
	g_clear_pointer(&row, json_array_unref);
	op = g_strdup_printf("{\"OP_ID\": \"OP_TAGS_SET\", \"kind\": \"instance\","
			     " \"name\": \"%s\", \"tags\": [\"CUSTOM_RAID1_LVM\"]}",
			     name);
	row = gnt_test_cluster_run_op(&fx->cluster, op, 60);
	gnt_test_cluster_assert_success(row);
	facts = dup_record_facts(fx, name);
	g_clear_pointer(&disks, g_free);
	disks = dup_disk_files(fx, name);
	g_assert_cmpstr(disks, !=, "");
	g_clear_pointer(&op, g_free);
	op = g_strdup_printf("{\"OP_ID\": \"OP_INSTANCE_REINSTALL\", \"instance_name\": \"%s\","
			     " \"enable_safe_install\": true}",
			     name);
	assert_mirror_refused(fx, op, "the reinstall");
	facts_after = dup_record_facts(fx, name);
	g_assert_cmpstr(facts_after, ==, facts);
	disks_after = dup_disk_files(fx, name);
	g_assert_cmpstr(disks_after, ==, disks);

	/* a storage template added here: stored, with the warning */
	text = template_op(fx, "ADD", "CUSTOM_WIPE",
			   "[{\"interface\": \"appliance\", \"step\": \"wipe_disks\","
			   " \"args\": {}, \"priority\": 99}]");
	gnt_test_assert_contains(text, "[\"success\"");
	gnt_test_assert_contains(text,
				 "WARNING: install template 'CUSTOM_WIPE', step 1 "
				 "(appliance.wipe_disks) runs only inside the install "
				 "appliance's VM, and no hypervisor the cluster enables boots "
				 "one: installs with this template are refused until one that "
				 "does is enabled (kvm)");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/system/inband/fake", InbandFx, "fake", inband_set_up, test_install,
		   inband_tear_down);
	g_test_add("/system/inband/fake+image", InbandFx, "fake+image", inband_set_up, test_install,
		   inband_tear_down);
	g_test_add("/system/inband/node-catalogue", InbandFx, "fake", inband_set_up,
		   test_node_catalogue, inband_tear_down);
	g_test_add("/system/inband/fake-step-timeout", InbandFx, "fake", inband_set_up,
		   test_step_timeout, inband_tear_down);
	g_test_add("/system/inband/fake-storage-refused", InbandFx, "fake", inband_set_up,
		   test_fake_storage_refused, inband_tear_down);
	g_test_add("/system/inband/kvm", InbandFx, "kvm", inband_set_up, test_install,
		   inband_tear_down);
	g_test_add("/system/inband/kvm+image", InbandFx, "kvm+image", inband_set_up, test_install,
		   inband_tear_down);
	return g_test_run();
}
