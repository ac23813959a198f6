package io.gpudetect.tables;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import io.gpudetect.model.GpuInterface;
import java.io.IOException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Akash Network's GPU table ({@code devices/pcie/gpus.json} of akash-network/provider-configs): the model
 * slug, memory size and interface Akash uses for a PCI vendor and device id. Some keys are subsystem
 * device ids that hosts were seen to report, so a lookup tries the device id, then the subsystem id.
 *
 * <p>gpu-detect ships no copy: the table is read at run time where Akash's operator reads it
 * ({@link AkashTableReader}). Without one, {@link #absent} answers no lookup, says why, and the models are
 * named by gpu-detect's own rules ({@link ModelSlug}).
 */
public final class AkashGpus {

    /** One known card. {@code interfaceType} is folded as Akash does: {@code pcie} or {@code sxm}. */
    public record Entry(String vendor, String model, GpuInterface interfaceType, Integer memoryGi) {
    }

    /**
     * Made at the first parse, not with this class: an absent table (no network, {@code --akash-table none}) then
     * costs no jackson-core set-up (~5 ms of a start). A reader of the table at every start wants no databind.
     */
    private static final class Json {
        static final JsonFactory FACTORY = new JsonFactory();
    }

    private final Map<String, Entry> byVendorAndDevice;
    private final String origin;
    private final boolean present;

    private AkashGpus(Map<String, Entry> byVendorAndDevice, String origin, boolean present) {
        this.byVendorAndDevice = byVendorAndDevice;
        this.origin = origin;
        this.present = present;
    }

    /** No table: {@code why} says what was tried (no network, {@code --akash-table none}), for the diagnostic. */
    public static AkashGpus absent(String why) {
        return new AkashGpus(Map.of(), why, false);
    }

    /** Whether a table was read; an absent one answers no lookup. */
    public boolean present() {
        return present;
    }

    /** Where the table came from (a file, a URL, the cache), or why there is none. */
    public String origin() {
        return origin;
    }

    /**
     * Reads gpus.json: {@code {"10de": {"name": "nvidia", "devices": {"2330": {"name": "h100", "interface":
     * "SXM5", "memory_size": "80Gi"}}}}}. Ids are lower-cased; a field that is a number or boolean counts as its
     * JSON text, one that is an object or array as absent, and unknown fields are passed over. The streaming
     * parser rather than a tree: this runs at the start of a one-shot command, where databind's set-up costs
     * more than the table. A table that is not this shape is refused with one line.
     */
    public static AkashGpus parse(String json, String origin) throws TableException {
        Map<String, Entry> entries = new HashMap<>();
        try (JsonParser p = Json.FACTORY.createParser(json)) {
            expect(p, p.nextToken() == JsonToken.START_OBJECT, "expected an object of vendor ids", origin);
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String vendorId = p.currentName().toLowerCase(Locale.ROOT);
                JsonToken block = p.nextToken();
                if (block == JsonToken.VALUE_NULL) {
                    continue;
                }
                expect(p, block == JsonToken.START_OBJECT, "vendor " + vendorId + ": expected an object with name and devices", origin);
                String vendorName = null;
                Map<String, String[]> devices = new HashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String field = p.currentName();
                    JsonToken value = p.nextToken();
                    if (field.equals("name")) {
                        vendorName = value == JsonToken.VALUE_STRING ? p.getText() : null;
                        p.skipChildren();
                    } else if (field.equals("devices") && value == JsonToken.START_OBJECT) {
                        while (p.nextToken() == JsonToken.FIELD_NAME) {
                            String deviceId = p.currentName().toLowerCase(Locale.ROOT);
                            JsonToken device = p.nextToken();
                            expect(p, device == JsonToken.START_OBJECT,
                                    "device " + vendorId + "/" + deviceId + ": expected an object", origin);
                            devices.put(deviceId, deviceFields(p));
                        }
                    } else {
                        p.skipChildren();
                    }
                }
                for (Map.Entry<String, String[]> d : devices.entrySet()) {
                    String[] f = d.getValue();
                    entries.put(vendorId + d.getKey(), new Entry(vendorName, f[0], GpuInterface.fromId(f[1]), gi(f[2])));
                }
            }
            expect(p, p.currentToken() == JsonToken.END_OBJECT && p.nextToken() == null, "text after the table", origin);
        } catch (JsonProcessingException e) {
            throw new TableException(origin + ": not a JSON GPU table (" + e.getOriginalMessage() + ", line "
                    + e.getLocation().getLineNr() + ")");
        } catch (IOException e) {
            throw new TableException(origin + ": " + e.getMessage());
        }
        return new AkashGpus(entries, origin, true);
    }

    /** name, interface and memory_size of the device object the parser is at, each null where absent. */
    private static String[] deviceFields(JsonParser p) throws IOException {
        String[] f = new String[3];
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            int i = field.equals("name") ? 0 : field.equals("interface") ? 1 : field.equals("memory_size") ? 2 : -1;
            if (i >= 0 && value.isScalarValue() && value != JsonToken.VALUE_NULL) {
                f[i] = p.getText();
            }
            p.skipChildren();
        }
        return f;
    }

    private static void expect(JsonParser p, boolean ok, String what, String origin) throws TableException {
        if (!ok) {
            throw new TableException(origin + ": " + what + " at line " + p.currentLocation().getLineNr()
                    + " (Akash's devices/pcie/gpus.json)");
        }
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
