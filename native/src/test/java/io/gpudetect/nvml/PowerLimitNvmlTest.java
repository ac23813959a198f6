package io.gpudetect.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The power cap in force ({@code nvmlDeviceGetEnforcedPowerLimit}), its range
 * ({@code nvmlDeviceGetPowerManagementLimitConstraints}), its default ({@code nvmlDeviceGetPowerManagementDefaultLimit})
 * and the VBIOS version through the bindings, against the compiled stand-in library.
 */
class PowerLimitNvmlTest {

    @TempDir
    Path dir;

    private NvmlSnapshot snapshot(String scenario) throws IOException {
        return new JnaNvmlScope(Optional.of(FakeNvml.driverRoot(dir, "current", scenario)),
                JnaNvmlScope.Session.PER_SNAPSHOT).snapshot();
    }

    @Test
    void readsTheCapItsRangeAndDefaultInMilliwatts() throws Exception {
        NvmlSnapshot.Device rtx4090 = snapshot("mixed").devices().get(1);

        assertEquals(450000L, rtx4090.enforcedPowerLimitMilliwatts().get());
        assertEquals("nvmlDeviceGetEnforcedPowerLimit", rtx4090.enforcedPowerLimitMilliwatts().function());
        assertEquals(new NvmlSnapshot.PowerRange(150000L, 600000L), rtx4090.powerLimitConstraints().get());
        assertEquals(450000L, rtx4090.defaultPowerLimitMilliwatts().get());
    }

    @Test
    void aGpuWithoutPowerManagementAnswersNotSupported() throws Exception {
        NvmlSnapshot.Device gb10 = snapshot("gb10").devices().get(0);

        assertEquals(NvmlReturn.ERROR_NOT_SUPPORTED, gb10.powerLimitConstraints().returnCode());
        assertNull(gb10.powerLimitConstraints().value());
        assertEquals(NvmlReturn.ERROR_NOT_SUPPORTED, gb10.enforcedPowerLimitMilliwatts().returnCode());
        assertEquals(NvmlReturn.ERROR_NOT_SUPPORTED, gb10.memory().returnCode(), "GB10 has no memory of its own");
    }

    @Test
    void readsTheVbiosVersion() throws Exception {
        NvmlSnapshot.Device h100 = snapshot("h100").devices().get(0);

        assertEquals("96.00.99.00.01", h100.vbiosVersion().get());
        assertEquals("nvmlDeviceGetVbiosVersion", h100.vbiosVersion().function());
    }
}
