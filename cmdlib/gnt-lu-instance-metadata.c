/*
 * The instance's metadata for gantry-metad (doc/metad.md): the record the
 * master builds from the config, its pushes after add, modify, rename and
 * reinstall (and the removal with the instance), and the link-local
 * address of every instance's communication NIC.
 */
#include "gnt-lu-instance-metadata.h"

#include <stdio.h>
#include <string.h>

#include "gnt-error.h"
#include "gnt-json.h"
#include "gnt-node-calls-metad.h"

gboolean
gnt_lu_instance_has_communication(JsonObject *instance)
{
	JsonNode *value = json_object_get_member(instance, "communication");

	return value != NULL && JSON_NODE_HOLDS_VALUE(value) &&
	       json_node_get_value_type(value) == G_TYPE_BOOLEAN && json_node_get_boolean(value);
}

static JsonNode *
member_copy_or_empty_object(JsonObject *obj, const gchar *key)
{
	JsonNode *value = json_object_get_member(obj, key);

	return value != NULL && JSON_NODE_HOLDS_OBJECT(value)
		       ? gnt_json_node_deep_copy(value)
		       : gnt_json_node_new_object(json_object_new());
}

static const gchar *
string_member(JsonObject *obj, const gchar *key)
{
	JsonNode *value = obj != NULL ? json_object_get_member(obj, key) : NULL;

	return value != NULL && JSON_NODE_HOLDS_VALUE(value) &&
			       json_node_get_value_type(value) == G_TYPE_STRING
		       ? json_node_get_string(value)
		       : NULL;
}

static JsonArray *
metadata_nics(JsonObject *instance)
{
	JsonNode *nics = json_object_get_member(instance, "nics");
	JsonNode *comm = json_object_get_member(instance, "communication_nic");
	JsonArray *out = json_array_new();

	for (guint i = 0; nics != NULL && JSON_NODE_HOLDS_ARRAY(nics) &&
			  i < json_array_get_length(json_node_get_array(nics));
	     i++) {
		JsonNode *elem = json_array_get_element(json_node_get_array(nics), i);
		JsonObject *nic = JSON_NODE_HOLDS_OBJECT(elem) ? json_node_get_object(elem) : NULL;
		JsonObject *entry = json_object_new();
		const gchar *mac = string_member(nic, "mac");
		const gchar *ip = string_member(nic, "ip");

		if (mac != NULL)
			json_object_set_string_member(entry, "mac", mac);
		if (ip != NULL && ip[0] != '\0')
			json_object_set_string_member(entry, "ip", ip);
		json_array_add_object_element(out, entry);
	}
	if (comm != NULL && JSON_NODE_HOLDS_OBJECT(comm) &&
	    gnt_lu_instance_has_communication(instance)) {
		JsonObject *entry = json_object_new();

		json_object_set_string_member(entry, "mac",
					      string_member(json_node_get_object(comm), "mac"));
		json_object_set_string_member(entry, "ip",
					      string_member(json_node_get_object(comm), "ip"));
		json_object_set_string_member(entry, "netmask", GNT_METADATA_NETMASK);
		json_object_set_boolean_member(entry, "channel", TRUE);
		json_array_add_object_element(out, entry);
	}
	return out;
}

/* The instance's availability zone: its primary node's group, Ganeti's
 * nearest kin of one (nodes sharing networks and storage); NULL when the
 * node is not known. */
static gchar *
dup_availability_zone(GntConfig *config, JsonObject *instance)
{
	const gchar *uuid = string_member(instance, "primary_node");
	g_autoptr(JsonObject) node = NULL;

	if (uuid == NULL)
		return NULL;
	node = gnt_config_dup_object(config, GNT_OBJECT_NODE, uuid, NULL);
	return g_strdup(string_member(node, "group"));
}

JsonObject *
gnt_lu_instance_metadata_new(GntConfig *config, JsonObject *instance)
{
	g_autofree gchar *zone = NULL;
	g_autoptr(GntCluster) cluster = NULL;
	JsonObject *record;
	JsonNode *keys;
	const gchar *user_data;

	g_return_val_if_fail(GNT_IS_CONFIG(config), NULL);
	g_return_val_if_fail(instance != NULL, NULL);

	cluster = gnt_config_dup_cluster(config);
	record = json_object_new();
	json_object_set_string_member(record, "name", string_member(instance, "name"));
	json_object_set_string_member(record, "uuid", string_member(instance, "uuid"));
	json_object_set_string_member(record, "hostname", string_member(instance, "name"));
	if (string_member(instance, "os") != NULL)
		json_object_set_string_member(record, "os", string_member(instance, "os"));
	zone = dup_availability_zone(config, instance);
	if (zone != NULL)
		json_object_set_string_member(record, "availability_zone", zone);
	json_object_set_member(record, "osparams",
			       member_copy_or_empty_object(instance, "osparams"));
	json_object_set_member(record, "osparams_private",
			       member_copy_or_empty_object(instance, "osparams_private"));
	json_object_set_member(record, "os_search_path",
			       gnt_json_node_deep_copy(json_object_get_member(cluster->settings,
									      "os_search_path")));
	user_data = string_member(instance, "user_data");
	if (user_data != NULL && user_data[0] != '\0')
		json_object_set_string_member(record, "user_data", user_data);
	keys = json_object_get_member(instance, "ssh_keys");
	if (keys == NULL || !JSON_NODE_HOLDS_ARRAY(keys) ||
	    json_array_get_length(json_node_get_array(keys)) == 0)
		keys = json_object_get_member(cluster->settings, "ssh_keys");
	json_object_set_member(record, "ssh_keys",
			       keys != NULL && JSON_NODE_HOLDS_ARRAY(keys)
				       ? gnt_json_node_deep_copy(keys)
				       : gnt_json_node_new_array(json_array_new()));
	json_object_set_array_member(record, "nics", metadata_nics(instance));
	return record;
}

GntSecretDict *
gnt_lu_instance_metadata_secrets(const GntSecretDict *osparams_secret)
{
	static const gchar *const credentials[] = {GNT_OSP_OS_PACKAGE_USERNAME,
						   GNT_OSP_OS_PACKAGE_PASSWORD, NULL};
	g_autoptr(GntSecretDict) out = NULL;

	if (osparams_secret == NULL)
		return NULL;
	out = gnt_secret_dict_copy_without(osparams_secret, credentials);
	return gnt_secret_dict_size(out) > 0 ? g_steal_pointer(&out) : NULL;
}

gboolean
gnt_lu_instance_metadata_push(GntLu *lu, GntRpcClient *rpc, JsonObject *node, JsonObject *instance,
			      const GntSecretDict *osparams_secret)
{
	g_autoptr(JsonObject) record = NULL;
	g_autoptr(GntSecretDict) secrets = NULL;
	g_autoptr(GError) error = NULL;
	const gchar *name = string_member(instance, "name");

	if (!gnt_lu_instance_has_communication(instance))
		return FALSE;
	record = gnt_lu_instance_metadata_new(gnt_lu_get_env(lu)->config, instance);
	secrets = gnt_lu_instance_metadata_secrets(osparams_secret);
	if (!gnt_node_call_metad_push(rpc, node, name, record, secrets, &error)) {
		gnt_lu_feedback(lu,
				"WARNING: the metadata of instance %s did not reach node %s's "
				"gantry-metad (is it running?); the instance cannot read it until "
				"the next push: %s",
				name, string_member(node, "name"), error->message);
		return FALSE;
	}
	gnt_lu_feedback(lu, "* metadata of instance %s given to gantry-metad on node %s", name,
			string_member(node, "name"));
	return TRUE;
}

void
gnt_lu_instance_metadata_remove(GntLu *lu, GntRpcClient *rpc, JsonObject *node, const gchar *name)
{
	g_autoptr(GError) error = NULL;

	if (!gnt_node_call_metad_remove(rpc, node, name, &error))
		gnt_lu_feedback(lu,
				"WARNING: node %s's gantry-metad may still hold the metadata of "
				"instance %s (is it running?): %s",
				string_member(node, "name"), name, error->message);
}

/* ---- communication NICs ---- */

/* 169.254.A.B for A, B in 1..254, except 169.254.169.254. */
#define COMM_SPAN      254u
#define COMM_ADDRESSES (COMM_SPAN * COMM_SPAN)

/*
 * Addresses and MACs are kept as numbers here, not strings: a create looks
 * at every instance's, and what was handed out is kept for the daemon's
 * life. As strings, each create made 20,000 small blocks for 10,000
 * instances, and the two it kept sat among the job worker's freed ones,
 * so that no page of the worker's malloc arena could go back to the system
 * (measured: 12 such arenas of 1 to 3 MiB with 10,000 instances).
 */

/* A set of link-local addresses by index (0 .. COMM_ADDRESSES - 1). */
typedef struct {
	guint8 bits[(COMM_ADDRESSES + 7) / 8];
} AddressSet;

static gboolean
address_set_has(const AddressSet *set, guint index)
{
	return (set->bits[index / 8] & (1u << (index % 8))) != 0;
}

static void
address_set_add(AddressSet *set, guint index)
{
	set->bits[index / 8] |= (guint8)(1u << (index % 8));
}

static gchar *
comm_address(guint index)
{
	return g_strdup_printf("169.254.%u.%u", index / COMM_SPAN + 1, index % COMM_SPAN + 1);
}

/* @text's index, FALSE when it is not an address of the channel's range. */
static gboolean
comm_address_index(const gchar *text, guint *index)
{
	guint a = 0;
	guint b = 0;
	gint end = 0;

	if (sscanf(text, "169.254.%u.%u%n", &a, &b, &end) != 2 || text[end] != '\0' || a < 1 ||
	    a > COMM_SPAN || b < 1 || b > COMM_SPAN)
		return FALSE;
	*index = (a - 1) * COMM_SPAN + (b - 1);
	return TRUE;
}

/* A MAC's last three bytes as a key of a direct hash set (never NULL). */
static gpointer
mac_key(guint suffix)
{
	return GUINT_TO_POINTER(suffix + 1);
}

/* The mac_key() of @mac when it starts with @prefix (any case). */
static gboolean
mac_suffix_key(const gchar *mac, const gchar *prefix, gpointer *key)
{
	gsize len = strlen(prefix);
	guint b[3];
	gint end = 0;

	if (g_ascii_strncasecmp(mac, prefix, len) != 0 || mac[len] != ':' ||
	    sscanf(mac + len + 1, "%2x:%2x:%2x%n", &b[0], &b[1], &b[2], &end) != 3 ||
	    mac[len + 1 + (gsize)end] != '\0')
		return FALSE;
	*key = mac_key((b[0] << 16) | (b[1] << 8) | b[2]);
	return TRUE;
}

/* The addresses and MACs this masterd handed out: two creates running side
 * by side both look at the config before either has committed, so the
 * ones given are remembered here and never given twice. One that a failed
 * create never committed stays taken until masterd restarts: there are
 * 64,000 of them. */
static GMutex handed_out_lock;
static AddressSet *handed_out_ips;
static GHashTable *handed_out_macs; /* MAC prefix -> set of mac_suffix_key()s */

static gboolean
hand_out_ip(guint index)
{
	gboolean fresh;

	g_mutex_lock(&handed_out_lock);
	if (handed_out_ips == NULL)
		handed_out_ips = g_new0(AddressSet, 1);
	fresh = !address_set_has(handed_out_ips, index);
	if (fresh)
		address_set_add(handed_out_ips, index);
	g_mutex_unlock(&handed_out_lock);
	return fresh;
}

static gboolean
hand_out_mac(const gchar *prefix, gpointer key)
{
	GHashTable *keys;
	gboolean fresh;

	g_mutex_lock(&handed_out_lock);
	if (handed_out_macs == NULL)
		handed_out_macs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
							(GDestroyNotify)g_hash_table_unref);
	keys = g_hash_table_lookup(handed_out_macs, prefix);
	if (keys == NULL) {
		keys = g_hash_table_new(NULL, NULL);
		g_hash_table_insert(handed_out_macs, g_strdup(prefix), keys);
	}
	fresh = g_hash_table_add(keys, key);
	g_mutex_unlock(&handed_out_lock);
	return fresh;
}

typedef struct {
	const gchar *mac_prefix;
	AddressSet *ips;
	GHashTable *macs; /* mac_suffix_key()s under mac_prefix */
} TakenAddresses;

static void
taken_add_mac(TakenAddresses *taken, const gchar *mac)
{
	gpointer key;

	if (mac != NULL && mac_suffix_key(mac, taken->mac_prefix, &key))
		g_hash_table_add(taken->macs, key);
}

/* The addresses of an instance held as JSON (one the typed record cannot
 * hold exactly). */
static void
taken_add_json(TakenAddresses *taken, JsonObject *record)
{
	JsonNode *comm = json_object_get_member(record, "communication_nic");
	JsonNode *nics = json_object_get_member(record, "nics");

	if (comm != NULL && JSON_NODE_HOLDS_OBJECT(comm)) {
		const gchar *ip = string_member(json_node_get_object(comm), "ip");
		guint index;

		if (ip != NULL && comm_address_index(ip, &index))
			address_set_add(taken->ips, index);
		taken_add_mac(taken, string_member(json_node_get_object(comm), "mac"));
	}
	for (guint i = 0; nics != NULL && JSON_NODE_HOLDS_ARRAY(nics) &&
			  i < json_array_get_length(json_node_get_array(nics));
	     i++) {
		JsonNode *nic = json_array_get_element(json_node_get_array(nics), i);

		if (JSON_NODE_HOLDS_OBJECT(nic))
			taken_add_mac(taken, string_member(json_node_get_object(nic), "mac"));
	}
}

/* Every create walks every instance: typed ones are read without JSON. */
static gboolean
collect_addresses_cb(GntConfigRecord *record, gpointer user_data)
{
	TakenAddresses *taken = user_data;
	const GntInstance *instance = gnt_config_record_peek_instance(record);
	guint index;

	if (instance == NULL) {
		taken_add_json(taken, gnt_config_record_peek_json(record));
		return TRUE;
	}
	if (instance->communication_ip != NULL &&
	    comm_address_index(instance->communication_ip, &index))
		address_set_add(taken->ips, index);
	taken_add_mac(taken, instance->communication_mac);
	for (guint i = 0; i < instance->nics->len; i++)
		taken_add_mac(taken, ((const GntNic *)g_ptr_array_index(instance->nics, i))->mac);
	return TRUE;
}

JsonObject *
gnt_lu_instance_communication_nic_new(GntConfig *config, const gchar *mac_prefix,
				      GHashTable *taken_macs, GError **error)
{
	g_autofree AddressSet *ips = g_new0(AddressSet, 1);
	g_autoptr(GHashTable) macs = g_hash_table_new(NULL, NULL);
	TakenAddresses taken = {mac_prefix, ips, macs};
	g_autofree gchar *ip = NULL;
	g_autofree gchar *mac = NULL;
	JsonObject *nic;
	guint metad_index;
	guint start;

	g_return_val_if_fail(GNT_IS_CONFIG(config), NULL);
	g_return_val_if_fail(mac_prefix != NULL, NULL);

	gnt_config_foreach_record(config, GNT_OBJECT_INSTANCE, collect_addresses_cb, &taken);
	if (comm_address_index(GNT_METADATA_ADDRESS, &metad_index))
		address_set_add(ips, metad_index);
	/* a random start, then the next free one not handed out already */
	start = (guint)g_random_int_range(0, COMM_ADDRESSES);
	for (guint i = 0; i < COMM_ADDRESSES && ip == NULL; i++) {
		guint index = (start + i) % COMM_ADDRESSES;

		if (!address_set_has(ips, index) && hand_out_ip(index))
			ip = comm_address(index);
	}
	if (ip == NULL) {
		g_set_error_literal(error, GNT_ERROR, GNT_ERROR_NO_RESOURCES,
				    "every link-local address of the communication channel "
				    "(169.254.1.1 to 169.254.254.254) is taken");
		return NULL;
	}
	for (guint tries = 0; tries < 100000 && mac == NULL; tries++) {
		guint suffix = (guint)g_random_int_range(0, 1 << 24);
		g_autofree gchar *candidate = g_strdup_printf("%s:%02x:%02x:%02x", mac_prefix,
							      suffix >> 16, (suffix >> 8) & 0xff,
							      suffix & 0xff);
		gpointer key = mac_key(suffix);

		if (!g_hash_table_contains(macs, key) &&
		    (taken_macs == NULL || !g_hash_table_contains(taken_macs, candidate)) &&
		    hand_out_mac(mac_prefix, key))
			mac = g_steal_pointer(&candidate);
	}
	if (mac == NULL) {
		g_set_error(error, GNT_ERROR, GNT_ERROR_NO_RESOURCES,
			    "no free MAC address under prefix '%s' for the communication NIC",
			    mac_prefix);
		return NULL;
	}
	if (taken_macs != NULL)
		g_hash_table_add(taken_macs, g_strdup(mac));
	nic = json_object_new();
	json_object_set_string_member(nic, "mac", mac);
	json_object_set_string_member(nic, "ip", ip);
	return nic;
}
