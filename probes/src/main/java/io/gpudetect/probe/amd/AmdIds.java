package io.gpudetect.probe.amd;

import java.math.BigInteger;
import java.util.Locale;

/**
 * AMD identifiers that several sources print differently and must agree for cards to merge: the unique
 * id ({@code 0x79ccd55167a2124a} in rocm-smi, {@code GPU-79ccd55167a2124a} in rocminfo, a decimal in the
 * kfd topology) and the gfx target ({@code gfx90a}, or {@code 90010} in kfd's {@code gfx_target_version}).
 */
public final class AmdIds {

    private static final BigInteger MAX_U64 = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    private AmdIds() {
    }

    /** {@code GPU-<hex>} from a hex unique id; null for N/A, zero or anything not hex. */
    public static String uuidFromHex(String hex) {
        if (hex == null) {
            return null;
        }
        String h = hex.strip().toLowerCase(Locale.ROOT);
        h = h.startsWith("gpu-") ? h.substring(4) : h;
        h = h.startsWith("0x") ? h.substring(2) : h;
        if (!h.matches("[0-9a-f]{1,16}")) {
            return null;
        }
        return uuid(new BigInteger(h, 16));
    }

    /** {@code GPU-<hex>} from kfd's decimal {@code unique_id}; null for 0 or anything not a number. */
    public static String uuidFromDecimal(String decimal) {
        if (decimal == null || !decimal.strip().matches("\\d{1,20}")) {
            return null;
        }
        return uuid(new BigInteger(decimal.strip()));
    }

    private static String uuid(BigInteger value) {
        if (value.signum() == 0 || value.compareTo(MAX_U64) > 0) {
            return null;
        }
        return "GPU-" + value.toString(16);
    }

    /**
     * kfd's {@code gfx_target_version} (major * 10000 + minor * 100 + stepping) as the target name:
     * {@code 90402} is {@code gfx942}, {@code 90010} is {@code gfx90a}, {@code 100300} is {@code gfx1030}.
     */
    public static String gfxTarget(long version) {
        if (version <= 0) {
            return null;
        }
        long major = version / 10000;
        long minor = (version / 100) % 100;
        long stepping = version % 100;
        if (minor > 15 || stepping > 15) {
            return null;
        }
        return "gfx" + major + Long.toHexString(minor) + Long.toHexString(stepping);
    }
}
