/*
 * The fault-injection harness (issue 12): kill -9 of a random daemon
 * (masterd, noded, metad, rapi) at a random moment under a mixed load (job
 * submissions, instance adds and removes with file disks, RAPI reads),
 * then the daemons started again, and checked:
 *
 * - every acknowledged job is found and ends;
 * - gnt-cluster verify finds nothing wrong;
 * - the configuration matches the disks on the node: every instance has
 *   its disk files, every instance directory of file storage belongs to an
 *   instance;
 * - noded left no child behind (its children's record is empty, and no
 *   process of a recorded group lives).
 *
 * Usage: stress-crash [--trials N] [--seed S] [--max-load-ms MS]
 * It prints one line per trial and a summary; the exit status is 1 on the
 * first violation, with the cluster's root kept for inspection. CI runs a
 * few trials (suite 'stress'); the long runs and their figures are in
 * doc/benchmarks.md.
 */
#include "gnt-test-cluster.h"

#include "gnt-job-status.h"

#include <libsoup/soup.h>
#include <signal.h>

#define SETTLE_TIMEOUT_S 120
#define N_DAEMONS	 4

static const gchar *const daemons[N_DAEMONS] = {
	"gantry-masterd",
	"gantry-noded",
	"gantry-metad",
	"gantry-rapi",
};

typedef struct {
	GntTestCluster cluster;
	GRand *rand;
	/* the load */
	gint stop; /* atomic */
	GMutex lock;
	GArray *acknowledged;  /* guint64 job IDs, under @lock */
	guint instance_serial; /* atomic */
	guint rapi_reads;      /* atomic */
	gchar *rapi_base;
	gchar *ca;
} Harness;

/* ---- the load: three kinds of clients, each retrying through crashes ---- */

static GntLuxiClient *
connect_luxi(Harness *h)
{
	return gnt_luxi_client_new(gnt_paths_get_luxi_socket(h->cluster.paths), NULL);
}

static void
acknowledge(Harness *h, guint64 id)
{
	g_mutex_lock(&h->lock);
	g_array_append_val(h->acknowledged, id);
	g_mutex_unlock(&h->lock);
}

/* Submits @op_json as one job; its ID once acknowledged, else 0. */
static guint64
submit(Harness *h, GntLuxiClient **client, const gchar *op_json)
{
	g_autoptr(JsonNode) op = gnt_json_parse(op_json, -1, NULL);
	g_autoptr(JsonArray) ops = json_array_new();
	guint64 id = 0;

	if (*client == NULL && (*client = connect_luxi(h)) == NULL)
		return 0;
	json_array_add_element(ops, g_steal_pointer(&op));
	if (!gnt_luxi_client_submit_job(*client, ops, &id, NULL)) {
		g_clear_object(client); /* masterd gone: a new connection next time */
		return 0;
	}
	acknowledge(h, id);
	return id;
}

static gpointer
jobs_worker(gpointer data)
{
	Harness *h = data;
	g_autoptr(GntLuxiClient) client = NULL;

	for (guint i = 0; !g_atomic_int_get(&h->stop); i++) {
		const gchar *op = i % 2 == 0 ? "{\"OP_ID\": \"OP_TEST_DELAY\", \"duration\": 0.02}"
					     : "{\"OP_ID\": \"OP_TAGS_SET\", \"kind\": \"cluster\","
					       " \"tags\": [\"stress\"]}";

		if (submit(h, &client, op) == 0)
			g_usleep(20 * 1000);
	}
	return NULL;
}

static gpointer
instances_worker(gpointer data)
{
	Harness *h = data;
	g_autoptr(GntLuxiClient) client = NULL;

	while (!g_atomic_int_get(&h->stop)) {
		guint n = (guint)g_atomic_int_add(&h->instance_serial, 1);
		g_autofree gchar *name = g_strdup_printf("s%u.example.com", n);
		g_autofree gchar *create = g_strdup_printf(
			"{\"OP_ID\": \"OP_INSTANCE_CREATE\", \"instance_name\": \"%s\","
			" \"mode\": \"create\", \"disk_template\": \"file\","
			" \"disks\": [{\"size\": 1}], \"nics\": [], \"os_type\": \"noop\","
			" \"hypervisor\": \"fake\", \"start\": %s}",
			name, n % 2 == 0 ? "true" : "false");
		g_autofree gchar *remove = g_strdup_printf(
			"{\"OP_ID\": \"OP_INSTANCE_REMOVE\", \"instance_name\": \"%s\","
			" \"shutdown_timeout\": 0}",
			name);

		if (submit(h, &client, create) == 0) {
			g_usleep(20 * 1000);
			continue;
		}
		/* half of them stay until the end of the trial */
		if (n % 2 == 0)
			(void)submit(h, &client, remove);
	}
	return NULL;
}

static gpointer
rapi_worker(gpointer data)
{
	Harness *h = data;
	g_autoptr(SoupSession)
		session = soup_session_new_with_options("proxy-resolver", NULL, "timeout", 5, NULL);
	g_autoptr(GTlsDatabase) ca = g_tls_file_database_new(h->ca, NULL);
	static const gchar *const paths[] = {"2/instances?bulk=1", "2/jobs", "2/info"};

	soup_session_set_tls_database(session, ca);
	for (guint i = 0; !g_atomic_int_get(&h->stop); i++) {
		g_autofree gchar *uri =
			g_strconcat(h->rapi_base, paths[i % G_N_ELEMENTS(paths)], NULL);
		g_autoptr(SoupMessage) msg = soup_message_new("GET", uri);
		g_autoptr(GBytes) body = soup_session_send_and_read(session, msg, NULL, NULL);

		if (body != NULL && soup_message_get_status(msg) == SOUP_STATUS_OK)
			g_atomic_int_inc(&h->rapi_reads);
		else
			g_usleep(20 * 1000);
	}
	return NULL;
}

/* ---- a trial ---- */

/* One of Ganeti's final job statuses (the queue's own table says which). */
static gboolean
job_status_is_final(const gchar *status)
{
	GntJobStatus value = GNT_JOB_STATUS_QUEUED;

	return status != NULL && gnt_job_status_from_string(status, &value) &&
	       gnt_job_status_is_finalized(value);
}

static GPid
daemon_pid(Harness *h, const gchar *daemon)
{
	g_autofree gchar *path = gnt_paths_dup_pid_file(h->cluster.paths, daemon);
	g_autofree gchar *text = NULL;

	if (!g_file_get_contents(path, &text, NULL, NULL))
		return 0;
	return (GPid)g_ascii_strtoll(text, NULL, 10);
}

/* Stops them all and starts them again: masterd's start-up pass is the
 * recovery looked at. A daemon that does not come back is a finding. */
static gboolean
restart_daemons(Harness *h, GString *why)
{
	g_autoptr(GError) error = NULL;
	gint stopped, started;

	g_clear_object(&h->cluster.client);
	stopped = GNT_TEST_CLUSTER_RUN(&h->cluster, "GNT_TEST_GANTRY_DAEMONS", "stop");
	started = GNT_TEST_CLUSTER_RUN(&h->cluster, "GNT_TEST_GANTRY_DAEMONS", "start");
	if (stopped != 0 || started != 0) {
		g_string_append_printf(why, "gantry-daemons stop exited %d, start %d", stopped,
				       started);
		return FALSE;
	}
	h->cluster.client =
		gnt_luxi_client_new(gnt_paths_get_luxi_socket(h->cluster.paths), &error);
	if (h->cluster.client == NULL) {
		g_string_append_printf(why, "after gantry-daemons start: %s", error->message);
		return FALSE;
	}
	return TRUE;
}

/* Every live job in the queue has ended (twice in a row, 200 ms apart:
 * masterd's recovery submits its jobs right after start). */
static gboolean
queue_settled(Harness *h)
{
	guint quiet = 0;
	gint64 deadline = g_get_monotonic_time() + SETTLE_TIMEOUT_S * G_USEC_PER_SEC;

	while (quiet < 2) {
		g_autoptr(JsonNode) rows = gnt_test_cluster_call(
			&h->cluster, "QueryJobs", "[[], [\"id\", \"status\"]]", NULL);
		gboolean busy = rows == NULL;

		for (guint i = 0; !busy && i < json_array_get_length(json_node_get_array(rows));
		     i++) {
			JsonArray *row = json_array_get_array_element(json_node_get_array(rows), i);
			const gchar *status = json_array_get_string_element(row, 1);

			busy = !job_status_is_final(status);
		}
		quiet = busy ? 0 : quiet + 1;
		if (g_get_monotonic_time() > deadline)
			return FALSE;
		g_usleep(200 * 1000);
	}
	return TRUE;
}

/* Every job acknowledged from @from on is known to the queue, ended (one
 * QueryJobs; asking for "archived" makes it read the archive too). */
static gboolean
check_acknowledged(Harness *h, guint from, GString *why)
{
	g_autoptr(GString) args = g_string_new("[[");
	g_autoptr(JsonNode) rows = NULL;

	for (guint i = from; i < h->acknowledged->len; i++)
		g_string_append_printf(args, "%s%" G_GUINT64_FORMAT, i > from ? ", " : "",
				       g_array_index(h->acknowledged, guint64, i));
	g_string_append(args, "], [\"status\", \"archived\"]]");
	rows = gnt_test_cluster_call(&h->cluster, "QueryJobs", args->str, NULL);
	if (rows == NULL) {
		g_string_append(why, "QueryJobs failed");
		return FALSE;
	}
	for (guint i = from; i < h->acknowledged->len; i++) {
		guint64 id = g_array_index(h->acknowledged, guint64, i);
		JsonNode *row = json_array_get_element(json_node_get_array(rows), i - from);
		const gchar *status =
			row != NULL && JSON_NODE_HOLDS_ARRAY(row)
				? json_array_get_string_element(json_node_get_array(row), 0)
				: NULL;

		if (status == NULL) {
			g_string_append_printf(
				why, "acknowledged job %" G_GUINT64_FORMAT " is lost", id);
			return FALSE;
		}
		if (!job_status_is_final(status)) {
			g_string_append_printf(why, "job %" G_GUINT64_FORMAT " never ended: %s", id,
					       status);
			return FALSE;
		}
	}
	return TRUE;
}

/* The ended jobs move to the archive, so that each trial's look at the
 * live queue stays as short as the first's. */
static void
archive_jobs(Harness *h)
{
	g_autoptr(JsonNode)
		done = gnt_test_cluster_call(&h->cluster, "AutoArchiveJobs", "[-1, 60]", NULL);

	g_assert_nonnull(done);
}

/* The configuration and the disks on the node agree. */
static gboolean
check_disks(Harness *h, GString *why)
{
	g_autoptr(JsonArray) fields = json_array_new();
	g_autoptr(JsonNode) result = NULL;
	g_autofree gchar *storage = gnt_test_cluster_dup_file_storage_dir(&h->cluster);
	g_autoptr(GHashTable) names = g_hash_table_new(g_str_hash, g_str_equal);
	g_autoptr(GDir) dir = NULL;
	JsonArray *data;
	const gchar *entry;

	json_array_add_string_element(fields, "name");
	json_array_add_string_element(fields, "disk.count");
	result = gnt_luxi_client_query(h->cluster.client, "instance", fields, NULL, NULL);
	if (result == NULL) {
		g_string_append(why, "Query(instance) failed");
		return FALSE;
	}
	data = json_object_get_array_member(json_node_get_object(result), "data");
	for (guint i = 0; i < json_array_get_length(data); i++) {
		JsonArray *row = json_array_get_array_element(data, i);
		const gchar *name =
			json_array_get_string_element(json_array_get_array_element(row, 0), 1);
		gint64 n_disks =
			json_array_get_int_element(json_array_get_array_element(row, 1), 1);
		g_autofree gchar *instance_dir = g_build_filename(storage, name, NULL);
		g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);

		g_hash_table_add(names, (gpointer)name);
		gnt_test_cluster_list_files(instance_dir, files);
		if ((gint64)files->len != n_disks) {
			g_string_append_printf(why,
					       "instance %s has %" G_GINT64_FORMAT
					       " disks in the config and %u files on the node",
					       name, n_disks, files->len);
			return FALSE;
		}
	}
	dir = g_dir_open(storage, 0, NULL);
	while (dir != NULL && (entry = g_dir_read_name(dir)) != NULL) {
		if (!g_hash_table_contains(names, entry)) {
			g_string_append_printf(
				why, "file storage holds '%s', which no instance has", entry);
			return FALSE;
		}
	}
	return TRUE;
}

/* noded's record of live children is empty once nothing runs. */
static gboolean
check_no_children(Harness *h, GString *why)
{
	g_autofree gchar *record =
		g_build_filename(gnt_paths_get_run_dir(h->cluster.paths), "noded-children", NULL);
	g_autoptr(GDir) dir = g_dir_open(record, 0, NULL);
	const gchar *entry;

	while (dir != NULL && (entry = g_dir_read_name(dir)) != NULL) {
		gint64 pgid = g_ascii_strtoll(entry, NULL, 10);

		if (pgid > 1 && kill(-(pid_t)pgid, 0) == 0) {
			g_string_append_printf(why, "noded's child group %s is still alive", entry);
			return FALSE;
		}
	}
	return TRUE;
}

static gboolean
check_verify(Harness *h, GString *why)
{
	gint status = GNT_TEST_CLUSTER_RUN(&h->cluster, "GNT_TEST_GNT_CLUSTER", "verify");

	if (status != 0) {
		g_string_append_printf(why,
				       "gnt-cluster verify exited %d (its output is in the "
				       "test log)",
				       status);
		return FALSE;
	}
	return TRUE;
}

static gboolean
run_trial(Harness *h, guint trial, guint max_load_ms, GString *why)
{
	GThread *workers[3];
	guint first_job = h->acknowledged->len;
	guint load_ms = (guint)g_rand_int_range(h->rand, 50, (gint32)max_load_ms + 1);
	const gchar *victim = daemons[g_rand_int_range(h->rand, 0, N_DAEMONS)];
	GPid pid;

	g_atomic_int_set(&h->stop, 0);
	workers[0] = g_thread_new("jobs", jobs_worker, h);
	workers[1] = g_thread_new("instances", instances_worker, h);
	workers[2] = g_thread_new("rapi", rapi_worker, h);
	g_usleep(load_ms * 1000);
	pid = daemon_pid(h, victim);
	if (pid > 0)
		(void)kill(pid, SIGKILL);
	/* the load goes on a little against the dead daemon */
	g_usleep(g_rand_int_range(h->rand, 0, 200) * 1000);
	g_atomic_int_set(&h->stop, 1);
	for (guint i = 0; i < G_N_ELEMENTS(workers); i++)
		g_thread_join(workers[i]);
	g_print("trial %u: killed %s after %u ms; %u jobs acknowledged so far\n", trial, victim,
		load_ms, h->acknowledged->len);
	if (!restart_daemons(h, why))
		return FALSE;
	if (!queue_settled(h)) {
		g_string_append_printf(why, "jobs still running %d s after the restart",
				       SETTLE_TIMEOUT_S);
		return FALSE;
	}
	if (!check_acknowledged(h, first_job, why) || !check_disks(h, why) ||
	    !check_no_children(h, why) || !check_verify(h, why))
		return FALSE;
	archive_jobs(h);
	return TRUE;
}

int
main(int argc, char **argv)
{
	gint trials = 5, max_load_ms = 1500;
	gint64 seed = 0;
	const GOptionEntry entries[] = {
		{"trials", 0, 0, G_OPTION_ARG_INT, &trials, "How many trials (default 5)", "N"},
		{"seed", 0, 0, G_OPTION_ARG_INT64, &seed, "The random seed (default: the time)",
		 "S"},
		{"max-load-ms", 0, 0, G_OPTION_ARG_INT, &max_load_ms,
		 "The longest load before the kill (default 1500)", "MS"},
		{NULL},
	};
	g_autoptr(GOptionContext) context = g_option_context_new("- kill -9 under load, checked");
	g_autoptr(GError) error = NULL;
	g_autofree gchar *port = NULL;
	g_autofree gchar *port_file = NULL;
	g_autoptr(GString) why = g_string_new(NULL);
	Harness h = {0};
	gint64 started = g_get_monotonic_time();
	guint done = 0;

	g_option_context_add_main_entries(context, entries, NULL);
	if (!g_option_context_parse(context, &argc, &argv, &error) || trials < 1 ||
	    max_load_ms < 50) {
		g_printerr("stress-crash: %s\n",
			   error != NULL ? error->message : "--trials >= 1, --max-load-ms >= 50");
		return 2;
	}
	if (seed == 0)
		seed = g_get_real_time();
	g_print("stress-crash: %d trials, seed %" G_GINT64_FORMAT "\n", trials, seed);
	h.rand = g_rand_new_with_seed((guint32)seed);
	h.acknowledged = g_array_new(FALSE, FALSE, sizeof(guint64));
	g_mutex_init(&h.lock);
	/* the reaper, made now, must keep the root of a failed trial */
	g_setenv("GNT_TEST_KEEP_ROOT", "1", TRUE);
	gnt_test_cluster_init(&h.cluster, "stress.example.com", "fake");
	port_file = g_build_filename(gnt_paths_get_data_dir(h.cluster.paths), "rapi-port", NULL);
	g_assert_true(g_file_get_contents(port_file, &port, NULL, NULL));
	h.rapi_base = g_strdup_printf("https://localhost:%s/", g_strstrip(port));
	h.ca = g_strdup(gnt_paths_get_ca_cert(h.cluster.paths));

	for (; done < (guint)trials; done++) {
		if (!run_trial(&h, done + 1, (guint)max_load_ms, why)) {
			g_printerr("stress-crash: trial %u failed (seed %" G_GINT64_FORMAT
				   "): %s; the root %s is kept\n",
				   done + 1, seed, why->str, h.cluster.root);
			gnt_test_cluster_clear(&h.cluster);
			return 1;
		}
	}
	/* and once more every job of the run, archived by now */
	if (!check_acknowledged(&h, 0, why)) {
		g_printerr("stress-crash: after the last trial (seed %" G_GINT64_FORMAT "): %s\n",
			   seed, why->str);
		return 1;
	}
	g_print("stress-crash: %u trials passed in %.0f s: %u jobs acknowledged, all found and "
		"ended; %u instances created; %u RAPI reads\n",
		done, (gdouble)(g_get_monotonic_time() - started) / G_USEC_PER_SEC,
		h.acknowledged->len, g_atomic_int_get(&h.instance_serial),
		g_atomic_int_get(&h.rapi_reads));
	g_unsetenv("GNT_TEST_KEEP_ROOT");
	gnt_test_cluster_clear(&h.cluster);
	g_array_unref(h.acknowledged);
	g_rand_free(h.rand);
	g_free(h.rapi_base);
	g_free(h.ca);
	return 0;
}
