package io.gpudetect.tables;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
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
        try {
            return parse(new JsonFactory().createParser(ShippedTableText.AKASH_GPUS_JSON));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Reads {@code {"<vendor id>": {"name": ..., "devices": {"<device id>": {"name", "interface",
     * "memory_size"}}}}} with the streaming parser: a one-shot command should not pay for an object mapper
     * to read one small table.
     */
    static AkashGpus parse(JsonParser p) throws IOException {
        Map<String, Entry> entries = new HashMap<>();
        expect(p.nextToken(), JsonToken.START_OBJECT, p);
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String vendorId = p.currentName().toLowerCase(Locale.ROOT);
            expect(p.nextToken(), JsonToken.START_OBJECT, p);
            String vendorName = null;
            Map<String, Map<String, String>> devices = new HashMap<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (field.equals("name") && value == JsonToken.VALUE_STRING) {
                    vendorName = p.getText();
                } else if (field.equals("devices") && value == JsonToken.START_OBJECT) {
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String deviceId = p.currentName().toLowerCase(Locale.ROOT);
                        expect(p.nextToken(), JsonToken.START_OBJECT, p);
                        Map<String, String> attributes = new HashMap<>();
                        while (p.nextToken() == JsonToken.FIELD_NAME) {
                            String key = p.currentName();
                            if (p.nextToken().isScalarValue()) {
                                attributes.put(key, p.getText());
                            } else {
                                p.skipChildren();
                            }
                        }
                        devices.put(deviceId, attributes);
                    }
                } else {
                    p.skipChildren();
                }
            }
            for (Map.Entry<String, Map<String, String>> d : devices.entrySet()) {
                Map<String, String> a = d.getValue();
                entries.put(vendorId + d.getKey(), new Entry(vendorName, a.get("name"),
                        foldInterface(a.get("interface")), gi(a.get("memory_size"))));
            }
        }
        return new AkashGpus(entries);
    }

    private static void expect(JsonToken actual, JsonToken expected, JsonParser p) throws IOException {
        if (actual != expected) {
            throw new IOException("akash-gpus.json line " + p.currentLocation().getLineNr() + ": expected "
                    + expected + ", found " + actual);
        }
    }

    /** Akash's rule: any {@code SXM*} is {@code sxm}; everything else lower-cased. */
    public static String foldInterface(String raw) {
        if (raw == null) {
            return null;
        }
        String r = raw.toLowerCase(Locale.ROOT);
        return r.startsWith("sxm") ? "sxm" : r;
    }

    /** {@code 80Gi} as 80; anything else null. */
    private static Integer gi(String size) {
        if (size == null || !size.endsWith("Gi") || size.length() < 3 || size.length() > 11) {
            return null;
        }
        String digits = size.substring(0, size.length() - 2);
        for (int i = 0; i < digits.length(); i++) {
            if (digits.charAt(i) < '0' || digits.charAt(i) > '9') {
                return null;
            }
        }
        long gi = Long.parseLong(digits);
        return gi > Integer.MAX_VALUE ? null : (int) gi;
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
