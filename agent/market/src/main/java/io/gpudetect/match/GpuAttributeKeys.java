package io.gpudetect.match;

import io.gpudetect.model.Vendor;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The attribute key each entry of an SDL's GPU request becomes on chain, the network's check of it, and what a
 * provider reads back from it. The SDL is only the form: the key is what the deployment carries and what the
 * provider matches, so the odd cases (an entry without a model, a model holding a {@code /}) are decided here.
 * <ul>
 *   <li>Written by node {@code sdl/gpu.go} ({@code v2GPUNvidia.String}):
 *       {@code vendor/<vendor>/model/<model>[/ram/<N>Gi][/interface/<pcie|sxm>]}, the model as written.</li>
 *   <li>Checked by the network ({@code types.Attributes.Validate}: akash-api v0.0.83 {@code go/node/types/v1beta3/
 *       attribute.go}, chain-sdk {@code go/node/types/attributes/v1/attribute.go}): the key matches
 *       {@code ^[a-zA-Z][\w/.-]{1,126}[\w*]?$}, and no key repeats within one GPU request.</li>
 *   <li>Read by the provider ({@code ParseGPUAttributes}, provider {@code cluster/types/v1beta3/clients/inventory/
 *       metrics.go}): the key split at {@code /}, in pairs; model {@code *} is any model; {@code ram} is re-read by
 *       chain-sdk {@code go/util/units} {@code MemoryQuantityFromString}. A key it cannot read fails the whole
 *       request: {@code tryAdjustGPU} then offers no GPU for it on any node.</li>
 * </ul>
 */
final class GpuAttributeKeys {

    /** {@code AttributeNameRegexpStringWildcard}; Java's {@code \w} is ASCII, as Go's. */
    private static final Pattern KEY = Pattern.compile("[a-zA-Z][\\w/.\\-]{1,126}[\\w*]?");
    /** chain-sdk {@code go/util/units/units.go} {@code regexpUnits}. */
    private static final Pattern UNITS = Pattern.compile("([-+]?(([1-9]\\d*|0)?[.]\\d*|[1-9]\\d*))(k|[KMGTPE]i?)?");

    /** What a provider reads from one key: a choice it can match, or why it cannot read the key. */
    record Reading(GpuChoice choice, String unreadable) {
    }

    private GpuAttributeKeys() {
    }

    /** The key an entry becomes: {@code model} as written (empty when the entry has none), {@code ramGi} rounded down. */
    static String key(String vendor, String model, Long ramGi, String interfaceType) {
        String key = "vendor/" + vendor + "/model/" + model;
        if (ramGi != null) {
            key += "/ram/" + ramGi + "Gi";
        }
        if (interfaceType != null) {
            key += "/interface/" + interfaceType;
        }
        return key;
    }

    /** Why the network refuses the key, or null when it takes it. */
    static String refusal(String key) {
        if (KEY.matcher(key).matches()) {
            return null;
        }
        if (key.length() > 128) {
            return "the attribute key '" + key + "' is " + key.length() + " characters long; the network takes at most 128";
        }
        return "the attribute key '" + key + "' has characters the network refuses: a model may hold letters, digits, "
                + "'_', '.', '-' (and '*' alone, for any model)";
    }

    /** The provider's reading of {@code key} ({@code ParseGPUAttributes}). */
    static Reading read(String key) {
        String[] tokens = key.split("/", -1);
        if (tokens.length < 4 || tokens.length % 2 != 0) {
            return new Reading(null, "the provider cannot read the GPU attribute key '" + key + "' (it splits it at '/' "
                    + "into pairs; a '/' in the model breaks them)");
        }
        Vendor vendor = switch (tokens[1]) {
            case "nvidia" -> Vendor.NVIDIA;
            case "amd" -> Vendor.AMD;
            default -> null;
        };
        if (vendor == null || !tokens[0].equals("vendor") || !tokens[2].equals("model")) {
            return new Reading(null, "the provider cannot read the GPU attribute key '" + key + "'");
        }
        String model = tokens[3].equals("*") ? null : tokens[3];
        Integer ramGi = null;
        String interfaceType = null;
        for (int i = 4; i < tokens.length; i += 2) {
            String value = tokens[i + 1];
            if (tokens[i].equals("ram")) {
                Long gi = providerMemoryGi(value);
                if (gi == null) {
                    return new Reading(null, "the provider cannot read ram '" + value + "' in the GPU attribute key '"
                            + key + "' (its memory parser needs a size of 1Gi or more), so no provider bids on this "
                            + "GPU request");
                }
                ramGi = (int) Math.min(gi, Integer.MAX_VALUE);
            } else if (tokens[i].equals("interface")) {
                if (!value.equals("pcie") && !value.equals("sxm")) {
                    return new Reading(null, "the provider cannot read interface '" + value + "' in the GPU attribute "
                            + "key '" + key + "'");
                }
                interfaceType = value;
            }
            // Other pairs (only a model holding '/' makes them) are skipped by the provider.
        }
        return new Reading(new GpuChoice(vendor, model, ramGi, false, interfaceType, null), null);
    }

    /** {@code MemoryQuantityFromString} then {@code StringWithSuffix("Gi")}: whole Gi, or null when refused. */
    private static Long providerMemoryGi(String value) {
        Matcher m = UNITS.matcher(value);
        if (!value.endsWith("i") || !m.matches() || m.group(4) == null || m.group(4).equals("k")) {
            return null;
        }
        BigDecimal number = new BigDecimal(m.group(1).startsWith(".") || m.group(1).matches("[-+]\\..*")
                ? m.group(1).replaceFirst("\\.", "0.") : m.group(1).replaceFirst("\\.$", ""));
        int power = "KMGTPE".indexOf(m.group(4).charAt(0)) + 1;
        BigInteger bytes = number.multiply(new BigDecimal(BigInteger.ONE.shiftLeft(10 * power))).toBigInteger();
        if (number.signum() < 0 || bytes.compareTo(GoScalars.UINT64_LIMIT) >= 0) {
            return null;
        }
        return bytes.shiftRight(30).longValueExact();
    }
}
