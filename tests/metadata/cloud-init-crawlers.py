#!/usr/bin/python3
"""cloud-init's own datasources (Debian's cloud-init) against gantry-metad.

metad on a temporary root; an instance pushed over the control socket with
a channel {"device": "lo", "address": "127.0.0.1", "port": <free>} (a TCP
listener bound to lo with SO_BINDTODEVICE, as on a tap). Then, with
metadata_urls pointing at it:

- DataSourceOpenStack.get_data(), the whole path cloud-init takes on a
  guest (detect_openstack() from the DMI data, which is patched to the
  chassis asset tag Gantry's kvm instances carry, /openstack, the version
  chosen from its listing, meta_data.json, user data, vendor data 1 and 2,
  network_data.json, the EC2 tree it reads too) and what the datasource
  makes of it: instance id, host name, keys, availability zone, random
  seed, network config;
- DataSourceEc2.get_data(): 2009-04-04/meta-data/instance-id, the API
  version it prefers (2021-03-23), user data, the meta-data crawl, the
  network config it makes of meta-data/network/;
- the OpenStack MetadataReader and the EC2 helpers at every version.

The host's NICs and fallback NIC are patched to the instance's MACs, as a
guest would have them.
"""

import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from unittest import mock

# Debian's cloud-init (/usr/lib/python3/dist-packages/cloudinit)
from cloudinit import distros, helpers  # noqa: E402
from cloudinit.sources import DataSourceEc2, DataSourceOpenStack  # noqa: E402
from cloudinit.sources.helpers import ec2 as ec2_helpers  # noqa: E402
from cloudinit.sources.helpers import openstack  # noqa: E402

METAD = os.environ["GNT_TEST_METAD"]
UUID = "7d2f0c7e-0001-4d1e-9a7b-3c5e2a1b0c9d"
KEY_ALICE = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAlice alice@example.com"
KEY_RSA = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQRsa"
USER_DATA = "#cloud-config\nhostname: web1\nruncmd:\n - [echo, 'héllo']\n"
RECORD = {
    "name": "web1", "uuid": UUID, "hostname": "web1.example.com",
    "os": "debootstrap+default",
    "user_data": USER_DATA,
    "ssh_keys": [KEY_ALICE, KEY_RSA],
    "availability_zone": "rack1",
    "nics": [{"mac": "52:54:00:00:00:01", "ip": "192.0.2.10", "netmask": "255.255.255.0"},
             {"mac": "52:54:00:00:00:02"},
             {"mac": "52:54:00:00:00:03", "ip": "169.254.3.4", "netmask": "255.255.0.0",
              "channel": True}],
}
# the guest's NICs, by MAC
GUEST_NICS = {"52:54:00:00:00:01": "eth0", "52:54:00:00:00:02": "eth1",
              "52:54:00:00:00:03": "eth2"}
checks = 0
failed = 0


def check(cond, what):
    """Counts and prints a check; a failed one does not stop the others."""
    global checks, failed
    checks += 1
    if not cond:
        failed += 1
        print("not ok %d - %s" % (checks, what))
    else:
        print("ok %d - %s" % (checks, what))


class UnixConnection(http.client.HTTPConnection):
    """HTTP over metad's control socket."""

    def __init__(self, path):
        super().__init__("localhost")
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.path)


def control(path, method, url, body):
    conn = UnixConnection(path)
    conn.request(method, url, body=json.dumps(body),
                 headers={"Content-Type": "application/json"})
    answer = conn.getresponse()
    text = answer.read()
    conn.close()
    if answer.status != 204:
        raise RuntimeError("%s %s: %d %s" % (method, url, answer.status, text))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_checks(base):
    # OpenStack: what DataSourceOpenStack.read_metadata_service() does
    reader = openstack.MetadataReader(base, timeout=5, retries=0)
    found = reader.read_v2()
    md = found["metadata"]
    check(md.get("uuid") == UUID, "openstack: uuid %r" % md.get("uuid"))
    check(md.get("hostname") == "web1.example.com", "openstack: hostname")
    check(md.get("name") == "web1", "openstack: name")
    keys = md.get("public_keys", {})
    check(sorted(keys.values()) == sorted([KEY_ALICE, KEY_RSA]),
          "openstack: public_keys %r" % keys)
    check(keys.get("alice@example.com") == KEY_ALICE, "openstack: a key named by its comment")
    ud = found.get("userdata")
    if isinstance(ud, bytes):
        ud = ud.decode()
    check(ud == USER_DATA, "openstack: user data %r" % ud)
    net = found.get("networkdata") or {}
    links = net.get("links", [])
    check([link.get("ethernet_mac_address") for link in links] == list(GUEST_NICS),
          "openstack: network links %r" % links)
    nets = net.get("networks", [])
    check(len(nets) == 3 and nets[0].get("ip_address") == "192.0.2.10"
          and nets[0].get("netmask") == "255.255.255.0" and nets[0].get("type") == "ipv4"
          and nets[1].get("type") == "ipv4_dhcp" and nets[2].get("ip_address") == "169.254.3.4",
          "openstack: networks %r" % nets)
    check(found.get("vendordata") == {}, "openstack: vendor data")
    check(found.get("vendordata2") == {}, "openstack: vendor data 2")
    check(found.get("version") == 2, "openstack: version 2")
    check(reader._find_working_version() == "2018-08-27",
          "openstack: the newest version cloud-init knows, from /openstack")
    seed = md.get("random_seed")
    check(isinstance(seed, bytes) and len(seed) == 512, "openstack: a 512-byte random seed")
    check(md.get("availability_zone") == "rack1", "openstack: availability zone")

    # EC2, at every version metad serves
    for version in ("latest", "2021-03-23", "2018-09-24", "2016-09-02", "2009-04-04"):
        meta = ec2_helpers.get_instance_metadata(version, metadata_address=base, timeout=5,
                                                 retries=0)
        check(meta.get("instance-id") == UUID, "ec2 %s: instance-id %r"
              % (version, meta.get("instance-id")))
        check(meta.get("hostname") == "web1.example.com", "ec2 %s: hostname" % version)
        check(meta.get("local-hostname") == "web1.example.com",
              "ec2 %s: local-hostname" % version)
        check(meta.get("local-ipv4") == "192.0.2.10", "ec2 %s: local-ipv4" % version)
        pk = meta.get("public-keys", {})
        # the materializer names keys by the listing ("0=alice@example.com")
        flat = sorted(v["openssh-key"] if isinstance(v, dict) else v for v in pk.values())
        check(flat == sorted([KEY_ALICE, KEY_RSA]), "ec2 %s: public keys %r" % (version, pk))
        ud = ec2_helpers.get_instance_userdata(version, metadata_address=base, timeout=5,
                                               retries=0)
        if isinstance(ud, bytes):
            ud = ud.decode()
        check(ud == USER_DATA, "ec2 %s: user data %r" % (version, ud))
        check(meta.get("placement", {}).get("availability-zone") == "rack1",
              "ec2 %s: placement" % version)
        check(sorted(meta.get("network", {}).get("interfaces", {}).get("macs", {}))
              == sorted(GUEST_NICS), "ec2 %s: network macs" % version)


def datasource(cls, name, base, root):
    """A datasource of cloud-init as a guest would build it, reading @base."""
    paths = helpers.Paths({"cloud_dir": os.path.join(root, "cloud"),
                           "run_dir": os.path.join(root, "run")})
    sys_cfg = {"datasource_list": [name],
               "datasource": {name: {"metadata_urls": [base], "max_wait": 10, "timeout": 5,
                                     "retries": 0, "strict_id": "false"}}}
    distro = distros.fetch("debian")("debian", {}, paths)
    return cls(sys_cfg, distro, paths)


def run_datasources(base, root):
    # what Gantry's kvm instances carry in their SMBIOS tables
    dmi = {"chassis-asset-tag": "OpenStack Compute", "system-product-name": "Gantry",
           "system-manufacturer": "Gantry"}
    with mock.patch("cloudinit.dmi.read_dmi_data", side_effect=dmi.get), \
            mock.patch("cloudinit.net.get_interfaces_by_mac", return_value=GUEST_NICS), \
            mock.patch("cloudinit.net.find_fallback_nic", return_value="eth0"), \
            mock.patch("cloudinit.util.is_x86", return_value=True):
        check(DataSourceOpenStack.detect_openstack(), "openstack: detected from the DMI data")
        ds = datasource(DataSourceOpenStack.DataSourceOpenStack, "OpenStack", base, root)
        check(ds.get_data(), "openstack: DataSourceOpenStack.get_data()")
        check(ds.metadata_address == base, "openstack: metadata address %r"
              % ds.metadata_address)
        check(ds.get_instance_id() == UUID, "openstack: instance id %r" % ds.get_instance_id())
        check(ds.get_hostname(fqdn=True).hostname == "web1.example.com",
              "openstack: fqdn %r" % (ds.get_hostname(fqdn=True),))
        check(sorted(ds.get_public_ssh_keys()) == sorted([KEY_ALICE, KEY_RSA]),
              "openstack: ssh keys %r" % ds.get_public_ssh_keys())
        ud = ds.userdata_raw.decode() if isinstance(ds.userdata_raw, bytes) else ds.userdata_raw
        check(ud == USER_DATA, "openstack: user data %r" % ud)
        check(ds.availability_zone == "rack1", "openstack: availability zone %r"
              % ds.availability_zone)
        check(ds.vendordata2_pure == {}, "openstack: vendor_data2.json")
        config = ds.network_config
        physical = [c for c in config.get("config", []) if c.get("type") == "physical"]
        check([p.get("name") for p in physical] == ["eth0", "eth1", "eth2"],
              "openstack: network config names %r" % physical)
        subnets = [p.get("subnets", [{}])[0] for p in physical]
        check([(s.get("type"), s.get("address")) for s in subnets]
              == [("static", "192.0.2.10"), ("dhcp4", None), ("static", "169.254.3.4")],
              "openstack: subnets %r" % subnets)

        ds = datasource(DataSourceEc2.DataSourceEc2, "Ec2", base, root)
        check(ds.get_data(), "ec2: DataSourceEc2.get_data()")
        check(ds._crawled_metadata.get("_metadata_api_version") == "2021-03-23",
              "ec2: the API version it prefers %r"
              % ds._crawled_metadata.get("_metadata_api_version"))
        check(ds.get_instance_id() == UUID, "ec2: instance id")
        check(ds.metadata.get("local-ipv4") == "192.0.2.10",
              "ec2: local-ipv4 is the instance's own %r" % ds.metadata.get("local-ipv4"))
        check(ds.get_hostname(fqdn=True).hostname == "web1.example.com", "ec2: fqdn")
        check(sorted(ds.get_public_ssh_keys()) == sorted([KEY_ALICE, KEY_RSA]),
              "ec2: ssh keys %r" % ds.get_public_ssh_keys())
        check(ds.availability_zone == "rack1", "ec2: availability zone %r"
              % ds.availability_zone)
        ud = ds.userdata_raw.decode() if isinstance(ds.userdata_raw, bytes) else ds.userdata_raw
        check(ud == USER_DATA, "ec2: user data")
        ethernets = (ds.network_config or {}).get("ethernets", {})
        check(sorted(ethernets) == ["eth0", "eth1", "eth2"]
              and all(e.get("dhcp4") for e in ethernets.values())
              and ethernets["eth2"]["match"]["macaddress"] == "52:54:00:00:00:03",
              "ec2: network config %r" % ethernets)


def main():
    if os.geteuid() != 0:
        print("1..0 # SKIP SO_BINDTODEVICE needs root (CAP_NET_RAW)")
        return 77
    root = tempfile.mkdtemp(prefix="gnt-ci-")
    metad = None
    try:
        log = open(os.path.join(root, "metad.log"), "w")
        metad = subprocess.Popen([METAD, "--root", root, "--foreground", "--print-socket"],
                                 stdout=subprocess.PIPE, stderr=log, text=True)
        control_socket = metad.stdout.readline().strip()
        if not control_socket:
            raise RuntimeError("gantry-metad did not start: see %s" % log.name)
        port = free_port()
        control(control_socket, "PUT", "/instances/web1", RECORD)
        control(control_socket, "PUT", "/instances/web1/channel",
                {"device": "lo", "address": "127.0.0.1", "port": port})
        run_checks("http://127.0.0.1:%d" % port)
        run_datasources("http://127.0.0.1:%d" % port, root)
    finally:
        if metad is not None:
            metad.terminate()
            metad.wait()
        shutil.rmtree(root, ignore_errors=True)
    print("1..%d" % checks)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
