# shellcheck shell=sh
# shellcheck disable=SC2034 # STORAGE_STEPS and STEP_DATA are the agent's
# The storage layout's in-band steps (doc/install.md "Storage layouts",
# doc/appliance.md "Storage steps"), sourced by the agent: wipe_disks,
# partition, create_raid, create_lvm, mkfs, mount_target, write_fstab,
# set_hostname and install_bootloader. Each is step_NAME and ends with
# step_done or fail, like the agent's own steps.
#
# The master checked the layout before anything changed and rendered each
# structured argument into lines (GANTRY_ARG_PARTITIONS: "SIZE TYPE" a
# line, SIZE in MiB or "rest"; GANTRY_ARG_DEVICES and GANTRY_ARG_PVS:
# device names separated by spaces; GANTRY_ARG_LVS: "NAME SIZE" a line,
# SIZE in MiB, "N%" of the group or "rest"; GANTRY_ARG_MOUNTS: "DEVICE
# PATH" a line, "/" first). Device names: diskN (the Nth of the
# instance's disks), diskNpK, mdN, VG/LV.
#
# No udev here: the kernel's devtmpfs makes the disks', partitions' and
# arrays' nodes; LVM makes its own (udev_sync=0, udev_rules=0); mdadm runs
# with --run. The tools (host binaries with their libraries) and modules
# are on the appliance disk under storage/, loaded on the first storage
# step only: a boot without storage steps costs nothing more.
#
# mount_target leaves for the steps after it (write_payload among them):
#   /target                             the root filesystem, the others below
#   /run/gantry/layout/root_device      the root's device, one line
#   /run/gantry/layout/mounts           "DEVICE PATH FSTYPE UUID" a line
#                                       (swap: PATH and FSTYPE "swap")
#   /run/gantry/layout/raids            "mdN LEVEL MEMBER,MEMBER..." a line
#   /run/gantry/layout/vgs              "VG PV,PV..." a line (create_lvm)

STORAGE_STEPS="wipe_disks partition create_raid create_lvm mkfs mount_target write_fstab set_hostname install_bootloader"
TARGET=/target
LAYOUT=/run/gantry/layout
STORAGE_HOME=$HERE/storage

# storage_ready STEP: the tools and their configuration, once a boot (the
# modules: storage_modules, by the steps that need them).
storage_ready() {
	[ "$APPLIANCE" = 1 ] ||
		fail "$1" "storage steps run only inside the install appliance (not on this host)"
	[ -f "$WORK/storage.ready" ] && return 0
	[ -d "$STORAGE_HOME/bin" ] ||
		fail "$1" "this appliance has no storage tools (rebuild it with build-appliance)"
	# the binaries' loader where they look for it (/ is this boot's RAM)
	interp=$(cat "$STORAGE_HOME/interp")
	mkdir -p "$(dirname "$interp")" /etc/lvm /run/lvm /run/lock/lvm "$LAYOUT" "$TARGET"
	[ -e "$interp" ] || ln -s "$STORAGE_HOME/lib/$(basename "$interp")" "$interp"
	# LVM without udev: it makes its nodes itself and scans /dev
	cat >/etc/lvm/lvm.conf <<'EOF'
devices {
	obtain_device_list_from_udev = 0
	external_device_info_source = "none"
	scan = [ "/dev" ]
}
activation {
	udev_sync = 0
	udev_rules = 0
	verify_udev_operations = 0
	monitoring = 0
}
global {
	event_activation = 0
}
backup {
	backup = 0
	archive = 0
}
EOF
	: >"$WORK/storage.ready"
}

# storage_modules STEP GROUP...: the kernel modules of each GROUP (md,
# raid0, raid1, raid10, raid5, dm, xfs, vfat: a directory each under
# storage/modules, in load order), those not loaded yet.
storage_modules() {
	sm_step=$1
	shift
	for group in "$@"; do
		[ -f "$STORAGE_HOME/modules/$group/order" ] || continue # built in
		while read -r m; do
			[ -n "$m" ] || continue
			[ -d "/sys/module/$(echo "$m" | tr - _)" ] && continue
			insmod "$STORAGE_HOME/modules/$group/$m.ko" 2>"$WORK/insmod.err" ||
				fail "$sm_step" "cannot load module '$m': $(cat "$WORK/insmod.err")"
		done <"$STORAGE_HOME/modules/$group/order"
	done
}

# storage_disk: DEV is the instance's disk $disk_n.
storage_disk() {
	# shellcheck disable=SC2086 # a list of paths
	set -- $DISKS
	[ "$disk_n" -lt "$#" ] || return 1
	shift "$disk_n"
	DEV=$1
}

# storage_dev STEP NAME: DEV is NAME's device node (diskN, diskNpK, mdN,
# VG/LV).
storage_dev() {
	case "$2" in
	disk*p*)
		disk_n=${2#disk}
		part=${disk_n#*p}
		disk_n=${disk_n%%p*}
		storage_disk || fail "$1" "there is no disk $disk_n for '$2'"
		case "$DEV" in
		*[0-9]) DEV=${DEV}p$part ;;
		*) DEV=$DEV$part ;;
		esac
		;;
	disk*)
		disk_n=${2#disk}
		storage_disk || fail "$1" "there is no disk $disk_n for '$2'"
		;;
	md* | */*) DEV=/dev/$2 ;;
	*) fail "$1" "'$2' is not a device name" ;;
	esac
}

# storage_wait STEP PATH: the kernel's node of PATH, within 5 s.
storage_wait() {
	waited=0
	while [ ! -b "$2" ] && [ $waited -lt 50 ]; do
		sleep 0.1
		waited=$((waited + 1))
	done
	[ -b "$2" ] || fail "$1" "no device node '$2' appeared"
}

# storage_run STEP WHAT COMMAND...: COMMAND, its output into the step's output;
# a failure fails the step with WHAT.
storage_run() {
	r_step=$1
	r_what=$2
	shift 2
	# the guest's uptime: where a step's time goes (read is built in)
	read -r st_up _ </proc/uptime
	echo "+ [$st_up] $*" >>"$WORK/storage.out"
	st "$@" >>"$WORK/storage.out" 2>&1 || fail "$r_step" "$r_what failed" "$WORK/storage.out"
}

# st COMMAND ARGS...: COMMAND from the storage tools when it is one of them
# (busybox's sh runs its own mke2fs, blkid or mkswap whatever PATH says),
# else as it is.
st() {
	st_cmd=$1
	shift
	if [ -x "$STORAGE_HOME/bin/$st_cmd" ]; then
		# their libraries; nothing else (the installed system's chroot)
		LD_LIBRARY_PATH=$STORAGE_HOME/lib MKE2FS_CONFIG=$STORAGE_HOME/mke2fs.conf \
			"$STORAGE_HOME/bin/$st_cmd" "$@"
	else
		"$st_cmd" "$@"
	fi
}

storage_begin() { # storage_begin STEP
	storage_ready "$1"
	: >"$WORK/storage.out"
}

# The mounts under /target, deepest first, then the arrays and groups
# stopped: each end of the agent leaves the disks clean.
storage_cleanup() {
	[ "$APPLIANCE" = 1 ] && [ -f "$WORK/storage.ready" ] || return 0
	# shellcheck disable=SC2013 # mount points have no blanks here
	for m in $(awk -v t="$TARGET" '$2 == t || index($2, t "/") == 1 { print $2 }' \
		/proc/mounts | sort -r); do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done
	swapoff -a 2>/dev/null
	[ -d /sys/module/dm_mod ] && st lvm vgchange -an >/dev/null 2>&1
	[ -d /sys/module/md_mod ] && st mdadm --stop --scan >/dev/null 2>&1
	return 0
}

# wipe_disks: every disk of the instance back to zeroes at both ends, old
# arrays' superblocks and LVM signatures gone, its partitions' first.
step_wipe_disks() {
	storage_begin wipe_disks
	storage_cleanup
	n=0
	for d in $DISKS; do
		for p in "$d"[0-9]* "$d"p[0-9]*; do
			[ -b "$p" ] || continue
			st mdadm --zero-superblock --force "$p" >>"$WORK/storage.out" 2>&1
			storage_run wipe_disks "wiping '$p'" wipefs -a -f "$p"
		done
		st mdadm --zero-superblock --force "$d" >>"$WORK/storage.out" 2>&1
		# the PMBR and both GPT headers (sgdisk --zap-all would do the same
		# and wait seconds for the kernel's re-read)
		storage_run wipe_disks "wiping '$d'" wipefs -a -f "$d"
		sectors=$(blockdev --getsz "$d") || fail wipe_disks "cannot size '$d'"
		storage_run wipe_disks "zeroing the start of '$d'" \
			dd if=/dev/zero of="$d" bs=1M count=1 conv=notrunc
		# the backup GPT and end-of-disk superblocks (md 0.90/1.0): the
		# last MiB, in 4 KiB blocks when the size allows (each write
		# costs under TCG)
		if [ $((sectors % 8)) = 0 ] && [ "$sectors" -gt 2048 ]; then
			storage_run wipe_disks "zeroing the end of '$d'" dd if=/dev/zero of="$d" \
				bs=4096 seek=$((sectors / 8 - 256)) count=256 conv=notrunc
		elif [ "$sectors" -gt 2048 ]; then
			storage_run wipe_disks "zeroing the end of '$d'" dd if=/dev/zero of="$d" \
				bs=512 seek=$((sectors - 2048)) count=2048 conv=notrunc
		fi
		blockdev --rereadpt "$d" 2>/dev/null
		n=$((n + 1))
	done
	sync
	step_done "wiped $n disks" "$WORK/storage.out"
}

# partition: a new GPT on disk GANTRY_ARG_DISK, the partitions in order
step_partition() {
	storage_begin partition
	storage_dev partition "disk${GANTRY_ARG_DISK:-}"
	disk=$DEV
	set --
	k=0
	while read -r size type; do
		[ -n "$size" ] || continue
		k=$((k + 1))
		case "$size" in
		rest) end=0 ;;
		*) end=+${size}M ;;
		esac
		case "$type" in
		linux) code=8300 ;;
		raid) code=FD00 ;;
		lvm) code=8E00 ;;
		swap) code=8200 ;;
		bios_boot) code=EF02 ;;
		efi) code=EF00 ;;
		*) fail partition "unknown partition type '$type'" ;;
		esac
		set -- "$@" -n "$k:0:$end" -t "$k:$code"
	done <<EOF
${GANTRY_ARG_PARTITIONS:-}
EOF
	[ "$k" -gt 0 ] || fail partition "no partitions given"
	storage_run partition "partitioning '$disk'" sgdisk -o "$@" "$disk"
	blockdev --rereadpt "$disk" 2>/dev/null
	i=1
	while [ $i -le $k ]; do
		storage_dev partition "disk${GANTRY_ARG_DISK}p$i"
		storage_wait partition "$DEV"
		i=$((i + 1))
	done
	step_done "disk $GANTRY_ARG_DISK ($disk): $k partitions" "$WORK/storage.out"
}

# create_raid: array GANTRY_ARG_NAME of GANTRY_ARG_LEVEL on
# GANTRY_ARG_DEVICES
step_create_raid() {
	storage_begin create_raid
	name=${GANTRY_ARG_NAME:-}
	level=${GANTRY_ARG_LEVEL:-}
	storage_modules create_raid md "raid$level"
	set --
	for m in ${GANTRY_ARG_DEVICES:-}; do
		storage_dev create_raid "$m"
		# what an older layout left at the same place
		st mdadm --zero-superblock --force "$DEV" >>"$WORK/storage.out" 2>&1
		storage_run create_raid "wiping '$DEV'" wipefs -a -f "$DEV"
		set -- "$@" "$DEV"
	done
	storage_run create_raid "creating RAID$level '$name'" mdadm --create "/dev/$name" --run \
		--metadata=1.2 --level="$level" --raid-devices=$# "$@"
	storage_wait create_raid "/dev/$name"
	echo "$name $level $(echo "${GANTRY_ARG_DEVICES:-}" | tr ' ' ',')" >>"$LAYOUT/raids"
	step_done "$name: RAID$level on $*" "$WORK/storage.out"
}

# create_lvm: volume group GANTRY_ARG_VG on GANTRY_ARG_PVS, its logical
# volumes GANTRY_ARG_LVS in order
step_create_lvm() {
	storage_begin create_lvm
	storage_modules create_lvm dm
	vg=${GANTRY_ARG_VG:-}
	set --
	for m in ${GANTRY_ARG_PVS:-}; do
		storage_dev create_lvm "$m"
		storage_run create_lvm "wiping '$DEV'" wipefs -a -f "$DEV"
		storage_run create_lvm "making '$DEV' a physical volume" lvm pvcreate -ff -y "$DEV"
		set -- "$@" "$DEV"
	done
	storage_run create_lvm "creating volume group '$vg'" lvm vgcreate -y "$vg" "$@"
	echo "$vg $(echo "$*" | tr ' ' ',')" >>"$LAYOUT/vgs"
	n=0
	while read -r lv size; do
		[ -n "$lv" ] || continue
		case "$size" in
		rest) amount="-l 100%FREE" ;;
		*%) amount="-l ${size}VG" ;;
		*) amount="-L ${size}m" ;;
		esac
		# shellcheck disable=SC2086 # an option and its value
		storage_run create_lvm "creating logical volume '$vg/$lv'" \
			lvm lvcreate -y -W y -n "$lv" $amount "$vg"
		n=$((n + 1))
	done <<EOF
${GANTRY_ARG_LVS:-}
EOF
	storage_run create_lvm "making the nodes of '$vg'" lvm vgmknodes "$vg"
	step_done "$vg on $*: $n logical volumes" "$WORK/storage.out"
}

# mkfs: a GANTRY_ARG_FSTYPE filesystem on GANTRY_ARG_DEVICE
step_mkfs() {
	storage_begin mkfs
	storage_dev mkfs "${GANTRY_ARG_DEVICE:-}"
	storage_wait mkfs "$DEV"
	label=${GANTRY_ARG_LABEL:-}
	case "${GANTRY_ARG_FSTYPE:-}" in
	ext4 | ext3 | ext2)
		storage_run mkfs "making $GANTRY_ARG_FSTYPE on '$DEV'" \
			mke2fs -F -q -t "$GANTRY_ARG_FSTYPE" ${label:+-L "$label"} "$DEV"
		;;
	xfs) storage_run mkfs "making xfs on '$DEV'" mkfs.xfs -f -q ${label:+-L "$label"} "$DEV" ;;
	vfat) storage_run mkfs "making vfat on '$DEV'" mkfs.fat ${label:+-n "$label"} "$DEV" ;;
	swap) storage_run mkfs "making swap on '$DEV'" mkswap -f ${label:+-L "$label"} "$DEV" ;;
	*) fail mkfs "unknown filesystem type '${GANTRY_ARG_FSTYPE:-}'" ;;
	esac
	step_done "$GANTRY_ARG_FSTYPE on $DEV" "$WORK/storage.out"
}

# mount_target: the root on /target, the others below it (GANTRY_ARG_MOUNTS,
# "/" first); the layout for the steps after it and the master's hook
step_mount_target() {
	storage_begin mount_target
	: >"$LAYOUT/mounts"
	rm -f "$LAYOUT/root_device"
	summary=
	while read -r name path; do
		[ -n "$name" ] || continue
		storage_dev mount_target "$name"
		storage_wait mount_target "$DEV"
		fstype=$(st blkid -s TYPE -o value "$DEV")
		uuid=$(st blkid -s UUID -o value "$DEV")
		if [ -z "$fstype" ] || [ -z "$uuid" ]; then
			fail mount_target "'$DEV' ($name) holds no filesystem blkid knows"
		fi
		case "$fstype" in
		xfs | vfat) storage_modules mount_target "$fstype" ;;
		esac
		case "$path" in
		swap) ;;
		/)
			storage_run mount_target "mounting '$DEV' on $TARGET" mount -t "$fstype" "$DEV" "$TARGET"
			echo "$DEV" >"$LAYOUT/root_device"
			;;
		*)
			[ -s "$LAYOUT/root_device" ] || fail mount_target "'/' must be mounted first"
			mkdir -p "$TARGET$path"
			storage_run mount_target "mounting '$DEV' on $TARGET$path" \
				mount -t "$fstype" "$DEV" "$TARGET$path"
			;;
		esac
		echo "$DEV $path $fstype $uuid" >>"$LAYOUT/mounts"
		summary="$summary${summary:+;}mount $DEV $path $fstype $uuid $name"
	done <<EOF
${GANTRY_ARG_MOUNTS:-}
EOF
	[ -s "$LAYOUT/root_device" ] || fail mount_target "no root filesystem (no mount of '/')"
	if [ -f "$LAYOUT/raids" ]; then
		while read -r md level members; do
			summary="$summary;raid /dev/$md $level $members $md"
		done <"$LAYOUT/raids"
	fi
	# for the master's post-step hook (the install record's layout)
	STEP_DATA="{\"root_device\":\"$(cat "$LAYOUT/root_device")\",\"layout\":\"$summary\"}"
	step_done "root $(cat "$LAYOUT/root_device") on $TARGET" "$WORK/storage.out"
}

# storage_target_ready STEP: /target holds the mounted layout.
storage_target_ready() {
	storage_begin "$1"
	if [ ! -s "$LAYOUT/mounts" ] ||
		! awk -v t="$TARGET" '$2 == t { found = 1 } END { exit !found }' /proc/mounts; then
		fail "$1" "nothing is mounted on $TARGET (no mount_target step ran in this boot)"
	fi
}

# write_fstab: /etc/fstab of the installed system from the layout, by UUID
step_write_fstab() {
	storage_target_ready write_fstab
	mkdir -p "$TARGET/etc"
	{
		echo "# written by Gantry's install (write_fstab): DEVICE by UUID"
		while read -r _ path fstype uuid; do
			case "$fstype" in
			swap) echo "UUID=$uuid none swap sw 0 0" ;;
			ext*) [ "$path" = / ] && pass=1 || pass=2
				echo "UUID=$uuid $path $fstype errors=remount-ro 0 $pass" ;;
			vfat) echo "UUID=$uuid $path vfat umask=0077 0 2" ;;
			*) echo "UUID=$uuid $path $fstype defaults 0 0" ;;
			esac
		done <"$LAYOUT/mounts"
	} >"$TARGET/etc/fstab.gantry" || fail write_fstab "cannot write $TARGET/etc/fstab"
	mv -f "$TARGET/etc/fstab.gantry" "$TARGET/etc/fstab"
	cp "$TARGET/etc/fstab" "$WORK/storage.out"
	step_done "$(grep -c '^UUID=' "$TARGET/etc/fstab") entries" "$WORK/storage.out"
}

# set_hostname: /etc/hostname and /etc/hosts (GANTRY_ARG_HOSTNAME, the
# instance's name unless the template gave one)
step_set_hostname() {
	storage_target_ready set_hostname
	name=${GANTRY_ARG_HOSTNAME:-}
	[ -n "$name" ] || fail set_hostname "no host name given"
	short=${name%%.*}
	mkdir -p "$TARGET/etc"
	echo "$short" >"$TARGET/etc/hostname" || fail set_hostname "cannot write /etc/hostname"
	if [ "$short" = "$name" ]; then
		names=$name
	else
		names="$name $short"
	fi
	cat >"$TARGET/etc/hosts" <<EOF || fail set_hostname "cannot write /etc/hosts"
127.0.0.1	localhost
127.0.1.1	$names
::1	localhost ip6-localhost ip6-loopback
ff02::1	ip6-allnodes
ff02::2	ip6-allrouters
EOF
	step_done "$short"
}

# storage_sysname DEV: the kernel's name of DEV (dm-0 for /dev/vg0/root),
# by its device number.
storage_sysname() {
	# shellcheck disable=SC2046 # two hexadecimal numbers
	set -- $(stat -L -c '%t %T' "$1")
	want="$((0x$1)):$((0x$2))"
	for b in /sys/class/block/*; do
		[ "$(cat "$b/dev")" = "$want" ] && basename "$b" && return 0
	done
	return 1
}

# storage_disks_under DEV: the whole disks DEV sits on (through
# partitions, arrays and logical volumes), by the kernel's holders in
# /sys, one a line.
storage_disks_under() {
	b=$(storage_sysname "$1") || return 0
	if [ -n "$(ls "/sys/class/block/$b/slaves" 2>/dev/null)" ]; then
		for s in "/sys/class/block/$b/slaves"/*; do
			storage_disks_under "/dev/$(basename "$s")"
		done
	elif [ -e "/sys/class/block/$b/partition" ]; then
		echo "/dev/$(basename "$(dirname "$(readlink -f "/sys/class/block/$b")")")"
	else
		echo "/dev/$b"
	fi
}

# initramfs_lacks: what the installed system's initramfs lacks for this
# layout, one word each ("" when every kernel's initramfs has it all): the
# tools (mdadm with arrays, lvm with logical volumes) and the modules (md,
# each array's level, dm, the root's filesystem, virtio_blk) unless the
# kernel has them built in. Also "mdadm.conf" when the system's own
# mdadm.conf (the one its initramfs carries) names arrays: they would be
# another machine's. Without ARRAY lines, Debian's initramfs assembles every
# array it finds (udev's incremental assembly; a degraded one after its
# last-resort wait), so the arrays built here need no rebuild to boot.
initramfs_lacks() {
	il_tools=
	# ext2 and ext3 are ext4's module's too (Debian's EXT4_USE_FOR_EXT2)
	il_mods="virtio_blk $(awk '$2 == "/" { print ($3 ~ /^ext[23]$/ ? "ext4" : $3) }' "$LAYOUT/mounts")"
	if [ -s "$LAYOUT/raids" ]; then
		il_tools=mdadm
		il_mods="$il_mods md-mod $(awk '{ print ($2 == 5 ? "raid456" : "raid" $2) }' "$LAYOUT/raids" | sort -u)"
		grep -qs '^ARRAY' "$TARGET/etc/mdadm/mdadm.conf" && echo mdadm.conf
	fi
	if [ -s "$LAYOUT/vgs" ]; then
		il_tools="$il_tools lvm"
		il_mods="$il_mods dm-mod"
	fi
	[ -x "$TARGET/usr/bin/lsinitramfs" ] || {
		echo lsinitramfs
		return 0
	}
	for il_dir in "$TARGET"/lib/modules/*; do
		il_kver=$(basename "$il_dir")
		[ -f "$TARGET/boot/initrd.img-$il_kver" ] || {
			echo "initrd.img-$il_kver"
			continue
		}
		chroot "$TARGET" /usr/bin/lsinitramfs "/boot/initrd.img-$il_kver" >"$WORK/initramfs.list" 2>/dev/null || {
			echo "initrd.img-$il_kver"
			continue
		}
		for t in $il_tools; do
			grep -Eq "^(usr/)?s?bin/$t\$" "$WORK/initramfs.list" || echo "$t"
		done
		for m in $il_mods; do
			# modules.builtin and the list spell '-' and '_' as the module has them
			grep -Eq "/$m\.ko(\.[a-z]+)?\$" "$WORK/initramfs.list" ||
				grep -Eqs "/$m\.ko\$" "$il_dir/modules.builtin" || echo "$m"
		done
	done
}

# install_bootloader: GRUB for BIOS from the installed system, on every
# disk /boot sits on, after mdadm.conf and an initramfs that assembles the
# arrays and finds the root LV (the system's own when it already does:
# rebuilding it takes two minutes under TCG)
step_install_bootloader() {
	storage_target_ready install_bootloader
	[ -x "$TARGET/usr/sbin/grub-install" ] ||
		fail install_bootloader "the installed system has no /usr/sbin/grub-install (it needs grub-pc)"
	boot=$(awk '$2 == "/boot" { print $1 }' "$LAYOUT/mounts")
	[ -n "$boot" ] || boot=$(cat "$LAYOUT/root_device")
	for m in dev proc sys run; do
		mkdir -p "$TARGET/$m"
	done
	storage_run install_bootloader "binding /dev" mount --bind /dev "$TARGET/dev"
	storage_run install_bootloader "mounting proc" mount -t proc proc "$TARGET/proc"
	storage_run install_bootloader "mounting sysfs" mount -t sysfs sysfs "$TARGET/sys"
	# the installed system's lvm and mdadm keep their locks and maps there
	storage_run install_bootloader "mounting a tmpfs on /run" mount -t tmpfs tmpfs "$TARGET/run"
	lacks=$(initramfs_lacks | sort -u | tr '\n' ' ')
	lacks=${lacks% }
	if [ -s "$LAYOUT/raids" ]; then
		mkdir -p "$TARGET/etc/mdadm"
		{
			echo "# written by Gantry's install (install_bootloader)"
			echo "HOMEHOST <system>"
			echo "MAILADDR root"
			st mdadm --detail --scan
		} >"$TARGET/etc/mdadm/mdadm.conf" ||
			fail install_bootloader "cannot write /etc/mdadm/mdadm.conf"
	fi
	if [ -n "$lacks" ]; then
		echo "the installed initramfs lacks: $lacks; rebuilding it" >>"$WORK/storage.out"
		storage_run install_bootloader "update-initramfs" chroot "$TARGET" update-initramfs -u -k all
		initramfs="initramfs rebuilt"
	else
		initramfs="the system's initramfs kept"
	fi
	n=0
	for d in $(storage_disks_under "$boot" | sort -u); do
		storage_run install_bootloader "grub-install on '$d'" \
			chroot "$TARGET" grub-install --target=i386-pc "$d"
		n=$((n + 1))
	done
	storage_run install_bootloader "update-grub" chroot "$TARGET" update-grub
	for m in run sys proc dev; do
		umount "$TARGET/$m" 2>/dev/null || umount -l "$TARGET/$m"
	done
	step_done "GRUB on $n disks (/boot on $boot), $initramfs" "$WORK/storage.out"
}
