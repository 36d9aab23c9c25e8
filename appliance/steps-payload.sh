# shellcheck shell=sh
# Gantry's install agent: the payload step (doc/install.md, "The
# payload"), sourced by appliance/agent.
#
# write_payload: the OS image onto the storage layout's root device, or a
# root filesystem tarball unpacked into its mounted root. The layout is
# what mount_target left in $LAYOUT_DIR: root_device (one line) and
# mounts (device, mount point, fstype, UUID per line), the root mounted
# at $TARGET_DIR. Without a layout the target is disk 0. metad streams the
# payload (the node checked and made it ready: a qcow2 image is raw by
# now, a tarball passed the root filesystem rules) under one name,
# /gantry/latest/install/image.EXT, whose extension says what it is.
# shellcheck disable=SC2317 # the step is called by name

# steps-storage.sh's, when it was sourced first
LAYOUT_DIR=${LAYOUT:-/run/gantry/layout}
TARGET_DIR=${TARGET:-/target}
PAYLOAD_NAMES="image.img image.tar image.tar.gz image.tgz image.tar.xz image.txz image.tar.bz2 image.tbz"

# layout_root_device: the root device mount_target recorded, else nothing
layout_root_device() {
	[ -s "$LAYOUT_DIR/root_device" ] || return 0
	head -n 1 "$LAYOUT_DIR/root_device"
}

# payload_exists NAME: whether metad serves the payload under NAME
payload_exists() {
	if [ -n "$SOCKET" ]; then
		curl -sSf --max-time 60 -I --unix-socket "$SOCKET" \
			"$BASE/gantry/latest/install/$1" >/dev/null 2>&1
		return
	fi
	timeout 60 wget -q --spider "$BASE/gantry/latest/install/$1" 2>/dev/null
}

# payload_stream NAME: the payload's bytes on stdout; its exit status in
# $WORK/stream.rc (a pipe's left side has none of its own in sh)
payload_stream() {
	rc=0
	if [ -n "$SOCKET" ]; then
		curl -sSf --unix-socket "$SOCKET" "$BASE/gantry/latest/install/$1" \
			2>"$WORK/stream.err" || rc=$?
	else
		wget -q -O - "$BASE/gantry/latest/install/$1" 2>"$WORK/stream.err" || rc=$?
	fi
	echo "$rc" >"$WORK/stream.rc"
}

stream_failed() {
	[ "$(cat "$WORK/stream.rc" 2>/dev/null)" != 0 ]
}

step_write_payload() {
	name=
	for n in $PAYLOAD_NAMES; do
		if payload_exists "$n"; then
			name=$n
			break
		fi
	done
	[ -n "$name" ] || fail write_payload "metad serves no payload for this install"
	root=$(layout_root_device)
	case "$name" in
	image.img)
		target=$root
		if [ -z "$target" ]; then
			target=${DISKS%% *}
			[ -n "$target" ] || fail write_payload "there is no disk to write the image onto"
		fi
		if [ -b "$target" ]; then
			payload_stream "$name" | dd of="$target" bs=4M conv=fsync >"$WORK/dd.out" 2>&1
		else
			# host mode: disk 0 is a file
			payload_stream "$name" | dd of="$target" bs=4M conv=notrunc,fsync \
				>"$WORK/dd.out" 2>&1
		fi
		dd_rc=$?
		stream_failed && fail write_payload \
			"cannot stream the image from metad: $(cat "$WORK/stream.err")"
		[ "$dd_rc" = 0 ] || fail write_payload \
			"writing the image onto '$target' failed (larger than it?)" "$WORK/dd.out"
		sync
		step_done "the image is on $target"
		;;
	*)
		[ -n "$root" ] || fail write_payload \
			"a root filesystem tarball needs a storage layout with a mounted root (mount_target): there is none"
		grep -q "^[^ ]* $TARGET_DIR " /proc/mounts 2>/dev/null ||
			fail write_payload "the root '$root' is not mounted at $TARGET_DIR"
		case "$name" in
		*.gz | *.tgz) z=-z ;;
		*.xz | *.txz) z=-J ;;
		*.bz2 | *.tbz) z=-j ;;
		*) z= ;;
		esac
		# owners by number: the guest's users, not the appliance's
		# shellcheck disable=SC2086 # empty, or one option
		payload_stream "$name" | tar -x $z -f - --numeric-owner -C "$TARGET_DIR" \
			>"$WORK/tar.out" 2>&1
		tar_rc=$?
		stream_failed && fail write_payload \
			"cannot stream the tarball from metad: $(cat "$WORK/stream.err")"
		[ "$tar_rc" = 0 ] || fail write_payload \
			"unpacking the tarball into $TARGET_DIR ($root) failed" "$WORK/tar.out"
		sync
		step_done "unpacked into $TARGET_DIR ($root)" "$WORK/tar.out"
		;;
	esac
}
