#pragma once

/*
 * A real one-node cluster for the system and end-to-end tests: the daemons
 * as gnt-cluster init starts them, on a temporary root, driven through LUXI
 * as any client would.
 *
 * Needs in the environment: GNT_TEST_GNT_CLUSTER, GNT_TEST_GANTRY_DAEMONS
 * and GANTRY_DAEMON_DIR (cluster_test_env in tests/system/meson.build).
 * Include it first: it asks for _GNU_SOURCE (strverscmp).
 */

#define _GNU_SOURCE
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "gnt-error.h"
#include "gnt-hypervisor.h"
#include "gnt-json.h"
#include "gnt-luxi-client.h"
#include "gnt-paths.h"
#include "gnt-test-util.h"

typedef struct {
	gchar *root;
	gchar *name;
	gchar *boot_dir; /* gnt_test_cluster_init_kvm(): kernels and initrds, 0755 */
	gchar *kernel;	 /* its 0644 copy of the kernel */
	GntPaths *paths;
	GntLuxiClient *client;
	gboolean running;
	GSubprocess *reaper;
} GntTestCluster;

/* Runs the program named by $@env_var with @args[0], --root and the rest
 * of @args; its exit status. Its output goes to the test's log, and its
 * standard output to *@out too if @out is not NULL. */
static inline gint
gnt_test_cluster_run_full(GntTestCluster *self, const gchar *env_var, const gchar *const *args,
			  gchar **out)
{
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_autoptr(GError) error = NULL;
	g_autofree gchar *std_out = NULL;
	g_autofree gchar *std_err = NULL;
	gint wait_status = 0;

	g_ptr_array_add(argv, (gpointer)g_getenv(env_var));
	g_assert_nonnull(argv->pdata[0]);
	g_ptr_array_add(argv, (gpointer)args[0]);
	g_ptr_array_add(argv, (gpointer) "--root");
	g_ptr_array_add(argv, self->root);
	for (guint i = 1; args[i] != NULL; i++)
		g_ptr_array_add(argv, (gpointer)args[i]);
	g_ptr_array_add(argv, NULL);
	g_assert_true(g_spawn_sync(NULL, (gchar **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
				   &std_out, &std_err, &wait_status, &error));
	g_assert_no_error(error);
	g_test_message("%s %s: %s%s", env_var, args[0], std_out, std_err);
	if (out != NULL)
		*out = g_steal_pointer(&std_out);
	return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128;
}

static inline gint
gnt_test_cluster_run(GntTestCluster *self, const gchar *env_var, const gchar *const *args)
{
	return gnt_test_cluster_run_full(self, env_var, args, NULL);
}

#define GNT_TEST_CLUSTER_RUN(c, var, ...)                                                          \
	gnt_test_cluster_run(c, var, (const gchar *const[]){__VA_ARGS__, NULL})

static inline void
gnt_test_cluster_stop(GntTestCluster *self)
{
	g_clear_object(&self->client);
	g_assert_cmpint(GNT_TEST_CLUSTER_RUN(self, "GNT_TEST_GANTRY_DAEMONS", "stop"), ==, 0);
	self->running = FALSE;
}

/*
 * A failed assertion aborts a test before its tear-down. A reaper is a
 * shell that waits for the test to end (its stdin is a pipe only the test
 * holds), then runs @commands: what the tear-down would have undone. After
 * a normal tear-down they find nothing left to do. (transfer full)
 */
static inline GSubprocess *
gnt_test_reaper_new(const gchar *commands)
{
	g_autoptr(GError) error = NULL;
	g_autofree gchar *script = g_strconcat("cat >/dev/null; ", commands, NULL);
	GSubprocess *reaper =
		g_subprocess_new(G_SUBPROCESS_FLAGS_STDIN_PIPE, &error, "sh", "-c", script, NULL);

	g_assert_no_error(error);
	return reaper;
}

/* Ends the test's side of the pipe and waits for the reaper's commands. */
static inline void
gnt_test_reaper_finish(GSubprocess **reaper)
{
	if (*reaper == NULL)
		return;
	g_output_stream_close(g_subprocess_get_stdin_pipe(*reaper), NULL, NULL);
	g_subprocess_wait(*reaper, NULL, NULL);
	g_clear_object(reaper);
}

/* The cluster's reaper: stops the daemons, destroys its domains, removes
 * the root (unless $GNT_TEST_KEEP_ROOT is set). */
static inline void
gnt_test_cluster_start_reaper(GntTestCluster *self)
{
	g_autofree gchar *boot = self->boot_dir != NULL
					 ? g_strdup_printf("rm -rf '%s';", self->boot_dir)
					 : g_strdup("");
	g_autofree gchar *commands = g_strdup_printf(
		"%s [ -d '%s' ] || exit 0;"
		" '%s' stop --root '%s' >/dev/null 2>&1;"
		" virsh -q -c %s list --name 2>/dev/null | grep '^%s%s-' |"
		" while read -r d; do virsh -q -c %s destroy \"$d\" >/dev/null 2>&1; done;"
		" [ -n \"$GNT_TEST_KEEP_ROOT\" ] || rm -rf '%s'",
		boot, self->root, g_getenv("GNT_TEST_GANTRY_DAEMONS"), self->root,
		GNT_HV_DEFAULT_URI, GNT_HV_DEFAULT_PREFIX, self->name, GNT_HV_DEFAULT_URI,
		self->root);

	self->reaper = gnt_test_reaper_new(commands);
}

/* gnt-cluster init @name on a fresh root, with @hypervisors enabled
 * ("kvm,fake"); the daemons run afterwards. The cluster name also makes
 * the hypervisor's domain prefix ("gnt-<name>-"), so give each run its
 * own. */
/* The OSes the tests install on the node: Debian's noop and debootstrap,
 * the test OS of tests/data/os-defs, and os-scripts/gantry-report. */
static const gchar *const gnt_test_cluster_trusted_os[] = {
	"noop",
	"debootstrap",
	"sample",
	"gantry-report",
};

static inline void
gnt_test_cluster_init(GntTestCluster *self, const gchar *name, const gchar *hypervisors)
{
	g_autoptr(GError) error = NULL;

	self->root = g_dir_make_tmp("gtc-XXXXXX", &error);
	g_assert_no_error(error);
	self->name = g_strdup(name);
	self->paths = gnt_paths_new(self->root);
	gnt_test_cluster_start_reaper(self);
	/* noded on a free port: several clusters may share the machine; the
	 * OS scripts of the OSes the tests install run on the node (safe
	 * install off, those OSes trusted; an add or reinstall with
	 * --enable-safe-install yes uses the install appliance) */
	g_assert_cmpint(GNT_TEST_CLUSTER_RUN(self, "GNT_TEST_GNT_CLUSTER", "init", "--noded-port",
					     "0", "--enabled-hypervisors", hypervisors,
					     "--enable-safe-install", "no", name),
			==, 0);
	for (guint i = 0; i < G_N_ELEMENTS(gnt_test_cluster_trusted_os); i++)
		g_assert_cmpint(GNT_TEST_CLUSTER_RUN(self, "GNT_TEST_GNT_OS", "modify", "--trusted",
						     "yes", gnt_test_cluster_trusted_os[i]),
				==, 0);
	self->running = TRUE;
	self->client = gnt_luxi_client_new(gnt_paths_get_luxi_socket(self->paths), &error);
	g_assert_no_error(error);
}

/* The cluster's running kvm domains (libvirt's, under its prefix
 * "gnt-<name>-"), names without the prefix. (transfer full) */
static inline GPtrArray *
gnt_test_cluster_list_domains(GntTestCluster *self, GntHypervisor **hv_out)
{
	g_autofree gchar *prefix = g_strdup_printf("%s%s-", GNT_HV_DEFAULT_PREFIX, self->name);
	g_autoptr(GError) error = NULL;
	g_autoptr(GntHypervisor) hv = gnt_hypervisor_new("kvm", GNT_HV_DEFAULT_URI, prefix, &error);
	GPtrArray *names = hv != NULL ? gnt_hypervisor_list(hv, &error) : NULL;

	if (names == NULL)
		g_test_message("listing domains: %s", error->message);
	if (hv_out != NULL)
		*hv_out = g_steal_pointer(&hv);
	return names;
}

static inline guint
gnt_test_cluster_count_domains(GntTestCluster *self)
{
	g_autoptr(GPtrArray) names = gnt_test_cluster_list_domains(self, NULL);

	if (names == NULL)
		g_error("cannot list the cluster's domains");
	return names->len;
}

/* Domains left by a failed test: destroyed, so the next run starts clean. */
static inline void
gnt_test_cluster_destroy_domains(GntTestCluster *self)
{
	g_autoptr(GntHypervisor) hv = NULL;
	g_autoptr(GPtrArray) names = gnt_test_cluster_list_domains(self, &hv);

	for (guint i = 0; names != NULL && i < names->len; i++) {
		g_test_message("destroying leftover domain of instance %s",
			       (const gchar *)names->pdata[i]);
		gnt_hypervisor_destroy(hv, names->pdata[i], NULL);
	}
}

static inline void
gnt_test_cluster_clear(GntTestCluster *self)
{
	if (self->root == NULL)
		return;
	gnt_test_cluster_destroy_domains(self);
	if (self->running)
		gnt_test_cluster_stop(self);
	if (g_getenv("GNT_TEST_KEEP_ROOT") != NULL) {
		g_test_message("kept the cluster root %s", self->root);
	} else {
		g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", self->root);

		g_assert_cmpint(system(cmd), ==, 0);
	}
	if (self->boot_dir != NULL) {
		g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", self->boot_dir);

		g_assert_cmpint(system(cmd), ==, 0);
	}
	g_clear_pointer(&self->paths, gnt_paths_free);
	g_clear_pointer(&self->root, g_free);
	g_clear_pointer(&self->name, g_free);
	g_clear_pointer(&self->boot_dir, g_free);
	g_clear_pointer(&self->kernel, g_free);
	gnt_test_reaper_finish(&self->reaper);
}

static inline JsonNode *
gnt_test_cluster_call(GntTestCluster *self, const gchar *method, const gchar *args_json,
		      GError **error)
{
	g_autoptr(JsonNode) args = gnt_json_parse(args_json, -1, NULL);

	g_assert_nonnull(args);
	return gnt_luxi_client_call(self->client, method, args, error);
}

/* gnt-cluster modify --os-search-path @dir, normalised (the search path
 * takes normalised absolute directories only). */
static inline void
gnt_test_cluster_set_os_search_path(GntTestCluster *self, const gchar *dir)
{
	g_autofree gchar *normal = g_canonicalize_filename(dir, NULL);

	g_assert_cmpint(GNT_TEST_CLUSTER_RUN(self, "GNT_TEST_GNT_CLUSTER", "modify",
					     "--os-search-path", normal),
			==, 0);
}

static inline void
gnt_test_remove_tree(const gchar *dir)
{
	g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", dir);

	g_assert_cmpint(system(cmd), ==, 0);
}

/* A test OS @os_name under @os_dir: API 20, @parameters (parameters.list's
 * text), @create as its create script, the other scripts doing nothing. */
static inline void
gnt_test_make_os(const gchar *os_dir, const gchar *os_name, const gchar *parameters,
		 const gchar *create)
{
	g_autofree gchar *os = g_build_filename(os_dir, os_name, NULL);
	static const gchar *const trivial[] = {"export", "import", "rename", "verify"};

	g_assert_cmpint(g_mkdir_with_parents(os, 0755), ==, 0);
	gnt_test_write_file(os, "ganeti_api_version", "20\n", 0644);
	gnt_test_write_file(os, "parameters.list", parameters, 0644);
	for (guint i = 0; i < G_N_ELEMENTS(trivial); i++)
		gnt_test_write_file(os, trivial[i], "#!/bin/sh\nexit 0\n", 0755);
	gnt_test_write_file(os, "create", create, 0755);
}

/* gnt_test_cluster_init() with the fake hypervisor, whose OS search path
 * is @os_dir and which trusts @os_name there. */
static inline void
gnt_test_cluster_init_with_os(GntTestCluster *self, const gchar *name, const gchar *os_dir,
			      const gchar *os_name)
{
	gnt_test_cluster_init(self, name, "fake");
	gnt_test_cluster_set_os_search_path(self, os_dir);
	g_assert_cmpint(GNT_TEST_CLUSTER_RUN(self, "GNT_TEST_GNT_OS", "modify", "--trusted", "yes",
					     os_name),
			==, 0);
}

#define GNT_TEST_WAIT_STEP_US (50 * 1000)

/* The contents of @path once it exists (a script writes it), waiting up to
 * @limit_s. (transfer full) */
static inline gchar *
gnt_test_wait_file(const gchar *path, guint limit_s)
{
	for (guint i = 0; i < limit_s * G_USEC_PER_SEC / GNT_TEST_WAIT_STEP_US; i++) {
		gchar *text = NULL;

		if (g_file_get_contents(path, &text, NULL, NULL))
			return text;
		g_usleep(GNT_TEST_WAIT_STEP_US);
	}
	g_error("'%s' never appeared", path);
}

/* The pid of the cluster's @daemon ("gantry-noded"), from its pid file. */
static inline GPid
gnt_test_cluster_daemon_pid(GntTestCluster *self, const gchar *daemon)
{
	g_autofree gchar *path = gnt_paths_dup_pid_file(self->paths, daemon);
	g_autofree gchar *text = NULL;

	g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
	return (GPid)g_ascii_strtoll(text, NULL, 10);
}

/* The master node's name, as QueryClusterInfo says. (transfer full) */
static inline gchar *
gnt_test_cluster_dup_master(GntTestCluster *self)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) info = gnt_test_cluster_call(self, "QueryClusterInfo", "[]", &error);

	g_assert_no_error(error);
	return g_strdup(json_object_get_string_member(json_node_get_object(info), "master"));
}

/* The job's row [status, opresult, oplog] once it has ended, within
 * @timeout_s. */
static inline JsonArray *
gnt_test_cluster_wait_job(GntTestCluster *self, guint64 id, guint timeout_s)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_s * G_USEC_PER_SEC;
	g_autofree gchar *args = g_strdup_printf(
		"[[%" G_GUINT64_FORMAT "], [\"status\", \"opresult\", \"oplog\"]]", id);

	for (;;) {
		g_autoptr(GError) error = NULL;
		g_autoptr(JsonNode) rows = gnt_test_cluster_call(self, "QueryJobs", args, &error);
		JsonArray *row;
		const gchar *status;

		g_assert_no_error(error);
		row = json_array_get_array_element(json_node_get_array(rows), 0);
		status = json_array_get_string_element(row, 0);
		if (g_strcmp0(status, "success") == 0 || g_strcmp0(status, "error") == 0 ||
		    g_strcmp0(status, "canceled") == 0)
			return json_array_ref(row);
		if (g_get_monotonic_time() > deadline)
			g_error("job %" G_GUINT64_FORMAT " still '%s' after %u s", id, status,
				timeout_s);
		g_usleep(100 * 1000); /* no event to wait on over plain QueryJobs */
	}
}

/* Submits one opcode (JSON) and waits for its end: the row of
 * gnt_test_cluster_wait_job(), which also goes to the test log when @log. */
static inline JsonArray *
gnt_test_cluster_run_op_full(GntTestCluster *self, const gchar *op_json, guint timeout_s,
			     gboolean log)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) op = gnt_json_parse(op_json, -1, &error);
	g_autoptr(JsonArray) ops = json_array_new();
	g_autoptr(JsonNode) row_node = NULL;
	g_autofree gchar *text = NULL;
	guint64 id = 0;
	JsonArray *row;

	g_assert_no_error(error);
	json_array_add_element(ops, g_steal_pointer(&op));
	g_assert_true(gnt_luxi_client_submit_job(self->client, ops, &id, &error));
	g_assert_no_error(error);
	row = gnt_test_cluster_wait_job(self, id, timeout_s);
	row_node = json_node_init_array(json_node_alloc(), row);
	text = gnt_json_to_string(row_node);
	if (log || g_strcmp0(json_array_get_string_element(row, 0), "success") != 0)
		g_test_message("job %" G_GUINT64_FORMAT ": %s", id, text);
	return row;
}

static inline JsonArray *
gnt_test_cluster_run_op(GntTestCluster *self, const gchar *op_json, guint timeout_s)
{
	return gnt_test_cluster_run_op_full(self, op_json, timeout_s, TRUE);
}

/* The row as one string, for assertions on messages. */
static inline gchar *
gnt_test_cluster_row_to_string(JsonArray *row)
{
	g_autoptr(JsonNode) node = json_node_init_array(json_node_alloc(), row);

	return gnt_json_to_string(node);
}

static inline void
gnt_test_cluster_assert_success(JsonArray *row)
{
	if (g_strcmp0(json_array_get_string_element(row, 0), "success") != 0) {
		g_autofree gchar *text = gnt_test_cluster_row_to_string(row);
		g_error("the job failed: %s", text);
	}
}

/* Tags the master node with @tag (an install template's name: the node
 * allows the template so), and checks that it took. */
static inline void
gnt_test_cluster_tag_master(GntTestCluster *self, const gchar *tag)
{
	g_autofree gchar *master = gnt_test_cluster_dup_master(self);
	g_autofree gchar *op =
		g_strdup_printf("{\"OP_ID\": \"OP_TAGS_SET\", \"kind\": \"node\", \"name\": \"%s\","
				" \"tags\": [\"%s\"]}",
				master, tag);
	g_autoptr(JsonArray) tagged = gnt_test_cluster_run_op(self, op, 300);

	gnt_test_cluster_assert_success(tagged);
}

/* How many instances the cluster's config holds named @name. */
static inline guint
gnt_test_cluster_count_instances(GntTestCluster *self, const gchar *name)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonArray) fields = json_array_new();
	g_autoptr(JsonNode) result = NULL;
	JsonArray *data;
	guint n = 0;

	json_array_add_string_element(fields, "name");
	result = gnt_luxi_client_query(self->client, "instance", fields, NULL, &error);
	g_assert_no_error(error);
	data = json_object_get_array_member(json_node_get_object(result), "data");
	for (guint i = 0; i < json_array_get_length(data); i++) {
		JsonArray *cell =
			json_array_get_array_element(json_array_get_array_element(data, i), 0);
		if (g_strcmp0(json_array_get_string_element(cell, 1), name) == 0)
			n++;
	}
	return n;
}

/* OP_INSTANCE_REMOVE of @name; afterwards neither its record nor @disk
 * (a disk file it had) exists. */
static inline void
gnt_test_cluster_remove_instance(GntTestCluster *self, const gchar *name, const gchar *disk)
{
	g_autofree gchar *op =
		g_strdup_printf("{\"OP_ID\": \"OP_INSTANCE_REMOVE\", \"instance_name\": \"%s\","
				" \"shutdown_timeout\": 3}",
				name);
	g_autoptr(JsonArray) row = gnt_test_cluster_run_op(self, op, 300);

	gnt_test_cluster_assert_success(row);
	g_assert_false(g_file_test(disk, G_FILE_TEST_EXISTS));
	g_assert_cmpuint(gnt_test_cluster_count_instances(self, name), ==, 0);
}

/* Every regular file under @dir (recursively), as paths. */
static inline void
gnt_test_cluster_list_files(const gchar *dir, GPtrArray *out)
{
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	const gchar *entry;

	while (d != NULL && (entry = g_dir_read_name(d)) != NULL) {
		g_autofree gchar *path = g_build_filename(dir, entry, NULL);

		if (g_file_test(path, G_FILE_TEST_IS_DIR) &&
		    !g_file_test(path, G_FILE_TEST_IS_SYMLINK))
			gnt_test_cluster_list_files(path, out);
		else
			g_ptr_array_add(out, g_steal_pointer(&path));
	}
}

/* The cluster's file storage directory (<root>/srv/gantry/file-storage). */
static inline gchar *
gnt_test_cluster_dup_file_storage_dir(GntTestCluster *self)
{
	return g_build_filename(self->root, "srv", "gantry", "file-storage", NULL);
}

/*
 * Asks for @instance's console (OP_INSTANCE_CONSOLE) every second until
 * @needle shows up, for at most @timeout_s; the seconds it took, or -1.
 * The answer carries the serial log's first lines; the whole log is read
 * too when this machine can (the one node is this machine), since a
 * booting system prints more lines than the answer holds.
 */
static inline gdouble
gnt_test_cluster_wait_console(GntTestCluster *self, const gchar *instance, const gchar *needle,
			      guint timeout_s)
{
	gint64 start = g_get_monotonic_time();
	gint64 deadline = start + (gint64)timeout_s * G_USEC_PER_SEC;
	g_autofree gchar *op = g_strdup_printf(
		"{\"OP_ID\": \"OP_INSTANCE_CONSOLE\", \"instance_name\": \"%s\"}", instance);

	while (g_get_monotonic_time() < deadline) {
		g_autoptr(JsonArray) row = gnt_test_cluster_run_op_full(self, op, 60, FALSE);
		JsonObject *console;
		JsonArray *lines;
		const gchar *log = NULL;

		gnt_test_cluster_assert_success(row);
		console = json_array_get_object_element(json_array_get_array_element(row, 1), 0);
		lines = json_object_get_array_member(console, "lines");
		for (guint i = 0; i < json_array_get_length(lines); i++) {
			if (strstr(json_array_get_string_element(lines, i), needle) != NULL)
				return (gdouble)(g_get_monotonic_time() - start) / G_USEC_PER_SEC;
		}
		if (json_object_has_member(console, "log") &&
		    !json_node_is_null(json_object_get_member(console, "log")))
			log = json_object_get_string_member(console, "log");
		if (log != NULL && gnt_test_file_contains(log, needle))
			return (gdouble)(g_get_monotonic_time() - start) / G_USEC_PER_SEC;
		g_usleep(G_USEC_PER_SEC); /* the guest writes; nothing to wait on but the log */
	}
	return -1;
}

/* Why the kvm hypervisor cannot be used here (libvirtd not answering at
 * qemu:///system), or NULL when it can. (transfer full) */
static inline gchar *
gnt_test_dup_libvirt_missing(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GntHypervisor)
		hv = gnt_hypervisor_new("kvm", GNT_HV_DEFAULT_URI, "gnt-probe-", &error);
	g_autoptr(GPtrArray) names = hv != NULL ? gnt_hypervisor_list(hv, &error) : NULL;

	if (names == NULL)
		return g_strdup_printf(
			"libvirtd is not reachable at %s (run scripts/libvirt-up): %s",
			GNT_HV_DEFAULT_URI, error->message);
	return NULL;
}

/* Copies @source to @dest with mode 0644, so qemu reads it whichever user
 * qemu.conf gives it, and libvirt's relabelling never touches /boot. */
static inline void
gnt_test_install_0644(const gchar *source, const gchar *dest)
{
	const gchar *argv[] = {"install", "-m", "0644", source, dest, NULL};

	gnt_test_run_checked(argv);
}

/* gnt_test_cluster_init() with the kvm and fake hypervisors enabled and a
 * 0644 copy of @kernel in self->boot_dir for the guests. */
static inline void
gnt_test_cluster_init_kvm(GntTestCluster *self, const gchar *name, const gchar *kernel)
{
	g_autoptr(GError) error = NULL;

	self->boot_dir = g_dir_make_tmp("gtb-XXXXXX", &error);
	g_assert_no_error(error);
	g_assert_cmpint(g_chmod(self->boot_dir, 0755), ==, 0);
	self->kernel = g_build_filename(self->boot_dir, "vmlinuz", NULL);
	gnt_test_install_0644(kernel, self->kernel);
	gnt_test_cluster_init(self, name, "kvm,fake");
}

/* The job log's messages of a job's row, one a line. (transfer full) */
static inline gchar *
gnt_test_job_log_text(JsonArray *row)
{
	JsonArray *oplog = json_array_get_array_element(row, 2);
	g_autoptr(GString) text = g_string_new(NULL);

	for (guint i = 0; i < json_array_get_length(oplog); i++) {
		JsonArray *entries = json_array_get_array_element(oplog, i);

		for (guint k = 0; k < json_array_get_length(entries); k++) {
			JsonNode *message =
				json_array_get_element(json_array_get_array_element(entries, k), 3);

			if (JSON_NODE_HOLDS_VALUE(message))
				g_string_append_printf(text, "%s\n", json_node_get_string(message));
		}
	}
	return g_string_free(g_steal_pointer(&text), FALSE);
}

/* The channel taps (doc/metad.md: gnt.com.N) that serve an instance of
 * @self: noded names each tap after its instance's domain (its alias), so
 * other clusters' taps on the same machine do not count. */
static inline guint
gnt_test_cluster_count_taps(GntTestCluster *self)
{
	g_autofree gchar *prefix = g_strdup_printf("%s%s-", GNT_HV_DEFAULT_PREFIX, self->name);
	g_autoptr(GDir) dir = g_dir_open("/sys/class/net", 0, NULL);
	const gchar *name;
	guint n = 0;

	while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
		g_autofree gchar *path = NULL;
		g_autofree gchar *alias = NULL;

		if (!g_str_has_prefix(name, "gnt.com."))
			continue;
		path = g_build_filename("/sys/class/net", name, "ifalias", NULL);
		if (g_file_get_contents(path, &alias, NULL, NULL) &&
		    g_str_has_prefix(alias, prefix))
			n++;
	}
	return n;
}

/* Whether libvirt still has a transient install domain (appliance or
 * kickstart installer) of @self: noded answers once qemu has exited and
 * leaves the domain's end to libvirt, so this waits up to 30 s. */
static inline gboolean
gnt_test_cluster_install_domain_left(GntTestCluster *self)
{
	g_autofree gchar *needle = g_strdup_printf("appliance-gnt-%s-", self->name);
	const gchar *argv[] = {"virsh", "-q",	 "-c",	   GNT_HV_DEFAULT_URI,
			       "list",	"--all", "--name", NULL};

	for (guint i = 0; i < 300; i++) {
		g_autofree gchar *out = NULL;

		g_assert_true(g_spawn_sync(NULL, (gchar **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL,
					   NULL, &out, NULL, NULL, NULL));
		if (strstr(out, needle) == NULL)
			return FALSE;
		g_usleep(100 * 1000); /* libvirt's cleanup: no event to wait on */
	}
	return TRUE;
}

/* gantry-daemons start: the daemons not running start again; a new LUXI
 * client (the old one's masterd may be gone). */
static inline void
gnt_test_cluster_start_daemons(GntTestCluster *self)
{
	g_autoptr(GError) error = NULL;

	g_clear_object(&self->client);
	g_assert_cmpint(GNT_TEST_CLUSTER_RUN(self, "GNT_TEST_GANTRY_DAEMONS", "start"), ==, 0);
	self->client = gnt_luxi_client_new(gnt_paths_get_luxi_socket(self->paths), &error);
	g_assert_no_error(error);
}

/* The last lines of @instance's serial console log, for a boot that did
 * not get where it should. */
static inline void
gnt_test_cluster_print_console(GntTestCluster *self, const gchar *instance)
{
	g_autofree gchar *name = g_strconcat(instance, ".log", NULL);
	g_autofree gchar *log =
		g_build_filename(self->root, "var", "log", "gantry", "console", name, NULL);
	g_autofree gchar *text = NULL;

	if (g_file_get_contents(log, &text, NULL, NULL))
		g_test_message("the serial console's log:\n%s",
			       strlen(text) > 6000 ? text + strlen(text) - 6000 : text);
}
