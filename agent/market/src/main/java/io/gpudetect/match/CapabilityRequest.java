package io.gpudetect.match;

import io.gpudetect.model.Vendor;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A request written on the command line instead of in an SDL:
 * {@code vendor=nvidia,model=h100|a100,vram>=24Gi,count=2,interface=sxm,mig=1g.10gb,replicas=1}.
 *
 * <ul>
 *   <li>{@code vendor} (required): nvidia, amd or intel.</li>
 *   <li>{@code model}: an Akash slug, or several separated by {@code |}; absent for any model.</li>
 *   <li>{@code vram=80Gi} the card's size exactly (as the SDL's {@code ram}), {@code vram>=24Gi} at least;
 *       {@code ram} is the same key.</li>
 *   <li>{@code count}: GPUs (or MIG slices) each replica needs on one node, default 1.</li>
 *   <li>{@code interface}: pcie or sxm ({@code sxm4} is read as sxm).</li>
 *   <li>{@code mig}: a MIG slice profile; the units are then slices of that profile.</li>
 *   <li>{@code replicas}: how many such replicas, each placed on its own, default 1.</li>
 *   <li>{@code driver>=550.54}: the lowest driver version; {@code cuda>=12.8} (nvidia) or {@code rocm>=6.2} (amd)
 *       the lowest runtime version the driver stack supports; compared part by part as numbers.</li>
 *   <li>{@code pcie>=gen4x16} (or {@code gen4}, {@code x16}): the lowest PCIe generation the GPU's link can
 *       reach and the fewest lanes it runs on; {@code link=full}: the link runs on every lane the GPU has.</li>
 *   <li>{@code fabric=infiniband} (or {@code roce}, {@code iwarp}, {@code any}) and {@code fabric>=400G}: the node's
 *       RDMA fabric, {@link FabricRequest}.</li>
 *   <li>{@code nvlink=all}: every pair of the GPUs one replica gets is joined over NVLink ({@link InterconnectRequest}).</li>
 * </ul>
 * A GPU whose node did not publish a fact asked of it fails, with that said.
 */
public final class CapabilityRequest {

    /** The placement name of every request from the command line. */
    public static final String PLACEMENT = "command line";

    private static final Pattern PAIR = Pattern.compile("\\s*([a-z]+)\\s*(>=|=)\\s*(.*?)\\s*");
    private static final Pattern MIG = Pattern.compile("\\d+g\\.\\d+gb(\\+[a-z0-9.]+)?");
    private static final Pattern WHOLE = Pattern.compile("\\d{1,6}");
    private static final Pattern QUANTITY = Pattern.compile("(\\d+(?:\\.\\d+)?)(Ki|Mi|Gi|Ti|Pi|Ei)?");
    private static final Pattern LINK = Pattern.compile("(?:gen([1-7]))?(?:x(1|2|4|8|12|16|32))?");
    /** The keys that take {@code >=}: the rest take {@code =}. */
    private static final List<String> AT_LEAST = List.of("vram", "driver", "cuda", "rocm", "pcie");
    private static final List<String> KEYS = List.of("vendor", "model", "vram", "count", "interface", "mig",
            "replicas", "driver", "cuda", "rocm", "pcie", "link", "nvlink");

    private CapabilityRequest() {
    }

    /**
     * @param text  the option's value
     * @param index which {@code --gpu} option it was (from 0), to name it in the output and in errors
     */
    public static Placement parse(String text, int index) throws InvalidInputException {
        String name = "--gpu[" + index + "]";
        Map<String, String> values = new LinkedHashMap<>();
        boolean ramAtLeast = false;
        // fabric takes = (its kind) and >= (its rate) side by side: kept apart from the one-value keys.
        String fabricKind = null;
        String fabricRate = null;
        for (String part : text.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            Matcher m = PAIR.matcher(part.toLowerCase(Locale.ROOT));
            if (!m.matches()) {
                throw error(name, "'" + part.strip() + "' is not key=value; expected e.g. "
                        + "vendor=nvidia,model=h100,vram>=24Gi,count=2");
            }
            String key = m.group(1).equals("ram") ? "vram" : m.group(1);
            if (key.equals("fabric")) {
                boolean atLeast = m.group(2).equals(">=");
                if (atLeast ? fabricRate != null : fabricKind != null) {
                    throw error(name, "fabric" + m.group(2) + " given twice");
                }
                if (atLeast) {
                    fabricRate = m.group(3);
                } else {
                    fabricKind = m.group(3);
                }
                continue;
            }
            if (m.group(2).equals(">=") && !AT_LEAST.contains(key) && !key.equals("fabric")) {
                throw error(name, "'>=' only works with vram, driver, cuda, rocm and pcie; use " + key + "="
                        + m.group(3));
            }
            if (m.group(2).equals("=") && AT_LEAST.contains(key) && !key.equals("vram")) {
                throw error(name, key + " is a minimum: write " + key + ">=" + m.group(3));
            }
            if (values.put(key, m.group(3)) != null) {
                throw error(name, key + " given twice");
            }
            if (key.equals("vram")) {
                ramAtLeast = m.group(2).equals(">=");
            }
        }
        for (String key : values.keySet()) {
            if (!KEYS.contains(key)) {
                throw error(name, "unknown key '" + key + "'; expected vendor, model, vram, count, interface, mig, "
                        + "replicas, driver, cuda, rocm, pcie, link, nvlink or fabric");
            }
        }
        Vendor vendor = vendor(values.get("vendor"), name);
        Integer ramGi = null;
        if (values.containsKey("vram")) {
            Long gi = parseGi(values.get("vram").replace("gi", "Gi").replace("mi", "Mi").replace("ti", "Ti"));
            if (gi == null) {
                throw error(name, "vram '" + values.get("vram") + "' is not a size in whole Gi; expected e.g. 24Gi");
            }
            ramGi = gi.intValue();
        }
        String iface = values.get("interface");
        if (iface != null) {
            if (iface.matches("sxm\\d*")) {
                iface = "sxm";
            } else if (!iface.equals("pcie")) {
                throw error(name, "interface '" + iface + "' is not pcie or sxm");
            }
        }
        String mig = values.get("mig");
        if (mig != null && !MIG.matcher(mig).matches()) {
            throw error(name, "mig '" + mig + "' is not a MIG profile; expected e.g. 1g.10gb or 3g.40gb");
        }
        GpuFloor floor = floor(values, vendor, name);
        int units = positive(values.getOrDefault("count", "1"), "count", name);
        int replicas = positive(values.getOrDefault("replicas", "1"), "replicas", name);
        List<GpuChoice> choices = new ArrayList<>();
        String models = values.get("model");
        if (models == null || models.isBlank() || models.equals("*")) {
            choices.add(new GpuChoice(vendor, null, ramGi, ramAtLeast, iface, mig, floor));
        } else {
            for (String model : models.split("\\|")) {
                if (model.isBlank()) {
                    throw error(name, "empty model in '" + models + "'");
                }
                choices.add(new GpuChoice(vendor, model.strip(), ramGi, ramAtLeast, iface, mig, floor));
            }
        }
        boolean nvlinkAll = InterconnectRequest.parseNvlink(values.get("nvlink"), name) != null;
        return new Placement(name, PLACEMENT, name, replicas, new GpuRequest(units, choices, null,
                FabricRequest.parse(fabricKind, fabricRate, name), nvlinkAll));
    }

    /** The driver, runtime and link parts of a request; {@link GpuFloor#NONE} when it has none. */
    private static GpuFloor floor(Map<String, String> values, Vendor vendor, String name)
            throws InvalidInputException {
        String driver = version(values.get("driver"), "driver", "550.54", name);
        String cuda = version(values.get("cuda"), "cuda", "12.8", name);
        String rocm = version(values.get("rocm"), "rocm", "6.2", name);
        if (cuda != null && vendor != Vendor.NVIDIA) {
            throw error(name, "cuda is a version of NVIDIA's driver stack: it needs vendor=nvidia"
                    + (vendor == Vendor.AMD ? " (for AMD, rocm>=VERSION)" : ""));
        }
        if (rocm != null && vendor != Vendor.AMD) {
            throw error(name, "rocm is a version of AMD's driver stack: it needs vendor=amd"
                    + (vendor == Vendor.NVIDIA ? " (for NVIDIA, cuda>=VERSION)" : ""));
        }
        Integer gen = null;
        Integer width = null;
        String pcie = values.get("pcie");
        if (pcie != null) {
            Matcher m = LINK.matcher(pcie);
            if (pcie.isEmpty() || !m.matches()) {
                throw error(name, "pcie '" + pcie + "' is not a link; expected e.g. pcie>=gen4x16, pcie>=gen5 or "
                        + "pcie>=x16");
            }
            gen = m.group(1) == null ? null : Integer.valueOf(m.group(1));
            width = m.group(2) == null ? null : Integer.valueOf(m.group(2));
        }
        String link = values.get("link");
        if (link != null && !link.equals("full")) {
            throw error(name, "link '" + link + "' is not full; link=full asks for a link on every lane the GPU has");
        }
        return new GpuFloor(driver, cuda != null ? cuda : rocm, cuda != null ? "CUDA" : rocm != null ? "ROCm" : null,
                gen, width, link != null);
    }

    private static String version(String value, String key, String example, String name)
            throws InvalidInputException {
        if (value == null) {
            return null;
        }
        if (DottedVersion.parts(value) == null) {
            throw error(name, key + " '" + value + "' is not a version of dotted numbers; expected e.g. " + key + ">="
                    + example);
        }
        return value;
    }

    /** Whole Gi of a binary quantity ({@code 80Gi}, {@code 81920Mi}, {@code 1Ti}), or null when it is none. */
    static Long parseGi(String text) {
        Matcher m = QUANTITY.matcher(text.strip());
        if (!m.matches()) {
            return null;
        }
        BigDecimal n = new BigDecimal(m.group(1));
        String suffix = m.group(2) == null ? "" : m.group(2);
        int power = "KiMiGiTiPiEi".indexOf(suffix) / 2 + 1;
        BigDecimal bytes = n.multiply(BigDecimal.valueOf(1024).pow(suffix.isEmpty() ? 0 : power));
        BigDecimal gi = bytes.divide(BigDecimal.valueOf(1024L * 1024 * 1024));
        try {
            long whole = gi.longValueExact();
            return whole > 0 && whole < Integer.MAX_VALUE ? whole : null;
        } catch (ArithmeticException notWhole) {
            return null;
        }
    }

    private static Vendor vendor(String value, String name) throws InvalidInputException {
        if (value == null) {
            throw error(name, "vendor missing; expected vendor=nvidia, vendor=amd or vendor=intel");
        }
        for (Vendor v : List.of(Vendor.NVIDIA, Vendor.AMD, Vendor.INTEL)) {
            if (v.id().equals(value)) {
                return v;
            }
        }
        throw error(name, "unknown vendor '" + value + "'; expected nvidia, amd or intel");
    }

    private static int positive(String value, String key, String name) throws InvalidInputException {
        if (!WHOLE.matcher(value).matches() || Integer.parseInt(value) == 0) {
            throw error(name, key + " '" + value + "' is not a whole number of 1 or more");
        }
        return Integer.parseInt(value);
    }

    private static InvalidInputException error(String name, String problem) {
        return new InvalidInputException(null, name, null, problem);
    }
}
