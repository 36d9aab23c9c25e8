#!/bin/bash
# gnt-cluster verify and verify-disks on a one-node cluster (fake
# hypervisor, file disks) as an operator runs them: a healthy cluster
# verifies with exit 0; then one thing at a time is broken and the finding's
# code (--error-codes, Ganeti's ERROR:ECODE:type:item:msg) and the exit code
# are checked, and the damage undone. With libvirtd answering on
# qemu:///system, a real qemu (TCG) domain named like one of the cluster's
# instances but unknown to it is reported as an orphan. doc/verify.md.
#
# The programs come from the environment meson sets (GNT_TEST_*).
set -euo pipefail

exec 3>&1 1>&2
tap() { echo "$*" >&3; }
: "${GNT_TEST_GNT_CLUSTER:?}" "${GNT_TEST_GNT_INSTANCE:?}" "${GNT_TEST_GANTRY_DAEMONS:?}"
: "${GNT_TEST_SRCDIR:?}"

TOP=$(mktemp -d /tmp/gnt-verify-XXXXXX)
export GANTRY_ROOT="$TOP/root"
CLUSTER="vfy$$"
DOMAIN=""
TAP_DEV=""
N=0
cleanup() {
	set +e
	[ -n "$DOMAIN" ] && virsh -q -c qemu:///system destroy "$DOMAIN" >/dev/null 2>&1
	[ -n "$TAP_DEV" ] && ip link del "$TAP_DEV" >/dev/null 2>&1
	"$GNT_TEST_GANTRY_DAEMONS" stop >/dev/null 2>&1
	rm -rf "$TOP"
}
trap cleanup EXIT
cluster() { "$GNT_TEST_GNT_CLUSTER" "$@"; }
instance() { "$GNT_TEST_GNT_INSTANCE" "$@"; }
ok() {
	N=$((N + 1))
	tap "ok $N - $*"
}
fail() {
	N=$((N + 1))
	tap "not ok $N - $*"
	exit 1
}

# verify [options]: runs gnt-cluster verify --error-codes, leaving its
# output in $OUT and its exit code in $RC
verify() {
	set +e
	OUT=$(cluster verify --error-codes "$@" 2>&1)
	RC=$?
	set -e
	echo "$OUT"
}
# expect RC CODE PATTERN: the last verify exited RC and reported CODE
# (ERROR or WARNING:CODE) on a line matching PATTERN
expect() {
	local rc=$1 code=$2 pattern=$3
	[ "$RC" = "$rc" ] || fail "verify exited $RC, not $rc: $OUT"
	grep -E -- " - $code:[a-z]+:.*$pattern" <<<"$OUT" >/dev/null ||
		fail "no '$code' matching '$pattern' in: $OUT"
}
# the last verify reported no ERROR at all
expect_clean() {
	[ "$RC" = 0 ] || fail "verify exited $RC: $OUT"
	! grep -q -- " - ERROR:" <<<"$OUT" || fail "an error in: $OUT"
}

HV=fake
if virsh -q -c qemu:///system version >/dev/null 2>&1; then
	HV=fake,kvm
fi
mkdir -p "$GANTRY_ROOT" "$TOP/os"
cp -r "$GNT_TEST_SRCDIR/data/os-defs/sample" "$TOP/os/vtestos"
cluster init --noded-port 0 --enabled-hypervisors "$HV" --os-search-path "$TOP/os" \
	"$CLUSTER.example.com"
instance add -t file --disk 0:size=64M -o vtestos+default --no-install -H fake --no-nics \
	--no-name-check --no-ip-check web1.example.com
instance add -t diskless -o vtestos+default --no-install --no-start -H fake --no-nics \
	--no-name-check --no-ip-check web2.example.com
DISK=$(ls "$GANTRY_ROOT"/srv/gantry/file-storage/web1.example.com/*.file.disk0)

verify
expect_clean
grep -q "^Submitted jobs [0-9]*, [0-9]*$" <<<"$OUT" || fail "no 'Submitted jobs A, B': $OUT"
grep -q "^Waiting for job [0-9]* \.\.\.$" <<<"$OUT" || fail "no 'Waiting for job N ...': $OUT"
grep -q "[0-9] \* Verifying group 'default'$" <<<"$OUT" || fail "no group header: $OUT"
ok "a healthy cluster verifies with exit 0"

set +e
out=$(cluster verify 2>&1)
rc=$?
set -e
[ "$rc" = 0 ] && ! grep -q " - ERROR" <<<"$out" || fail "plain verify: $rc $out"
set +e
out=$(cluster verify-disks 2>&1)
rc=$?
set -e
[ "$rc" = 0 ] && grep -q "^No disks need to be activated.$" <<<"$out" ||
	fail "verify-disks of a healthy cluster: $rc $out"
ok "verify-disks of a healthy cluster: exit 0, 'No disks need to be activated.'"

set +e
out=$(cluster verify -g nope 2>&1)
rc=$?
out2=$(cluster verify -I EBOGUS 2>&1)
rc2=$?
set -e
[ "$rc" = 1 ] && grep -q "^Node group 'nope' not found$" <<<"$out" || fail "-g nope: $rc $out"
[ "$rc2" = 2 ] && grep -q "option -I: invalid choice: 'EBOGUS'" <<<"$out2" || fail "-I EBOGUS: $rc2 $out2"
verify -g default
expect_clean
ok "-g default verifies that group; an unknown group fails (exit 1), an unknown -I code exit 2"

truncate -s 32M "$DISK"
verify
expect 1 ERROR:EINSTANCEFAULTYDISK "web1.example.com:disk/0 on .* has size 32M .*the configuration says 64M"
truncate -s 64M "$DISK"
ok "a disk file of the wrong size: EINSTANCEFAULTYDISK, exit 1"

mv "$DISK" "$TOP/disk.saved"
verify
expect 1 ERROR:EINSTANCEMISSINGDISK "web1.example.com:volume web1.example.com/.*\.file\.disk0 missing on node"
set +e
out=$(cluster verify-disks 2>&1)
rc=$?
set -e
[ "$rc" = 1 ] && grep -q "^Instance web1.example.com has missing logical volumes:$" <<<"$out" &&
	grep -q "	.* $DISK$" <<<"$out" || fail "verify-disks with a disk missing: $rc $out"
mv "$TOP/disk.saved" "$DISK"
ok "a missing disk file: EINSTANCEMISSINGDISK (exit 1), verify-disks names it (exit 1)"

mkdir -p "$GANTRY_ROOT/srv/gantry/file-storage/old.example.com"
truncate -s 1M "$GANTRY_ROOT/srv/gantry/file-storage/old.example.com/x.file.disk0"
verify
expect 0 WARNING:ENODEORPHANLV "volume old.example.com/x.file.disk0 is unknown"
verify -I ENODEORPHANLV
[ "$RC" = 0 ] || fail "exit $RC"
rm -r "$GANTRY_ROOT/srv/gantry/file-storage/old.example.com"
ok "a disk file of no instance: ENODEORPHANLV as a warning, exit 0"

# web1 (started, so marked up) stopped behind the master's back: the fake
# hypervisor forgets it
instance startup web1.example.com
verify
expect_clean
rm -f "$GANTRY_ROOT"/var/lib/gantry/fake-hv/*web1*
verify
expect 1 ERROR:EINSTANCEDOWN "web1.example.com:instance not running on its primary node"
verify -I EINSTANCEDOWN
[ "$RC" = 0 ] && grep -q " - WARNING:EINSTANCEDOWN:" <<<"$OUT" || fail "-I: $RC $OUT"
instance startup web1.example.com
ok "an instance down that should run: EINSTANCEDOWN, exit 1; -I EINSTANCEDOWN makes it a warning, exit 0"

mv "$TOP/os/vtestos" "$TOP/vtestos.saved"
verify
expect 1 ERROR:ENODEOS "OS vtestos of instance web1.example.com is missing on this node"
mv "$TOP/vtestos.saved" "$TOP/os/vtestos"
ok "an instance's OS missing on its node: ENODEOS, exit 1"

CERT="$GANTRY_ROOT/var/lib/gantry/tls/node.pem"
cp "$CERT" "$TOP/node.pem.saved"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout /dev/null \
	-subj "/CN=near-expiry" -days 3 -out "$CERT" 2>/dev/null
verify
expect 1 ERROR:ECLUSTERCERT "While verifying $CERT.*: Certificate expires in about [0-9] days"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout /dev/null \
	-subj "/CN=near-expiry" -days 20 -out "$CERT" 2>/dev/null
verify
expect 0 WARNING:ECLUSTERCERT "Certificate expires in about (19|20) days"
cp "$TOP/node.pem.saved" "$CERT"
ok "a certificate near its end: ECLUSTERCERT, an error within 7 days (exit 1), a warning within 30 (exit 0)"

if ip tuntap add dev gnt.com.9$$ mode tap 2>/dev/null; then
	TAP_DEV="gnt.com.9$$"
	verify
	expect 0 WARNING:ENODENET "tap $TAP_DEV belongs to no running instance with a channel"
	ip link del "$TAP_DEV"
	TAP_DEV=""
	ok "a channel tap of no instance: ENODENET as a warning, exit 0"
else
	ok "# SKIP a channel tap of no instance: no taps can be made here"
fi

verify --debug-simulate-errors
[ "$RC" = 1 ] && grep -q " - ERROR:ENODEVERSION:" <<<"$OUT" || fail "simulated: $RC $OUT"
ok "--debug-simulate-errors reports the checks as failed, exit 1"

"$GNT_TEST_GANTRY_DAEMONS" stop
"$GNT_TEST_GANTRY_DAEMONS" start
pkill_pid=$(cat "$GANTRY_ROOT"/run/gantry/gantry-noded.pid 2>/dev/null || true)
[ -n "$pkill_pid" ] || fail "no noded pid file under $GANTRY_ROOT/run/gantry"
kill "$pkill_pid"
for _ in $(seq 50); do kill -0 "$pkill_pid" 2>/dev/null || break; sleep 0.1; done
verify
expect 1 ERROR:ENODERPC "while contacting node: .*"
set +e
out=$(cluster verify-disks 2>&1)
rc=$?
set -e
[ "$rc" = 1 ] && grep -q "^Error gathering data on node " <<<"$out" ||
	fail "verify-disks with the node down: $rc $out"
"$GNT_TEST_GANTRY_DAEMONS" start
ok "the node daemon down: ENODERPC (exit 1); verify-disks: 'Error gathering data on node' (exit 1)"

if [ "$HV" = fake,kvm ] && [ -e /dev/kvm -o -x /usr/bin/qemu-system-x86_64 ]; then
	DOMAIN="gnt-$CLUSTER.example.com-stray.example.com"
	cat >"$TOP/stray.xml" <<XML
<domain type='qemu'>
  <name>$DOMAIN</name>
  <memory unit='MiB'>32</memory>
  <vcpu>1</vcpu>
  <os><type arch='x86_64' machine='pc'>hvm</type></os>
  <devices><emulator>/usr/bin/qemu-system-x86_64</emulator></devices>
</domain>
XML
	virsh -q -c qemu:///system create "$TOP/stray.xml" >/dev/null
	verify
	expect 1 ERROR:ENODEORPHANINSTANCE "node is running unknown instance stray.example.com"
	virsh -q -c qemu:///system destroy "$DOMAIN" >/dev/null
	DOMAIN=""
	verify
	expect_clean
	ok "a real qemu domain of the cluster's prefix unknown to it: ENODEORPHANINSTANCE, exit 1"
else
	ok "# SKIP an orphan domain on real libvirt: libvirtd does not answer on qemu:///system"
fi

tap "1..$N"
