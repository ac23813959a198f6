#!/usr/bin/env python3
"""Keeps pci.ids' header, every vendor line, and the device and subsystem lines of vendors that make
display controllers or the emulated adapters we must recognise. The class section is dropped."""
import sys

DISPLAY_VENDORS = {
    "10de",  # NVIDIA
    "1002",  # AMD / ATI
    "8086",  # Intel
    "1a03",  # ASPEED (BMC graphics)
    "1013",  # Cirrus Logic (emulated VGA)
    "1234",  # QEMU / Bochs stdvga
    "1af4",  # virtio
    "1b36",  # Red Hat QXL
    "15ad",  # VMware SVGA
    "80ee",  # VirtualBox
    "1414",  # Microsoft Hyper-V
    "102b",  # Matrox (server BMC graphics)
    "19e5",  # Huawei (iBMC graphics, Ascend)
    "1ed5",  # Moore Threads
    "1d17",  # Zhaoxin
    "5143",  # Qualcomm
    "1eb1",  # VeriSilicon
    "1e3e",  # Iluvatar CoreX
    "1db7",  # Innosilicon
    "126f",  # Silicon Motion
    "18ca",  # XGI
    "1039",  # SiS
}

keep_block = False
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    if line.startswith("C "):
        break
    if line.startswith("#") or not line.strip():
        if line.startswith("#") and not keep_block:
            sys.stdout.write(line)
        continue
    if not line.startswith("\t"):
        vendor = line[:4].lower()
        keep_block = vendor in DISPLAY_VENDORS
        sys.stdout.write(line)
    elif keep_block:
        sys.stdout.write(line)
