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

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-metad-client.h"
#include "gnt-metad-server.h"
#include "gnt-metadata.h"
#include "gnt-node-calls-metad.h"
#include "gnt-rpc-node.h"
#include "gnt-test-util.h"
#include "rpc-test-server.h"

#define PRIVATE_VALUE "pr1vate-v4lue-17"
#define SECRET_VALUE  "s3cr3t-v4lue-never-on-disk"
#define OTHER_SECRET  "0ther-s3cr3t-of-db1"

#define WEB1_RECORD                                                                         \
	"{\"name\":\"web1\",\"uuid\":\"7d2f0c7e-0001\",\"hostname\":\"web1.example.com\","    \
	"\"os\":\"debootstrap+default\",\"osparams\":{\"dhcp\":\"yes\"},"                    \
	"\"osparams_private\":{\"rootpw\":\"" PRIVATE_VALUE "\"},"                           \
	"\"osparams_secret\":{\"token\":\"" SECRET_VALUE "\"},"                              \
	"\"os_scripts\":{\"create\":\"#!/bin/sh\\necho web1\\n\"},"                           \
	"\"user_data\":\"#cloud-config\\nhostname: web1\\n\","                                \
	"\"ssh_keys\":[\"ssh-ed25519 AAAAC3web1 alice@example.com\",\"ssh-rsa AAAAB3web1\"]," \
	"\"nics\":[{\"mac\":\"52:54:00:00:00:01\",\"ip\":\"169.254.0.5\","                   \
	"\"netmask\":\"255.255.0.0\"}],\"unknown_member\":1}"

#define DB1_RECORD                                                                   \
	"{\"name\":\"db1\",\"uuid\":\"7d2f0c7e-0002\",\"hostname\":\"db1.example.com\","  \
	"\"os\":\"noop\",\"osparams_secret\":{\"token\":\"" OTHER_SECRET "\"},"            \
	"\"ssh_keys\":[\"ssh-ed25519 AAAAC3db1 bob@example.com\"],"                       \
	"\"nics\":[{\"mac\":\"52:54:00:00:00:02\",\"ip\":\"169.254.0.6\"}]}"

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

static void
test_openstack_tree(MetadFx *fx, gconstpointer data)
{
	static const gchar meta_data[] =
		"{\"hostname\":\"web1.example.com\",\"keys\":["
		"{\"data\":\"ssh-ed25519 AAAAC3web1 alice@example.com\",\"name\":\"alice@example.com\","
		"\"type\":\"ssh\"},{\"data\":\"ssh-rsa AAAAB3web1\",\"name\":\"key-1\",\"type\":\"ssh\"}],"
		"\"launch_index\":0,\"name\":\"web1\",\"public_keys\":{"
		"\"alice@example.com\":\"ssh-ed25519 AAAAC3web1 alice@example.com\","
		"\"key-1\":\"ssh-rsa AAAAB3web1\"},\"uuid\":\"7d2f0c7e-0001\"}";

	assert_get(fx, "web1", "/openstack/",
		   "2012-08-10\n2013-04-04\n2013-10-17\n2015-10-15\n2016-06-30\n2016-10-06\n"
		   "2017-02-22\n2018-08-27\nlatest");
	assert_get(fx, "web1", "/openstack/latest/",
		   "meta_data.json\nnetwork_data.json\nuser_data\nvendor_data.json");
	assert_get(fx, "db1", "/openstack/latest/",
		   "meta_data.json\nnetwork_data.json\nvendor_data.json");
	assert_get(fx, "web1", "/openstack/latest/meta_data.json", meta_data);
	assert_get(fx, "web1", "/openstack/2012-08-10/meta_data.json", meta_data);
	assert_get(fx, "web1", "/openstack/latest/user_data", "#cloud-config\nhostname: web1\n");
	assert_get(fx, "web1", "/openstack/latest/vendor_data.json", "{}");
	assert_get(fx, "web1", "/openstack/latest/network_data.json",
		   "{\"links\":[{\"ethernet_mac_address\":\"52:54:00:00:00:01\",\"id\":\"nic0\","
		   "\"type\":\"phy\"}],\"networks\":[{\"id\":\"nic0\",\"ip_address\":\"169.254.0.5\","
		   "\"link\":\"nic0\",\"netmask\":\"255.255.0.0\",\"type\":\"ipv4\"}],"
		   "\"services\":[]}");
	assert_not_found(fx, "db1", "GET", "/openstack/latest/user_data", NULL);
	assert_not_found(fx, "web1", "GET", "/openstack/2099-01-01/meta_data.json", NULL);
}

static void
test_ec2_tree(MetadFx *fx, gconstpointer data)
{
	static const gchar *const versions[] = {"latest", "2009-04-04"};

	for (guint i = 0; i < G_N_ELEMENTS(versions); i++) {
		g_autofree gchar *v = g_strdup_printf("/%s/", versions[i]);
		g_autofree gchar *md = g_strconcat(v, "meta-data/", NULL);
		g_autofree gchar *id = g_strconcat(md, "instance-id", NULL);
		g_autofree gchar *host = g_strconcat(md, "hostname", NULL);
		g_autofree gchar *ip = g_strconcat(md, "local-ipv4", NULL);
		g_autofree gchar *keys = g_strconcat(md, "public-keys/", NULL);
		g_autofree gchar *key0 = g_strconcat(md, "public-keys/0/", NULL);
		g_autofree gchar *key1 = g_strconcat(md, "public-keys/1/openssh-key", NULL);
		g_autofree gchar *key2 = g_strconcat(md, "public-keys/2/openssh-key", NULL);
		g_autofree gchar *user = g_strconcat(v, "user-data", NULL);

		assert_get(fx, "web1", v, "meta-data/\nuser-data");
		assert_get(fx, "web1", md,
			   "hostname\ninstance-id\nlocal-hostname\nlocal-ipv4\npublic-keys/");
		assert_get(fx, "web1", id, "7d2f0c7e-0001");
		assert_get(fx, "web1", host, "web1.example.com");
		assert_get(fx, "web1", ip, "169.254.0.5");
		assert_get(fx, "web1", keys, "0=alice@example.com\n1=key-1");
		assert_get(fx, "web1", key0, "openssh-key");
		assert_get(fx, "web1", key1, "ssh-rsa AAAAB3web1");
		assert_not_found(fx, "web1", "GET", key2, NULL);
		assert_get(fx, "web1", user, "#cloud-config\nhostname: web1\n");
		assert_not_found(fx, "db1", "GET", user, NULL);
	}
	assert_not_found(fx, "web1", "GET", "/2007-01-19/meta-data/", NULL);
	assert_not_found(fx, "web1", "GET", "/latest", NULL);
}

static void
test_misses(MetadFx *fx, gconstpointer data)
{
	static const gchar *const paths[] = {
		"/", "/nope", "/ganeti/latest/", "/ganeti/latest/os/parameters.json/x",
		"/ganeti/latest/os/scripts/%2e%2e", "/openstack/latest/nope",
		"/latest/meta-data/nope", "/latest/meta-data/public-keys/x", "/a%2fb",
	};

	for (guint i = 0; i < G_N_ELEMENTS(paths); i++)
		assert_not_found(fx, "web1", "GET", paths[i], NULL);
	assert_not_found(fx, "web1", "PUT", "/latest/meta-data/instance-id", NULL);
	assert_not_found(fx, "web1", "DELETE", "/openstack/latest/meta_data.json", NULL);
}

/* Whatever a request names, each socket answers for its own instance. */
static void
test_isolation(MetadFx *fx, gconstpointer data)
{
	static const gchar *const headers[] = {"Host", "db1",
					       "X-Forwarded-For", "169.254.0.6",
					       "X-Instance", "db1",
					       "X-Real-IP", "169.254.0.6",
					       NULL};
	static const gchar *const paths[] = {
		"/ganeti/latest/db1/meta_data.json", "/db1/ganeti/latest/meta_data.json",
		"/instances/db1", "/ganeti/latest/os/parameters.json?instance=db1", NULL,
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
		g_autoptr(JsonObject) bad =
			parse_object("{\"name\":\"web1\",\"osparams_private\":{\"rootpw\":\"" PRIVATE_VALUE
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
	};
	g_autoptr(GError) error = NULL;
	g_autoptr(JsonObject) record = parse_object("{\"name\":\"../x\"}");

	for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_autoptr(JsonObject) obj = parse_object(bad[i]);

		g_assert_false(gnt_metad_client_push(fx->control, "web1", obj, &error));
		g_assert_error(error, GNT_ERROR, GNT_ERROR_INVALID);
		g_assert_nonnull(strstr(error->message, "web1"));
		g_clear_error(&error);
	}
	{
		guint status = 0;
		g_autofree gchar *names = request_at(fx->control, "GET", "/instances", NULL, NULL,
						     &status);

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
		assert_get(fx, "web1", "/latest/meta-data/", "hostname\ninstance-id\nlocal-hostname");
		assert_get(fx, "web1", "/ganeti/latest/read", "kept");
	}
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
	g_autoptr(JsonObject) secrets = parse_object("{\"token\":\"" SECRET_VALUE "\"}");
	g_autofree gchar *os_dir = g_build_filename(g_getenv("GNT_TEST_DATA_DIR"), "os-defs", NULL);
	g_autofree gchar *record_text = g_strdup_printf(
		"{\"name\":\"app1\",\"uuid\":\"u-app1\",\"os\":\"sample+minimal\","
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
#undef ADD
	return g_test_run();
}
