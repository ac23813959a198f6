package io.gpudetect.match;

/**
 * Driver and runtime versions compared as a person reads them: part by part, each part a number
 * ({@code 535.104.05} is below {@code 550.54}, {@code 12.10} above {@code 12.8}), a missing part 0
 * ({@code 12.8} equals {@code 12.8.0}).
 */
final class DottedVersion {

    private DottedVersion() {
    }

    /** The numbers of {@code text} ({@code 580.159.04}: 580, 159, 4); null when it is not dotted whole numbers. */
    static int[] parts(String text) {
        String t = text.strip();
        if (!t.matches("\\d{1,9}(\\.\\d{1,9}){0,5}")) {
            return null;
        }
        String[] split = t.split("\\.");
        int[] parts = new int[split.length];
        for (int i = 0; i < split.length; i++) {
            parts[i] = Integer.parseInt(split[i]);
        }
        return parts;
    }

    /** Negative, 0 or positive as {@code a} is below, equal to or above {@code b}. */
    static int compare(int[] a, int[] b) {
        for (int i = 0; i < Math.max(a.length, b.length); i++) {
            int x = i < a.length ? a[i] : 0;
            int y = i < b.length ? b[i] : 0;
            if (x != y) {
                return Integer.compare(x, y);
            }
        }
        return 0;
    }
}
