package io.gpudetect.k8s.dra;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.gpudetect.record.dra.DraDevice;
import io.gpudetect.record.dra.DraSlice;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads a ResourceSlice, as any readable version of {@code resource.k8s.io} serves it, into a {@link DraSlice}.
 * The shapes (k8s.io/api {@code resource/v1beta1}, {@code v1beta2}, {@code v1} {@code types.go}):
 * <ul>
 * <li>v1beta1: a device's {@code attributes}, {@code capacity} and {@code consumesCounters} sit under
 * {@code basic}; v1beta2 and v1 put them on the device itself;
 * <li>an attribute is an object with one of {@code string}, {@code int}, {@code bool}, {@code version};
 * <li>a capacity is {@code {value: <quantity>}} (v1alpha3 had the bare quantity: read too).
 * </ul>
 * Parsing never throws: a field of the wrong type is skipped, so one odd device cannot hide the others.
 */
public final class ResourceSlices {

    private ResourceSlices() {
    }

    /** The slice's node ({@code spec.nodeName}); null for slices not bound to one node. */
    public static String nodeName(GenericKubernetesResource slice) {
        return text(map(slice.getAdditionalProperties().get("spec")).get("nodeName"));
    }

    public static DraSlice parse(GenericKubernetesResource slice) {
        Map<String, Object> spec = map(slice.getAdditionalProperties().get("spec"));
        String driver = text(spec.get("driver"));
        Map<String, Object> pool = map(spec.get("pool"));
        String poolName = text(pool.get("name"));
        List<DraDevice> devices = new ArrayList<>();
        for (Object o : list(spec.get("devices"))) {
            Map<String, Object> device = map(o);
            // v1beta1 nests the device's description under "basic"; later versions do not.
            Map<String, Object> body = device.containsKey("basic") ? map(device.get("basic")) : device;
            devices.add(new DraDevice(driver, poolName, text(device.get("name")), attributes(driver, map(body.get("attributes"))),
                    capacity(map(body.get("capacity"))), counterSets(list(body.get("consumesCounters")))));
        }
        List<String> shared = new ArrayList<>();
        for (Object o : list(spec.get("sharedCounters"))) {
            String name = text(map(o).get("name"));
            if (name != null) {
                shared.add(name);
            }
        }
        String name = slice.getMetadata() == null ? null : slice.getMetadata().getName();
        return new DraSlice(name, driver, new DraSlice.Pool(poolName, number(pool.get("generation")),
                number(pool.get("resourceSliceCount"))), devices, shared);
    }

    private static Map<String, String> attributes(String driver, Map<String, Object> raw) {
        Map<String, String> out = new TreeMap<>();
        raw.forEach((name, value) -> {
            Map<String, Object> typed = map(value);
            Object v = typed.containsKey("string") ? typed.get("string") : typed.containsKey("int") ? typed.get("int")
                    : typed.containsKey("bool") ? typed.get("bool") : typed.get("version");
            if (v != null) {
                // "gpu.nvidia.com/uuid" and "uuid" name one attribute of a gpu.nvidia.com device.
                String key = driver != null && name.startsWith(driver + "/") ? name.substring(driver.length() + 1) : name;
                out.put(key, String.valueOf(v));
            }
        });
        return out;
    }

    private static Map<String, String> capacity(Map<String, Object> raw) {
        Map<String, String> out = new TreeMap<>();
        raw.forEach((name, value) -> {
            Object v = value instanceof Map<?, ?> m ? m.get("value") : value;
            if (v != null) {
                out.put(name, String.valueOf(v));
            }
        });
        return out;
    }

    private static List<String> counterSets(List<Object> raw) {
        List<String> out = new ArrayList<>();
        for (Object o : raw) {
            String set = text(map(o).get("counterSet"));
            if (set != null) {
                out.add(set);
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object o) {
        return o instanceof List<?> l ? (List<Object>) l : List.of();
    }

    static String text(Object o) {
        return o instanceof String s ? s : null;
    }

    private static long number(Object o) {
        return o instanceof Number n ? n.longValue() : 0;
    }
}
