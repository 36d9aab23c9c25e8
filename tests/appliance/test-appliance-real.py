#!/usr/bin/env python3
"""The real install appliance under bare qemu (TCG), suite hypervisor-real.
TAP output.

Builds the appliance with appliance/build-appliance into a temporary
directory (or takes GNT_TEST_APPLIANCE_DIR), then:
  1. a bare boot (gantry.mode=bare) powers off within 60 s;
  2. an install: the appliance talks to a metad stand-in over slirp
     (restrict=on) with a guestfwd to a chardev on a unix socket (one byte
     stream for all of the guest's connections: the stand-in is
     sequential and always sends Content-Length); the OS script makes a
     filesystem on disk 0 and prints an OSP_* value; the package is
     unpacked onto that filesystem; the disk is read back with debugfs;
  3. the same over DHCP (no gantry.ip) with a failing script: reported
     failed, then powered off;
  4. a trivial script and no package (busybox wget sees the 404).
"""
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
import metad_stub  # noqa: E402
from gnt_tap import check, report  # noqa: E402

SOURCE = os.path.join(HERE, "..", "..")
QEMU = shutil.which("qemu-system-x86_64")


def boot(appliance, disks, console, append, socket=None, timeout=120):
    """Boots; returns (seconds until qemu ended, whether it ended in time)."""
    cmd = [QEMU, "-accel", "tcg", "-m", "256", "-display", "none", "-monitor", "none",
           "-no-reboot", "-serial", "file:" + console,
           "-kernel", os.path.join(appliance, "vmlinuz"),
           "-initrd", os.path.join(appliance, "initrd.img"),
           "-append", "console=ttyS0 quiet panic=-1 no_timer_check " + append]
    for d in disks:
        cmd += ["-drive", "file=%s,format=raw,if=virtio,cache=unsafe" % d]
    cmd += ["-drive", "file=%s,format=raw,if=virtio,readonly=on"
            % os.path.join(appliance, "appliance.img")]
    if socket:
        cmd += ["-chardev", "socket,id=md,path=" + socket,
                "-netdev", "user,id=n0,net=169.254.0.0/16,host=169.254.0.2,dns=169.254.0.3,"
                "restrict=on,guestfwd=tcp:169.254.169.254:80-chardev:md",
                "-device", "virtio-net-pci,netdev=n0,mac=52:54:00:ab:cd:ef"]
    else:
        cmd += ["-nic", "none"]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        proc.wait(timeout=timeout)
        ended = True
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        ended = False
    return time.monotonic() - start, ended


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def debugfs(image, request):
    return subprocess.run(["debugfs", "-R", request, image], capture_output=True,
                          timeout=60).stdout.decode(errors="replace")


def make_package():
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        for name, content, mode, uid in (("etc/motd", b"personalized in the appliance\n", 0o644, 0),
                                         ("root/.ssh/authorized_keys", b"ssh-ed25519 AAAA\n", 0o600, 0),
                                         ("home/bob/notes", b"bob's\n", 0o640, 1001)):
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.uid, info.gid, info.mtime = len(content), mode, uid, uid, 1700000000
            tar.addfile(info, io.BytesIO(content))
    return data.getvalue()


INSTALL_SCRIPT = """#!/bin/sh
set -e
echo "disk: $DISK_0_PATH greeting: [$OSP_GREETING]"
mke2fs -q -L root "$DISK_0_PATH"
echo "made a filesystem"
"""


def main():
    if QEMU is None or not shutil.which("debugfs"):
        print("1..0 # SKIP needs qemu-system-x86_64 and debugfs")
        return 0
    work = tempfile.mkdtemp(prefix="gnt-appliance-real-")
    appliance = os.environ.get("GNT_TEST_APPLIANCE_DIR")
    try:
        if not appliance:
            appliance = os.path.join(work, "appliance")
            start = time.monotonic()
            build = subprocess.run(["sh", os.path.join(SOURCE, "appliance", "build-appliance"),
                                    appliance], capture_output=True, timeout=300)
            if not check("build-appliance succeeds", build.returncode == 0,
                         build.stderr.decode(errors="replace")):
                return finish()
            print("# built the appliance in %.1f s" % (time.monotonic() - start))
        for f in ("vmlinuz", "initrd.img", "appliance.img", "manifest.json"):
            check("the appliance has " + f, os.path.exists(os.path.join(appliance, f)))

        # 1. bare, with the same devices as the installs below
        disk = os.path.join(work, "disk0.img")
        with open(disk, "wb") as f:
            f.truncate(32 << 20)
        sock0 = os.path.join(work, "metad0.sock")
        stub = metad_stub.Stub(sock0)
        console = os.path.join(work, "bare.log")
        seconds, ended = boot(appliance, [disk], console, "gantry.mode=bare", sock0, timeout=60)
        stub.close()
        check("bare boot powers off within 60 s", ended and "bare boot done" in read(console),
              read(console)[-2000:])
        check("bare boot: nothing asked of metad", stub.requests == [], repr(stub.requests))
        print("# bare boot: %.2f s" % seconds)

        # 2. an install over slirp + guestfwd, static address
        sock = os.path.join(work, "metad.sock")
        stub = metad_stub.Stub(sock, {"OS_API_VERSION": "20", "INSTANCE_NAME": "web1",
                                      "DISK_COUNT": "1", "DISK_0_PATH": "/dev/vda",
                                      "OSP_GREETING": "it's a \"fine\" $day"},
                               INSTALL_SCRIPT, make_package())
        console = os.path.join(work, "install.log")
        seconds, ended = boot(appliance, [disk], console, "gantry.ip=169.254.12.34/16", sock)
        stub.close()
        log = read(console)
        print("# install boot: %.2f s" % seconds)
        check("install: qemu ended", ended, log[-2000:])
        steps = stub.steps()
        check("install: the reports in order",
              steps == [("appliance", "start"), ("run_os_scripts", "start"),
                        ("run_os_scripts", "done"), ("personalize", "start"),
                        ("personalize", "done"), ("appliance", "done")],
              repr(stub.progress) + "\n" + log[-3000:])
        done = [e for e in stub.progress if e["step"] == "run_os_scripts" and e["state"] == "done"]
        check("install: the script saw OSP_GREETING exactly",
              done and "disk: /dev/vda greeting: [it's a \"fine\" $day]\n" in done[0]["output"],
              repr(done))
        check("install: the package is on disk 0",
              debugfs(disk, "cat /etc/motd") == "personalized in the appliance\n",
              debugfs(disk, "cat /etc/motd"))
        stat = debugfs(disk, "stat /home/bob/notes")
        check("install: owner and mode kept", "User:  1001" in stat and "Mode:  0640" in stat,
              stat[:300])
        check("install: the appliance disk stays unchanged",
              subprocess.run(["sha256sum", os.path.join(appliance, "appliance.img")],
                             capture_output=True).stdout.decode().split()[0]
              in read(os.path.join(appliance, "manifest.json")))

        # 3. DHCP and a failing script
        sock2 = os.path.join(work, "metad2.sock")
        stub = metad_stub.Stub(sock2, {"OS_API_VERSION": "20"},
                               "#!/bin/sh\necho about to fail\nexit 7\n", None)
        console = os.path.join(work, "failing.log")
        seconds, ended = boot(appliance, [disk], console, "", sock2)
        stub.close()
        print("# failing boot (DHCP): %.2f s" % seconds)
        check("failing: qemu ended", ended, read(console)[-2000:])
        check("failing: reported",
              stub.steps() == [("appliance", "start"), ("run_os_scripts", "start"),
                               ("run_os_scripts", "failed"), ("appliance", "failed")],
              repr(stub.progress) + "\n" + read(console)[-3000:])
        failed = [e for e in stub.progress if e["state"] == "failed" and e["step"] == "run_os_scripts"]
        check("failing: the output's tail and status",
              failed and failed[0]["output"] == "about to fail\n"
              and failed[0]["detail"] == "the create script failed with exit status 7",
              repr(failed))

        # 4. a trivial OS, no package (busybox wget's 404), in the same run
        # as the bare boot above: the benchmark's shape
        sock3 = os.path.join(work, "metad3.sock")
        stub = metad_stub.Stub(sock3, {"OS_API_VERSION": "20"}, "#!/bin/sh\necho trivial\n", None)
        console = os.path.join(work, "trivial.log")
        seconds, ended = boot(appliance, [disk], console, "gantry.ip=169.254.12.34/16", sock3)
        stub.close()
        print("# trivial install: %.2f s" % seconds)
        check("trivial: no package reported, done",
              ended and stub.steps() == [("appliance", "start"), ("run_os_scripts", "start"),
                                         ("run_os_scripts", "done"), ("personalize", "info"),
                                         ("appliance", "done")],
              repr(stub.progress) + "\n" + read(console)[-3000:])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return finish()


def finish():
    return report(why_lines=60)


if __name__ == "__main__":
    sys.exit(main())
