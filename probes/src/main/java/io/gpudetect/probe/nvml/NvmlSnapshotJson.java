package io.gpudetect.probe.nvml;

import static io.gpudetect.source.JsonMembers.array;
import static io.gpudetect.source.JsonMembers.bool;
import static io.gpudetect.source.JsonMembers.integer;
import static io.gpudetect.source.JsonMembers.nextMember;
import static io.gpudetect.source.JsonMembers.object;
import static io.gpudetect.source.JsonMembers.skip;
import static io.gpudetect.source.JsonMembers.text;
import static io.gpudetect.source.JsonMembers.whole;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.gpudetect.nvml.NvmlCall;
import io.gpudetect.nvml.NvmlSnapshot;
import io.gpudetect.source.JsonMembers;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

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
 *                  (absent from snapshots recorded before they were asked),
 *                  "nvLinks": [ { "link", "active": {call, "value": true}, "version", "remotePci": {call, pci},
 *                                 "remoteType" } ], "fabric": {call, "value": {"clusterUuid", "cliqueId", "state",
 *                  "status"}}, "nvlinkPeers": [ { "peer", "status": {call} } ] (absent before issue 40),
 *                  "eccUncorrectedVolatile", "retiredPagesPending" (nvmlEnableState_t),
 *                  "remappedRows": {call, "value": {"corrected", "uncorrected", "pending", "failure"}},
 *                  "clocksEventReasons" (the nvmlClocksEventReason bits)
 *                  (absent from snapshots recorded before issue 38) } ] }
 * </pre>
 * Every call is {@code {function, returnCode, status, error?, value?}}: the symbol that answered, NVML's
 * return code and its name, {@code nvmlErrorString} on failure. Unknown members are ignored, so a newer
 * writer's additions do not break an older reader. Read member by member over jackson-core ({@link JsonMembers}:
 * a replay reads this file at every start); written by databind, which only {@code record} loads.
 */
public final class NvmlSnapshotJson {

    private NvmlSnapshotJson() {
    }

    /** The snapshot in {@code json}; a document that is not one fails with the line and what was expected there. */
    public static NvmlSnapshot read(String json) throws JsonProcessingException {
        try (JsonParser p = new JsonFactory().createParser(json)) {
            try {
                p.nextToken();
                if (!object(p, null)) {
                    throw JsonMembers.wrong(p, null, "an NVML snapshot (a JSON object)");
                }
                NvmlSnapshot snapshot = snapshot(p);
                JsonMembers.end(p);
                return snapshot;
            } catch (JsonProcessingException e) {
                // One line at a line of the file, a limit of jackson-core's (nesting) included.
                throw JsonMembers.plain(p, e);
            }
        } catch (JsonProcessingException e) {
            throw e;
        } catch (IOException e) {
            // A String source: jackson-core reports only malformed input, as JsonProcessingException above.
            throw new IllegalStateException("reading an NVML snapshot from memory", e);
        }
    }

    public static String write(NvmlSnapshot snapshot) {
        try {
            return Writer.WRITER.writeValueAsString(snapshot) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an NVML snapshot could not be written as JSON", e);
        }
    }

    /** Databind for writing only, built on the first write: a replay never loads it. */
    private static final class Writer {
        static final ObjectWriter WRITER = new ObjectMapper()
                .setSerializationInclusion(JsonInclude.Include.NON_NULL)
                .enable(SerializationFeature.INDENT_OUTPUT)
                .writerFor(NvmlSnapshot.class);
    }

    /** What an NVML call's {@code value} holds, by the call it answers. */
    private enum Value {
        NONE, STRING, INT, LONG, MODES, PCI, MEMORY, COMPUTE_CAPABILITY, POWER_RANGE, BOOL, FABRIC, REMAPPED_ROWS
    }

    private static NvmlSnapshot snapshot(JsonParser p) throws IOException {
        int format = 0;
        String library = null;
        String unavailable = null;
        NvmlCall<Void> init = null;
        NvmlCall<String> nvmlVersion = null;
        NvmlCall<String> driverVersion = null;
        NvmlCall<Integer> cuda = null;
        NvmlCall<Integer> count = null;
        List<NvmlSnapshot.Device> devices = new ArrayList<>();
        NvmlCall<Void> shutdown = null;
        for (String m = nextMember(p); m != null; m = nextMember(p)) {
            switch (m) {
                case "format" -> format = orZero(integer(p, m));
                case "library" -> library = text(p, m);
                case "unavailable" -> unavailable = text(p, m);
                case "init" -> init = call(p, m, Value.NONE);
                case "nvmlVersion" -> nvmlVersion = call(p, m, Value.STRING);
                case "driverVersion" -> driverVersion = call(p, m, Value.STRING);
                case "cudaDriverVersion" -> cuda = call(p, m, Value.INT);
                case "deviceCount" -> count = call(p, m, Value.INT);
                case "devices" -> {
                    if (array(p, m)) {
                        while (p.nextToken() != JsonToken.END_ARRAY) {
                            if (!object(p, "devices[]")) {
                                throw JsonMembers.wrong(p, "devices[]", "a device (a JSON object)");
                            }
                            devices.add(device(p));
                        }
                    }
                }
                case "shutdown" -> shutdown = call(p, m, Value.NONE);
                default -> skip(p);
            }
        }
        return new NvmlSnapshot(format, library, unavailable, init, nvmlVersion, driverVersion, cuda, count, devices,
                shutdown);
    }

    private static NvmlSnapshot.Device device(JsonParser p) throws IOException {
        int index = 0;
        NvmlCall<Void> handle = null;
        NvmlCall<String> name = null;
        NvmlCall<String> uuid = null;
        NvmlCall<String> serial = null;
        NvmlCall<String> part = null;
        NvmlCall<NvmlSnapshot.Pci> pci = null;
        NvmlCall<NvmlSnapshot.Memory> memory = null;
        NvmlCall<NvmlSnapshot.ComputeCapability> cc = null;
        NvmlCall<Long> architecture = null;
        NvmlCall<Long> brand = null;
        NvmlCall<Long> powerLimit = null;
        NvmlCall<NvmlSnapshot.Modes> ecc = null;
        NvmlCall<Long> eccErrors = null;
        NvmlCall<NvmlSnapshot.Modes> mig = null;
        NvmlCall<Integer> maxMig = null;
        List<NvmlSnapshot.MigDevice> migDevices = new ArrayList<>();
        NvmlCall<Long> enforcedPowerLimit = null;
        NvmlCall<NvmlSnapshot.PowerRange> powerRange = null;
        NvmlCall<Long> defaultPowerLimit = null;
        NvmlCall<String> vbios = null;
        NvmlCall<Long> maxGen = null;
        NvmlCall<Long> currentGen = null;
        NvmlCall<Long> maxWidth = null;
        NvmlCall<Long> currentWidth = null;
        List<NvmlSnapshot.NvLink> nvLinks = null;
        NvmlCall<NvmlSnapshot.Fabric> fabric = null;
        List<NvmlSnapshot.Peer> peers = null;
        NvmlCall<Long> eccVolatile = null;
        NvmlCall<Long> pagesPending = null;
        NvmlCall<NvmlSnapshot.RemappedRows> remapped = null;
        NvmlCall<Long> clocks = null;
        for (String m = nextMember(p); m != null; m = nextMember(p)) {
            switch (m) {
                case "index" -> index = orZero(integer(p, m));
                case "handle" -> handle = call(p, m, Value.NONE);
                case "name" -> name = call(p, m, Value.STRING);
                case "uuid" -> uuid = call(p, m, Value.STRING);
                case "serial" -> serial = call(p, m, Value.STRING);
                case "boardPartNumber" -> part = call(p, m, Value.STRING);
                case "pci" -> pci = call(p, m, Value.PCI);
                case "memory" -> memory = call(p, m, Value.MEMORY);
                case "computeCapability" -> cc = call(p, m, Value.COMPUTE_CAPABILITY);
                case "architecture" -> architecture = call(p, m, Value.LONG);
                case "brand" -> brand = call(p, m, Value.LONG);
                case "powerLimitMilliwatts" -> powerLimit = call(p, m, Value.LONG);
                case "eccMode" -> ecc = call(p, m, Value.MODES);
                case "eccUncorrectedAggregate" -> eccErrors = call(p, m, Value.LONG);
                case "migMode" -> mig = call(p, m, Value.MODES);
                case "maxMigDevices" -> maxMig = call(p, m, Value.INT);
                case "migDevices" -> {
                    if (array(p, m)) {
                        while (p.nextToken() != JsonToken.END_ARRAY) {
                            if (!object(p, "migDevices[]")) {
                                throw JsonMembers.wrong(p, "migDevices[]", "a MIG device (a JSON object)");
                            }
                            migDevices.add(migDevice(p));
                        }
                    }
                }
                case "enforcedPowerLimitMilliwatts" -> enforcedPowerLimit = call(p, m, Value.LONG);
                case "powerLimitConstraints" -> powerRange = call(p, m, Value.POWER_RANGE);
                case "defaultPowerLimitMilliwatts" -> defaultPowerLimit = call(p, m, Value.LONG);
                case "vbiosVersion" -> vbios = call(p, m, Value.STRING);
                case "maxPcieLinkGeneration" -> maxGen = call(p, m, Value.LONG);
                case "currentPcieLinkGeneration" -> currentGen = call(p, m, Value.LONG);
                case "maxPcieLinkWidth" -> maxWidth = call(p, m, Value.LONG);
                case "currentPcieLinkWidth" -> currentWidth = call(p, m, Value.LONG);
                case "nvLinks" -> {
                    if (array(p, m)) {
                        nvLinks = new ArrayList<>();
                        while (p.nextToken() != JsonToken.END_ARRAY) {
                            if (!object(p, "nvLinks[]")) {
                                throw JsonMembers.wrong(p, "nvLinks[]", "an NVLink (a JSON object)");
                            }
                            nvLinks.add(nvLink(p));
                        }
                    }
                }
                case "fabric" -> fabric = call(p, m, Value.FABRIC);
                case "nvlinkPeers" -> {
                    if (array(p, m)) {
                        peers = new ArrayList<>();
                        while (p.nextToken() != JsonToken.END_ARRAY) {
                            if (!object(p, "nvlinkPeers[]")) {
                                throw JsonMembers.wrong(p, "nvlinkPeers[]", "a peer (a JSON object)");
                            }
                            peers.add(peer(p));
                        }
                    }
                }
                case "eccUncorrectedVolatile" -> eccVolatile = call(p, m, Value.LONG);
                case "retiredPagesPending" -> pagesPending = call(p, m, Value.LONG);
                case "remappedRows" -> remapped = call(p, m, Value.REMAPPED_ROWS);
                case "clocksEventReasons" -> clocks = call(p, m, Value.LONG);
                default -> skip(p);
            }
        }
        return new NvmlSnapshot.Device(index, handle, name, uuid, serial, part, pci, memory, cc, architecture, brand,
                powerLimit, ecc, eccErrors, mig, maxMig, migDevices, enforcedPowerLimit, powerRange, defaultPowerLimit,
                vbios, maxGen, currentGen, maxWidth, currentWidth, nvLinks, fabric, peers, eccVolatile, pagesPending, remapped,
                clocks);
    }

    private static NvmlSnapshot.NvLink nvLink(JsonParser p) throws IOException {
        int link = 0;
        NvmlCall<Boolean> active = null;
        NvmlCall<Long> version = null;
        NvmlCall<NvmlSnapshot.Pci> remotePci = null;
        NvmlCall<Long> remoteType = null;
        for (String m = nextMember(p); m != null; m = nextMember(p)) {
            switch (m) {
                case "link" -> link = orZero(integer(p, m));
                case "active" -> active = call(p, m, Value.BOOL);
                case "version" -> version = call(p, m, Value.LONG);
                case "remotePci" -> remotePci = call(p, m, Value.PCI);
                case "remoteType" -> remoteType = call(p, m, Value.LONG);
                default -> skip(p);
            }
        }
        return new NvmlSnapshot.NvLink(link, active, version, remotePci, remoteType);
    }

    private static NvmlSnapshot.Peer peer(JsonParser p) throws IOException {
        int peer = 0;
        NvmlCall<Long> status = null;
        for (String m = nextMember(p); m != null; m = nextMember(p)) {
            switch (m) {
                case "peer" -> peer = orZero(integer(p, m));
                case "status" -> status = call(p, m, Value.LONG);
                default -> skip(p);
            }
        }
        return new NvmlSnapshot.Peer(peer, status);
    }

    private static NvmlSnapshot.Fabric fabric(JsonParser p, String member) throws IOException {
        String uuid = null;
        long clique = 0;
        int state = 0;
        int status = 0;
        for (String m = nextMember(p); m != null; m = nextMember(p)) {
            switch (m) {
                case "clusterUuid" -> uuid = text(p, member + ".clusterUuid");
                case "cliqueId" -> clique = orZero(whole(p, member + ".cliqueId"));
                case "state" -> state = orZero(integer(p, member + ".state"));
                case "status" -> status = orZero(integer(p, member + ".status"));
                default -> skip(p);
            }
        }
        return new NvmlSnapshot.Fabric(uuid, clique, state, status);
    }

    private static NvmlSnapshot.MigDevice migDevice(JsonParser p) throws IOException {
        int index = 0;
        NvmlCall<Void> handle = null;
        NvmlCall<String> name = null;
        NvmlCall<String> uuid = null;
        NvmlCall<Long> gpuInstance = null;
        NvmlCall<Long> computeInstance = null;
        NvmlCall<NvmlSnapshot.Memory> memory = null;
        NvmlCall<Long> multiprocessors = null;
        for (String m = nextMember(p); m != null; m = nextMember(p)) {
            switch (m) {
                case "index" -> index = orZero(integer(p, m));
                case "handle" -> handle = call(p, m, Value.NONE);
                case "name" -> name = call(p, m, Value.STRING);
                case "uuid" -> uuid = call(p, m, Value.STRING);
                case "gpuInstanceId" -> gpuInstance = call(p, m, Value.LONG);
                case "computeInstanceId" -> computeInstance = call(p, m, Value.LONG);
                case "memory" -> memory = call(p, m, Value.MEMORY);
                case "multiprocessors" -> multiprocessors = call(p, m, Value.LONG);
                default -> skip(p);
            }
        }
        return new NvmlSnapshot.MigDevice(index, handle, name, uuid, gpuInstance, computeInstance, memory, multiprocessors);
    }

    /**
     * One call, {@code {function, returnCode, status, error?, value?}}, its value read as {@code kind}; null for JSON's
     * null. The caller names the type the kind stands for.
     */
    @SuppressWarnings("unchecked")
    private static <T> NvmlCall<T> call(JsonParser p, String member, Value kind) throws IOException {
        if (!object(p, member)) {
            return null;
        }
        String function = null;
        int returnCode = 0;
        String status = null;
        String error = null;
        Object value = null;
        for (String m = nextMember(p); m != null; m = nextMember(p)) {
            switch (m) {
                case "function" -> function = text(p, member + ".function");
                case "returnCode" -> returnCode = orZero(integer(p, member + ".returnCode"));
                case "status" -> status = text(p, member + ".status");
                case "error" -> error = text(p, member + ".error");
                case "value" -> value = value(p, member + ".value", kind);
                default -> skip(p);
            }
        }
        return new NvmlCall<>(function, returnCode, status, error, (T) value);
    }

    private static Object value(JsonParser p, String member, Value kind) throws IOException {
        if (kind == Value.NONE) {
            skip(p);
            return null;
        }
        if (kind == Value.STRING) {
            return text(p, member);
        }
        if (kind == Value.INT) {
            return integer(p, member);
        }
        if (kind == Value.LONG) {
            return whole(p, member);
        }
        if (kind == Value.BOOL) {
            return bool(p, member);
        }
        if (!object(p, member)) {
            return null;
        }
        return switch (kind) {
            case MODES -> modes(p, member);
            case PCI -> pci(p, member);
            case MEMORY -> memory(p, member);
            case COMPUTE_CAPABILITY -> computeCapability(p, member);
            case FABRIC -> fabric(p, member);
            case REMAPPED_ROWS -> remappedRows(p, member);
            default -> powerRange(p, member);
        };
    }

    // The structs NVML fills, member by member; a member left out reads as zero (false; null where it may be absent).

    private static NvmlSnapshot.Modes modes(JsonParser p, String member) throws IOException {
        boolean current = false;
        boolean pending = false;
        for (String m = nextMember(p); m != null; m = nextMember(p)) {
            switch (m) {
                case "current" -> current = Boolean.TRUE.equals(bool(p, member + ".current"));
                case "pending" -> pending = Boolean.TRUE.equals(bool(p, member + ".pending"));
                default -> skip(p);
            }
        }
        return new NvmlSnapshot.Modes(current, pending);
    }

    private static NvmlSnapshot.Pci pci(JsonParser p, String member) throws IOException {
        String busId = null;
        long domain = 0;
        int bus = 0;
        int device = 0;
        String pciDeviceId = null;
        String pciSubSystemId = null;
        for (String m = nextMember(p); m != null; m = nextMember(p)) {
            switch (m) {
                case "busId" -> busId = text(p, member + ".busId");
                case "domain" -> domain = orZero(whole(p, member + ".domain"));
                case "bus" -> bus = orZero(integer(p, member + ".bus"));
                case "device" -> device = orZero(integer(p, member + ".device"));
                case "pciDeviceId" -> pciDeviceId = text(p, member + ".pciDeviceId");
                case "pciSubSystemId" -> pciSubSystemId = text(p, member + ".pciSubSystemId");
                default -> skip(p);
            }
        }
        return new NvmlSnapshot.Pci(busId, domain, bus, device, pciDeviceId, pciSubSystemId);
    }

    private static NvmlSnapshot.Memory memory(JsonParser p, String member) throws IOException {
        long total = 0;
        Long reserved = null;
        for (String m = nextMember(p); m != null; m = nextMember(p)) {
            switch (m) {
                case "total" -> total = orZero(whole(p, member + ".total"));
                case "reserved" -> reserved = whole(p, member + ".reserved");
                default -> skip(p);
            }
        }
        return new NvmlSnapshot.Memory(total, reserved);
    }

    private static NvmlSnapshot.ComputeCapability computeCapability(JsonParser p, String member) throws IOException {
        int major = 0;
        int minor = 0;
        for (String m = nextMember(p); m != null; m = nextMember(p)) {
            switch (m) {
                case "major" -> major = orZero(integer(p, member + ".major"));
                case "minor" -> minor = orZero(integer(p, member + ".minor"));
                default -> skip(p);
            }
        }
        return new NvmlSnapshot.ComputeCapability(major, minor);
    }

    private static NvmlSnapshot.PowerRange powerRange(JsonParser p, String member) throws IOException {
        long min = 0;
        long max = 0;
        for (String m = nextMember(p); m != null; m = nextMember(p)) {
            switch (m) {
                case "minMilliwatts" -> min = orZero(whole(p, member + ".minMilliwatts"));
                case "maxMilliwatts" -> max = orZero(whole(p, member + ".maxMilliwatts"));
                default -> skip(p);
            }
        }
        return new NvmlSnapshot.PowerRange(min, max);
    }

    private static NvmlSnapshot.RemappedRows remappedRows(JsonParser p, String member) throws IOException {
        long corrected = 0;
        long uncorrected = 0;
        boolean pending = false;
        boolean failure = false;
        for (String m = nextMember(p); m != null; m = nextMember(p)) {
            switch (m) {
                case "corrected" -> corrected = orZero(whole(p, member + ".corrected"));
                case "uncorrected" -> uncorrected = orZero(whole(p, member + ".uncorrected"));
                case "pending" -> pending = Boolean.TRUE.equals(bool(p, member + ".pending"));
                case "failure" -> failure = Boolean.TRUE.equals(bool(p, member + ".failure"));
                default -> skip(p);
            }
        }
        return new NvmlSnapshot.RemappedRows(corrected, uncorrected, pending, failure);
    }

    private static int orZero(Integer value) {
        return value == null ? 0 : value;
    }

    private static long orZero(Long value) {
        return value == null ? 0 : value;
    }
}
