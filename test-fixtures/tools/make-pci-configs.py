#!/usr/bin/env python3
"""Writes the PCI config spaces (and the sysfs attribute files that repeat their ids) of the hand-made NVIDIA
sysfs cases, built field by field so that a reader sees what each byte means. Run from anywhere:

    python3 test-fixtures/tools/make-pci-configs.py          # (re)write the files
    python3 test-fixtures/tools/make-pci-configs.py --check  # exit 1 if a committed file differs

Every value here is made up for these cases (ids chosen from real products so that pci.ids names them;
BARs, subsystem ids, the vendor-specific records and the host driver are invented). The layout is the PCI
Local Bus Specification 3.0's type 0 header (6.1) and capability list (6.7: status bit 4 at 0x06, first
pointer at 0x34, each capability id, next, body), with NVIDIA's vGPU record in the first vendor-specific
capability (id 0x09) the way GPU Feature Discovery reads it (probes' NvidiaVgpuCapability): byte 2 the
capability's length, bytes 3-4 'V' 'F', then records of (id, length, data) from byte 5; record id 0 holds the
host driver's version and branch, 10 NUL-padded bytes each.
"""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
CASES = ROOT / 'test-fixtures' / 'cases'
FUNCTION = 'sys/devices/pci0000:00/0000:00:05.0'

# Capability ids (PCI Code and ID Assignment Specification).
CAP_POWER_MANAGEMENT = 0x01
CAP_MSI = 0x05
CAP_VENDOR_SPECIFIC = 0x09
CAP_PCI_EXPRESS = 0x10

STATUS_CAPABILITY_LIST = 0x0010
COMMAND_MEMORY_SPACE = 0x0002
COMMAND_BUS_MASTER = 0x0004
BAR_MEMORY_64BIT_PREFETCHABLE = 0x0c


class Config:
    """256 bytes of config space, little-endian fields written by offset."""

    def __init__(self):
        self.bytes = bytearray(256)

    def u8(self, offset, value):
        self.bytes[offset] = value

    def u16(self, offset, value):
        self.bytes[offset:offset + 2] = value.to_bytes(2, 'little')

    def u32(self, offset, value):
        self.bytes[offset:offset + 4] = value.to_bytes(4, 'little')

    def raw(self, offset, data):
        self.bytes[offset:offset + len(data)] = data


def header(c, vendor, device, revision, class_code, subsystem_vendor, subsystem_device, first_capability):
    """The type 0 header (PCI 3.0, 6.1) of a GPU's function 0."""
    c.u16(0x00, vendor)
    c.u16(0x02, device)
    c.u16(0x04, COMMAND_MEMORY_SPACE | COMMAND_BUS_MASTER)
    c.u16(0x06, STATUS_CAPABILITY_LIST)           # bit 4: there is a capability list at 0x34
    c.u8(0x08, revision)
    c.u8(0x09, class_code & 0xff)                 # programming interface
    c.u8(0x0a, (class_code >> 8) & 0xff)          # subclass
    c.u8(0x0b, class_code >> 16)                  # base class
    c.u8(0x0e, 0x00)                              # header type 0, single function
    c.u32(0x10, 0xfa000000)                       # BAR0: 32-bit registers (invented address)
    c.u32(0x14, 0xc0000000 | BAR_MEMORY_64BIT_PREFETCHABLE)  # BAR1/2: 64-bit prefetchable framebuffer window
    c.u32(0x18, 0x00000000)
    c.u32(0x1c, 0xd0000000 | BAR_MEMORY_64BIT_PREFETCHABLE)  # BAR3/4: 64-bit prefetchable
    c.u32(0x20, 0x00000000)
    c.u16(0x2c, subsystem_vendor)
    c.u16(0x2e, subsystem_device)
    c.u8(0x34, first_capability)                  # capabilities pointer
    c.u8(0x3c, 0x0a)                              # interrupt line
    c.u8(0x3d, 0x01)                              # interrupt pin INTA#


def power_management(c, at, next_):
    c.u8(at, CAP_POWER_MANAGEMENT)
    c.u8(at + 1, next_)
    c.u16(at + 2, 0x0003)                         # PMC: version 3
    c.u16(at + 4, 0x0000)                         # PMCSR: D0


def msi(c, at, next_):
    c.u8(at, CAP_MSI)
    c.u8(at + 1, next_)
    c.u16(at + 2, 0x0080)                         # message control: 64-bit address capable, disabled


def pci_express(c, at, next_):
    c.u8(at, CAP_PCI_EXPRESS)
    c.u8(at + 1, next_)
    c.u16(at + 2, 0x0002)                         # capability version 2, device/port type 0: endpoint


def vendor_specific(c, at, next_, signature, records):
    """Id 0x09, next, length (of the whole capability), two signature bytes, then the records."""
    body = bytes(signature) + records
    c.u8(at, CAP_VENDOR_SPECIFIC)
    c.u8(at + 1, next_)
    c.u8(at + 2, 3 + len(body))
    c.raw(at + 3, body)


def record(record_id, data):
    """One record of the vGPU capability: id, length (of the whole record), data."""
    return bytes([record_id, 2 + len(data)]) + data


def driver_record(version, branch):
    """Record 0: the host driver's version and branch, each NUL-padded to 10 bytes."""
    return record(0x00, version.encode('ascii').ljust(10, b'\0') + branch.encode('ascii').ljust(10, b'\0'))


# An NVIDIA A10 (10de:2236) vGPU seen by a guest: the vendor-specific capability carries 'VF', an invented
# record 0x01 (skipped by its length) and then record 0 naming host driver 535.104.06, branch r535_00.
VGPU = dict(vendor=0x10de, device=0x2236, revision=0xa1, class_code=0x030000,
            subsystem_vendor=0x10de, subsystem_device=0x1a31)


def with_capabilities(ids):
    """A GPU's header and its usual capability chain, power management -> MSI -> PCIe, ending at 0xc8."""
    c = Config()
    header(c, **ids, first_capability=0x60)
    power_management(c, 0x60, 0x68)
    msi(c, 0x68, 0x78)
    pci_express(c, 0x78, 0xc8)
    return c


def vgpu_guest():
    c = with_capabilities(VGPU)
    vendor_specific(c, 0xc8, 0x00, b'VF',
                    record(0x01, b'\x02\x00') + driver_record('535.104.06', 'r535_00'))
    return bytes(c.bytes)


# An NVIDIA A10G (10de:2237) passed through whole: its vendor-specific capability starts with two invented
# bytes, not the 'VF' signature, so it is no vGPU.
PASSTHROUGH = dict(vendor=0x10de, device=0x2237, revision=0xa1, class_code=0x030000,
                   subsystem_vendor=0x10de, subsystem_device=0x1b07)


def passthrough_gpu():
    c = with_capabilities(PASSTHROUGH)
    vendor_specific(c, 0xc8, 0x00, b'\x02\x00', bytes(11))
    return bytes(c.bytes)


def attributes(ids):
    """The files sysfs derives from the header: the same ids, as the kernel prints them."""
    return {
        'vendor': '0x%04x\n' % ids['vendor'],
        'device': '0x%04x\n' % ids['device'],
        'subsystem_vendor': '0x%04x\n' % ids['subsystem_vendor'],
        'subsystem_device': '0x%04x\n' % ids['subsystem_device'],
        'revision': '0x%02x\n' % ids['revision'],
        'class': '0x%06x\n' % ids['class_code'],
    }


def files():
    """Case file path -> bytes."""
    out = {}
    cases = [
        ('sysfs_nvidia-vgpu-guest', VGPU, vgpu_guest()),
        ('sysfs_nvidia-passthrough-gpu', PASSTHROUGH, passthrough_gpu()),
        # What a user without CAP_SYS_ADMIN reads of the vGPU guest's config: its first 64 bytes
        # (pci_read_config in the kernel's drivers/pci/pci-sysfs.c), the header only.
        ('sysfs_nvidia-config-readable-to-root-only', VGPU, vgpu_guest()[:64]),
    ]
    for case, ids, config in cases:
        folder = CASES / case / FUNCTION
        out[folder / 'config'] = config
        for name, text in attributes(ids).items():
            out[folder / name] = text.encode('ascii')
    return out


def main():
    check = '--check' in sys.argv[1:]
    differ = []
    for path, data in files().items():
        if check:
            if not path.is_file() or path.read_bytes() != data:
                differ.append(path)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    for path in differ:
        print('differs from make-pci-configs.py:', path.relative_to(ROOT), file=sys.stderr)
    return 1 if differ else 0


if __name__ == '__main__':
    sys.exit(main())
