#!/usr/bin/env python3
"""install_bootloader's choice between keeping the installed system's
initramfs and rebuilding it (appliance/steps-storage.sh, initramfs_lacks;
doc/install.md "Storage layouts"). TAP output.

The function runs in sh with the storage script sourced, against a made-up
installed system: /lib/modules/KVER with its modules.builtin, /boot/initrd.img-KVER,
an lsinitramfs that prints the listing each case gives, and the layout files
that mount_target, create_raid and create_lvm leave. `chroot` is a shell
function here that runs the command under the tree, so no root is needed.
Each case asserts the exact set of what is reported missing.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from gnt_tap import check, report  # noqa: E402

STEPS = os.environ.get("GNT_TEST_STORAGE_STEPS") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "appliance", "steps-storage.sh")

KVER = "6.1.0-50-cloud-amd64"
MODULES = "usr/lib/modules/" + KVER + "/kernel/"
# what Debian's MODULES=most initramfs of a system with mdadm and lvm2 lists
FULL_LIST = [
    "usr/sbin/mdadm", "usr/sbin/lvm", "scripts/local-block/mdadm",
    MODULES + "drivers/md/md-mod.ko", MODULES + "drivers/md/raid0.ko",
    MODULES + "drivers/md/raid1.ko", MODULES + "drivers/md/raid10.ko",
    MODULES + "drivers/md/raid456.ko", MODULES + "drivers/md/dm-mod.ko",
    MODULES + "fs/ext4/ext4.ko", MODULES + "fs/xfs/xfs.ko",
    MODULES + "drivers/block/virtio_blk.ko",
]
MIRROR_MOUNTS = "/dev/vg0/root / ext4 U1\n/dev/md0 /boot ext4 U2\n/dev/vg0/swap swap swap U3\n"
MIRROR_RAIDS = "md0 1 disk0p2,disk1p2\nmd1 1 disk0p3,disk1p3\n"



def lacks(listing=FULL_LIST, mounts=MIRROR_MOUNTS, raids=MIRROR_RAIDS, vgs="vg0 /dev/md1\n",
          builtin="", mdadm_conf="HOMEHOST <system>\nMAILADDR root\n", lsinitramfs=True,
          initrd=True):
    """The words initramfs_lacks prints for this made-up system, as a set."""
    top = tempfile.mkdtemp(prefix="gnt-initramfs-")
    try:
        target = os.path.join(top, "target")
        layout = os.path.join(top, "layout")
        work = os.path.join(top, "work")
        for d in (layout, work, os.path.join(target, "usr/lib/modules", KVER),
                  os.path.join(target, "boot"), os.path.join(target, "etc/mdadm"),
                  os.path.join(target, "usr/bin")):
            os.makedirs(d)
        # merged /usr, as Debian's
        os.symlink("usr/lib", os.path.join(target, "lib"))
        with open(os.path.join(target, "usr/lib/modules", KVER, "modules.builtin"), "w") as f:
            f.write(builtin)
        if initrd:
            with open(os.path.join(target, "boot", "initrd.img-" + KVER), "w") as f:
                f.write("\n".join(listing) + "\n")
        if lsinitramfs:
            tool = os.path.join(target, "usr/bin/lsinitramfs")
            with open(tool, "w") as f:
                # the listing stands in for the image: the test's chroot
                # gives the path under the tree
                f.write("#!/bin/sh\ncat \"$TARGET$1\"\n")
            os.chmod(tool, 0o755)
        if mdadm_conf is not None:
            with open(os.path.join(target, "etc/mdadm/mdadm.conf"), "w") as f:
                f.write(mdadm_conf)
        for name, text in (("mounts", mounts), ("raids", raids), ("vgs", vgs)):
            if text:
                with open(os.path.join(layout, name), "w") as f:
                    f.write(text)
        script = (
            '. "$1"\n'
            'TARGET=$2 LAYOUT=$3 WORK=$4\n'
            'export TARGET\n'
            'chroot() { r=$1; shift; c=$1; shift; "$r$c" "$@"; }\n'
            'initramfs_lacks\n')
        out = subprocess.run(["sh", "-c", script, "sh", STEPS, target, layout, work],
                             capture_output=True, text=True, timeout=30)
        if out.returncode != 0:
            return {"exit %d: %s" % (out.returncode, out.stderr.strip())}
        return set(out.stdout.split())
    finally:
        shutil.rmtree(top)


def expect(name, got, want):
    check(name, got == want, "got %s, want %s" % (sorted(got), sorted(want)))


def without(*names):
    return [line for line in FULL_LIST if not any(line.endswith("/" + n) for n in names)]


def main():
    expect("the mirror's layout on a full initramfs: kept", lacks(), set())
    expect("RAID0 needs raid0, which is missing", lacks(
        listing=without("raid0.ko"), raids="md0 0 disk0p2,disk1p2\n"), {"raid0"})
    expect("RAID5 needs raid456", lacks(
        listing=without("raid456.ko"), raids="md0 5 disk0p2,disk1p2,disk2p2\n"), {"raid456"})
    expect("no mdadm in the initramfs", lacks(listing=without("mdadm")), {"mdadm"})
    expect("no lvm in the initramfs", lacks(listing=without("lvm")), {"lvm"})
    expect("no lvm needed without volume groups", lacks(
        listing=without("lvm", "dm-mod.ko"), vgs="",
        mounts="/dev/md1 / ext4 U1\n/dev/md0 /boot ext4 U2\n"), set())
    expect("no mdadm needed without arrays", lacks(
        listing=without("mdadm", "md-mod.ko", "raid1.ko"), raids="", vgs="",
        mounts="/dev/vda2 / ext4 U1\n"), set())
    expect("the root's filesystem module", lacks(
        listing=without("xfs.ko"), mounts="/dev/vg0/root / xfs U1\n"), {"xfs"})
    expect("an ext3 root is ext4's module", lacks(
        listing=without("xfs.ko"), mounts="/dev/vg0/root / ext3 U1\n"), set())
    expect("virtio_blk missing (an initramfs made with MODULES=dep elsewhere)",
           lacks(listing=without("virtio_blk.ko")), {"virtio_blk"})
    expect("a module built into the kernel need not be in the initramfs", lacks(
        listing=without("virtio_blk.ko", "ext4.ko"),
        builtin="kernel/drivers/block/virtio_blk.ko\nkernel/fs/ext4/ext4.ko\n"), set())
    expect("compressed modules (.ko.xz) count", lacks(
        listing=[line + ".xz" if line.endswith(".ko") else line for line in FULL_LIST]), set())
    expect("a name is matched whole (raid10 is not raid1)", lacks(
        listing=without("raid1.ko")), {"raid1"})
    expect("an mdadm.conf naming arrays (another machine's)", lacks(
        mdadm_conf="ARRAY /dev/md/0 metadata=1.2 UUID=1:2:3:4\n"), {"mdadm.conf"})
    expect("no mdadm.conf at all: kept", lacks(mdadm_conf=None), set())
    expect("no lsinitramfs in the installed system", lacks(lsinitramfs=False),
           {"lsinitramfs"})
    expect("a kernel without its initramfs", lacks(initrd=False), {"initrd.img-" + KVER})

    return report()


if __name__ == "__main__":
    sys.exit(main())
