package io.gpudetect.tables;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Akash Network's GPU table ({@code devices/pcie/gpus.json} of akash-network/provider-configs): the model
 * slug, memory size and interface Akash uses for a PCI vendor and device id. Some keys are subsystem
 * device ids that hosts were seen to report, so a lookup tries the device id, then the subsystem id.
 */
public final class AkashGpus {

    /** One known card. {@code interfaceType} is folded as Akash does: {@code pcie} or {@code sxm}. */
    public record Entry(String vendor, String model, String interfaceType, Integer memoryGi) {
    }

    private final Map<String, Entry> byVendorAndDevice;

    private AkashGpus(Map<String, Entry> byVendorAndDevice) {
        this.byVendorAndDevice = byVendorAndDevice;
    }

    public static AkashGpus shipped() {
        try (InputStream in = AkashGpus.class.getResourceAsStream("akash-gpus.json")) {
            if (in == null) {
                throw new IllegalStateException("akash-gpus.json is missing from the jar");
            }
            return parse(new ObjectMapper().readTree(in));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static AkashGpus parse(JsonNode root) {
        Map<String, Entry> entries = new HashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> vendors = root.fields(); vendors.hasNext(); ) {
            Map.Entry<String, JsonNode> vendor = vendors.next();
            String vendorName = vendor.getValue().path("name").asText();
            for (Iterator<Map.Entry<String, JsonNode>> devices = vendor.getValue().path("devices").fields(); devices.hasNext(); ) {
                Map.Entry<String, JsonNode> device = devices.next();
                JsonNode d = device.getValue();
                entries.put(vendor.getKey().toLowerCase(Locale.ROOT) + device.getKey().toLowerCase(Locale.ROOT),
                        new Entry(vendorName, d.path("name").asText(null), foldInterface(d.path("interface").asText(null)),
                                gi(d.path("memory_size").asText(null))));
            }
        }
        return new AkashGpus(entries);
    }

    /** Akash's rule: any {@code SXM*} is {@code sxm}; everything else lower-cased. */
    public static String foldInterface(String raw) {
        if (raw == null) {
            return null;
        }
        String r = raw.toLowerCase(Locale.ROOT);
        return r.startsWith("sxm") ? "sxm" : r;
    }

    private static Integer gi(String size) {
        if (size == null || !size.matches("\\d+Gi")) {
            return null;
        }
        return Integer.parseInt(size.substring(0, size.length() - 2));
    }

    public Optional<Entry> lookup(String vendorId, String deviceId) {
        if (vendorId == null || deviceId == null) {
            return Optional.empty();
        }
        return Optional.ofNullable(byVendorAndDevice.get(vendorId + deviceId));
    }

    /** Device id first; then the subsystem device id, which Akash also keys some cards by. */
    public Optional<Entry> lookup(String vendorId, String deviceId, String subsystemDeviceId) {
        return lookup(vendorId, deviceId).or(() -> lookup(vendorId, subsystemDeviceId));
    }
}
