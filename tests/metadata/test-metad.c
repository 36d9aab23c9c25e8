/* gantry-metad as a process on a temporary root: the Ganeti, OpenStack and
 * EC2 trees read byte for byte through each instance's unix socket with
 * libsoup, isolation between two instances, private and secret values kept
 * out of logs and off the disk, the control socket, and noded's
 * metad_push/metad_remove through the master's typed calls over TLS. */
#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <libsoup/soup.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-metad-client.h"
#include "gnt-metad-server.h"
#include "gnt-metadata.h"
#include "gnt-node-calls-metad.h"
#include "gnt-noded.h"
#include "gnt-test-util.h"
#include "rpc-test-server.h"

#define PRIVATE_VALUE "pr1vate-v4lue-17"
#define SECRET_VALUE  "s3cr3t-v4lue-never-on-disk"
#define OTHER_SECRET  "0ther-s3cr3t-of-db1"

#define WEB1_RECORD                                                                                \
	"{\"name\":\"web1\",\"uuid\":\"7d2f0c7e-0001\",\"hostname\":\"web1.example.com\","         \
	"\"os\":\"debootstrap+default\",\"osparams\":{\"dhcp\":\"yes\"},"                          \
	"\"osparams_private\":{\"rootpw\":\"" PRIVATE_VALUE "\"},"                                 \
	"\"osparams_secret\":{\"token\":\"" SECRET_VALUE "\"},"                                    \
	"\"os_scripts\":{\"create\":\"#!/bin/sh\\necho web1\\n\"},"                                \
	"\"user_data\":\"#cloud-config\\nhostname: web1\\n\","                                     \
	"\"ssh_keys\":[\"ssh-ed25519 AAAAC3web1 alice@example.com\",\"ssh-rsa AAAAB3web1\"],"      \
	"\"availability_zone\":\"default\","                                                       \
	"\"nics\":[{\"mac\":\"52:54:00:00:00:01\",\"ip\":\"192.0.2.10\","                          \
	"\"netmask\":\"255.255.255.0\"},{\"mac\":\"52:54:00:00:00:0a\",\"ip\":\"169.254.0.5\","    \
	"\"netmask\":\"255.255.0.0\",\"channel\":true}],\"unknown_member\":1}"

#define DB1_RECORD                                                                                 \
	"{\"name\":\"db1\",\"uuid\":\"7d2f0c7e-0002\",\"hostname\":\"db1.example.com\","           \
	"\"os\":\"noop\",\"osparams_secret\":{\"token\":\"" OTHER_SECRET "\"},"                    \
	"\"ssh_keys\":[\"ssh-ed25519 AAAAC3db1 bob@example.com\"],"                                \
	"\"nics\":[{\"mac\":\"52:54:00:00:00:02\",\"ip\":\"169.254.0.6\",\"channel\":true}]}"

typedef struct {
	GPtrArray *dirs; /* make_root()'s */
	gchar *dir;	 /* the root: a cluster's node1, metad's and noded's */
	GntPaths *paths;
	GSubprocess *metad;
	gchar *control;
	gchar *log; /* metad's stderr, --debug: inside the root, scanned too */
} MetadFx;

static JsonObject *
parse_object(const gchar *text)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode) node = gnt_json_parse(text, -1, &error);

	g_assert_no_error(error);
	return json_object_ref(json_node_get_object(node));
}

static void
push(MetadFx *fx, const gchar *name, const gchar *record_text)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) record = parse_object(record_text);

	g_assert_true(gnt_metad_client_push(fx->control, name, record, &error));
	g_assert_no_error(error);
}

static void
metad_set_up(MetadFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GSubprocessLauncher) launcher = NULL;
	g_autoptr(GDataInputStream) out = NULL;

	fx->dirs = g_ptr_array_new_with_free_func(g_free);
	fx->paths = make_root(fx->dirs, "node1");
	fx->dir = g_strdup(gnt_paths_get_root(fx->paths));
	g_assert_true(gnt_paths_ensure_dirs(fx->paths, &error));
	fx->log = g_build_filename(gnt_paths_get_log_dir(fx->paths), "metad-stderr.log", NULL);
	launcher = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_STDOUT_PIPE);
	g_subprocess_launcher_set_stderr_file_path(launcher, fx->log);
	fx->metad = g_subprocess_launcher_spawn(launcher, &error, g_getenv("GNT_TEST_METAD"),
						"--root", fx->dir, "--foreground", "--debug",
						"--print-socket", NULL);
	g_assert_no_error(error);
	out = g_data_input_stream_new(g_subprocess_get_stdout_pipe(fx->metad));
	fx->control = g_data_input_stream_read_line_utf8(out, NULL, NULL, &error);
	g_assert_no_error(error);
	g_assert_nonnull(fx->control); /* NULL: metad died; see its log */
	push(fx, "web1", WEB1_RECORD);
	push(fx, "db1", DB1_RECORD);
}

/* SIGTERM and a clean exit (stop_noded() does just that for any daemon). */
static void
stop_metad(MetadFx *fx)
{
	if (fx->metad == NULL)
		return;
	stop_noded(fx->metad);
	g_clear_object(&fx->metad);
}

static void
metad_tear_down(MetadFx *fx, gconstpointer data)
{
	stop_metad(fx);
	remove_dirs(g_steal_pointer(&fx->dirs));
	g_clear_pointer(&fx->paths, gnt_paths_free);
	g_free(fx->dir);
	g_free(fx->control);
	g_free(fx->log);
}

/* One request through the unix socket @socket; the body as a string. */
static gchar *
request_at(const gchar *socket, const gchar *method, const gchar *path, const gchar *body,
	   const gchar *const *headers, guint *status)
{
	g_autoptr(GSocketAddress) address = g_unix_socket_address_new(socket);
	g_autoptr(SoupSession) session = soup_session_new_with_options(
		"remote-connectable", address, "proxy-resolver", NULL, NULL);
	g_autofree gchar *uri = g_strconcat("http://169.254.169.254", path, NULL);
	g_autoptr(SoupMessage) msg = soup_message_new(method, uri);
	g_autoptr(GBytes) answer = NULL;
	g_autoptr(GError) error = NULL;

	g_assert_nonnull(msg);
	for (guint i = 0; headers != NULL && headers[i] != NULL; i += 2)
		soup_message_headers_replace(soup_message_get_request_headers(msg), headers[i],
					     headers[i + 1]);
	if (body != NULL) {
		g_autoptr(GBytes) bytes = g_bytes_new(body, strlen(body));

		soup_message_set_request_body_from_bytes(msg, "application/octet-stream", bytes);
	}
	answer = soup_session_send_and_read(session, msg, NULL, &error);
	g_assert_no_error(error);
	*status = soup_message_get_status(msg);
	/* an empty GBytes has NULL data */
	if (g_bytes_get_size(answer) == 0)
		return g_strdup("");
	return g_strndup(g_bytes_get_data(answer, NULL), g_bytes_get_size(answer));
}

/* One request through @instance's socket, as that instance. */
static gchar *
request(MetadFx *fx, const gchar *instance, const gchar *method, const gchar *path,
	const gchar *body, const gchar *const *headers, guint *status)
{
	g_autofree gchar *socket = gnt_metad_dup_instance_socket(fx->paths, instance);

	return request_at(socket, method, path, body, headers, status);
}

/* GET @path as @instance: @expected with status 200. */
static void
assert_get(MetadFx *fx, const gchar *instance, const gchar *path, const gchar *expected)
{
	guint status = 0;
	g_autofree gchar *body = request(fx, instance, "GET", path, NULL, NULL, &status);

	if (status != 200)
		g_error("GET '%s' as '%s': %u %s", path, instance, status, body);
	g_assert_cmpstr(body, ==, expected);
}

static void
assert_not_found(MetadFx *fx, const gchar *instance, const gchar *method, const gchar *path,
		 const gchar *const *headers)
{
	guint status = 0;
	g_autofree gchar *body = request(fx, instance, method, path, NULL, headers, &status);

	if (status != 404)
		g_error("%s '%s' as '%s': %u, not 404", method, path, instance, status);
	g_assert_cmpstr(body, ==, GNT_METADATA_NOT_FOUND_BODY);
}

static void
test_ganeti_tree(MetadFx *fx, gconstpointer data)
{
	guint status = 0;
	g_autofree gchar *body = NULL;

	assert_get(fx, "web1", "/ganeti/latest/meta_data.json",
		   "{\"hostname\":\"web1.example.com\",\"name\":\"web1\","
		   "\"os\":\"debootstrap+default\",\"uuid\":\"7d2f0c7e-0001\"}");
	assert_get(fx, "web1", "/ganeti/latest/os/parameters.json",
		   "{\"dhcp\":[\"yes\",\"public\"],\"rootpw\":[\"" PRIVATE_VALUE "\",\"private\"],"
		   "\"token\":[\"" SECRET_VALUE "\",\"secret\"]}");
	assert_get(fx, "web1", "/ganeti/latest/os/scripts/create", "#!/bin/sh\necho web1\n");
	assert_not_found(fx, "web1", "GET", "/ganeti/latest/os/scripts/export", NULL);
	assert_not_found(fx, "web1", "GET", "/ganeti/2016-01-01/meta_data.json", NULL);

	/* write appends, read takes */
	g_free(request(fx, "web1", "POST", "/ganeti/latest/write", "step 1;", NULL, &status));
	g_assert_cmpuint(status, ==, 200);
	g_free(request(fx, "web1", "POST", "/ganeti/latest/write", "step 2", NULL, &status));
	g_assert_cmpuint(status, ==, 200);
	assert_get(fx, "db1", "/ganeti/latest/read", "");
	assert_get(fx, "web1", "/ganeti/latest/read", "step 1;step 2");
	assert_get(fx, "web1", "/ganeti/latest/read", "");
	body = request(fx, "web1", "GET", "/ganeti/latest/write", NULL, NULL, &status);
	g_assert_cmpuint(status, ==, 405);
	g_clear_pointer(&body, g_free);
	body = request(fx, "web1", "POST", "/ganeti/latest/read", "x", NULL, &status);
	g_assert_cmpuint(status, ==, 405);
	g_clear_pointer(&body, g_free);
	body = request(fx, "web1", "POST", "/ganeti/latest/os/parameters.json", "x", NULL, &status);
	g_assert_cmpuint(status, ==, 405);
	g_assert_null(strstr(body, SECRET_VALUE));
}

static void
test_pipe_limit(MetadFx *fx, gconstpointer data)
{
	guint status = 0;
	g_autofree gchar *big = g_strnfill(GNT_METADATA_PIPE_MAX_BYTES, 'x');
	g_autofree gchar *body = NULL;

	g_free(request(fx, "web1", "POST", "/ganeti/latest/write", big, NULL, &status));
	g_assert_cmpuint(status, ==, 200);
	body = request(fx, "web1", "POST", "/ganeti/latest/write", "y", NULL, &status);
	g_assert_cmpuint(status, ==, 413);
	g_clear_pointer(&body, g_free);
	body = request(fx, "web1", "GET", "/ganeti/latest/read", NULL, NULL, &status);
	g_assert_cmpuint(status, ==, 200);
	g_assert_cmpstr(body, ==, big);
}

/* meta_data.json without its random_seed, which must be 512 fresh random
 * bytes in base64 (Nova's, from 2013-04-04 on) */
static gchar *
dup_meta_data_without_seed(MetadFx *fx, const gchar *path, gboolean seeded)
{
	guint status = 0;
	g_autofree gchar *body = request(fx, "web1", "GET", path, NULL, NULL, &status);
	g_autofree gchar *again = request(fx, "web1", "GET", path, NULL, NULL, &status);
	g_autoptr(GRegex) seed = g_regex_new(",\"random_seed\":\"([A-Za-z0-9+/=]+)\"", 0, 0, NULL);
	g_autoptr(GMatchInfo) match = NULL;
	g_autoptr(GMatchInfo) match_again = NULL;

	g_assert_cmpuint(status, ==, 200);
	g_assert_cmpint(g_regex_match(seed, body, 0, &match), ==, seeded);
	if (seeded) {
		g_autofree gchar *text = g_match_info_fetch(match, 1);
		g_autofree gchar *text_again = NULL;
		gsize len = 0;
		g_autofree guchar *raw = g_base64_decode(text, &len);

		g_assert_nonnull(raw);
		g_assert_cmpuint(len, ==, 512);
		g_assert_true(g_regex_match(seed, again, 0, &match_again));
		text_again = g_match_info_fetch(match_again, 1);
		g_assert_cmpstr(text, !=, text_again); /* fresh for every answer */
	}
	return g_regex_replace_literal(seed, body, -1, 0, "", 0, NULL);
}

/* Every directory answers its listing with and without its trailing slash;
 * a file with one is a miss. */
static void
assert_listing(MetadFx *fx, const gchar *instance, const gchar *dir, const gchar *expected)
{
	g_autofree gchar *slashed = g_strconcat(dir, "/", NULL);

	assert_get(fx, instance, dir, expected);
	assert_get(fx, instance, slashed, expected);
}

static void
test_openstack_tree(MetadFx *fx, gconstpointer data)
{
	static const gchar meta_data[] =
		"{\"availability_zone\":\"default\",\"hostname\":\"web1.example.com\",\"keys\":["
		"{\"data\":\"ssh-ed25519 AAAAC3web1 alice@example.com\",\"name\":\"alice@example.com\","
		"\"type\":\"ssh\"},{\"data\":\"ssh-rsa AAAAB3web1\",\"name\":\"key-1\",\"type\":\"ssh\"}],"
		"\"launch_index\":0,\"name\":\"web1\",\"public_keys\":{"
		"\"alice@example.com\":\"ssh-ed25519 AAAAC3web1 alice@example.com\","
		"\"key-1\":\"ssh-rsa AAAAB3web1\"},\"uuid\":\"7d2f0c7e-0001\"}";
	g_autofree gchar *latest = NULL;
	g_autofree gchar *rocky = NULL;
	g_autofree gchar *folsom = NULL;

	/* cloud-init asks for /openstack without the slash */
	assert_listing(fx, "web1", "/openstack",
		       "2012-08-10\n2013-04-04\n2013-10-17\n2015-10-15\n2016-06-30\n2016-10-06\n"
		       "2017-02-22\n2018-08-27\nlatest");
	/* what each version has, as Nova lists it */
	assert_listing(fx, "web1", "/openstack/latest",
		       "meta_data.json\nuser_data\nvendor_data.json\nnetwork_data.json\n"
		       "vendor_data2.json");
	assert_listing(fx, "db1", "/openstack/2018-08-27",
		       "meta_data.json\nvendor_data.json\nnetwork_data.json\nvendor_data2.json");
	assert_listing(fx, "web1", "/openstack/2016-06-30",
		       "meta_data.json\nuser_data\nvendor_data.json\nnetwork_data.json");
	assert_listing(fx, "web1", "/openstack/2013-10-17",
		       "meta_data.json\nuser_data\nvendor_data.json");
	assert_listing(fx, "web1", "/openstack/2012-08-10", "meta_data.json\nuser_data");
	assert_not_found(fx, "web1", "GET", "/openstack/2012-08-10/vendor_data.json", NULL);
	assert_not_found(fx, "web1", "GET", "/openstack/2015-10-15/vendor_data2.json", NULL);
	assert_not_found(fx, "web1", "GET", "/openstack/2013-10-17/network_data.json", NULL);

	latest = dup_meta_data_without_seed(fx, "/openstack/latest/meta_data.json", TRUE);
	rocky = dup_meta_data_without_seed(fx, "/openstack/2018-08-27/meta_data.json", TRUE);
	folsom = dup_meta_data_without_seed(fx, "/openstack/2012-08-10/meta_data.json", FALSE);
	g_assert_cmpstr(latest, ==, meta_data);
	g_assert_cmpstr(rocky, ==, meta_data);
	g_assert_cmpstr(folsom, ==, meta_data);
	assert_get(fx, "web1", "/openstack/latest/user_data", "#cloud-config\nhostname: web1\n");
	assert_get(fx, "web1", "/openstack/latest/vendor_data.json", "{}");
	assert_get(fx, "web1", "/openstack/latest/vendor_data2.json", "{}");
	/* the channel NIC is a NIC of the guest too: its address on the channel */
	assert_get(
		fx, "web1", "/openstack/latest/network_data.json",
		"{\"links\":[{\"ethernet_mac_address\":\"52:54:00:00:00:01\",\"id\":\"nic0\","
		"\"type\":\"phy\"},{\"ethernet_mac_address\":\"52:54:00:00:00:0a\",\"id\":\"nic1\","
		"\"type\":\"phy\"}],\"networks\":[{\"id\":\"nic0\",\"ip_address\":\"192.0.2.10\","
		"\"link\":\"nic0\",\"netmask\":\"255.255.255.0\",\"type\":\"ipv4\"},"
		"{\"id\":\"nic1\",\"ip_address\":\"169.254.0.5\",\"link\":\"nic1\","
		"\"netmask\":\"255.255.0.0\",\"type\":\"ipv4\"}],\"services\":[]}");
	assert_not_found(fx, "db1", "GET", "/openstack/latest/user_data", NULL);
	assert_not_found(fx, "web1", "GET", "/openstack/latest/user_data/", NULL);
	assert_not_found(fx, "web1", "GET", "/openstack/latest/meta_data.json/", NULL);
	assert_not_found(fx, "web1", "GET", "/openstack/latest//meta_data.json", NULL);
	assert_not_found(fx, "web1", "GET", "/openstack/2099-01-01/meta_data.json", NULL);
	assert_not_found(fx, "web1", "GET", "/openstack/2099-01-01", NULL);
}

static void
test_ec2_tree(MetadFx *fx, gconstpointer data)
{
	/* the dated versions DataSourceEc2 asks for first, its fallback, latest */
	static const gchar *const versions[] = {"latest", "2021-03-23", "2018-09-24", "2016-09-02",
						"2009-04-04"};
	/* {instance, path under the version, answer}: directories are asked
	 * for with and without their slash; NULL: 404 */
	static const struct {
		const gchar *instance, *path, *expected;
		gboolean dir;
	} entries[] = {
		{"web1", "", "meta-data/\nuser-data", TRUE},
		{"db1", "", "meta-data/", TRUE},
		{"web1", "/meta-data",
		 "ami-launch-index\nhostname\ninstance-id\nlocal-hostname\nlocal-ipv4\nmac\n"
		 "network/\nplacement/\npublic-keys/",
		 TRUE},
		{"web1", "/meta-data/instance-id", "7d2f0c7e-0001", FALSE},
		{"web1", "/meta-data/instance-id/", NULL, FALSE}, /* a file has no slash */
		{"web1", "/meta-data/hostname", "web1.example.com", FALSE},
		/* the instance's own address, not the channel's */
		{"web1", "/meta-data/local-ipv4", "192.0.2.10", FALSE},
		{"web1", "/meta-data/mac", "52:54:00:00:00:01", FALSE},
		{"web1", "/meta-data/placement", "availability-zone", TRUE},
		{"web1", "/meta-data/placement/availability-zone", "default", FALSE},
		{"web1", "/meta-data/public-keys", "0=alice@example.com\n1=key-1", TRUE},
		{"web1", "/meta-data/public-keys/0", "openssh-key", TRUE},
		{"web1", "/meta-data/public-keys/1/openssh-key", "ssh-rsa AAAAB3web1", FALSE},
		{"web1", "/meta-data/public-keys/2/openssh-key", NULL, FALSE},
		{"web1", "/meta-data/network", "interfaces/", TRUE},
		{"web1", "/meta-data/network/interfaces", "macs/", TRUE},
		{"web1", "/meta-data/network/interfaces/macs",
		 "52:54:00:00:00:01/\n52:54:00:00:00:0a/", TRUE},
		{"web1", "/meta-data/network/interfaces/macs/52:54:00:00:00:01",
		 "device-number\nlocal-hostname\nlocal-ipv4s\nmac\nsubnet-ipv4-cidr-block", TRUE},
		{"web1", "/meta-data/network/interfaces/macs/52:54:00:00:00:01/local-ipv4s",
		 "192.0.2.10", FALSE},
		{"web1",
		 "/meta-data/network/interfaces/macs/52:54:00:00:00:01/subnet-ipv4-cidr-block",
		 "192.0.2.0/24", FALSE},
		{"web1", "/meta-data/network/interfaces/macs/52:54:00:00:00:0a/device-number", "1",
		 FALSE},
		{"web1",
		 "/meta-data/network/interfaces/macs/52:54:00:00:00:0a/subnet-ipv4-cidr-block",
		 "169.254.0.0/16", FALSE},
		{"web1", "/user-data", "#cloud-config\nhostname: web1\n", FALSE},
		{"db1", "/user-data", NULL, FALSE},
		/* db1: no address but the channel's, no netmask, no zone */
		{"db1", "/meta-data",
		 "ami-launch-index\nhostname\ninstance-id\nlocal-hostname\nmac\nnetwork/\npublic-keys/",
		 TRUE},
		{"db1", "/meta-data/network/interfaces/macs/52:54:00:00:00:02",
		 "device-number\nlocal-hostname\nlocal-ipv4s\nmac", TRUE},
		{"db1", "/meta-data/local-ipv4", NULL, FALSE},
		{"db1", "/meta-data/placement/availability-zone", NULL, FALSE},
		{"web1", "//meta-data", NULL, FALSE},
		{"web1", "/meta-data//hostname", NULL, FALSE},
	};

	assert_listing(fx, "web1", "", "2009-04-04\n2016-09-02\n2018-09-24\n2021-03-23\nlatest");
	for (guint v = 0; v < G_N_ELEMENTS(versions); v++) {
		for (guint i = 0; i < G_N_ELEMENTS(entries); i++) {
			g_autofree gchar *path =
				g_strdup_printf("/%s%s", versions[v], entries[i].path);

			if (entries[i].expected == NULL)
				assert_not_found(fx, entries[i].instance, "GET", path, NULL);
			else if (entries[i].dir)
				assert_listing(fx, entries[i].instance, path, entries[i].expected);
			else
				assert_get(fx, entries[i].instance, path, entries[i].expected);
		}
	}
	assert_not_found(fx, "web1", "GET", "/2007-01-19/meta-data/", NULL);
}

static void
test_misses(MetadFx *fx, gconstpointer data)
{
	static const gchar *const paths[] = {
		"/nope",
		"/ganeti/latest/",
		"/ganeti/latest/os/parameters.json/x",
		"/ganeti/latest/os/scripts/%2e%2e",
		"/openstack/latest/nope",
		"/latest/meta-data/nope",
		"/latest/meta-data/public-keys/x",
		"//",
		"/latest/meta-data/public-keys/0=alice@example.com",
	};
	guint status = 0;
	g_autofree gchar *body = NULL;

	for (guint i = 0; i < G_N_ELEMENTS(paths); i++)
		assert_not_found(fx, "web1", "GET", paths[i], NULL);
	/* an encoded '/' is never a separator: the request is refused */
	body = request(fx, "web1", "GET", "/latest/meta-data%2finstance-id", NULL, NULL, &status);
	g_assert_cmpuint(status, ==, 400);
	assert_not_found(fx, "web1", "PUT", "/latest/meta-data/instance-id", NULL);
	assert_not_found(fx, "web1", "DELETE", "/openstack/latest/meta_data.json", NULL);
}

/* Whatever a request names, each socket answers for its own instance. */
static void
test_isolation(MetadFx *fx, gconstpointer data)
{
	static const gchar *const headers[] = {"Host",	      "db1",	     "X-Forwarded-For",
					       "169.254.0.6", "X-Instance",  "db1",
					       "X-Real-IP",   "169.254.0.6", NULL};
	static const gchar *const paths[] = {
		"/ganeti/latest/db1/meta_data.json",
		"/db1/ganeti/latest/meta_data.json",
		"/instances/db1",
		"/ganeti/latest/os/parameters.json?instance=db1",
		NULL,
	};
	guint status = 0;
	g_autofree gchar *body = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree gchar *db1_socket = gnt_metad_dup_instance_socket(fx->paths, "db1");

	assert_get(fx, "db1", "/latest/meta-data/instance-id", "7d2f0c7e-0002");
	assert_get(fx, "db1", "/latest/meta-data/public-keys/0/openssh-key",
		   "ssh-ed25519 AAAAC3db1 bob@example.com");
	body = request(fx, "web1", "GET", "/ganeti/latest/os/parameters.json", NULL, headers,
		       &status);
	g_assert_cmpuint(status, ==, 200);
	g_assert_nonnull(strstr(body, SECRET_VALUE));
	g_assert_null(strstr(body, OTHER_SECRET));
	g_clear_pointer(&body, g_free);
	body = request(fx, "db1", "GET", "/ganeti/latest/os/parameters.json", NULL, NULL, &status);
	g_assert_cmpstr(body, ==, "{\"token\":[\"" OTHER_SECRET "\",\"secret\"]}");
	g_clear_pointer(&body, g_free);
	body = request(fx, "web1", "GET", "/latest/meta-data/instance-id", NULL, headers, &status);
	g_assert_cmpstr(body, ==, "7d2f0c7e-0001");
	for (guint i = 0; paths[i] != NULL; i++) {
		g_clear_pointer(&body, g_free);
		body = request(fx, "web1", "GET", paths[i], NULL, headers, &status);
		g_assert_true(status == 404 || strstr(body, "db1") == NULL);
		g_assert_null(strstr(body, OTHER_SECRET));
	}

	/* removed: its socket is gone, the other one still answers */
	g_assert_true(gnt_metad_client_remove(fx->control, "db1", &error));
	g_assert_no_error(error);
	g_assert_false(g_file_test(db1_socket, G_FILE_TEST_EXISTS));
	g_assert_false(gnt_metad_client_remove(fx->control, "db1", &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
	assert_get(fx, "web1", "/latest/meta-data/instance-id", "7d2f0c7e-0001");
}

static gboolean
no_file_may_hold(const gchar *name)
{
	return FALSE;
}

/* Private and secret values go to the instance, never to a log or a file. */
static void
test_secrets(MetadFx *fx, gconstpointer data)
{
	static const gchar *const nowhere[] = {SECRET_VALUE, OTHER_SECRET, PRIVATE_VALUE, NULL};
	g_autofree gchar *web1_socket = gnt_metad_dup_instance_socket(fx->paths, "web1");
	GStatBuf st;

	/* the control socket and the instance sockets are root's only */
	g_assert_cmpint(g_stat(fx->control, &st), ==, 0);
	g_assert_cmpuint(st.st_mode & 0777, ==, 0600);
	g_assert_cmpint(g_stat(web1_socket, &st), ==, 0);
	g_assert_true(S_ISSOCK(st.st_mode));
	g_assert_cmpuint(st.st_mode & 0777, ==, 0600);
	assert_get(fx, "web1", "/ganeti/latest/os/parameters.json",
		   "{\"dhcp\":[\"yes\",\"public\"],\"rootpw\":[\"" PRIVATE_VALUE "\",\"private\"],"
		   "\"token\":[\"" SECRET_VALUE "\",\"secret\"]}");
	/* a refused push is logged, without its values */
	{
		g_autoptr(JsonObject) bad = parse_object(
			"{\"name\":\"web1\",\"osparams_private\":{\"rootpw\":\"" PRIVATE_VALUE
			"\"},\"osparams_secret\":{\"token\":7}}");
		g_autoptr(GError) error = NULL;

		g_assert_false(gnt_metad_client_push(fx->control, "web1", bad, &error));
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_test_message("refused: %s", error->message);
		g_assert_nonnull(strstr(error->message, "'token'"));
		g_assert_null(strstr(error->message, PRIVATE_VALUE));
	}
	stop_metad(fx);
	g_assert_true(gnt_test_file_contains(fx->log, "GET '/ganeti/latest/os/parameters.json'"));
	g_assert_cmpuint(gnt_test_scan_tree(fx->dir, nowhere, NULL, no_file_may_hold), >, 0);
	/* metad took its sockets away */
	g_assert_false(g_file_test(fx->control, G_FILE_TEST_EXISTS));
	g_assert_false(g_file_test(web1_socket, G_FILE_TEST_EXISTS));
}

static void
test_control(MetadFx *fx, gconstpointer data)
{
	static const gchar *const bad[] = {
		"{\"name\":\"other\"}",
		"{\"uuid\":\"x\"}",
		"{\"name\":\"web1\",\"osparams\":[]}",
		"{\"name\":\"web1\",\"ssh_keys\":[\"a\\nb\"]}",
		"{\"name\":\"web1\",\"nics\":[1]}",
		"{\"name\":\"web1\",\"user_data\":5}",
		"{\"name\":\"web1\",\"nics\":[{\"mac\":\"../52:54\"}]}",
		"{\"name\":\"web1\",\"nics\":[{\"mac\":\"52:54:00:00:00:0g\"}]}",
		"{\"name\":\"web1\",\"nics\":[{\"channel\":\"yes\"}]}",
		"{\"name\":\"web1\",\"availability_zone\":1}",
	};
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) record = parse_object("{\"name\":\"../x\"}");

	for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_autoptr(JsonObject) obj = parse_object(bad[i]);

		g_assert_false(gnt_metad_client_push(fx->control, "web1", obj, &error));
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_assert_nonnull(strstr(error->message, "web1"));
		g_test_message("refused: %s", error->message);
		g_clear_error(&error);
	}
	{
		guint status = 0;
		g_autofree gchar *names =
			request_at(fx->control, "GET", "/instances", NULL, NULL, &status);

		g_assert_cmpuint(status, ==, 200);
		g_assert_cmpstr(names, ==, "[\"db1\",\"web1\"]");
	}
	/* a refused push keeps what was there */
	assert_get(fx, "web1", "/latest/meta-data/instance-id", "7d2f0c7e-0001");
	g_assert_false(gnt_metad_client_push(fx->control, "../x", record, &error));
	g_assert_nonnull(error);
	g_clear_error(&error);
	/* a new push replaces everything but the pipe */
	{
		guint status = 0;

		g_free(request(fx, "web1", "POST", "/ganeti/latest/write", "kept", NULL, &status));
		push(fx, "web1", "{\"name\":\"web1\"}");
		assert_get(fx, "web1", "/latest/meta-data/instance-id", "web1");
		assert_get(fx, "web1", "/ganeti/latest/os/parameters.json", "{}");
		assert_get(fx, "web1", "/latest/meta-data/",
			   "ami-launch-index\nhostname\ninstance-id\nlocal-hostname");
		assert_get(fx, "web1", "/ganeti/latest/read", "kept");
	}
}

/* --- keep-alive, channels, package, progress, the install tree ----------- */

typedef struct {
	guint status;
	gchar *head; /* status line and headers */
	gchar *body;
	gsize body_len;
} RawAnswer;

static void
raw_answer_free(RawAnswer *self)
{
	g_free(self->head);
	g_free(self->body);
	g_free(self);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(RawAnswer, raw_answer_free)

/* A connection to @address (blocking, 10 s timeout). */
static GSocket *
raw_connect(GSocketAddress *address, GError **error)
{
	g_autoptr(GSocket)
		socket = g_socket_new(g_socket_address_get_family(address), G_SOCKET_TYPE_STREAM,
				      G_SOCKET_PROTOCOL_DEFAULT, error);

	if (socket == NULL)
		return NULL;
	g_socket_set_timeout(socket, 10);
	if (!g_socket_connect(socket, address, NULL, error))
		return NULL;
	return g_steal_pointer(&socket);
}

static void
raw_send(GSocket *socket, const gchar *data, gsize len)
{
	g_autoptr(GError) error = NULL;

	while (len > 0) {
		gssize n = g_socket_send(socket, data, len, NULL, &error);

		g_assert_no_error(error);
		g_assert_cmpint(n, >, 0);
		data += n;
		len -= (gsize)n;
	}
}

/* Reads one answer off @socket; @pending holds what was read beyond the
 * previous one. Framed by Content-Length (none: no body, a 204). */
static RawAnswer *
raw_read_answer(GSocket *socket, GString *pending)
{
	g_autoptr(RawAnswer) answer = g_new0(RawAnswer, 1);
	gchar *end = NULL;
	gsize head_len = 0;
	gsize body_len = 0;

	for (;;) {
		gchar buf[16384];
		g_autoptr(GError) error = NULL;
		gssize n;

		end = strstr(pending->str, "\r\n\r\n");
		if (end != NULL && head_len == 0) {
			g_auto(GStrv) lines = NULL;

			head_len = (gsize)(end - pending->str) + 4;
			answer->head = g_strndup(pending->str, head_len);
			lines = g_strsplit(answer->head, "\r\n", -1);
			g_assert_true(g_str_has_prefix(lines[0], "HTTP/1.1 "));
			answer->status = (guint)g_ascii_strtoull(lines[0] + 9, NULL, 10);
			for (guint i = 1; lines[i] != NULL; i++) {
				if (g_ascii_strncasecmp(lines[i], "Content-Length:", 15) == 0)
					body_len = g_ascii_strtoull(lines[i] + 15, NULL, 10);
			}
		}
		if (head_len != 0 && pending->len >= head_len + body_len)
			break;
		n = g_socket_receive(socket, buf, sizeof(buf), NULL, &error);
		g_assert_no_error(error);
		if (n == 0)
			g_error("the connection closed after %" G_GSIZE_FORMAT " bytes: %s",
				pending->len, pending->str);
		g_string_append_len(pending, buf, n);
	}
	answer->body = g_malloc(body_len + 1); /* may hold NULs */
	memcpy(answer->body, pending->str + head_len, body_len);
	answer->body[body_len] = '\0';
	answer->body_len = body_len;
	g_string_erase(pending, 0, (gssize)(head_len + body_len));
	return g_steal_pointer(&answer);
}

/* Whether @socket is at its end (the server closed it) within 10 s. */
static gboolean
raw_at_end(GSocket *socket)
{
	gchar buf[256];
	g_autoptr(GError) error = NULL;
	gssize n = g_socket_receive(socket, buf, sizeof(buf), NULL, &error);

	return n == 0;
}

static GSocketAddress *
unix_address(MetadFx *fx, const gchar *instance)
{
	g_autofree gchar *path = gnt_metad_dup_instance_socket(fx->paths, instance);

	return g_unix_socket_address_new(path);
}

static GSocketAddress *
loopback_address(guint port)
{
	return g_inet_socket_address_new_from_string("127.0.0.1", port);
}

/* A port on 127.0.0.1 nothing listens on now. */
static guint
free_port(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GSocket) socket = g_socket_new(G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
						 G_SOCKET_PROTOCOL_TCP, &error);
	g_autoptr(GSocketAddress) any = loopback_address(0);
	g_autoptr(GSocketAddress) bound = NULL;

	g_assert_no_error(error);
	g_assert_true(g_socket_bind(socket, any, TRUE, &error));
	bound = g_socket_get_local_address(socket, &error);
	g_assert_no_error(error);
	return g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(bound));
}

/* GET @path over a new connection to @address: the answer. */
static RawAnswer *
raw_get(GSocketAddress *address, const gchar *path)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GSocket) socket = raw_connect(address, &error);
	g_autofree gchar *text =
		g_strdup_printf("GET %s HTTP/1.1\r\nHost: 169.254.169.254\r\n\r\n", path);
	g_autoptr(GString) pending = g_string_new(NULL);

	g_assert_no_error(error);
	raw_send(socket, text, strlen(text));
	return raw_read_answer(socket, pending);
}

/* Whether connecting to 127.0.0.1:@port is refused. */
static gboolean
connect_refused(guint port)
{
	g_autoptr(GSocketAddress) address = loopback_address(port);
	g_autoptr(GError) error = NULL;
	g_autoptr(GSocket) socket = raw_connect(address, &error);

	return socket == NULL;
}

static void
test_keep_alive(MetadFx *fx, gconstpointer data)
{
	static const gchar *const paths[] = {
		"/ganeti/latest/meta_data.json",
		"/latest/meta-data/instance-id",
		"/openstack/latest/nope",
		"/latest/meta-data/hostname",
	};
	static const gchar *const expected[] = {
		("{\"hostname\":\"web1.example.com\",\"name\":\"web1\",\"os\":"
		 "\"debootstrap+default\",\"uuid\":\"7d2f0c7e-0001\"}"),
		"7d2f0c7e-0001",
		GNT_METADATA_NOT_FOUND_BODY,
		"web1.example.com",
	};
	g_autoptr(GSocketAddress) address = unix_address(fx, "web1");
	g_autoptr(GError) error = NULL;
	g_autoptr(GSocket) socket = raw_connect(address, &error);
	g_autoptr(GString) pending = g_string_new(NULL);
	g_autoptr(GString) batch = g_string_new(NULL);

	g_assert_no_error(error);
	/* one after the other on one connection */
	for (guint i = 0; i < G_N_ELEMENTS(paths); i++) {
		g_autofree gchar *text =
			g_strdup_printf("GET %s HTTP/1.1\r\nHost: x\r\n\r\n", paths[i]);
		g_autoptr(RawAnswer) answer = NULL;

		raw_send(socket, text, strlen(text));
		answer = raw_read_answer(socket, pending);
		g_assert_cmpuint(answer->status, ==, i == 2 ? 404 : 200);
		g_assert_cmpstr(answer->body, ==, expected[i]);
		g_assert_null(strstr(answer->head, "Connection: close"));
	}
	/* pipelined: 3 rounds of every path (a write, a HEAD among them) in
	 * one send, answered in order */
	for (guint round = 0; round < 3; round++) {
		for (guint i = 0; i < G_N_ELEMENTS(paths); i++)
			g_string_append_printf(batch, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n",
					       paths[i]);
		g_string_append(batch, "POST /ganeti/latest/write HTTP/1.1\r\nHost: x\r\n"
				       "Content-Length: 3\r\n\r\nabc");
		g_string_append(batch,
				"HEAD /latest/meta-data/instance-id HTTP/1.1\r\nHost: x\r\n\r\n");
	}
	g_string_append(batch, "GET /ganeti/latest/read HTTP/1.1\r\nHost: x\r\n\r\n");
	raw_send(socket, batch->str, batch->len);
	for (guint round = 0; round < 3; round++) {
		for (guint i = 0; i < G_N_ELEMENTS(paths); i++) {
			g_autoptr(RawAnswer) answer = raw_read_answer(socket, pending);

			g_assert_cmpstr(answer->body, ==, expected[i]);
		}
		{
			g_autoptr(RawAnswer) write = raw_read_answer(socket, pending);
			g_autoptr(RawAnswer) head = NULL;

			g_assert_cmpuint(write->status, ==, 200);
			/* HEAD: the length of the GET's body, and no body */
			g_string_append(pending, ""); /* nothing to do: framing below */
			head = g_new0(RawAnswer, 1);
			{
				gchar *end = NULL;

				while ((end = strstr(pending->str, "\r\n\r\n")) == NULL) {
					gchar buf[4096];
					gssize n = g_socket_receive(socket, buf, sizeof(buf), NULL,
								    &error);

					g_assert_no_error(error);
					g_assert_cmpint(n, >, 0);
					g_string_append_len(pending, buf, n);
				}
				head->head =
					g_strndup(pending->str, (gsize)(end - pending->str) + 4);
				g_string_erase(pending, 0, end - pending->str + 4);
			}
			g_assert_true(g_str_has_prefix(head->head, "HTTP/1.1 200"));
			g_assert_nonnull(strstr(head->head, "Content-Length: 13\r\n"));
		}
	}
	{
		g_autoptr(RawAnswer) read = raw_read_answer(socket, pending);

		g_assert_cmpstr(read->body, ==, "abcabcabc");
	}
	g_assert_cmpuint(pending->len, ==, 0);
	/* a client's Connection: close does not end the unix stream: with the
	 * slirp fallback it carries every connection of the guest, one after
	 * the other (busybox wget always sends it); the next request on it is
	 * answered, and the peer's own close ends it */
	{
		static const gchar last[] = "GET /latest/meta-data/hostname HTTP/1.1\r\nHost: x\r\n"
					    "Connection: close\r\n\r\n";
		static const gchar next[] = "GET /latest/meta-data/instance-id HTTP/1.1\r\n"
					    "Host: x\r\nConnection: close\r\n\r\n";
		g_autoptr(RawAnswer) answer = NULL;
		g_autoptr(RawAnswer) second = NULL;

		raw_send(socket, last, strlen(last));
		answer = raw_read_answer(socket, pending);
		g_assert_cmpstr(answer->body, ==, "web1.example.com");
		g_assert_null(strstr(answer->head, "Connection: close"));
		raw_send(socket, next, strlen(next));
		second = raw_read_answer(socket, pending);
		g_assert_cmpuint(second->status, ==, 200);
	}
}

/* One instance cannot take every connection: past its 64, its new ones
 * wait while the others' are served. */
static void
test_connection_share(MetadFx *fx, gconstpointer data)
{
	static const gchar get[] = "GET /latest/meta-data/hostname HTTP/1.1\r\nHost: x\r\n\r\n";
	g_autoptr(GSocketAddress) address = unix_address(fx, "web1");
	g_autoptr(GPtrArray) sockets = g_ptr_array_new_with_free_func(g_object_unref);
	g_autoptr(GString) pending = g_string_new(NULL);
	g_autoptr(GSocket) waiting = NULL;
	g_autoptr(RawAnswer) answer = NULL;
	g_autoptr(GError) error = NULL;

	for (guint i = 0; i < 64; i++) {
		GSocket *socket = raw_connect(address, &error);
		g_autoptr(RawAnswer) kept = NULL;

		g_assert_no_error(error);
		g_ptr_array_add(sockets, socket);
		raw_send(socket, get, strlen(get));
		kept = raw_read_answer(socket, pending);
		g_assert_cmpstr(kept->body, ==, "web1.example.com");
	}
	waiting = raw_connect(address, &error); /* in the backlog */
	g_assert_no_error(error);
	raw_send(waiting, get, strlen(get));
	/* db1 is served meanwhile */
	assert_get(fx, "db1", "/latest/meta-data/hostname", "db1.example.com");
	g_assert_false(
		g_socket_condition_timed_wait(waiting, G_IO_IN, G_USEC_PER_SEC / 5, NULL, NULL));
	/* one of web1's closes: the waiting one is accepted and answered */
	g_ptr_array_remove_index(sockets, 0);
	answer = raw_read_answer(waiting, pending);
	g_assert_cmpstr(answer->body, ==, "web1.example.com");
}

static JsonObject *
channel_spec(const gchar *device, guint port)
{
	g_autofree gchar *text = g_strdup_printf(
		"{\"device\":\"%s\",\"address\":\"127.0.0.1\",\"port\":%u}", device, port);

	return parse_object(text);
}

static void
set_channel(MetadFx *fx, const gchar *instance, guint port)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) spec = channel_spec("lo", port);

	g_assert_true(gnt_metad_client_set_channel(fx->control, instance, spec, &error));
	g_assert_no_error(error);
}

static void
assert_channel_answers(guint port, const gchar *uuid)
{
	g_autoptr(GSocketAddress) address = loopback_address(port);
	g_autoptr(RawAnswer) answer = raw_get(address, "/latest/meta-data/instance-id");

	g_assert_cmpuint(answer->status, ==, 200);
	g_assert_cmpstr(answer->body, ==, uuid);
}

static void
test_channel(MetadFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	guint web1_port = free_port();
	guint db1_port = 0;
	guint new_port = 0;

	if (geteuid() != 0) {
		g_test_skip("SO_BINDTODEVICE needs root (CAP_NET_RAW)");
		return;
	}
	set_channel(fx, "web1", web1_port);
	db1_port = free_port();
	set_channel(fx, "db1", db1_port);
	/* whoever comes through a channel is its instance, whatever it asks */
	assert_channel_answers(web1_port, "7d2f0c7e-0001");
	assert_channel_answers(db1_port, "7d2f0c7e-0002");
	{
		g_autoptr(GSocketAddress) address = loopback_address(web1_port);
		g_autoptr(RawAnswer) answer = raw_get(address, "/ganeti/latest/os/parameters.json");

		g_assert_nonnull(strstr(answer->body, PRIVATE_VALUE));
	}
	/* a kept-alive connection through the channel is closed with it */
	{
		g_autoptr(GSocketAddress) address = loopback_address(web1_port);
		g_autoptr(GSocket) socket = raw_connect(address, &error);
		g_autoptr(GString) pending = g_string_new(NULL);
		static const gchar get[] =
			"GET /latest/meta-data/hostname HTTP/1.1\r\nHost: x\r\n\r\n";
		g_autoptr(RawAnswer) answer = NULL;

		g_assert_no_error(error);
		raw_send(socket, get, strlen(get));
		answer = raw_read_answer(socket, pending);
		g_assert_cmpstr(answer->body, ==, "web1.example.com");
		g_assert_true(gnt_metad_client_remove_channel(fx->control, "web1", &error));
		g_assert_no_error(error);
		g_assert_true(raw_at_end(socket));
	}
	g_assert_true(connect_refused(web1_port));
	/* the unix socket stays */
	assert_get(fx, "web1", "/latest/meta-data/instance-id", "7d2f0c7e-0001");
	/* a new channel replaces the old one */
	new_port = free_port();
	set_channel(fx, "db1", new_port);
	assert_channel_answers(new_port, "7d2f0c7e-0002");
	g_assert_true(connect_refused(db1_port));
	/* removing the instance closes its channel */
	g_assert_true(gnt_metad_client_remove(fx->control, "db1", &error));
	g_assert_no_error(error);
	g_assert_true(connect_refused(new_port));
	/* tearing down again is fine */
	g_assert_true(gnt_metad_client_remove_channel(fx->control, "db1", &error));
	g_assert_true(gnt_metad_client_remove_package(fx->control, "db1", &error));
	g_assert_true(gnt_metad_client_clear_progress(fx->control, "db1", &error));
	g_assert_no_error(error);
	/* a channel for an instance metad does not know */
	{
		g_autoptr(JsonObject) spec = channel_spec("lo", free_port());

		g_assert_false(gnt_metad_client_set_channel(fx->control, "db1", spec, &error));
		g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
		g_clear_error(&error);
	}
}

static void
test_channel_refused(MetadFx *fx, gconstpointer data)
{
	static const gchar *const bad[] = {
		"{\"device\":\"gnt.nope.9\",\"port\":PORT}",
		"{\"device\":\"lo\",\"address\":\"not-an-ip\",\"port\":PORT}",
		"{\"device\":\"lo\",\"address\":\"127.0.0.1\",\"port\":70000}",
		"{\"address\":\"127.0.0.1\",\"port\":PORT}",
		("{\"device\":\"lo\",\"address\":\"127.0.0.1\",\"port\":PORT,\"dhcp\":"
		 "{\"mac\":\"52:54:00:zz:00:01\",\"ip\":\"169.254.1.2\",\"netmask\":\"255.255.0.0\"}}"),
	};
	static const gchar *const named[] = {"'gnt.nope.9'", "'not-an-ip'", "70000", "'device'",
					     "'52:54:00:zz:00:01'"};
	guint status = 0;
	g_autofree gchar *body = NULL;

	for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_autoptr(GError) error = NULL;
		g_autofree gchar *port = g_strdup_printf("%u", free_port());
		g_autoptr(GString) text = g_string_new(bad[i]);
		g_autoptr(JsonObject) spec = NULL;

		g_string_replace(text, "PORT", port, 0);
		spec = parse_object(text->str);

		g_assert_false(gnt_metad_client_set_channel(fx->control, "web1", spec, &error));
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		if (strstr(error->message, named[i]) == NULL)
			g_error("'%s' does not name %s", error->message, named[i]);
		g_assert_nonnull(strstr(error->message, "(400)"));
	}
	/* not JSON, an unknown part, a wrong method */
	body = request_at(fx->control, "PUT", "/instances/web1/channel", "{", NULL, &status);
	g_assert_cmpuint(status, ==, 400);
	g_clear_pointer(&body, g_free);
	body = request_at(fx->control, "PUT", "/instances/web1/nope", "{}", NULL, &status);
	g_assert_cmpuint(status, ==, 404);
	g_clear_pointer(&body, g_free);
	body = request_at(fx->control, "GET", "/instances/web1/channel", NULL, NULL, &status);
	g_assert_cmpuint(status, ==, 405);
}

static void
test_package(MetadFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GByteArray) bytes = g_byte_array_new();
	g_autoptr(GBytes) package = NULL;
	g_autoptr(GSocketAddress) address = unix_address(fx, "web1");
	g_autoptr(RawAnswer) answer = NULL;
	GRand *rand = g_rand_new_with_seed(6);

	for (guint i = 0; i < 700 * 1024; i++) {
		guint8 byte = (guint8)g_rand_int(rand);

		g_byte_array_append(bytes, &byte, 1);
	}
	g_rand_free(rand);
	package = g_byte_array_free_to_bytes(g_steal_pointer(&bytes));
	assert_not_found(fx, "web1", "GET", "/ganeti/latest/os/package", NULL);
	g_assert_true(gnt_metad_client_put_package(fx->control, "web1", package, &error));
	g_assert_no_error(error);
	answer = raw_get(address, "/ganeti/latest/os/package");
	g_assert_cmpuint(answer->status, ==, 200);
	g_assert_nonnull(strstr(answer->head, "Content-Type: application/gzip\r\n"));
	g_assert_cmpmem(answer->body, answer->body_len, g_bytes_get_data(package, NULL),
			g_bytes_get_size(package));
	/* only web1's */
	assert_not_found(fx, "db1", "GET", "/ganeti/latest/os/package", NULL);
	/* a new push of the record keeps it */
	push(fx, "web1", WEB1_RECORD);
	g_clear_pointer(&answer, raw_answer_free);
	answer = raw_get(address, "/ganeti/latest/os/package");
	g_assert_cmpuint(answer->body_len, ==, g_bytes_get_size(package));
	g_assert_true(gnt_metad_client_remove_package(fx->control, "web1", &error));
	g_assert_no_error(error);
	assert_not_found(fx, "web1", "GET", "/ganeti/latest/os/package", NULL);
	g_assert_false(gnt_metad_client_put_package(fx->control, "nope", package, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_NOT_FOUND);
}

/* POST a progress report as @instance: the status. */
static guint
post_progress(MetadFx *fx, const gchar *instance, const gchar *query, const gchar *output)
{
	guint status = 0;
	g_autofree gchar *path = g_strconcat("/gantry/latest/install/progress?", query, NULL);

	g_free(request(fx, instance, "POST", path, output, NULL, &status));
	return status;
}

static JsonArray *
progress_entries(MetadFx *fx, guint64 since, gint64 *next)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonNode)
		node = gnt_metad_client_get_progress(fx->control, "web1", since, &error);
	JsonObject *obj = NULL;

	g_assert_no_error(error);
	obj = json_node_get_object(node);
	*next = json_object_get_int_member(obj, "next");
	return json_array_ref(json_object_get_array_member(obj, "entries"));
}

static void
test_progress(MetadFx *fx, gconstpointer data)
{
	g_autoptr(JsonArray) entries = NULL;
	g_autoptr(GString) big = g_string_new(NULL);
	g_autoptr(GError) error = NULL;
	JsonObject *entry = NULL;
	gint64 next = -1;
	guint status = 0;
	g_autofree gchar *body = NULL;

	entries = progress_entries(fx, 0, &next);
	g_assert_cmpint(next, ==, 0);
	g_assert_cmpuint(json_array_get_length(entries), ==, 0);
	g_clear_pointer(&entries, json_array_unref);
	g_assert_cmpuint(post_progress(fx, "web1", "step=appliance&state=start", NULL), ==, 200);
	g_assert_cmpuint(
		post_progress(fx, "web1",
			      "step=run_os_scripts&state=failed&detail=exit%20status%202%2C+sh",
			      "line 1\nline 2\n"),
		==, 200);
	entries = progress_entries(fx, 0, &next);
	g_assert_cmpint(next, ==, 2);
	g_assert_cmpuint(json_array_get_length(entries), ==, 2);
	entry = json_array_get_object_element(entries, 1);
	g_assert_cmpint(json_object_get_int_member(entry, "seq"), ==, 1);
	g_assert_cmpstr(json_object_get_string_member(entry, "step"), ==, "run_os_scripts");
	g_assert_cmpstr(json_object_get_string_member(entry, "state"), ==, "failed");
	g_assert_cmpstr(json_object_get_string_member(entry, "detail"), ==, "exit status 2, sh");
	g_assert_cmpstr(json_object_get_string_member(entry, "output"), ==, "line 1\nline 2\n");
	g_assert_cmpfloat(json_object_get_double_member(entry, "time"), >, 1.7e9);
	g_clear_pointer(&entries, json_array_unref);
	entries = progress_entries(fx, 1, &next);
	g_assert_cmpuint(json_array_get_length(entries), ==, 1);
	g_clear_pointer(&entries, json_array_unref);
	/* bad state and step: 400 naming them, nothing added */
	body = request(fx, "web1", "POST",
		       "/gantry/latest/install/progress?step=appliance&state=over", NULL, NULL,
		       &status);
	g_assert_cmpuint(status, ==, 400);
	g_assert_nonnull(strstr(body, "'over'"));
	g_clear_pointer(&body, g_free);
	body = request(fx, "web1", "POST",
		       "/gantry/latest/install/progress?step=Bad%20Step&state=info", NULL, NULL,
		       &status);
	g_assert_cmpuint(status, ==, 400);
	g_assert_nonnull(strstr(body, "'Bad Step'"));
	g_clear_pointer(&body, g_free);
	body = request(fx, "web1", "POST", "/gantry/latest/install/progress", NULL, NULL, &status);
	g_assert_cmpuint(status, ==, 400);
	g_clear_pointer(&body, g_free);
	body = request(fx, "web1", "GET", "/gantry/latest/install/progress?step=a&state=info", NULL,
		       NULL, &status);
	g_assert_cmpuint(status, ==, 405);
	g_clear_pointer(&body, g_free);
	/* the output's tail is kept */
	for (guint i = 0; big->len < GNT_METADATA_PROGRESS_OUTPUT_MAX + 10000; i++)
		g_string_append_printf(big, "output line %u\n", i);
	g_assert_cmpuint(post_progress(fx, "web1", "step=personalize&state=done", big->str), ==,
			 200);
	entries = progress_entries(fx, 2, &next);
	g_assert_cmpint(next, ==, 3);
	g_assert_cmpuint(json_array_get_length(entries), ==, 1);
	entry = json_array_get_object_element(entries, 0);
	g_assert_cmpuint(strlen(json_object_get_string_member(entry, "output")), ==,
			 GNT_METADATA_PROGRESS_OUTPUT_MAX);
	g_assert_true(g_str_has_suffix(big->str, json_object_get_string_member(entry, "output")));
	g_clear_pointer(&entries, json_array_unref);
	/* a bad since */
	body = request_at(fx->control, "GET", "/instances/web1/progress?since=x", NULL, NULL,
			  &status);
	g_assert_cmpuint(status, ==, 400);
	g_assert_nonnull(strstr(body, "'x'"));
	/* a new push keeps it; DELETE clears it */
	push(fx, "web1", WEB1_RECORD);
	entries = progress_entries(fx, 0, &next);
	g_assert_cmpuint(json_array_get_length(entries), ==, 3);
	g_clear_pointer(&entries, json_array_unref);
	g_assert_true(gnt_metad_client_clear_progress(fx->control, "web1", &error));
	g_assert_no_error(error);
	entries = progress_entries(fx, 0, &next);
	g_assert_cmpint(next, ==, 0);
	g_assert_cmpuint(json_array_get_length(entries), ==, 0);
	g_clear_pointer(&entries, json_array_unref);
	/* at most 1,000 entries kept, the oldest go */
	for (guint i = 0; i < GNT_METADATA_PROGRESS_MAX_ENTRIES + 5; i++)
		g_assert_cmpuint(post_progress(fx, "web1", "step=appliance&state=info", NULL), ==,
				 200);
	entries = progress_entries(fx, 0, &next);
	g_assert_cmpint(next, ==, GNT_METADATA_PROGRESS_MAX_ENTRIES + 5);
	g_assert_cmpuint(json_array_get_length(entries), ==, GNT_METADATA_PROGRESS_MAX_ENTRIES);
	g_assert_cmpint(json_object_get_int_member(json_array_get_object_element(entries, 0),
						   "seq"),
			==, 5);
}

/* A guest that reports more than the bound: the newest entries stay, the
 * oldest went first, and what is kept (all of it is what GET answers)
 * stays within GNT_METADATA_PROGRESS_MAX_BYTES. */
static void
test_progress_bounded(MetadFx *fx, gconstpointer data)
{
	g_autofree gchar *output = g_strnfill(GNT_METADATA_PROGRESS_OUTPUT_MAX, 'o');
	g_autofree gchar *detail = g_strnfill(GNT_METADATA_PROGRESS_DETAIL_MAX, 'd');
	g_autofree gchar *query = g_strconcat("step=write_image&state=info&detail=", detail, NULL);
	/* four times the bound */
	guint n = 4 * GNT_METADATA_PROGRESS_MAX_BYTES /
		  (GNT_METADATA_PROGRESS_OUTPUT_MAX + GNT_METADATA_PROGRESS_DETAIL_MAX);
	g_autoptr(JsonArray) entries = NULL;
	gint64 next = -1;
	gsize kept = 0;
	guint len;

	for (guint i = 0; i < n; i++)
		g_assert_cmpuint(post_progress(fx, "web1", query, output), ==, 200);
	entries = progress_entries(fx, 0, &next);
	len = json_array_get_length(entries);
	g_assert_cmpint(next, ==, n);
	g_assert_cmpuint(len, >, 0);
	g_assert_cmpuint(len, <, n / 3);
	for (guint i = 0; i < len; i++) {
		JsonObject *entry = json_array_get_object_element(entries, i);

		/* the newest ones, without a gap */
		g_assert_cmpint(json_object_get_int_member(entry, "seq"), ==, n - len + i);
		g_assert_cmpstr(json_object_get_string_member(entry, "output"), ==, output);
		kept += strlen(json_object_get_string_member(entry, "output")) +
			strlen(json_object_get_string_member(entry, "detail"));
	}
	g_assert_cmpuint(kept, <=, GNT_METADATA_PROGRESS_MAX_BYTES);
	/* the bound is used, not far undercut */
	g_assert_cmpuint(kept, >,
			 GNT_METADATA_PROGRESS_MAX_BYTES - 2 * (GNT_METADATA_PROGRESS_OUTPUT_MAX +
								GNT_METADATA_PROGRESS_DETAIL_MAX));
}

#define TRICKY_VALUE "it's\n$(touch /tmp/gnt-pwned)`id` \\ \"q\" '\\''"

static void
test_install_tree(MetadFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) record = NULL;
	g_autofree gchar *env = NULL;
	g_autofree gchar *file = NULL;
	g_autofree gchar *out = NULL;
	g_autofree gchar *expected_json = NULL;
	g_autoptr(JsonNode) value = NULL;
	gint wait_status = 0;
	guint status = 0;

	/* the tricky value, written as JSON */
	value = json_node_init_string(json_node_alloc(), TRICKY_VALUE);
	expected_json = json_to_string(value, FALSE);
	{
		g_autofree gchar *text = g_strdup_printf(
			"{\"name\":\"web1\",\"os_environment\":{\"INSTANCE_NAME\":\"web1\","
			"\"DISK_0_PATH\":\"/dev/vda\",\"OS_VARIANT\":%s},"
			"\"osparams\":{\"x\":%s,\"os-package\":\"http://h/p.tgz\"},"
			"\"osparams_secret\":{\"my.secret\":\"" SECRET_VALUE "\"},"
			"\"os_scripts\":{\"create\":\"#!/bin/sh\\necho create\\n\"}}",
			expected_json, expected_json);

		record = parse_object(text);
	}
	g_assert_true(gnt_metad_client_push(fx->control, "web1", record, &error));
	g_assert_no_error(error);
	env = request(fx, "web1", "GET", "/gantry/latest/install/environment", NULL, NULL, &status);
	g_assert_cmpuint(status, ==, 200);
	g_assert_true(g_str_has_prefix(env, "export INSTANCE_NAME='web1'\n"));
	g_assert_nonnull(strstr(env, "export OSP_OS_PACKAGE='http://h/p.tgz'\n"));
	g_assert_nonnull(strstr(env, "export OSP_MY_SECRET='" SECRET_VALUE "'\n"));
	file = g_build_filename(fx->dir, "environment", NULL);
	g_assert_true(g_file_set_contents(file, env, -1, &error));
	{
		const gchar *argv[] = {
			"/bin/sh",
			"-c",
			". \"$1\"; printf %s \"$OSP_X\"; printf '|%s' \"$OS_VARIANT\" "
			"\"$DISK_0_PATH\" \"$OSP_MY_SECRET\"",
			"sh",
			file,
			NULL};

		g_assert_true(g_spawn_sync(NULL, (gchar **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
					   &out, NULL, &wait_status, &error));
		g_assert_no_error(error);
	}
	g_assert_cmpstr(out, ==, TRICKY_VALUE "|" TRICKY_VALUE "|/dev/vda|" SECRET_VALUE);
	g_assert_false(g_file_test("/tmp/gnt-pwned", G_FILE_TEST_EXISTS));
	g_unlink(file);
	assert_get(fx, "web1", "/gantry/latest/install/script", "#!/bin/sh\necho create\n");
	assert_not_found(fx, "db1", "GET", "/gantry/latest/install/script", NULL);
	/* a bad variable name refuses the record */
	{
		g_autoptr(JsonObject) bad =
			parse_object("{\"name\":\"web1\",\"os_environment\":{\"A-B\":\"x\"}}");

		g_assert_false(gnt_metad_client_push(fx->control, "web1", bad, &error));
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_assert_nonnull(strstr(error->message, "'A-B'"));
	}
}

static void
test_bad_requests(MetadFx *fx, gconstpointer data)
{
	static const gchar *const misses[] = {
		"/ganeti/2020-01-01/meta_data.json",
		"/ganeti/latest/os/package/x",
		"/gantry/v2/install/script",
		"/gantry/latest/install/nope",
		"/gantry/latest/install/",
		"/gantry/latest/",
		"/openstack/1999-01-01/meta_data.json",
		"/2020-01-01/meta-data/instance-id",
		"/latest/meta-data/instance-id/x",
	};
	g_autoptr(GSocketAddress) address = unix_address(fx, "web1");
	g_autoptr(GError) error = NULL;

	for (guint i = 0; i < G_N_ELEMENTS(misses); i++)
		assert_not_found(fx, "web1", "GET", misses[i], NULL);
	/* a body larger than any a guest may send: 413 before it is read */
	{
		g_autoptr(GSocket) socket = raw_connect(address, &error);
		g_autoptr(GString) pending = g_string_new(NULL);
		g_autofree gchar *head = g_strdup_printf(
			"POST /ganeti/latest/write HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n",
			GNT_METADATA_PIPE_MAX_BYTES + 1);
		g_autoptr(RawAnswer) answer = NULL;

		g_assert_no_error(error);
		raw_send(socket, head, strlen(head));
		answer = raw_read_answer(socket, pending);
		g_assert_cmpuint(answer->status, ==, 413);
		g_assert_nonnull(strstr(answer->head, "Connection: close"));
		g_assert_true(raw_at_end(socket));
	}
	/* malformed: a bad chunked body, a bad length, garbage */
	{
		static const gchar *const bad[] = {
			"POST /ganeti/latest/write HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked"
			"\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
			"POST /ganeti/latest/write HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
			"POST /gantry/latest/install/progress HTTP/1.1\r\nHost: x\r\nContent-Length: "
			"1, 2\r\n\r\n",
			"\x01\x02 garbage\r\n\r\n",
			"GET /latest/meta-data/%00 HTTP/1.1\r\nHost: x\r\n\r\n",
		};

		for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
			g_autoptr(GSocket) socket = raw_connect(address, &error);
			g_autoptr(GString) pending = g_string_new(NULL);
			g_autoptr(RawAnswer) answer = NULL;

			g_assert_no_error(error);
			raw_send(socket, bad[i], strlen(bad[i]));
			answer = raw_read_answer(socket, pending);
			g_assert_cmpuint(answer->status, ==, 400);
		}
	}
	/* a huge progress output: refused whole, nothing added */
	{
		g_autofree gchar *huge = g_strnfill(GNT_METADATA_PIPE_MAX_BYTES + 1, 'x');
		g_autoptr(GSocket) socket = raw_connect(address, &error);
		g_autoptr(GString) pending = g_string_new(NULL);
		g_autofree gchar *head = g_strdup_printf(
			"POST /gantry/latest/install/progress?step=a&state=info HTTP/1.1\r\n"
			"Host: x\r\nContent-Length: %" G_GSIZE_FORMAT "\r\n\r\n",
			strlen(huge));
		g_autoptr(RawAnswer) answer = NULL;
		gint64 next = -1;
		g_autoptr(JsonArray) entries = NULL;

		g_assert_no_error(error);
		raw_send(socket, head, strlen(head));
		answer = raw_read_answer(socket, pending);
		g_assert_cmpuint(answer->status, ==, 413);
		entries = progress_entries(fx, 0, &next);
		g_assert_cmpint(next, ==, 0);
	}
	/* metad still answers */
	assert_get(fx, "web1", "/latest/meta-data/instance-id", "7d2f0c7e-0001");
}

/* --- noded's procedures through the master's typed calls ---------------- */

static void
test_node_rpc(MetadFx *fx, gconstpointer data)
{
	g_autoptr(GError) error = NULL;
	const GntRpcNodeOptions options = {.libvirt_uri = "test:///default"};
	GntRpcNode *rpc_node = gnt_rpc_node_new(fx->paths, &options, &error);
	TestServer *server = NULL;
	g_autoptr(GntRpcClient) client = NULL;
	g_autoptr(JsonObject) node = NULL;
	g_autoptr(JsonObject) record = NULL;
	g_autoptr(GntSecretDict) secrets = gnt_secret_dict_new();
	g_autofree gchar *os_dir = g_build_filename(g_getenv("GNT_TEST_DATA_DIR"), "os-defs", NULL);
	g_autofree gchar *record_text =
		g_strdup_printf("{\"name\":\"app1\",\"uuid\":\"u-app1\",\"os\":\"sample+minimal\","
				"\"os_search_path\":[\"%s\"],\"osparams\":{\"a\":\"b\"}}",
				os_dir);
	g_autofree gchar *create_path = g_build_filename(os_dir, "sample", "create", NULL);
	g_autofree gchar *create = NULL;
	g_autofree gchar *app1_socket = gnt_metad_dup_instance_socket(fx->paths, "app1");

	g_assert_no_error(error);
	server = test_server_start_node(fx->paths, FALSE, 0, rpc_node);
	client = gnt_rpc_client_new_from_paths(fx->paths, &error);
	g_assert_no_error(error);
	node = test_node_record(server->port);
	record = parse_object(record_text);
	gnt_secret_dict_set(secrets, "token", SECRET_VALUE);

	g_assert_true(gnt_node_call_metad_push(client, node, "app1", record, secrets, &error));
	g_assert_no_error(error);
	/* the caller's record stays without the secrets */
	g_assert_false(json_object_has_member(record, "osparams_secret"));
	assert_get(fx, "app1", "/ganeti/latest/os/parameters.json",
		   "{\"a\":[\"b\",\"public\"],\"token\":[\"" SECRET_VALUE "\",\"secret\"]}");
	/* the OS's scripts, from the node's disk, the variant stripped */
	g_assert_true(g_file_get_contents(create_path, &create, NULL, NULL));
	assert_get(fx, "app1", "/ganeti/latest/os/scripts/create", create);
	assert_get(fx, "web1", "/latest/meta-data/instance-id", "7d2f0c7e-0001");

	/* a bad name is refused by noded, before metad */
	g_assert_false(gnt_node_call_metad_push(client, node, "../app1", record, NULL, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
	g_clear_error(&error);

	g_assert_true(gnt_node_call_metad_remove(client, node, "app1", &error));
	g_assert_no_error(error);
	g_assert_false(g_file_test(app1_socket, G_FILE_TEST_EXISTS));
	/* again: not an error */
	g_assert_true(gnt_node_call_metad_remove(client, node, "app1", &error));
	g_assert_no_error(error);

	/* metad not running: the node says so */
	stop_metad(fx);
	g_assert_false(gnt_node_call_metad_push(client, node, "app1", record, NULL, &error));
	g_assert_error(error, GNT_ERROR, GNT_ERROR_ENVIRONMENT);
	assert_error_has(error, "is gantry-metad running?");
	g_clear_error(&error);

	test_server_free(server);
	gnt_rpc_node_free(rpc_node);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_log_writer_default_set_use_stderr(TRUE);

#define ADD(path, func) g_test_add(path, MetadFx, NULL, metad_set_up, func, metad_tear_down)
	ADD("/metad/ganeti-tree", test_ganeti_tree);
	ADD("/metad/pipe-limit", test_pipe_limit);
	ADD("/metad/openstack-tree", test_openstack_tree);
	ADD("/metad/ec2-tree", test_ec2_tree);
	ADD("/metad/misses", test_misses);
	ADD("/metad/isolation", test_isolation);
	ADD("/metad/secrets", test_secrets);
	ADD("/metad/control", test_control);
	ADD("/metad/node-rpc", test_node_rpc);
	ADD("/metad/keep-alive", test_keep_alive);
	ADD("/metad/connection-share", test_connection_share);
	ADD("/metad/channel", test_channel);
	ADD("/metad/channel-refused", test_channel_refused);
	ADD("/metad/package", test_package);
	ADD("/metad/progress", test_progress);
	ADD("/metad/progress-bounded", test_progress_bounded);
	ADD("/metad/install-tree", test_install_tree);
	ADD("/metad/bad-requests", test_bad_requests);
#undef ADD
	return g_test_run();
}
