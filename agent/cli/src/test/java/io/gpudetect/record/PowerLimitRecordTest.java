package io.gpudetect.record;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpudetect.model.PowerLimits;
import io.gpudetect.testing.CommandRun;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The power cap in force, its range and its default per GPU in the capacity record. */
class PowerLimitRecordTest {

    @TempDir
    Path dir;

    @Test
    void theH100sCapIs700WattsIn200To700DefaultSevenHundred() throws Exception {
        // nvidia-smi.xml, gpu_power_readings: current_power_limit 700.00 W, default 700.00 W, min 200.00 W, max 700.00 W.
        GpuCapacitySpec.GpuEntry h100 = BundleRecords.gpu(BundleRecords.spec(BundleRecords.h100()), "0000:00:06.0");
        assertEquals(700.0, h100.powerLimitWatts());
        assertEquals(new PowerLimits(200.0, 700.0, 700.0), h100.powerLimits());
    }

    @Test
    void aHandWrittenRecordWithAPowerLimitThatIsNoNumberIsRefusedWithItsPlace() throws Exception {
        Path records = BundleRecords.file(dir, "records.yaml", """
                - metadata: {name: n1}
                  spec:
                    gpus:
                    - vendor: nvidia
                      model: h100
                      powerLimits: {minWatts: 200, maxWatts: lots}
                """);

        CommandRun r = CommandRun.of("match", "--records", records.toString(), "--gpu", "vendor=nvidia");

        assertEquals(2, r.exit(), r.err());
        assertEquals("gpu-detect match: " + records + ":6: [0](n1).gpus[0].powerLimits: maxWatts: expected a number "
                + "of watts, found a mapping", r.err().strip());
    }
}
