#!/bin/sh
# Reads a storage layout from the host, on read-only loop devices of an
# instance's disk files, and prints what it found, one "KEY VALUE" a line
# (tests/system/test-storage-kvm.c asserts on them):
#   member DISK PART LEVEL RAID_DEVICES ARRAY_STATE   each RAID member (mdadm --examine)
#   pv VG                  the volume group on the data area of the array on PART
#   lv VG/LV SIZE_BYTES    its logical volumes
#   fstab LINE             /etc/fstab of the root LV (debugfs, no mount)
#   hostname NAME          /etc/hostname of the root LV
#   uuid VG/LV UUID        the filesystem UUID blkid reads in the root LV
#
# Usage: storage-layout-facts.sh PART VG ROOT_LV DISK...
#   PART     the partition number holding the array with the PV (3)
#   VG, ROOT_LV  the volume group and its root LV (vg0 root)
#
# Nothing of the host's is touched: every loop device is read-only and
# detached at the end, LVM reads with --readonly and a filter that admits
# our one loop device alone, mdadm only examines; udev (when it runs) holds
# its events while the loops exist, so neither mdadm's incremental
# assembly nor LVM's event activation sees the guest's arrays and volume
# groups (doc/testing.md "Storage layouts").
set -eu

[ $# -ge 4 ] || {
	echo "usage: storage-layout-facts.sh PART VG ROOT_LV DISK..." >&2
	exit 2
}
PART=$1
VG=$2
ROOT_LV=$3
shift 3

LOOPS=
UDEV_HELD=0
cleanup() {
	for l in $LOOPS; do
		losetup -d "$l" 2>/dev/null || :
	done
	if [ "$UDEV_HELD" = 1 ]; then
		udevadm control --start-exec-queue 2>/dev/null || :
	fi
}
trap cleanup EXIT INT TERM
if udevadm control --ping >/dev/null 2>&1; then
	udevadm control --stop-exec-queue
	UDEV_HELD=1
fi

# loop FILE START_SECTOR SECTORS: a read-only loop device over that part
loop() {
	l=$(losetup -f --show -r -o $(($2 * 512)) --sizelimit $(($3 * 512)) "$1")
	LOOPS="$LOOPS $l"
	LOOP=$l
}

# lvm_ro COMMAND ARGS...: LVM reading $LOOP alone, changing nothing
lvm_ro() {
	cmd=$1
	shift
	lvm "$cmd" --readonly --devices "$PV_LOOP" \
		--config "devices { filter = [ \"a|^$PV_LOOP\$|\", \"r|.*|\" ] } global { event_activation = 0 }" \
		"$@" 2>/dev/null
}

PV_LOOP=
for disk in "$@"; do
	# shellcheck disable=SC2046 # two numbers
	set -- $(partx -g -o START,SECTORS -n "$PART" "$disk")
	start=$1
	sectors=$2
	loop "$disk" "$start" "$sectors"
	examined=$(mdadm --examine "$LOOP")
	level=$(echo "$examined" | sed -n 's/^ *Raid Level : //p')
	devices=$(echo "$examined" | sed -n 's/^ *Raid Devices : //p')
	state=$(echo "$examined" | sed -n 's/^ *Array State : \([^ ]*\).*/\1/p')
	offset=$(echo "$examined" | sed -n 's/^ *Data Offset : \([0-9]*\) sectors.*/\1/p')
	echo "member $(basename "$disk") $PART $level $devices $state"
	# RAID1: each member holds the whole array; the first is read
	if [ -z "$PV_LOOP" ] && [ "$level" = raid1 ]; then
		loop "$disk" $((start + offset)) $((sectors - offset))
		PV_LOOP=$LOOP
		DATA_START=$((start + offset))
		DATA_FILE=$disk
	fi
done

[ -n "$PV_LOOP" ] || exit 0
echo "pv $(lvm_ro pvs --noheadings -o vg_name | tr -d ' ')"
lvm_ro lvs --noheadings --units b --nosuffix -o vg_name,lv_name,lv_size |
	while read -r vg lv size; do
		echo "lv $vg/$lv $size"
	done
# the root LV's first extent, in sectors from the PV's start
pe_start=$(lvm_ro pvs --noheadings --units s --nosuffix -o pe_start | tr -d ' ')
extent=$(lvm_ro vgs --noheadings --units s --nosuffix -o vg_extent_size "$VG" | tr -d ' ')
first=$(lvm_ro lvs --noheadings -o seg_pe_ranges "$VG/$ROOT_LV" | sed 's/.*:\([0-9]*\)-.*/\1/' |
	tr -d ' ')
size=$(lvm_ro lvs --noheadings --units s --nosuffix -o lv_size "$VG/$ROOT_LV" | tr -d ' ')
loop "$DATA_FILE" $((DATA_START + pe_start + first * extent)) "$size"
echo "uuid $VG/$ROOT_LV $(blkid -p -s UUID -o value "$LOOP")"
debugfs -R "cat /etc/fstab" "$LOOP" 2>/dev/null | grep -v '^#' | while read -r line; do
	[ -n "$line" ] && echo "fstab $line"
done
echo "hostname $(debugfs -R "cat /etc/hostname" "$LOOP" 2>/dev/null)"
