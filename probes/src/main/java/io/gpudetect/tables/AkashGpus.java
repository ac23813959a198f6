package io.gpudetect.tables;

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
        return parse(ShippedTableText.AKASH_GPUS);
    }

    /**
     * Reads the table in the form tables/table-text.py writes from Akash's gpus.json: one line per device,
     * {@code vendor id, device id, vendor name, model, interface, memory size} separated by tabs, empty where
     * gpus.json has nothing. A line without six fields is a build error, not something to skip quietly.
     */
    static AkashGpus parse(String table) {
        Map<String, Entry> entries = new HashMap<>();
        int lineNo = 0;
        for (int start = 0; start < table.length(); ) {
            int end = table.indexOf('\n', start);
            if (end < 0) {
                end = table.length();
            }
            lineNo++;
            String[] f = new String[6];
            int from = start;
            for (int i = 0; i < 6; i++) {
                int tab = i < 5 ? table.indexOf('\t', from) : end;
                if (tab < 0 || tab > end) {
                    throw new IllegalStateException("Akash GPU table line " + lineNo + ": expected 6 tab-separated fields; regenerate ShippedTableText.java with tables/table-text.py");
                }
                f[i] = tab == from ? null : table.substring(from, tab);
                from = tab + 1;
            }
            if (f[5] != null && f[5].indexOf('\t') >= 0) {
                throw new IllegalStateException("Akash GPU table line " + lineNo + ": expected 6 tab-separated fields; regenerate ShippedTableText.java with tables/table-text.py");
            }
            entries.put(f[0] + f[1], new Entry(f[2], f[3], foldInterface(f[4]), gi(f[5])));
            start = end + 1;
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
