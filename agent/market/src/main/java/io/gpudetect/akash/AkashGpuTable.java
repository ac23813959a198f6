package io.gpudetect.akash;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpudetect.match.InvalidInputException;
import io.gpudetect.match.JsonSyntax;
import java.io.StringReader;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Akash's GPU table ({@code devices/pcie/gpus.json} of akash-network/provider-configs) exactly as the inventory
 * operator reads it: {@code RegistryGPUVendors} in {@code operator/inventory/registry.go}, decoded by Go's
 * {@code encoding/json}. Vendor and device keys are compared as written (the operator looks them up with the
 * lower-case ids ghw reads from {@code modalias}); field names match without regard to case, the last one
 * written wins, and fields the operator does not know ({@code subsystems}) are ignored, as Go does.
 *
 * <p>Where Go would skip a field of the wrong type and the operator would ignore the error
 * ({@code registryLoader} in {@code cmd.go} discards it), this reader refuses the table with the place and what
 * was expected: a prediction from a table the operator half-reads would not be worth much.
 */
public final class AkashGpuTable {

    /** One device entry: the model slug, the interface and the memory size as the table writes them. */
    public record Device(String name, String interfaceType, String memorySize) {
    }

    /** A vendor block: the vendor name the labels carry, and its devices by device id. */
    public record Vendor(String name, Map<String, Device> devices) {
        public Vendor {
            devices = Collections.unmodifiableMap(new TreeMap<>(devices));
        }
    }

    private final String origin;
    private final Map<String, Vendor> vendors;

    private AkashGpuTable(String origin, Map<String, Vendor> vendors) {
        this.origin = origin;
        this.vendors = Collections.unmodifiableMap(new TreeMap<>(vendors));
    }

    /** Where the table came from, for the output: a file or a URL ({@code io.gpudetect.tables.AkashTableReader}). */
    public String origin() {
        return origin;
    }

    public Map<String, Vendor> vendors() {
        return vendors;
    }

    public Optional<Vendor> vendor(String vendorId) {
        return Optional.ofNullable(vendorId == null ? null : vendors.get(vendorId));
    }

    public Optional<Device> device(String vendorId, String deviceId) {
        return vendor(vendorId).map(v -> deviceId == null ? null : v.devices().get(deviceId));
    }

    /** Reads gpus.json text; {@code origin} names it in errors and in the output. */
    public static AkashGpuTable parse(String json, String origin) throws InvalidInputException {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(json);
        } catch (JsonProcessingException e) {
            InvalidInputException syntax = JsonSyntax.error(e, origin, () -> new StringReader(json));
            throw new InvalidInputException(origin, null, syntax.line(), syntax.column(),
                    syntax.problem() + "; the operator reads no GPU at all from such a table");
        }
        if (root == null || !root.isObject()) {
            throw new InvalidInputException(origin, null, null,
                    "expected a JSON object of vendor ids ({\"10de\": {\"name\": \"nvidia\", \"devices\": {...}}})");
        }
        Map<String, Vendor> vendors = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> v = it.next();
            String where = v.getKey();
            JsonNode block = v.getValue();
            if (block.isNull()) {
                continue;   // Go leaves a null map value as the zero vendor: no name, no devices
            }
            if (!block.isObject()) {
                throw new InvalidInputException(origin, where, null, "expected a vendor object with name and devices");
            }
            String name = text(block, "name", origin, where);
            Map<String, Device> devices = new LinkedHashMap<>();
            JsonNode list = field(block, "devices");
            if (list != null && !list.isNull()) {
                if (!list.isObject()) {
                    throw new InvalidInputException(origin, where + ".devices", null, "expected an object of device ids");
                }
                for (Iterator<Map.Entry<String, JsonNode>> d = list.fields(); d.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = d.next();
                    String at = where + ".devices." + e.getKey();
                    if (e.getValue().isNull()) {
                        devices.put(e.getKey(), new Device("", "", ""));
                        continue;
                    }
                    if (!e.getValue().isObject()) {
                        throw new InvalidInputException(origin, at, null,
                                "expected a device object with name, interface and memory_size");
                    }
                    devices.put(e.getKey(), new Device(text(e.getValue(), "name", origin, at),
                            text(e.getValue(), "interface", origin, at), text(e.getValue(), "memory_size", origin, at)));
                }
            }
            vendors.put(v.getKey(), new Vendor(name, devices));
        }
        return new AkashGpuTable(origin, vendors);
    }

    /** Go's field matching: any key equal to {@code name} ignoring case; the last such key wins. */
    private static JsonNode field(JsonNode object, String name) {
        JsonNode found = null;
        for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getKey().equalsIgnoreCase(name)) {
                found = e.getValue();
            }
        }
        return found;
    }

    /** A string field, "" when absent or null (Go's zero value). */
    private static String text(JsonNode object, String name, String origin, String where) throws InvalidInputException {
        JsonNode v = field(object, name);
        if (v == null || v.isNull()) {
            return "";
        }
        if (!v.isTextual()) {
            throw new InvalidInputException(origin, where + "." + name, null,
                    "expected a string, found " + v.getNodeType().name().toLowerCase(java.util.Locale.ROOT)
                            + " " + v + " (the operator would read it as empty)");
        }
        return v.textValue();
    }
}
