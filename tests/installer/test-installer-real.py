#!/usr/bin/env python3
"""Gantry's test installer (tests/installer, doc/installer.md) on its own,
under real libvirt with qemu TCG, suite hypervisor-real. TAP output.

Builds the installer with tests/installer/build-installer, serves a
kickstart, a stage 2 and the liveimg from a plain HTTP server in this
process (127.0.0.1, which the guest reaches as 10.0.2.2 through qemu's user
networking), and boots transient domains by direct kernel boot with
inst.ks= and inst.stage2=:
  1. a tarball liveimg (with --checksum): %pre posts "start", the disk gets
     a partition table, an ext4 filesystem holding the tarball's files and
     an fstab; a chroot %post sees the installed system, a --nochroot one
     the installer's; the last %post posts "end"; the domain powers off;
  2. a failing %pre --erroronfail: %onerror posts "error" with the reason,
     nothing else runs, the disk stays untouched, the domain powers off;
  3. a raw image liveimg: written onto the disk as it is (the network set
     from a static ip=, as Gantry's channel will have it);
  4. a missing liveimg (404): %onerror posts "error";
  5. the tarball under UEFI (OVMF): the disk gets a GPT, an EFI system
     partition first (the kickstart's autopart), then /.
Needs scripts/libvirt-up (libvirtd in this network namespace), the Debian
cloud kernel, busybox-static, curl, fdisk, e2fsprogs; skipped, saying why,
without them.
"""
import glob
import hashlib
import http.server
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from gnt_tap import check, report  # noqa: E402

URI = "qemu:///system"
TOKEN = "tok-3f9a1c"
MARKER = "gantry installer test\n"


def skip_reason():
    for tool in ("virsh", "curl", "sfdisk", "mke2fs", "debugfs", "cpio"):
        if not shutil.which(tool):
            return "no %s (run scripts/install-deps)" % tool
    if not glob.glob("/boot/vmlinuz-*"):
        return "no kernel in /boot (install linux-image-cloud-amd64)"
    if not os.path.exists("/bin/busybox"):
        return "no /bin/busybox (install busybox-static)"
    if subprocess.run(["virsh", "-q", "-c", URI, "version"], capture_output=True).returncode:
        return "libvirtd does not answer on %s (run scripts/libvirt-up)" % URI
    # qemu's user networking reaches this process's 127.0.0.1 only from
    # the same network namespace
    try:
        with open("/run/libvirtd.pid") as f:
            pid = f.read().strip()
        if os.readlink("/proc/%s/ns/net" % pid) != os.readlink("/proc/self/ns/net"):
            return "libvirtd runs in another network namespace (LIBVIRT_NETNS)"
    except OSError:
        pass
    return None


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.files = {}       # path -> bytes
        self.callbacks = []   # the JSON bodies POSTed to /callback
        self.requests = []    # "GET /path 200"


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def answer(self, status, body=b""):
        self.server.requests.append("%s %s %d" % (self.command, self.path, status))
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_GET(self):
        body = self.server.files.get(self.path)
        self.answer(200 if body is not None else 404, body if body is not None else b"")

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path != "/callback":
            self.answer(404)
            return
        try:
            self.server.callbacks.append(json.loads(body))
        except ValueError:
            self.server.callbacks.append({"unparsable": body.decode(errors="replace")})
        self.answer(202)


def make_root_tree(top):
    """A tiny installed system: busybox as /bin/sh and its applets."""
    os.makedirs(os.path.join(top, "bin"))
    os.makedirs(os.path.join(top, "etc", "app"))
    os.makedirs(os.path.join(top, "root"))
    shutil.copy("/bin/busybox", os.path.join(top, "bin", "busybox"))
    for applet in ("sh", "cat", "echo", "ls"):
        os.symlink("busybox", os.path.join(top, "bin", applet))
    with open(os.path.join(top, "etc", "marker"), "w") as f:
        f.write(MARKER)
    with open(os.path.join(top, "etc", "app", "settings"), "w") as f:
        f.write("x=1\n")


def make_tarball(work):
    top = os.path.join(work, "tree")
    make_root_tree(top)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name in sorted(os.listdir(top)):
            tar.add(os.path.join(top, name), arcname=name)
    return buf.getvalue()


def make_image(work):
    """A raw ext4 image of the same tree (no partition table)."""
    top = os.path.join(work, "imgtree")
    make_root_tree(top)
    path = os.path.join(work, "root.img")
    subprocess.run(["mke2fs", "-q", "-F", "-t", "ext4", "-d", top, path, "24M"], check=True)
    with open(path, "rb") as f:
        return f.read()


def callback_script(base, status, message):
    body = json.dumps({"agent_status": status, "agent_status_message": message,
                       "agent_token": TOKEN})
    return ("curl -sS -f -X POST -H 'Content-Type: application/json' -d '%s' %s/callback\n"
            % (body, base))


def kickstart(base, liveimg, pre_fails=False, checksum=None):
    """What Gantry's rendered kickstart looks like towards the installer:
    start in %pre, error in %onerror, end in the last %post."""
    lines = ["# Gantry installer test", "text", "lang en_US.UTF-8", "keyboard us",
             "timezone UTC --utc", "rootpw --lock", "zerombr", "clearpart --all --initlabel",
             "autopart", "bootloader --location=mbr", "poweroff",
             "liveimg --url=%s%s" % (liveimg, " --checksum=" + checksum if checksum else ""),
             "%pre --erroronfail",
             callback_script(base, "start", "installer started").rstrip()]
    if pre_fails:
        lines += ["echo 'pre: no disk for me' >&2", "exit 3"]
    lines += ["%end",
              "%packages --ignoremissing", "@core", "%end",
              "%post --log=/root/post-chroot.log",
              "echo \"chroot sees: $(cat /etc/marker)\" > /root/post-chroot",
              "echo post-chroot ran",
              "%end",
              "%post --nochroot --log=/tmp/nochroot.log",
              "echo nochroot > /mnt/sysimage/root/post-nochroot",
              "ls /mnt/sysimage/etc >> /mnt/sysimage/root/post-nochroot",
              "%end",
              "%onerror",
              callback_script(base, "error",
                              "installation failed, see the console").rstrip(),
              "%end",
              "%post --nochroot --erroronfail",
              "sync",
              callback_script(base, "end", "installed").rstrip(),
              "%end", ""]
    return "\n".join(lines).encode()


OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"


def boot(work, name, inst, disk, base, ks_path, timeout=300, uefi=False, ip="dhcp"):
    """Boots the installer as a transient domain (under OVMF with @uefi, as
    Gantry's firmware=uefi does); (seconds until it was gone, whether it
    ended in time, the console)."""
    loader = ""
    if uefi:
        loader = ("<loader readonly='yes' type='pflash'>%s</loader>\n"
                  "    <nvram template='%s'>%s</nvram>"
                  % (OVMF_CODE, OVMF_VARS, os.path.join(work, name + "-vars.fd")))
    console = os.path.join(work, name + ".console")
    cmdline = ("console=ttyS0 panic=-1 no_timer_check inst.ks=%s%s inst.stage2=%s/stage2 inst.cmdline ip=%s"
               % (base, ks_path, base, ip))
    dom = "gnt-installer-test-%d-%s" % (os.getpid(), name)
    xml = """<domain type='qemu'>
  <name>%s</name>
  <memory unit='MiB'>512</memory>
  <vcpu>1</vcpu>
  <os>
    <type arch='x86_64'>hvm</type>
    %s
    <kernel>%s/vmlinuz</kernel>
    <initrd>%s/initrd.img</initrd>
    <cmdline>%s</cmdline>
  </os>
  <features><acpi/></features>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>destroy</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <disk type='file' device='disk'>
      <driver name='qemu' type='raw'/>
      <source file='%s'/>
      <target dev='vda' bus='virtio'/>
    </disk>
    <interface type='user'>
      <model type='virtio'/>
    </interface>
    <serial type='file'>
      <source path='%s'/>
      <target port='0'/>
    </serial>
    <controller type='usb' model='none'/>
    <memballoon model='none'/>
  </devices>
</domain>
""" % (dom, loader, inst, inst, cmdline, disk, console)
    xml_path = os.path.join(work, name + ".xml")
    with open(xml_path, "w") as f:
        f.write(xml)
    start = time.monotonic()
    subprocess.run(["virsh", "-q", "-c", URI, "create", xml_path], check=True,
                   capture_output=True)
    ended = False
    while time.monotonic() - start < timeout:
        state = subprocess.run(["virsh", "-q", "-c", URI, "domstate", dom],
                               capture_output=True, text=True)
        if state.returncode != 0 or state.stdout.strip() in ("shut off", "crashed"):
            ended = True
            break
        time.sleep(0.5)
    took = time.monotonic() - start
    if not ended:
        subprocess.run(["virsh", "-q", "-c", URI, "destroy", dom], capture_output=True)
    with open(console, errors="replace") as f:
        text = f.read()
    return took, ended, text


def new_disk(work, name, mib=256):
    path = os.path.join(work, name + ".img")
    with open(path, "wb") as f:
        f.truncate(mib << 20)
    return path


def root_partition_offset(disk, n=1):
    """The label and the byte offset of / (the last of the @n partitions
    the disk must have: under UEFI an EFI system partition comes first)."""
    out = subprocess.run(["sfdisk", "-J", disk], capture_output=True, text=True)
    if out.returncode != 0:
        return None, None
    table = json.loads(out.stdout)["partitiontable"]
    parts = table.get("partitions", [])
    if len(parts) != n:
        return table["label"], None
    return table["label"], parts[-1]["start"] * table.get("sectorsize", 512)


def partition_type(disk, i):
    out = subprocess.run(["sfdisk", "-J", disk], capture_output=True, text=True)
    parts = json.loads(out.stdout)["partitiontable"].get("partitions", [])
    return parts[i]["type"] if i < len(parts) else None


def debugfs_cat(disk, offset, path):
    out = subprocess.run(["debugfs", "-R", "cat " + path, "%s?offset=%d" % (disk, offset)],
                         capture_output=True, text=True)
    return out.stdout


def statuses(server):
    return [c.get("agent_status") for c in server.callbacks]


def main():
    reason = skip_reason()
    if reason:
        print("1..0 # SKIP " + reason)
        return 0
    work = tempfile.mkdtemp(prefix="gnt-installer-")
    os.chmod(work, 0o755)
    server = Server()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = "http://10.0.2.2:%d" % server.server_address[1]
    try:
        inst = os.path.join(work, "installer")
        t = time.monotonic()
        subprocess.run([os.path.join(HERE, "build-installer"), inst], check=True)
        size = os.path.getsize(os.path.join(inst, "initrd.img"))
        print("# build-installer: %.1f s, initrd.img %.1f MiB" % (time.monotonic() - t,
                                                                  size / 1048576))
        tarball = make_tarball(work)
        server.files["/root.tar.gz"] = tarball
        server.files["/stage2/LiveOS/squashfs.img"] = b"hsqs" + bytes(64 * 1024 - 4)
        server.files["/ks/ok.cfg"] = kickstart(
            base, base + "/root.tar.gz", checksum=hashlib.sha256(tarball).hexdigest())
        server.files["/ks/pre-fails.cfg"] = kickstart(base, base + "/root.tar.gz",
                                                      pre_fails=True)
        server.files["/root.img"] = make_image(work)
        server.files["/ks/image.cfg"] = kickstart(base, base + "/root.img")
        server.files["/ks/missing.cfg"] = kickstart(base, base + "/nothing-here.tar.gz")

        # 1. a tarball
        disk = new_disk(work, "ok")
        took, ended, console = boot(work, "ok", inst, disk, base, "/ks/ok.cfg")
        print("# tarball install: the domain was gone after %.1f s" % took)
        check("tarball: the installer powered off in time", ended, console[-3000:])
        check("tarball: installation complete", "installation complete" in console,
              console[-3000:])
        check("tarball: the kickstart and stage 2 were fetched",
              "GET /ks/ok.cfg 200" in server.requests
              and "GET /stage2/LiveOS/squashfs.img 200" in server.requests, server.requests)
        check("tarball: start then end, with the token", statuses(server) == ["start", "end"]
              and all(c.get("agent_token") == TOKEN for c in server.callbacks),
              server.callbacks)
        label, offset = root_partition_offset(disk)
        check("tarball: one partition (msdos under BIOS)", label == "dos" and offset,
              (label, offset))
        if offset:
            check("tarball: the tarball's files on it",
                  debugfs_cat(disk, offset, "/etc/marker") == MARKER
                  and debugfs_cat(disk, offset, "/etc/app/settings") == "x=1\n")
            fstab = debugfs_cat(disk, offset, "/etc/fstab")
            check("tarball: an fstab naming the root filesystem",
                  fstab.startswith("UUID=") and " / ext4 " in fstab, fstab)
            chroot = debugfs_cat(disk, offset, "/root/post-chroot")
            check("tarball: %post ran in the installed system",
                  chroot == "chroot sees: " + MARKER, chroot)
            check("tarball: %post --log in the installed system",
                  debugfs_cat(disk, offset, "/root/post-chroot.log") == "post-chroot ran\n")
            nochroot = debugfs_cat(disk, offset, "/root/post-nochroot")
            check("tarball: %post --nochroot ran in the installer",
                  nochroot.startswith("nochroot\n") and "fstab" in nochroot, nochroot)

        # 2. a failing %pre --erroronfail
        server.callbacks.clear()
        disk = new_disk(work, "pre-fails")
        took, ended, console = boot(work, "pre-fails", inst, disk, base, "/ks/pre-fails.cfg")
        print("# failing %%pre: the domain was gone after %.1f s" % took)
        check("failing pre: the installer powered off in time", ended, console[-3000:])
        check("failing pre: %onerror posted error after start",
              statuses(server) == ["start", "error"], server.callbacks)
        check("failing pre: the console says why",
              "FAILED: %pre 001.pre failed with status 3" in console
              and "pre: no disk for me" in console, console[-3000:])
        with open(disk, "rb") as f:
            check("failing pre: the disk is untouched", f.read(1 << 20) == bytes(1 << 20))

        # 3. a raw image
        server.callbacks.clear()
        disk = new_disk(work, "image")
        # with a static address, the form Gantry's channel will use
        took, ended, console = boot(work, "image", inst, disk, base, "/ks/image.cfg",
                                    ip="10.0.2.15::10.0.2.2:255.255.255.0::eth0:none")
        print("# image install: the domain was gone after %.1f s" % took)
        check("image: installed, start then end", ended and statuses(server) == ["start", "end"],
              console[-3000:])
        check("image: the static address from ip=", "network: eth0 10.0.2.15/24" in console,
              console[-3000:])
        check("image: written onto the disk as it is",
              debugfs_cat(disk, 0, "/etc/marker") == MARKER)
        check("image: %post ran in it",
              debugfs_cat(disk, 0, "/root/post-chroot") == "chroot sees: " + MARKER)

        # 4. a liveimg that is not there
        server.callbacks.clear()
        disk = new_disk(work, "missing")
        took, ended, console = boot(work, "missing", inst, disk, base, "/ks/missing.cfg")
        check("missing liveimg: %onerror posted error", ended
              and statuses(server) == ["start", "error"], console[-3000:])
        check("missing liveimg: the console names it",
              "liveimg %s/nothing-here.tar.gz" % base in console, console[-3000:])

        # 5. the tarball again under UEFI (OVMF starting the kernel's EFI stub)
        if os.path.exists(OVMF_CODE):
            server.callbacks.clear()
            disk = new_disk(work, "uefi")
            took, ended, console = boot(work, "uefi", inst, disk, base, "/ks/ok.cfg", uefi=True)
            print("# tarball install under UEFI: the domain was gone after %.1f s" % took)
            check("uefi: installed, start then end",
                  ended and statuses(server) == ["start", "end"], console[-3000:])
            # autopart: an EFI system partition, then /
            label, offset = root_partition_offset(disk, 2)
            check("uefi: a GPT", label == "gpt" and offset, (label, offset))
            check("uefi: an EFI system partition first",
                  partition_type(disk, 0) == "C12A7328-F81F-11D2-BA4B-00A0C93EC93B",
                  partition_type(disk, 0))
            if offset:
                check("uefi: the tarball's files on it",
                      debugfs_cat(disk, offset, "/etc/marker") == MARKER)
        else:
            print("# no OVMF (install ovmf): the UEFI case is left out")
    finally:
        server.shutdown()
        shutil.rmtree(work, ignore_errors=True)
    return report()


if __name__ == "__main__":
    sys.exit(main())
