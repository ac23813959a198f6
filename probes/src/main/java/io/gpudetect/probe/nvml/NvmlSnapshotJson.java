package io.gpudetect.probe.nvml;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.gpudetect.nvml.NvmlSnapshot;

/**
 * {@code nvml.json}, the bundle file that holds an {@link NvmlSnapshot}: the snapshot's records as JSON,
 * null members left out. Format 1:
 * <pre>
 * { "format": 1, "library": "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1",   (or "unavailable": "why")
 *   "init":        { "function": "nvmlInit_v2", "returnCode": 0, "status": "NVML_SUCCESS" },
 *   "driverVersion": { ..., "value": "550.54.15" },  "cudaDriverVersion": { ..., "value": 12040 },
 *   "nvmlVersion", "deviceCount", "shutdown": calls likewise,
 *   "devices": [ { "index": 0, "handle": {call}, "name", "uuid", "serial", "boardPartNumber",
 *                  "pci": {call, "value": {"busId", "domain", "bus", "device", "pciDeviceId", "pciSubSystemId"}},
 *                  "memory": {call, "value": {"total", "reserved"}} (bytes), "computeCapability": {"major","minor"},
 *                  "architecture" / "brand" (nvml.h enum values), "powerLimitMilliwatts",
 *                  "eccMode" / "migMode": {"current","pending"}, "eccUncorrectedAggregate", "maxMigDevices",
 *                  "migDevices": [ { "index", "handle", "name", "uuid", "gpuInstanceId", "computeInstanceId",
 *                                    "memory", "multiprocessors" } ],
 *                  "enforcedPowerLimitMilliwatts", "defaultPowerLimitMilliwatts",
 *                  "powerLimitConstraints": {call, "value": {"minMilliwatts", "maxMilliwatts"}}, "vbiosVersion",
 *                  "maxPcieLinkGeneration", "currentPcieLinkGeneration", "maxPcieLinkWidth", "currentPcieLinkWidth"
 *                  (absent from snapshots recorded before they were asked) } ] }
 * </pre>
 * Every call is {@code {function, returnCode, status, error?, value?}}: the symbol that answered, NVML's
 * return code and its name, {@code nvmlErrorString} on failure. Unknown members are ignored, so a newer
 * writer's additions do not break an older reader.
 */
public final class NvmlSnapshotJson {

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .setSerializationInclusion(JsonInclude.Include.NON_NULL)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(SerializationFeature.INDENT_OUTPUT);
    private static final ObjectReader READER = MAPPER.readerFor(NvmlSnapshot.class);
    private static final ObjectWriter WRITER = MAPPER.writerFor(NvmlSnapshot.class);

    private NvmlSnapshotJson() {
    }

    public static NvmlSnapshot read(String json) throws JsonProcessingException {
        return READER.readValue(json);
    }

    public static String write(NvmlSnapshot snapshot) {
        try {
            return WRITER.writeValueAsString(snapshot) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an NVML snapshot could not be written as JSON", e);
        }
    }
}
