package io.gpudetect.probe.pci;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.gpudetect.model.Vgpu;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Config spaces laid out as the PCI Local Bus Specification 3.0 section 6.7 lays out capabilities (status bit 4,
 * pointer at 0x34, id / next / length), with NVIDIA's vGPU record as GFD's {@code internal/vgpu/vgpu.go} reads it.
 * The whole-file cases, written field by field by {@code test-fixtures/tools/make-pci-configs.py}, are
 * {@code test-fixtures/cases/sysfs_nvidia-vgpu-guest} and {@code sysfs_nvidia-passthrough-gpu}.
 */
class NvidiaVgpuCapabilityTest {

    /** A 3D controller with a capability list: power management at 0x60, then what the test puts at 0x68. */
    private static byte[] config() {
        byte[] c = new byte[256];
        c[0] = (byte) 0xde;
        c[1] = 0x10;
        c[0x06] = 0x10;
        c[0x34] = 0x60;
        c[0x60] = 0x01;
        c[0x61] = 0x68;
        return c;
    }

    /** A vendor-specific capability at {@code pos}: id 9, next, length, signature, then {@code records}. */
    private static void vendorCapability(byte[] c, int pos, int next, String signature, byte... records) {
        c[pos] = 0x09;
        c[pos + 1] = (byte) next;
        c[pos + 2] = (byte) (5 + records.length);
        c[pos + 3] = (byte) signature.charAt(0);
        c[pos + 4] = (byte) signature.charAt(1);
        System.arraycopy(records, 0, c, pos + 5, records.length);
    }

    /** Record 0: id, length 22, then version and branch NUL-padded to 10 bytes each. */
    private static byte[] driverRecord(String version, String branch) {
        byte[] r = new byte[22];
        r[1] = 22;
        byte[] v = version.getBytes(StandardCharsets.ISO_8859_1);
        byte[] b = branch.getBytes(StandardCharsets.ISO_8859_1);
        System.arraycopy(v, 0, r, 2, v.length);
        System.arraycopy(b, 0, r, 12, b.length);
        return r;
    }

    @Test
    void aVgpuNamesItsHostDriver() {
        byte[] c = config();
        vendorCapability(c, 0x68, 0, "VF", driverRecord("550.54.16", "r550_40"));
        assertEquals(new Vgpu(true, "550.54.16", "r550_40"), NvidiaVgpuCapability.read(c));
    }

    @Test
    void recordsBeforeTheDriverRecordAreSkippedByTheirLength() {
        byte[] c = config();
        byte[] other = {0x07, 0x04, 0x11, 0x22};
        byte[] driver = driverRecord("470.82", "r470_00");
        byte[] records = new byte[other.length + driver.length];
        System.arraycopy(other, 0, records, 0, other.length);
        System.arraycopy(driver, 0, records, other.length, driver.length);
        vendorCapability(c, 0x68, 0, "VF", records);
        assertEquals(new Vgpu(true, "470.82", "r470_00"), NvidiaVgpuCapability.read(c));
    }

    @Test
    void onlyTheFirstVendorSpecificCapabilityCounts() {
        byte[] c = config();
        vendorCapability(c, 0x68, 0x90, "NV");
        vendorCapability(c, 0x90, 0, "VF", driverRecord("550.54.16", "r550_40"));
        assertEquals(Vgpu.NONE, NvidiaVgpuCapability.read(c), "GFD stops at the first id 9");
    }

    @Test
    void withoutTheSignatureOrTheListItIsNoVgpu() {
        byte[] c = config();
        vendorCapability(c, 0x68, 0, "GR", driverRecord("550.54.16", "r550_40"));
        assertEquals(Vgpu.NONE, NvidiaVgpuCapability.read(c));
        byte[] noList = config();
        vendorCapability(noList, 0x68, 0, "VF", driverRecord("550.54.16", "r550_40"));
        noList[0x06] = 0;
        assertEquals(Vgpu.NONE, NvidiaVgpuCapability.read(noList), "status says there is no capability list");
    }

    @Test
    void brokenAndLoopingListsEnd() {
        byte[] loop = config();
        loop[0x61] = 0x60;
        assertEquals(Vgpu.NONE, NvidiaVgpuCapability.read(loop));
        byte[] broken = config();
        broken[0x68] = (byte) 0xff;
        broken[0x69] = 0x70;
        vendorCapability(broken, 0x70, 0, "VF", driverRecord("550.54.16", "r550_40"));
        assertEquals(Vgpu.NONE, NvidiaVgpuCapability.read(broken), "id 0xff ends the list");
        byte[] pastTheEnd = config();
        pastTheEnd[0x61] = (byte) 0xf8;
        vendorCapability(pastTheEnd, 0xf8, 0, "VF");
        pastTheEnd[0xfa] = 40;
        assertEquals(Vgpu.NONE, NvidiaVgpuCapability.read(pastTheEnd));
    }

    @Test
    void aVgpuWithoutAReadableDriverRecordIsStillAVgpu() {
        byte[] zeroLength = config();
        vendorCapability(zeroLength, 0x68, 0, "VF", (byte) 0x03, (byte) 0x00, (byte) 0x00);
        assertEquals(new Vgpu(true, null, null), NvidiaVgpuCapability.read(zeroLength));
        byte[] short_ = config();
        vendorCapability(short_, 0x68, 0, "VF", (byte) 0x00, (byte) 0x16, (byte) '5');
        assertEquals(new Vgpu(true, null, null), NvidiaVgpuCapability.read(short_));
    }

    @Test
    void theFirst64BytesAloneSayNothing() {
        byte[] c = config();
        vendorCapability(c, 0x68, 0, "VF", driverRecord("550.54.16", "r550_40"));
        assertNull(NvidiaVgpuCapability.read(java.util.Arrays.copyOf(c, 64)));
        assertNull(NvidiaVgpuCapability.read(new byte[0]));
    }
}
