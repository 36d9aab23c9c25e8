#!/bin/bash
# A cluster of three nodes on this machine: each node runs in its own
# network namespace with its own root, the namespaces joined by veth pairs to
# a bridge in a namespace of the test's own (10.99.0.0/24; nothing of the
# host's network is touched). Nodes 2 and 3 join with the token gnt-node add
# prints; an instance (fake hypervisor, diskless, --no-install) is placed on
# node 2; with node 2's gantry-noded stopped a job touching the instance
# fails naming the node, and the master stays healthy; once the noded runs
# again the same job works. Everything made is removed on exit, failed or not.
#
# Needs root and iproute2 (apt-get install iproute2); skipped (77) otherwise.
# The programs come from the environment meson sets (GNT_TEST_*).
set -euo pipefail

# TAP goes to the real stdout (fd 3); what the commands print goes to
# stderr, so that it is never read as TAP
exec 3>&1 1>&2
tap() { echo "$*" >&3; }

if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	tap "1..0 # SKIP needs root and iproute2"
	exit 77
fi

: "${GNT_TEST_GNT_CLUSTER:?}" "${GNT_TEST_GNT_NODE:?}" "${GNT_TEST_GNT_INSTANCE:?}"
: "${GNT_TEST_GNT_OS:?}" "${GNT_TEST_GANTRY_DAEMONS:?}" "${GNT_TEST_NODED:?}"

TAG="gntmn$$"
BRIDGE_NS="$TAG-br"
NS=("$TAG-n1" "$TAG-n2" "$TAG-n3")
IP=(10.99.0.2 10.99.0.3 10.99.0.4)
NAME=("" node2.example.com node3.example.com)
TOP=$(mktemp -d /tmp/gnt-mn-XXXXXX)
ROOT=("$TOP/n1" "$TOP/n2" "$TOP/n3")
FAILED=1

log() { echo "# $*"; }

cleanup() {
	set +e
	for i in 2 1 0; do
		if [ -d "${ROOT[$i]}" ]; then
			GANTRY_ROOT="${ROOT[$i]}" "$GNT_TEST_GANTRY_DAEMONS" stop >/dev/null 2>&1
		fi
	done
	# whatever is still running in our namespaces (a daemon that did not stop)
	for ns in "${NS[@]}" "$BRIDGE_NS"; do
		if ip netns list | grep -qw "$ns"; then
			for pid in $(ip netns pids "$ns" 2>/dev/null); do
				kill -KILL "$pid" 2>/dev/null
			done
			ip netns del "$ns"
		fi
	done
	if [ "$FAILED" = 1 ]; then
		for i in 0 1 2; do
			for f in "${ROOT[$i]}"/var/log/gantry/*.log; do
				[ -f "$f" ] && { echo "# --- $f"; tail -n 20 "$f" | sed 's/^/# /'; }
			done
		done
	fi
	rm -rf "$TOP"
}
trap cleanup EXIT

# on node $1 (0-based), as that node's root
on() {
	local i=$1
	shift
	ip netns exec "${NS[$i]}" env GANTRY_ROOT="${ROOT[$i]}" "$@"
}
# a gnt-* command on the master
gnt() {
	local tool=$1
	shift
	on 0 "$tool" "$@"
}
fail() {
	tap "not ok - $*"
	exit 1
}

tap "1..1"

log "network: bridge namespace $BRIDGE_NS, nodes ${NS[*]}"
ip netns add "$BRIDGE_NS"
ip -n "$BRIDGE_NS" link set lo up
ip -n "$BRIDGE_NS" link add br0 type bridge
ip -n "$BRIDGE_NS" link set br0 up
for i in 0 1 2; do
	ip netns add "${NS[$i]}"
	ip -n "${NS[$i]}" link set lo up
	ip -n "${NS[$i]}" link add eth0 type veth peer name "vb$i" netns "$BRIDGE_NS"
	ip -n "$BRIDGE_NS" link set "vb$i" master br0 up
	ip -n "${NS[$i]}" addr add "${IP[$i]}/24" dev eth0
	ip -n "${NS[$i]}" link set eth0 up
	mkdir -p "${ROOT[$i]}"
done

log "master: gnt-cluster init at ${IP[0]}"
gnt "$GNT_TEST_GNT_CLUSTER" init --primary-ip "${IP[0]}" --enabled-hypervisors fake \
	mn.example.com
MASTER=$(gnt "$GNT_TEST_GNT_NODE" list --no-headers -o name)

# joins node $1: the token, the noded joining with it, gnt-node add again
join() {
	local i=$1 out token
	out=$(gnt "$GNT_TEST_GNT_NODE" add --primary-ip "${IP[$i]}" --join-timeout 0 "${NAME[$i]}")
	token=$(grep -o 'GNTJ1\.[A-Za-z0-9_=-]*' <<<"$out") || fail "no join token in: $out"
	on "$i" "$GNT_TEST_NODED" --join "$token" --address "${IP[$i]}" --listen 0.0.0.0:1811
	gnt "$GNT_TEST_GNT_NODE" add --primary-ip "${IP[$i]}" "${NAME[$i]}"
}

log "node2, node3: join with tokens"
join 1
join 2
nodes=$(gnt "$GNT_TEST_GNT_NODE" list --no-headers -o name,pip --separator=' ')
log "nodes: $(echo $nodes)"
for i in 1 2; do
	grep -qx "${NAME[$i]} ${IP[$i]}" <<<"$nodes" || fail "${NAME[$i]} is not listed: $nodes"
done
# every node answers an OS diagnose
diag=$(gnt "$GNT_TEST_GNT_OS" diagnose || true)
if grep -q "^OS: " <<<"$diag"; then
	for name in "$MASTER" "${NAME[1]}" "${NAME[2]}"; do
		grep -q "Node: $name, status: " <<<"$diag" || fail "no OS report of $name: $diag"
	done
fi

log "instance web1 on ${NAME[1]}"
gnt "$GNT_TEST_GNT_INSTANCE" add -t diskless --no-install --no-nics -n "${NAME[1]}" web1
gnt "$GNT_TEST_GNT_INSTANCE" startup web1
pnode=$(gnt "$GNT_TEST_GNT_INSTANCE" list --no-headers -o pnode web1)
[ "$pnode" = "${NAME[1]}" ] || fail "web1 is on '$pnode', not ${NAME[1]}"
[ -d "${ROOT[1]}/var/lib/gantry/fake-hv" ] || fail "node2's fake hypervisor holds nothing"

log "gnt-cluster verify: healthy, then web1 running on node3 too (doc/verify.md)"
out=$(gnt "$GNT_TEST_GNT_CLUSTER" verify --error-codes) || fail "verify of the healthy cluster: $out"
grep -q " - ERROR:" <<<"$out" && fail "an error on the healthy cluster: $out"
cp "${ROOT[1]}"/var/lib/gantry/fake-hv/*-web1*.json "${ROOT[2]}/var/lib/gantry/fake-hv/"
out=$(gnt "$GNT_TEST_GNT_CLUSTER" verify --error-codes) && fail "verify passed with web1 twice: $out"
grep -Eq " - ERROR:EINSTANCEWRONGNODE:instance:web1[^:]*:instance should not run on node ${NAME[2]}$" \
	<<<"$out" || fail "no EINSTANCEWRONGNODE for web1 on node3: $out"
rm "${ROOT[2]}"/var/lib/gantry/fake-hv/*-web1*.json

log "node2's noded stopped: a job on web1 fails naming the node"
GANTRY_ROOT="${ROOT[1]}" "$GNT_TEST_GANTRY_DAEMONS" stop
out=$(gnt "$GNT_TEST_GNT_CLUSTER" verify --error-codes) && fail "verify passed with node2 down: $out"
grep -q " - ERROR:ENODERPC:node:${NAME[1]}:while contacting node: " <<<"$out" ||
	fail "no ENODERPC for node2: $out"
if out=$(gnt "$GNT_TEST_GNT_INSTANCE" shutdown --timeout 5 web1 2>&1); then
	fail "shutdown worked with node2 down: $out"
fi
log "$(tail -n 1 <<<"$out")"
grep -q "node '${NAME[1]}' (${IP[1]}:1811)" <<<"$out" || fail "the error does not name node2: $out"
# the master is healthy, the other nodes unaffected
gnt "$GNT_TEST_GNT_CLUSTER" info >/dev/null || fail "masterd does not answer"
gnt "$GNT_TEST_GNT_INSTANCE" add -t diskless --no-install --no-nics -n "${NAME[2]}" web2 \
	>/dev/null || fail "an instance on node3 failed with node2 down"

log "node2's noded restarted: the job works again"
on 1 "$GNT_TEST_NODED" --listen 0.0.0.0:1811
gnt "$GNT_TEST_GNT_INSTANCE" shutdown --timeout 5 web1
gnt "$GNT_TEST_GNT_INSTANCE" remove -f web1
gnt "$GNT_TEST_GNT_INSTANCE" remove -f web2
gnt "$GNT_TEST_GNT_NODE" remove "${NAME[2]}"
gnt "$GNT_TEST_GNT_NODE" list --no-headers -o name | grep -q "${NAME[2]}" &&
	fail "node3 is still listed after its removal"

FAILED=0
tap "ok 1 - three nodes in namespaces: join, placement, verify, node down and back"
