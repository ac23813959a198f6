package io.gpudetect.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The NVLink and fabric calls through the bindings, against the stand-in library's NVLink topologies. */
class NvLinkNvmlTest {

    @TempDir
    Path dir;

    private NvmlSnapshot snapshot(String variant, String scenario) throws Exception {
        return new JnaNvmlScope(Optional.of(FakeNvml.driverRoot(dir.resolve(variant + "-" + scenario), variant, scenario)),
                JnaNvmlScope.Session.PER_SNAPSHOT).snapshot();
    }

    private static long active(NvmlSnapshot.Device d) {
        return d.nvLinks().stream().filter(l -> l.active().ok() && l.active().value()).count();
    }

    @Test
    void eightH100EachHave18LinksToTheSwitchesAndP2pToEveryOther() throws Exception {
        NvmlSnapshot s = snapshot("current", "8xh100-nvswitch");
        assertEquals(8, s.devices().size());
        for (NvmlSnapshot.Device d : s.devices()) {
            assertEquals(18, active(d));
            assertEquals(18, d.nvLinks().size(), "all 18 links asked, and no 19th: the loop stops at NVML's maximum");
            NvmlSnapshot.NvLink first = d.nvLinks().get(0);
            assertEquals(2L, first.remoteType().get(), "NVML_NVLINK_DEVICE_TYPE_SWITCH");
            assertEquals(6L, first.version().get(), "NVML_NVLINK_VERSION_4_0");
            assertNull(first.remotePci(), "a switch's address is not asked: it names no GPU of the node");
            assertNull(d.nvLinks().get(1).version(), "the version is asked of the first active link only");
            assertEquals(NvmlReturn.ERROR_NOT_SUPPORTED, d.fabric().returnCode(), "no multi-node fabric on an HGX H100");
            assertEquals(7 - d.index(), d.nvlinkPeers().size(), "one P2P call a pair, from the lower index");
            for (NvmlSnapshot.Peer p : d.nvlinkPeers()) {
                assertEquals(0L, p.status().get(), "NVML_P2P_STATUS_OK through the switches");
            }
        }
    }

    @Test
    void aLinkDownIsInactiveAndAskedNoFurther() throws Exception {
        NvmlSnapshot.Device d = snapshot("current", "8xh100-link-down").devices().get(3);
        assertEquals(17, active(d));
        NvmlSnapshot.NvLink down = d.nvLinks().get(7);
        assertFalse(down.active().value());
        assertNull(down.version());
        assertNull(down.remotePci());
    }

    @Test
    void bridgedCardsNameEachOtherAsTheFarEnd() throws Exception {
        NvmlSnapshot s = snapshot("current", "2xa6000-bridge");
        NvmlSnapshot.Device a = s.devices().get(0);
        assertEquals(4, active(a));
        assertEquals(5, a.nvLinks().size(), "four links and the call past the last, which ends the list");
        assertEquals(NvmlReturn.name(2), a.nvLinks().get(4).active().status(), "Invalid Argument past the last link");
        assertEquals(0L, a.nvLinks().get(0).remoteType().get(), "NVML_NVLINK_DEVICE_TYPE_GPU");
        assertEquals(0x52, a.nvLinks().get(0).remotePci().get().bus());
        assertEquals("nvmlDeviceGetNvLinkRemotePciInfo_v2", a.nvLinks().get(0).remotePci().function());
        assertEquals(List.of(1), a.nvlinkPeers().stream().map(NvmlSnapshot.Peer::peer).toList());
    }

    @Test
    void aGpuWithoutNvlinkAnswersNotSupportedAtItsFirstLinkAndGetsNoP2pCalls() throws Exception {
        NvmlSnapshot s = snapshot("current", "mixed");
        for (NvmlSnapshot.Device d : s.devices()) {
            assertEquals(1, d.nvLinks().size());
            assertEquals(NvmlReturn.ERROR_NOT_SUPPORTED, d.nvLinks().get(0).active().returnCode());
            assertEquals(null, d.nvlinkPeers(), "no P2P call for a GPU without an active link");
        }
    }

    @Test
    void gb200ReportsItsClusterAndClique() throws Exception {
        NvmlSnapshot.Device d = snapshot("current", "4xgb200-nvl72").devices().get(0);
        NvmlSnapshot.Fabric f = d.fabric().get();
        assertEquals("nvmlDeviceGetGpuFabricInfoV", d.fabric().function());
        assertEquals("9277d399-0674-44a9-b64e-d85bb19ce2b0", f.clusterUuid());
        assertEquals(32766L, f.cliqueId());
        assertEquals(3, f.state(), "NVML_GPU_FABRIC_STATE_COMPLETED");
        assertEquals(0, f.status());
        assertEquals(7L, d.nvLinks().get(0).version().get(), "NVML_NVLINK_VERSION_5_0");
    }

    @Test
    void aHeldSessionsPulsesAskNoNvlink() throws Exception {
        Path root = FakeNvml.driverRoot(dir.resolve("held"), "current", "8xh100-nvswitch");
        JnaNvmlScope scope = new JnaNvmlScope(Optional.of(root), JnaNvmlScope.Session.HELD);
        int before = nvLinkCalls(root);
        scope.snapshot();
        int afterSnapshot = nvLinkCalls(root);
        for (int pass = 0; pass < 3; pass++) {
            scope.pulse();
        }
        assertEquals(8 * (18 + 18 + 1), afterSnapshot - before,
                "a full detection asks each GPU's 18 states and far ends, and one version");
        assertEquals(afterSnapshot, nvLinkCalls(root), "the steady passes' pulses ask none");
    }

    @Test
    void pulsesWithoutAHeldSessionAskNoNvlinkEither() throws Exception {
        Path root = FakeNvml.driverRoot(dir.resolve("released"), "current", "8xh100-nvswitch");
        JnaNvmlScope scope = new JnaNvmlScope(Optional.of(root), JnaNvmlScope.Session.PER_SNAPSHOT);
        scope.snapshot();
        int afterSnapshot = nvLinkCalls(root);
        NvmlPulse pulse = scope.pulse();
        assertEquals(afterSnapshot, nvLinkCalls(root), "--release-nvml: a steady pass's snapshot leaves NVLink out");
        assertEquals(8, pulse.devices().size());
    }

    private static int nvLinkCalls(Path driverRoot) {
        return com.sun.jna.NativeLibrary.getInstance(driverRoot.resolve("usr/lib64/libnvidia-ml.so.1").toString())
                .getFunction("fakeNvmlNvLinkCalls").invokeInt(new Object[0]);
    }

    @Test
    void anOldDriverWithoutTheNewerSymbolsRecordsThemAsMissing() throws Exception {
        NvmlSnapshot.Device d = snapshot("old", "mixed").devices().get(0);
        assertEquals(NvmlReturn.ERROR_FUNCTION_NOT_FOUND, d.fabric().returnCode());
        assertTrue(d.fabric().function().contains("nvmlDeviceGetGpuFabricInfoV"));
    }
}
