/*
 * Cluster settings, nodes, tags and OS definitions as an operator uses
 * them: a cluster on a temporary root (`gnt-cluster init --noded-port 0`),
 * the real daemons and commands, and for the node tests a second node: a
 * gantry-noded on its own root at 127.0.0.2 that joins with the token
 * `gnt-node add` prints.
 */
#include <gio/gio.h>
#include <string.h>
#include <sys/wait.h>

#include "gnt-json.h"
#include "tools-test.h"

typedef struct {
	gchar *root;
	gchar *node_root; /* the second node's, once made */
} NodesFx;

#define CLUSTER(fx, ...)  RUN(fx, "GNT_TEST_GNT_CLUSTER", __VA_ARGS__)
#define NODE(fx, ...)	  RUN(fx, "GNT_TEST_GNT_NODE", __VA_ARGS__)
#define INSTANCE(fx, ...) RUN(fx, "GNT_TEST_GNT_INSTANCE", __VA_ARGS__)
#define OS(fx, ...)	  RUN(fx, "GNT_TEST_GNT_OS", __VA_ARGS__)
#define DEBUG(fx, ...)	  RUN(fx, "GNT_TEST_GNT_DEBUG", __VA_ARGS__)

#define EXPECT(status, needle, run_expr)                                                           \
	do {                                                                                       \
		g_autoptr(Run) r_ = (run_expr);                                                    \
		expect_has(r_, status, needle);                                                    \
	} while (0)

static void
fx_set_up_empty(NodesFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;

	fx->root = g_dir_make_tmp("gn-XXXXXX", &error);
	g_assert_no_error(error);
}

static void
fx_set_up(NodesFx *fx, gconstpointer data)
{
	fx_set_up_empty(fx, data);
	EXPECT(0, NULL,
	       CLUSTER(fx, "init", "--noded-port", "0", "--primary-ip", "127.0.0.1",
		       "test.example.com"));
}

static void
remove_tree(const gchar *dir)
{
	const gchar *rm[] = {"rm", "-rf", dir, NULL};
	gint status = -1;

	g_assert_true(g_spawn_sync(NULL, (gchar **)rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL,
				   NULL, &status, NULL));
	g_assert_cmpint(status, ==, 0);
}

static void
fx_tear_down(NodesFx *fx, gconstpointer data)
{
	if (fx->node_root != NULL) {
		g_autoptr(Run) stop = run_in(fx->node_root, "GNT_TEST_GANTRY_DAEMONS",
					     (const gchar *const[]){"stop", NULL});
		g_assert_cmpint(stop->status, ==, 0);
		remove_tree(fx->node_root);
		g_free(fx->node_root);
	}
	{
		g_autoptr(Run) stop = RUN(fx, "GNT_TEST_GANTRY_DAEMONS", "stop");
		g_assert_cmpint(stop->status, ==, 0);
	}
	remove_tree(fx->root);
	g_free(fx->root);
}

/* ---- cluster settings ---- */

static void
test_init_settings(NodesFx *fx, gconstpointer data)
{
	g_autoptr(Run) info = NULL;

	EXPECT(0, NULL,
	       CLUSTER(fx, "init", "--noded-port", "0", "--primary-ip", "127.0.0.1",
		       "--enabled-hypervisors", "kvm,fake", "-H",
		       "kvm:accel=tcg,kernel_path=", "-B", "memory=256M,vcpus=2",
		       "--os-search-path", "/opt/os,/usr/share/ganeti/os", "--mac-prefix",
		       "AA:BB:CC", "--max-running-jobs", "7", "--file-storage-dir", "/srv//disks/",
		       "test.example.com"));
	info = CLUSTER(fx, "info");
	expect_has(info, 0, "Default hypervisor: kvm\n");
	gnt_test_assert_contains(info->out, "Enabled hypervisors: kvm, fake\n");
	gnt_test_assert_contains(info->out, "  kvm: \n    accel: tcg\n");
	gnt_test_assert_contains(info->out, "    maxmem: 256\n    minmem: 256\n");
	gnt_test_assert_contains(info->out, "    vcpus: 2\n");
	gnt_test_assert_contains(info->out, "mac prefix: aa:bb:cc\n");
	gnt_test_assert_contains(info->out, "jobs running simultaneously: 7\n");
	gnt_test_assert_contains(info->out, "file storage path: /srv/disks\n");
	/* Ganeti's four directories end the path, whatever was given */
	gnt_test_assert_contains(
		info->out, "OS search path: /opt/os, /srv/ganeti/os, /usr/local/lib/ganeti/os, "
			   "/usr/lib/ganeti/os, /usr/share/ganeti/os\n");
}

/* A refused init leaves nothing behind: a second one works. */
static void
test_init_bad_settings(NodesFx *fx, gconstpointer data)
{
	EXPECT(1, "unknown hypervisor 'xen-pvm'",
	       CLUSTER(fx, "init", "--noded-port", "0", "--enabled-hypervisors", "xen-pvm",
		       "test.example.com"));
	EXPECT(1, "'file_storage_dir' must be an absolute directory",
	       CLUSTER(fx, "init", "--noded-port", "0", "--file-storage-dir", "disks",
		       "test.example.com"));
	EXPECT(1, "Please specify a volume group",
	       CLUSTER(fx, "init", "--noded-port", "0", "--enabled-disk-templates", "plain",
		       "test.example.com"));
	EXPECT(1, "volume group 'gnt-test-no-such-vg'",
	       CLUSTER(fx, "init", "--noded-port", "0", "--enabled-disk-templates", "plain",
		       "--vg-name", "gnt-test-no-such-vg", "test.example.com"));
	EXPECT(0, NULL, CLUSTER(fx, "init", "--noded-port", "0", "test.example.com"));
}

static void
test_modify(NodesFx *fx, gconstpointer data)
{
	g_autoptr(Run) info = NULL;
	g_autoptr(Run) same = NULL;
	g_autoptr(Run) nothing = NULL;

	EXPECT(0, NULL,
	       CLUSTER(fx, "modify", "--enabled-hypervisors", "fake,kvm", "-H", "kvm:accel=tcg"));
	/* -H merges into what is there */
	EXPECT(0, NULL, CLUSTER(fx, "modify", "-H", "kvm:kernel_path=/boot/vmlinuz"));
	EXPECT(0, NULL, CLUSTER(fx, "modify", "-B", "maxmem=1G", "--max-running-jobs", "3"));
	EXPECT(0, NULL, CLUSTER(fx, "modify", "--os-search-path", "/srv/gantry/os"));
	EXPECT(0, NULL, CLUSTER(fx, "modify", "-N", "link=br1", "--mac-prefix", "02:00:01"));
	info = CLUSTER(fx, "info");
	expect_has(info, 0, "    accel: tcg\n");
	gnt_test_assert_contains(info->out, "    kernel_path: /boot/vmlinuz\n");
	gnt_test_assert_contains(info->out, "    maxmem: 1024\n");
	gnt_test_assert_contains(info->out, "    minmem: 128\n");
	gnt_test_assert_contains(info->out, "jobs running simultaneously: 3\n");
	gnt_test_assert_contains(info->out, "OS search path: /srv/gantry/os, /srv/ganeti/os, ");
	gnt_test_assert_contains(info->out, "    link: br1\n");
	gnt_test_assert_contains(info->out, "mac prefix: 02:00:01\n");

	/* only what changed is said to have changed */
	same = CLUSTER(fx, "modify", "--enabled-hypervisors", "fake,kvm", "-H", "kvm:accel=tcg",
		       "--max-running-jobs", "4");
	expect_has(same, 0, "Cluster parameter 'max_running_jobs' changed\n");
	g_assert_null(strstr(same->out, "'enabled_hypervisors' changed"));
	g_assert_null(strstr(same->out, "'hvparams' changed"));
	nothing = CLUSTER(fx, "modify", "--mac-prefix", "02:00:01");
	expect_has(nothing, 0, "No changes to the cluster parameters\n");
}

static void
test_modify_bad(NodesFx *fx, gconstpointer data)
{
	EXPECT(1, "Please give at least one of the parameters.", CLUSTER(fx, "modify"));
	EXPECT(1, "unknown hypervisor 'xen-hvm'",
	       CLUSTER(fx, "modify", "--enabled-hypervisors", "fake,xen-hvm"));
	EXPECT(1, "unknown hypervisor 'lxc'", CLUSTER(fx, "modify", "-H", "lxc:foo=1"));
	EXPECT(1, "unknown hypervisor parameter 'nope'", CLUSTER(fx, "modify", "-H", "kvm:nope=1"));
	EXPECT(1, "'enabled_hypervisors' must not be empty",
	       CLUSTER(fx, "modify", "--enabled-hypervisors", ","));
	EXPECT(1, "unknown disk template 'floppy'",
	       CLUSTER(fx, "modify", "--enabled-disk-templates", "file,floppy"));
	EXPECT(1, "disk template 'drbd' is not supported",
	       CLUSTER(fx, "modify", "--enabled-disk-templates", "drbd"));
	EXPECT(1, "Please specify a volume group",
	       CLUSTER(fx, "modify", "--enabled-disk-templates", "plain"));
	EXPECT(1, "volume group 'gnt-test-no-such-vg'",
	       CLUSTER(fx, "modify", "--enabled-disk-templates", "plain,file", "--vg-name",
		       "gnt-test-no-such-vg"));
	EXPECT(1, "must be an absolute directory",
	       CLUSTER(fx, "modify", "--file-storage-dir", "../x"));
	EXPECT(1, "must be an absolute directory",
	       CLUSTER(fx, "modify", "--os-search-path", "/ok,relative"));
	EXPECT(1, "Invalid MAC address prefix 'aa:bb'",
	       CLUSTER(fx, "modify", "--mac-prefix", "aa:bb"));
	EXPECT(1, "'max_running_jobs' must be at least 1",
	       CLUSTER(fx, "modify", "--max-running-jobs", "0"));
	EXPECT(1, "unknown backend parameter 'colour'", CLUSTER(fx, "modify", "-B", "colour=red"));
	EXPECT(1, "backend parameter 'maxmem': invalid size 'lots'",
	       CLUSTER(fx, "modify", "-B", "maxmem=lots"));
	EXPECT(1, "Invalid NIC mode 'tunnel'", CLUSTER(fx, "modify", "-N", "mode=tunnel"));
	/* nothing of a refused change was stored */
	{
		g_autoptr(Run) info = CLUSTER(fx, "info");
		expect_has(info, 0, "Enabled hypervisors: fake\n");
		gnt_test_assert_contains(info->out, "enabled disk templates: file, diskless\n");
	}
}

/* ---- tags ---- */

static void
test_tags(NodesFx *fx, gconstpointer data)
{
	g_autofree gchar *long_tag = g_strnfill(129, 'x');
	g_autofree gchar *max_tag = g_strnfill(128, 'y');
	g_autofree gchar *tags_file = g_build_filename(fx->root, "tags.txt", NULL);
	g_autofree gchar *job_file = g_build_filename(fx->root, "job.json", NULL);
	g_autofree gchar *node = NULL;

	EXPECT(0, NULL, CLUSTER(fx, "add-tags", "b.tag", "a:tag", "c+/*@-_tag"));
	EXPECT(0, NULL, CLUSTER(fx, "add-tags", max_tag));
	{
		g_autoptr(Run) r = CLUSTER(fx, "list-tags");
		g_autofree gchar *want = g_strdup_printf("a:tag\nb.tag\nc+/*@-_tag\n%s\n", max_tag);
		expect_has(r, 0, NULL);
		g_assert_cmpstr(r->out, ==, want);
	}
	EXPECT(0, NULL, CLUSTER(fx, "remove-tags", "b.tag", max_tag));
	g_assert_true(g_file_set_contents(tags_file, "from-file\n  spaced  \n", -1, NULL));
	EXPECT(0, NULL, CLUSTER(fx, "add-tags", "--from", tags_file));
	{
		g_autoptr(Run) r = CLUSTER(fx, "list-tags");
		expect_has(r, 0, NULL);
		g_assert_cmpstr(r->out, ==, "a:tag\nc+/*@-_tag\nfrom-file\nspaced\n");
	}
	/* Ganeti's tag rules, each naming the culprit */
	EXPECT(1, "Tag contains invalid characters: 'bad tag'", CLUSTER(fx, "add-tags", "bad tag"));
	EXPECT(1, "Tag contains invalid characters: 'caf\\303\\251'",
	       CLUSTER(fx, "add-tags", "ok", "caf\xc3\xa9"));
	EXPECT(1, "Tag too long (>128 characters)", CLUSTER(fx, "add-tags", long_tag));
	EXPECT(1, "Tags cannot be empty", CLUSTER(fx, "add-tags", ""));
	EXPECT(1, "Tag(s) 'nope', 'zz' not found",
	       CLUSTER(fx, "remove-tags", "zz", "a:tag", "nope"));
	EXPECT(1, "No tags to be added", CLUSTER(fx, "add-tags"));
	{
		/* a refused change changes nothing ("ok" was not added, "a:tag" stays) */
		g_autoptr(Run) r = CLUSTER(fx, "list-tags");
		g_assert_cmpstr(r->out, ==, "a:tag\nc+/*@-_tag\nfrom-file\nspaced\n");
	}

	/* nodes: the master; unknown ones are named */
	{
		g_autoptr(Run) r = NODE(fx, "list", "--no-headers", "-o", "name");
		expect_has(r, 0, NULL);
		node = g_strstrip(g_strdup(r->out));
	}
	EXPECT(0, NULL, NODE(fx, "add-tags", node, "role:master", "rack:1"));
	{
		g_autoptr(Run) r = NODE(fx, "list-tags", node);
		expect_has(r, 0, NULL);
		g_assert_cmpstr(r->out, ==, "rack:1\nrole:master\n");
	}
	EXPECT(0, NULL, NODE(fx, "remove-tags", node, "rack:1"));
	{
		g_autoptr(Run) r = NODE(fx, "list", "--no-headers", "-o", "tags");
		expect_has(r, 0, NULL);
		g_assert_cmpstr(r->out, ==, "role:master\n");
	}
	EXPECT(1, "'nope.example.com'", NODE(fx, "add-tags", "nope.example.com", "x"));
	EXPECT(1, "'nope.example.com'", NODE(fx, "list-tags", "nope.example.com"));
	EXPECT(1, "Tag contains invalid characters", NODE(fx, "add-tags", node, "a,b"));

	/* instances, through the opcode (gnt-instance has its own commands) */
	EXPECT(0, NULL, INSTANCE(fx, "add", "-t", "diskless", "--no-install", "--no-nics", "web1"));
	g_assert_true(g_file_set_contents(
		job_file,
		"[{\"OP_ID\": \"OP_TAGS_SET\", \"kind\": \"instance\", \"name\": \"web1\","
		" \"tags\": [\"tier:web\", \"env:test\"]}]",
		-1, NULL));
	EXPECT(0, NULL, DEBUG(fx, "submit-job", job_file));
	{
		g_autoptr(Run) r = INSTANCE(fx, "list", "--no-headers", "-o", "tags", "web1");
		expect_has(r, 0, NULL);
		g_assert_cmpstr(r->out, ==, "env:test,tier:web\n");
	}
	g_assert_true(g_file_set_contents(
		job_file,
		"[{\"OP_ID\": \"OP_TAGS_DEL\", \"kind\": \"instance\", \"name\": \"web2\","
		" \"tags\": [\"env:test\"]}]",
		-1, NULL));
	/* gnt-debug submit-job reports a failed job, and exits 0 as Ganeti's does */
	EXPECT(0, "instance 'web2' does not exist", DEBUG(fx, "submit-job", job_file));
	g_assert_true(g_file_set_contents(
		job_file,
		"[{\"OP_ID\": \"OP_TAGS_SET\", \"kind\": \"network\", \"name\": \"net1\","
		" \"tags\": [\"x\"]}]",
		-1, NULL));
	EXPECT(0, "tags of a network are not supported", DEBUG(fx, "submit-job", job_file));
}

/* ---- OS definitions ---- */

static void
test_os(NodesFx *fx, gconstpointer data)
{
	const gchar *os_dir = g_getenv("GNT_TEST_OS_DIR");
	g_autofree gchar *search = g_strdup_printf("%s,/nonexistent/os", os_dir);
	g_autofree gchar *sample = g_strdup_printf("(path: %s/sample)", os_dir);

	g_assert_nonnull(os_dir);
	EXPECT(0, NULL, CLUSTER(fx, "modify", "--os-search-path", search));
	{
		g_autoptr(Run) r = OS(fx, "list");
		expect_has(r, 0, "Name\n");
		gnt_test_assert_contains(r->out, "\nsample+default\nsample+minimal\n");
		gnt_test_assert_contains(r->out, "\napi10\n");
		/* invalid ones are not listed */
		gnt_test_assert_lacks(r->out, "no-create");
		gnt_test_assert_lacks(r->out, "missing-script");
	}
	{
		g_autoptr(Run) r = OS(fx, "list", "--no-headers");
		expect_has(r, 0, NULL);
		g_assert_false(g_str_has_prefix(r->out, "Name"));
	}
	{
		g_autoptr(Run) r = OS(fx, "diagnose");
		/* some OS is invalid: exit 1, as Ganeti's */
		expect_has(r, 1,
			   "OS: sample [global status: valid]\n  Variants: [default, minimal]\n");
		gnt_test_assert_contains(r->out, sample);
		gnt_test_assert_contains(
			r->out, "[API versions: 20, 15, 10] [variants: default, minimal] "
				"[parameters: filesystem, root-size, behaviour, secret.token]");
		gnt_test_assert_contains(r->out, "OS: no-create [global status: invalid]\n");
		gnt_test_assert_contains(r->out, ", status: invalid - ");
	}
	{
		g_autoptr(Run) r = OS(fx, "info", "sample");
		expect_has(r, 0,
			   "sample:\n  - valid: True\n  - hidden: False\n  - blacklisted: False\n"
			   "  - API versions:\n    - 10\n    - 15\n    - 20\n"
			   "  - variants:\n    - default\n    - minimal\n  - parameters:\n");
		gnt_test_assert_contains(
			r->out, "    - filesystem: The root filesystem: ext4 (default) or ext3\n");
		gnt_test_assert_lacks(r->out, "api10:");
	}
}

/* ---- nodes ---- */

/* A free port on 127.0.0.2 for the second node's noded. */
static guint
free_port(void)
{
	return tools_test_free_port("127.0.0.2");
}

/* Starts the second node's gantry-noded with --join @token. */
static Run *
join_node(NodesFx *fx, const gchar *token, const gchar *listen)
{
	return run_in(fx->node_root, "GNT_TEST_NODED",
		      (const gchar *const[]){"--join", token, "--address", "127.0.0.2", "--listen",
					     listen, NULL});
}

#define NODE2 "node2.example.com"

/* Adds node2 in two steps: the token, the join, gnt-node add again (into
 * @group, NULL: the only one there is). */
static void
add_node2(NodesFx *fx, const gchar *port, const gchar *listen, const gchar *group)
{
	g_autoptr(Run) first = NODE(fx, "add", "--primary-ip", "127.0.0.2", "--noded-port", port,
				    "--join-timeout", "0", NODE2);
	g_autofree gchar *token = NULL;
	g_autoptr(GError) error = NULL;

	expect_has(first, 0, "Node " NODE2 " has not joined the cluster yet");
	gnt_test_assert_contains(first->out, " --address 127.0.0.2 --listen 0.0.0.0:");
	gnt_test_assert_contains(first->out,
				 "Run \"gnt-node add " NODE2 "\" again once it has joined.\n");
	token = tools_test_find_join_token(first->out);
	fx->node_root = g_dir_make_tmp("gn2-XXXXXX", &error);
	g_assert_no_error(error);
	EXPECT(0, NULL, join_node(fx, token, listen));
	/* the token is used up */
	{
		g_autofree gchar *other = g_build_filename(fx->node_root, "other", NULL);
		g_autoptr(Run) again = run_in(other, "GNT_TEST_NODED",
					      (const gchar *const[]){"--join", token, "--listen",
								     "127.0.0.2:0", NULL});
		expect_has(again, 1, "was already used");
		remove_tree(other);
	}
	if (group != NULL)
		EXPECT(0, "Adding node " NODE2 " (127.0.0.2, port ",
		       NODE(fx, "add", "--primary-ip", "127.0.0.2", "--noded-port", port,
			    "--node-group", group, NODE2));
	else
		EXPECT(0, "Adding node " NODE2 " (127.0.0.2, port ",
		       NODE(fx, "add", "--primary-ip", "127.0.0.2", "--noded-port", port, NODE2));
}

static void
test_node_add_remove(NodesFx *fx, gconstpointer data)
{
	g_autofree gchar *port = g_strdup_printf("%u", free_port());
	g_autofree gchar *listen = g_strdup_printf("127.0.0.2:%s", port);
	g_autofree gchar *os_dir = g_strdup_printf("%s", g_getenv("GNT_TEST_OS_DIR"));

	add_node2(fx, port, listen, NULL);
	{
		g_autoptr(Run) r =
			NODE(fx, "list", "--no-headers", "-o", "name,pip,offline,drained", NODE2);
		expect_has(r, 0, NULL);
		g_assert_cmpstr(r->out, ==, NODE2 " 127.0.0.2 N N\n");
	}
	EXPECT(1,
	       "Node " NODE2 " already in the cluster (as " NODE2 ") - please retry with '--readd'",
	       NODE(fx, "add", "--primary-ip", "127.0.0.2", "--noded-port", port, NODE2));
	/* readd: the node answers, its flags are reset */
	EXPECT(0, "Modified node " NODE2 "\n - drained -> True\n",
	       NODE(fx, "modify", "--drained", "yes", NODE2));
	EXPECT(0, "Readding a node",
	       NODE(fx, "add", "--readd", "--primary-ip", "127.0.0.2", "--noded-port", port,
		    NODE2));
	{
		g_autoptr(Run) r = NODE(fx, "list", "--no-headers", "-o", "drained", NODE2);
		g_assert_cmpstr(r->out, ==, "N\n");
	}

	/* both nodes answer OP_OS_DIAGNOSE */
	EXPECT(0, NULL, CLUSTER(fx, "modify", "--os-search-path", os_dir));
	{
		g_autoptr(Run) r = OS(fx, "diagnose");
		expect_has(r, 1, "  Node: " NODE2 ", status: valid (path: ");
	}

	/* an instance on the node: it can not go while the instance is there */
	EXPECT(0, NULL,
	       INSTANCE(fx, "add", "-t", "diskless", "--no-install", "--no-nics", "-n", NODE2,
			"web1"));
	EXPECT(0, NULL,
	       INSTANCE(fx, "add", "-t", "diskless", "--no-install", "--no-nics", "-n", NODE2,
			"web2"));
	EXPECT(1, "Instances web1, web2 are still running on the node", NODE(fx, "remove", NODE2));

	/* offline: not contacted; drained: no new instances */
	EXPECT(0, "Modified node " NODE2 "\n - offline -> True\n",
	       NODE(fx, "modify", "--offline", "yes", NODE2));
	EXPECT(1, "node '" NODE2 "' is offline", INSTANCE(fx, "startup", "web1"));
	EXPECT(1, "node '" NODE2 "' is offline",
	       INSTANCE(fx, "add", "-t", "diskless", "--no-install", "--no-nics", "-n", NODE2,
			"web3"));
	{
		/* an offline node is left out of OS diagnose */
		g_autoptr(Run) r = OS(fx, "diagnose");
		gnt_test_assert_lacks(r->out, NODE2);
	}
	EXPECT(0, " - offline -> False\n", NODE(fx, "modify", "--offline", "no", "--force", NODE2));
	EXPECT(0, NULL, INSTANCE(fx, "startup", "web1"));
	EXPECT(0, " - drained -> True\n", NODE(fx, "modify", "--drained", "yes", NODE2));
	EXPECT(1, "node '" NODE2 "' is drained",
	       INSTANCE(fx, "add", "-t", "diskless", "--no-install", "--no-nics", "-n", NODE2,
			"web3"));
	EXPECT(0, NULL, INSTANCE(fx, "shutdown", "web1"));
	EXPECT(0, " - drained -> False\n", NODE(fx, "modify", "--drained", "no", NODE2));

	EXPECT(0, NULL, INSTANCE(fx, "remove", "-f", "web1"));
	EXPECT(1, "Instance web2 is still running on the node, please remove first",
	       NODE(fx, "remove", NODE2));
	EXPECT(0, NULL, INSTANCE(fx, "remove", "-f", "web2"));
	EXPECT(0, "Removing node " NODE2, NODE(fx, "remove", NODE2));
	{
		g_autoptr(Run) r = NODE(fx, "list", "--no-headers", "-o", "name");
		expect_has(r, 0, NULL);
		gnt_test_assert_lacks(r->out, NODE2);
	}
	/* it keeps its certificate: adding it again needs no token */
	EXPECT(0, "Adding node " NODE2,
	       NODE(fx, "add", "--primary-ip", "127.0.0.2", "--noded-port", port, NODE2));
}

/* gnt-node add without --join-timeout 0 waits for the join, then adds. */
static void
test_node_add_wait(NodesFx *fx, gconstpointer data)
{
	g_autofree gchar *port = g_strdup_printf("%u", free_port());
	g_autofree gchar *listen = g_strdup_printf("127.0.0.2:%s", port);
	g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new(
		G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_MERGE);
	g_autoptr(GSubprocess) add = NULL;
	g_autoptr(GDataInputStream) out = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *token = NULL;
	g_autofree gchar *rest = NULL;

	g_subprocess_launcher_setenv(launcher, "GANTRY_ROOT", fx->root, TRUE);
	add = g_subprocess_launcher_spawn(launcher, &error, g_getenv("GNT_TEST_GNT_NODE"), "add",
					  "--primary-ip", "127.0.0.2", "--noded-port", port,
					  "--join-timeout", "60", NODE2, NULL);
	g_assert_no_error(error);
	out = g_data_input_stream_new(g_subprocess_get_stdout_pipe(add));
	while (token == NULL) {
		g_autofree gchar *line =
			g_data_input_stream_read_line_utf8(out, NULL, NULL, &error);
		g_assert_no_error(error);
		g_assert_nonnull(line); /* NULL: it ended without a token */
		if (strstr(line, "GNTJ1.") != NULL)
			token = tools_test_find_join_token(line);
	}
	fx->node_root = g_dir_make_tmp("gn2-XXXXXX", &error);
	g_assert_no_error(error);
	EXPECT(0, NULL, join_node(fx, token, listen));
	g_assert_true(g_subprocess_wait(add, NULL, &error));
	g_assert_no_error(error);
	rest = g_data_input_stream_read_upto(out, "", 0, NULL, NULL, &error);
	if (g_subprocess_get_exit_status(add) != 0)
		g_printerr("%s\n", rest);
	g_assert_cmpint(g_subprocess_get_exit_status(add), ==, 0);
	gnt_test_assert_contains(rest, "Adding node " NODE2);
}

#define GROUP(fx, ...) RUN(fx, "GNT_TEST_GNT_GROUP", __VA_ARGS__)

/* Node groups as an operator uses them: node2 added into a new group, which
 * then holds an instance; parameters the nodes inherit; the refusals;
 * node2 moved back, the group renamed, tagged and removed. */
static void
test_groups(NodesFx *fx, gconstpointer data)
{
	g_autofree gchar *port = g_strdup_printf("%u", free_port());
	g_autofree gchar *listen = g_strdup_printf("127.0.0.2:%s", port);
	g_autoptr(Run) list = NODE(fx, "list", "--no-headers", "-o", "name");
	g_autofree gchar *master = g_strstrip(g_strdup(list->out));

	/* gnt-cluster init made the group "default" */
	EXPECT(0, "default     1         0 preferred   ", GROUP(fx, "list"));
	EXPECT(0, "Adding node group rack2",
	       GROUP(fx, "add", "--alloc-policy", "last_resort", "-N", "ssh_port=2200",
		     "--ipolicy-vcpu-ratio", "2.5", "rack2"));
	EXPECT(1, "Desired group name 'rack2' already exists as a node group",
	       GROUP(fx, "add", "rack2"));
	EXPECT(1, "'alloc_policy' must be one of preferred, last_resort, unallocable",
	       GROUP(fx, "add", "--alloc-policy", "sometimes", "rack9"));
	EXPECT(1, "unknown node parameter 'colour'", GROUP(fx, "add", "-N", "colour=red", "rack9"));
	add_node2(fx, port, listen, "rack2");
	{
		g_autoptr(Run) r = NODE(fx, "list", "--no-headers", "--separator=|", "-o",
					"name,group,ndp/ssh_port", NODE2, master);
		g_autofree gchar *want =
			g_strdup_printf(NODE2 "|rack2|2200\n%s|default|22\n", master);

		expect_has(r, 0, NULL);
		g_assert_cmpstr(r->out, ==, want);
	}
	EXPECT(0, NULL,
	       INSTANCE(fx, "add", "-t", "diskless", "--no-install", "--no-nics", "-n", NODE2,
			"web1"));
	{
		g_autoptr(Run)
			r = GROUP(fx, "list", "--no-headers", "--separator=|", "-o",
				  "name,node_cnt,node_list,pinst_cnt,pinst_list,alloc_policy");
		g_autofree gchar *want = g_strdup_printf("default|1|%s|0||preferred\n"
							 "rack2|1|" NODE2 "|1|web1|last_resort\n",
							 master);

		expect_has(r, 0, NULL);
		g_assert_cmpstr(r->out, ==, want);
	}
	EXPECT(0, "primary: " NODE2 "\n      group: rack2 (UUID ", INSTANCE(fx, "info", "web1"));
	{
		g_autoptr(Run) r = GROUP(fx, "info", "rack2");
		expect_has(r, 0, "- Node group: rack2\n  Node parameters: \n");
		gnt_test_assert_contains(r->out, "    ssh_port: 2200\n");
		gnt_test_assert_contains(r->out, "    spindle_count: default (1)\n");
		gnt_test_assert_contains(r->out, "    vcpu-ratio: 2.5\n");
		gnt_test_assert_contains(r->out, "    spindle-ratio: default (32.0)\n");
		gnt_test_assert_contains(
			r->out, "    allowed disk templates: default (diskless, file, plain)\n");
	}

	/* modify: the nodes inherit; "default" goes back to the cluster's */
	EXPECT(1, "Please give at least one of the parameters.", GROUP(fx, "modify", "rack2"));
	EXPECT(1, "node parameter 'ssh_port' has the wrong type: expected integer, got string",
	       GROUP(fx, "modify", "-N", "ssh_port=many", "rack2"));
	EXPECT(1, "Missing parameters in ipolicy spec max: disk-count",
	       GROUP(fx, "modify", "--ipolicy-bounds-specs",
		     "min:cpu-count=1,disk-count=1,disk-size=1G,memory-size=128,nic-count=1,"
		     "spindle-use=1/max:cpu-count=4",
		     "rack2"));
	EXPECT(0, "Modified node group rack2\n - ndparams -> {'ssh_port': 2201}\n",
	       GROUP(fx, "modify", "-N", "ssh_port=2201", "--alloc-policy", "preferred", "rack2"));
	{
		g_autoptr(Run) r = NODE(fx, "list", "--no-headers", "-o", "ndp/ssh_port", NODE2);
		g_assert_cmpstr(r->out, ==, "2201\n");
	}
	EXPECT(0, NULL, GROUP(fx, "modify", "--ipolicy-vcpu-ratio", "default", "rack2"));
	{
		g_autoptr(Run) r = GROUP(fx, "list", "--no-headers", "-o",
					 "alloc_policy,custom_ipolicy", "rack2");
		g_assert_cmpstr(r->out, ==, "preferred {}\n");
	}

	/* a group with nodes stays; the last group too */
	EXPECT(1, "Group 'rack2' not empty, has the following nodes: " NODE2,
	       GROUP(fx, "remove", "rack2"));
	EXPECT(1, "Node group 'nope' not found", GROUP(fx, "assign-nodes", "nope", NODE2));
	EXPECT(1, "'nope.example.com'", GROUP(fx, "assign-nodes", "default", "nope.example.com"));
	EXPECT(0, NULL, GROUP(fx, "assign-nodes", "default", NODE2));
	{
		g_autoptr(Run)
			r = NODE(fx, "list", "--no-headers", "-o", "group,ndp/ssh_port", NODE2);
		g_assert_cmpstr(r->out, ==, "default 22\n");
	}
	EXPECT(0, NULL, GROUP(fx, "rename", "rack2", "rack3"));
	EXPECT(1, "Desired new name 'default' clashes with existing node group",
	       GROUP(fx, "rename", "rack3", "default"));
	EXPECT(0, NULL, GROUP(fx, "add-tags", "rack3", "cold", "spare"));
	EXPECT(0, NULL, GROUP(fx, "remove-tags", "rack3", "spare"));
	EXPECT(0, "cold\n", GROUP(fx, "list-tags", "rack3"));
	EXPECT(1, "Group name 'rack2' not found", GROUP(fx, "list-tags", "rack2"));
	EXPECT(0, "Removing node group rack3", GROUP(fx, "remove", "rack3"));
	EXPECT(1, "Group 'default' not empty", GROUP(fx, "remove", "default"));
	EXPECT(0, "node_cnt ", GROUP(fx, "list-fields"));
	{
		g_autoptr(Run) r = GROUP(fx, "list", "--no-headers", "-o", "name");
		g_assert_cmpstr(r->out, ==, "default\n");
	}
	EXPECT(0, NULL, INSTANCE(fx, "remove", "-f", "web1"));
}

static void
test_node_bad(NodesFx *fx, gconstpointer data)
{
	g_autoptr(Run) list = NODE(fx, "list", "--no-headers", "-o", "name");
	g_autofree gchar *master = g_strstrip(g_strdup(list->out));
	g_autofree gchar *port = g_strdup_printf("%u", free_port());

	EXPECT(1, "'nope.example.com'", NODE(fx, "remove", "nope.example.com"));
	EXPECT(1, "'nope.example.com'", NODE(fx, "modify", "--offline", "yes", "nope.example.com"));
	EXPECT(1, "Node is the master node, failover to another node is required",
	       NODE(fx, "remove", master));
	EXPECT(1, "The master role can be changed only via master-failover",
	       NODE(fx, "modify", "--drained", "yes", master));
	EXPECT(1, "Please give at least one of the parameters.", NODE(fx, "modify", master));
	EXPECT(1, "Invalid boolean value 'maybe' for --offline",
	       NODE(fx, "modify", "--offline", "maybe", master));
	EXPECT(1, "Can't set the node into more than one state at the same time",
	       NODE(fx, "modify", "--offline", "yes", "--drained", "yes", "nope.example.com"));
	EXPECT(1, "Node nope.example.com not in the cluster - please retry without '--readd'",
	       NODE(fx, "add", "--readd", "--primary-ip", "127.0.0.3", "nope.example.com"));
	EXPECT(1, "primary IP '300.1.1.1' is not a valid IP address",
	       NODE(fx, "add", "--primary-ip", "300.1.1.1", "nope.example.com"));
	EXPECT(1, "invalid node name 'bad_name!'",
	       NODE(fx, "add", "--primary-ip", "127.0.0.3", "--noded-port", port, "--join-timeout",
		    "1", "bad_name!"));
	/* nothing answers there: the wait ends naming the node */
	EXPECT(1, "node 'nope.example.com' has not joined within 1 seconds",
	       NODE(fx, "add", "--primary-ip", "127.0.0.2", "--noded-port", port, "--join-timeout",
		    "1", "nope.example.com"));
	{
		g_autoptr(Run) r = NODE(fx, "list", "--no-headers", "-o", "name");
		g_assert_cmpstr(r->out, ==, list->out);
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/nodes/settings/init", NodesFx, NULL, fx_set_up_empty, test_init_settings,
		   fx_tear_down);
	g_test_add("/nodes/settings/init-bad", NodesFx, NULL, fx_set_up_empty,
		   test_init_bad_settings, fx_tear_down);
	g_test_add("/nodes/settings/modify", NodesFx, NULL, fx_set_up, test_modify, fx_tear_down);
	g_test_add("/nodes/settings/modify-bad", NodesFx, NULL, fx_set_up, test_modify_bad,
		   fx_tear_down);
	g_test_add("/nodes/tags", NodesFx, NULL, fx_set_up, test_tags, fx_tear_down);
	g_test_add("/nodes/os", NodesFx, NULL, fx_set_up, test_os, fx_tear_down);
	g_test_add("/nodes/node/add-remove", NodesFx, NULL, fx_set_up, test_node_add_remove,
		   fx_tear_down);
	g_test_add("/nodes/node/add-wait", NodesFx, NULL, fx_set_up, test_node_add_wait,
		   fx_tear_down);
	g_test_add("/nodes/node/bad", NodesFx, NULL, fx_set_up, test_node_bad, fx_tear_down);
	g_test_add("/nodes/groups", NodesFx, NULL, fx_set_up, test_groups, fx_tear_down);
	return g_test_run();
}
