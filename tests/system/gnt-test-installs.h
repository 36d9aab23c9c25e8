#pragma once

/*
 * Many long installs at once on a real cluster (gnt-test-cluster.h): each
 * an add through the install appliance (safe install: with the fake
 * hypervisor the agent as a host process, with kvm the built appliance)
 * whose OS script sleeps as long as its "seconds" parameter says, so that
 * its job waits on the node in the appliance's session; and kill -9 of a
 * daemon meanwhile. For tests/system/test-detach.c, test-detach-kvm.c and
 * bench/bench-detach.c.
 */
#include "gnt-test-cluster.h"

#include <signal.h>

#include "gnt-test-process.h"

#define GNT_TEST_INSTALLS_OS "sleepy"

/* The OS under @os_dir: its create script waits $OSP_SECONDS, or less
 * once the file $OSP_GO exists (the fake hypervisor's agent runs on the
 * host, where the test makes it). */
static inline void
gnt_test_installs_make_os(const gchar *os_dir)
{
	gnt_test_make_os(os_dir, GNT_TEST_INSTALLS_OS,
			 "seconds how long the create script waits\n"
			 "go a file whose existence ends the wait\n"
			 "token a secret it does not use\n",
			 "#!/bin/sh\n"
			 "end=$(( $(date +%s) + ${OSP_SECONDS:-1} ))\n"
			 "while [ \"$(date +%s)\" -lt \"$end\" ]; do\n"
			 "\t[ -n \"${OSP_GO:-}\" ] && [ -e \"$OSP_GO\" ] && exit 0\n"
			 "\tsleep 1\n"
			 "done\n");
}

/* Submits one job of @op_json; its ID. */
static inline guint64
gnt_test_installs_submit(GntTestCluster *cluster, const gchar *op_json)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) op = gnt_json_parse(op_json, -1, &error);
	g_autoptr(JsonArray) ops = json_array_new();
	guint64 id = 0;

	g_assert_no_error(error);
	json_array_add_element(ops, g_steal_pointer(&op));
	g_assert_true(gnt_luxi_client_submit_job(cluster->client, ops, &id, &error));
	g_assert_no_error(error);
	return id;
}

/* The add of instance @name through the appliance of @hypervisor, its OS
 * script waiting @seconds, or until the file @go (nullable) exists;
 * @extra: more members (", ..."). */
static inline guint64
gnt_test_installs_submit_add(GntTestCluster *cluster, const gchar *name, const gchar *hypervisor,
			     guint seconds, const gchar *go, const gchar *extra)
{
	g_autofree gchar *op = g_strdup_printf(
		"{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": \"%s\", \"mode\": \"create\","
		" \"disk_template\": \"file\", \"disks\": [{\"size\": 4}], \"nics\": [],"
		" \"os_type\": \"" GNT_TEST_INSTALLS_OS "\", \"hypervisor\": \"%s\","
		" \"start\": false, \"enable_safe_install\": true,"
		" \"osparams\": {\"seconds\": \"%u\"%s%s%s}%s}",
		name, hypervisor, seconds, go != NULL ? ", \"go\": \"" : "", go != NULL ? go : "",
		go != NULL ? "\"" : "", extra != NULL ? extra : "");

	return gnt_test_installs_submit(cluster, op);
}

/* One field of job @id (QueryJobs). (transfer full) */
static inline JsonNode *
gnt_test_installs_job_field(GntTestCluster *cluster, guint64 id, const gchar *field)
{
	g_autofree gchar *args = g_strdup_printf("[[%" G_GUINT64_FORMAT "], [\"%s\"]]", id, field);
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) rows = gnt_test_cluster_call(cluster, "QueryJobs", args, &error);

	g_assert_no_error(error);
	return json_node_copy(json_array_get_element(
		json_array_get_array_element(json_node_get_array(rows), 0), 0));
}

static inline gchar *
gnt_test_installs_job_status(GntTestCluster *cluster, guint64 id)
{
	g_autoptr(JsonNode) status = gnt_test_installs_job_field(cluster, id, "status");

	return g_strdup(json_node_get_string(status));
}

/* Whether job @id's log shows its session in the OS script's step. */
static inline gboolean
gnt_test_installs_in_step(GntTestCluster *cluster, guint64 id)
{
	g_autoptr(JsonNode) log = gnt_test_installs_job_field(cluster, id, "oplog");
	g_autofree gchar *text = gnt_json_to_string(log);

	return strstr(text, "install step run_os_scripts (70): started") != NULL;
}

/* Waits (up to @limit_s) until every job of @ids is in its sleep step. */
static inline void
gnt_test_installs_wait_in_step(GntTestCluster *cluster, const guint64 *ids, guint n, guint limit_s)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)limit_s * G_USEC_PER_SEC;

	for (guint i = 0; i < n; i++) {
		while (!gnt_test_installs_in_step(cluster, ids[i])) {
			g_autofree gchar *status = gnt_test_installs_job_status(cluster, ids[i]);

			if (g_strcmp0(status, "running") != 0 && g_strcmp0(status, "queued") != 0 &&
			    g_strcmp0(status, "waiting") != 0)
				g_error("job %" G_GUINT64_FORMAT " ended (%s) before its session",
					ids[i], status);
			if (g_get_monotonic_time() > deadline)
				g_error("job %" G_GUINT64_FORMAT " not in its session after %u s",
					ids[i], limit_s);
			g_usleep(100 * 1000);
		}
	}
}

/* kill -9 of @cluster's @daemon ("gantry-masterd", "gantry-noded") while
 * job @id waits on the node, then the daemons started again; the job's row
 * once it has ended (up to @timeout_s). (transfer full) */
static inline JsonArray *
gnt_test_installs_kill9_and_wait(GntTestCluster *cluster, const gchar *daemon, guint64 id,
				 guint timeout_s)
{
	GPid pid = gnt_test_cluster_daemon_pid(cluster, daemon);

	g_assert_cmpint(kill(pid, SIGKILL), ==, 0);
	g_assert_true(gnt_test_process_ends(pid));
	gnt_test_cluster_start_daemons(cluster);
	return gnt_test_cluster_wait_job(cluster, id, timeout_s);
}

/* The same, where job @id of instance @name must fail with @message and
 * leave no instance: at once (@removal_s 0: the failed job removed it), or
 * within @removal_s (the recovery pass after a master restart removes it,
 * its disks once the session on them has ended). The job's row as one
 * string. (transfer full) */
static inline gchar *
gnt_test_installs_kill9_job_fails(GntTestCluster *cluster, const gchar *daemon, guint64 id,
				  guint timeout_s, const gchar *name, const gchar *message,
				  guint removal_s)
{
	g_autoptr(JsonArray) row = gnt_test_installs_kill9_and_wait(cluster, daemon, id, timeout_s);
	gchar *text = gnt_test_cluster_row_to_string(row);

	g_test_message("the job after kill -9 of %s: %s", daemon, text);
	g_assert_cmpstr(json_array_get_string_element(row, 0), ==, "error");
	gnt_test_assert_contains(text, message);
	for (guint i = 0; i < removal_s * 10 && gnt_test_cluster_count_instances(cluster, name) > 0;
	     i++)
		g_usleep(100 * 1000);
	g_assert_cmpuint(gnt_test_cluster_count_instances(cluster, name), ==, 0);
	return text;
}

/* A [seconds, microseconds] timestamp in µs. */
static inline gint64
gnt_test_installs_ts_usec(JsonNode *ts)
{
	JsonArray *pair = json_node_get_array(ts);

	return json_array_get_int_element(pair, 0) * G_USEC_PER_SEC +
	       json_array_get_int_element(pair, 1);
}

/* Runs an OP_TEST_DELAY(0) job to its end (success asserted); its
 * submit-to-done time by the job's own timestamps, in µs. */
static inline gint64
gnt_test_installs_delay_usec(GntTestCluster *cluster, guint timeout_s)
{
	guint64 id = gnt_test_installs_submit(cluster,
					      "{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 0}");
	g_autoptr(JsonArray) row = gnt_test_cluster_wait_job(cluster, id, timeout_s);
	g_autoptr(JsonNode) received = gnt_test_installs_job_field(cluster, id, "received_ts");
	g_autoptr(JsonNode) ended = gnt_test_installs_job_field(cluster, id, "end_ts");

	gnt_test_cluster_assert_success(row);
	return gnt_test_installs_ts_usec(ended) - gnt_test_installs_ts_usec(received);
}

/* ---- kickstart installs with the fake installer (tests/rpc/fake-installer.sh,
 * GANTRY_FAKE_INSTALLER in the environment) that hangs after "start" ---- */

#define GNT_TEST_INSTALLS_IMAGE "hang-ks"

/* The catalog image (a tarball, the installer's kernel and initrd as
 * files under @work) and the kickstart template hang.ks telling the fake
 * installer to hang after start. */
static inline void
gnt_test_installs_prepare_kickstart(GntTestCluster *cluster, const gchar *work)
{
	g_autofree gchar *ks_dir =
		g_build_filename(cluster->root, "etc", "gantry", "kickstart", NULL);
	g_autofree gchar *tarball = g_build_filename(work, "root.tar.gz", NULL);
	const gchar *contents = "a tarball of 27 bytes.....\n";
	g_autofree gchar *sha256 = g_compute_checksum_for_string(G_CHECKSUM_SHA256, contents, -1);
	g_autofree gchar *op = NULL;
	g_autoptr(JsonArray) row = NULL;

	g_assert_cmpint(g_mkdir_with_parents(ks_dir, 0700), ==, 0);
	gnt_test_write_file(ks_dir, "hang.ks", "# fake: hang\nautopart\n", 0600);
	gnt_test_write_file(work, "vmlinuz", "kernel\n", 0644);
	gnt_test_write_file(work, "initrd.img", "initrd\n", 0644);
	gnt_test_write_file(work, "root.tar.gz", contents, 0644);
	op = g_strdup_printf(
		"{\"OP_ID\": \"OP_IMAGE_ADD\", \"image_name\": \"" GNT_TEST_INSTALLS_IMAGE "\","
		" \"url\": \"%s\", \"format\": \"tarball\", \"sha256\": \"%s\","
		" \"os_distro\": \"Rocky\", \"os_version\": \"9.4\","
		" \"installer_kernel\": \"%s/vmlinuz\", \"installer_initrd\": \"%s/initrd.img\"}",
		tarball, sha256, work, work);
	row = gnt_test_cluster_run_op(cluster, op, 60);
	gnt_test_cluster_assert_success(row);
}

/* The kickstart add of @name with hang.ks (fake hypervisor). */
static inline guint64
gnt_test_installs_submit_kickstart(GntTestCluster *cluster, const gchar *name)
{
	g_autofree gchar *op = g_strdup_printf(
		"{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": \"%s\", \"mode\": \"create\","
		" \"hypervisor\": \"fake\", \"disk_template\": \"file\", \"disks\": [{\"size\": 4}],"
		" \"nics\": [], \"os_image\": \"" GNT_TEST_INSTALLS_IMAGE "\", \"start\": false,"
		" \"ks_template\": \"file://%s/etc/gantry/kickstart/hang.ks\"}",
		name, cluster->root);

	return gnt_test_installs_submit(cluster, op);
}

/* Waits (up to @limit_s) until job @id's log shows the installer's start. */
static inline void
gnt_test_installs_wait_started(GntTestCluster *cluster, guint64 id, guint limit_s)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)limit_s * G_USEC_PER_SEC;

	for (;;) {
		g_autoptr(JsonNode) log = gnt_test_installs_job_field(cluster, id, "oplog");
		g_autofree gchar *text = gnt_json_to_string(log);
		g_autofree gchar *status = NULL;

		if (strstr(text, "installer: start") != NULL)
			return;
		status = gnt_test_installs_job_status(cluster, id);
		if (g_strcmp0(status, "running") != 0 && g_strcmp0(status, "queued") != 0 &&
		    g_strcmp0(status, "waiting") != 0)
			g_error("kickstart job %" G_GUINT64_FORMAT " ended (%s): %s", id, status,
				text);
		if (g_get_monotonic_time() > deadline)
			g_error("kickstart job %" G_GUINT64_FORMAT " not started after %u s", id,
				limit_s);
		g_usleep(100 * 1000);
	}
}
