package io.gpudetect.tables;

/**
 * VRAM as Akash counts it: the card's marketed size in GiB. Drivers report a little less than the
 * chips hold (an "80GB" H100 says 81559 MiB, a "16GB" T4 says 15360 MiB), so the reported size is
 * rounded to the marketed size it is closest to.
 */
public final class MemorySize {

    /** Sizes GPUs are sold with, in GiB. */
    private static final int[] MARKETED = {1, 2, 3, 4, 5, 6, 8, 10, 11, 12, 16, 20, 24, 32, 40, 48, 64, 80, 94,
            96, 128, 141, 144, 180, 188, 192, 256, 288};
    /** How far below a marketed size a reported size may fall and still count as it. */
    private static final double TOLERANCE = 0.08;

    /**
     * 16 TiB: far above any GPU (the largest carry 288 GB), far below where arithmetic on it overflows.
     * A probe that reads more has read garbage and leaves the size out.
     */
    public static final long MAX_PLAUSIBLE_MIB = 16L * 1024 * 1024;

    /** True for a size a GPU can have, in MiB. */
    public static boolean isPlausibleMiB(long mib) {
        return mib >= 0 && mib <= MAX_PLAUSIBLE_MIB;
    }

    private MemorySize() {
    }

    /**
     * @param mib reported VRAM in MiB
     * @param tableGi the size a table (Akash's) gives for this card, or null
     */
    public static Integer gi(Long mib, Integer tableGi) {
        if (mib == null || mib <= 0) {
            return tableGi;
        }
        double gib = mib / 1024.0;
        if (tableGi != null && gib <= tableGi * 1.02 && gib >= tableGi * (1 - TOLERANCE)) {
            return tableGi;
        }
        Integer nearest = null;
        for (int size : MARKETED) {
            boolean fits = gib <= size * 1.02 && gib >= size * (1 - TOLERANCE);
            if (fits && (nearest == null || Math.abs(gib - size) < Math.abs(gib - nearest))) {
                nearest = size;
            }
        }
        if (nearest != null) {
            return nearest;
        }
        // Beyond int the (int) cast would wrap to a small or negative number of Gi: no size is better.
        return gib < Integer.MAX_VALUE ? (int) Math.round(gib) : tableGi;
    }
}
