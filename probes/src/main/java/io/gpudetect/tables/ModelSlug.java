package io.gpudetect.tables;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Akash-style model slugs for cards Akash's table does not know, by the rules its table follows:
 * lower case, no vendor or brand words, no memory size or form factor, no spaces or punctuation
 * ({@code NVIDIA GeForce RTX 4090} is {@code rtx4090}, {@code AMD Instinct MI300X} is {@code mi300x},
 * {@code Intel(R) Arc(TM) A770 Graphics} is {@code arca770}).
 */
public final class ModelSlug {

    private static final Pattern TRADEMARKS = Pattern.compile("\\((r|tm|c)\\)");
    private static final Pattern BRAND_WORDS = Pattern.compile(
            "\\b(nvidia|geforce|tesla|quadro|amd|ati|instinct|intel|corporation|graphics|gpu|accelerator|"
                    + "workstation edition|server edition|generation|series)\\b");
    /** Memory size ("80GB", "16 GB"), memory type ("HBM3", "GDDR6X") and form factor words. */
    private static final Pattern SIZE_AND_FORM = Pattern.compile(
            "\\b(\\d+\\s*(gb|gib|g)|hbm\\d*e?|gddr\\d*x?|pcie|pci-e|sxm\\d*|oam|mxm)\\b");
    /** A bare "Radeon" is the brand; kept where nothing else names the card ("Radeon VII"). */
    private static final Pattern RADEON_BEFORE_LINE = Pattern.compile("\\bradeon\\s+(?=(rx|pro|r\\d|hd|mi|vega|instinct)\\b)");

    private ModelSlug() {
    }

    public static String fromName(String name) {
        if (name == null || name.isBlank()) {
            return null;
        }
        String n = name.toLowerCase(Locale.ROOT);
        n = TRADEMARKS.matcher(n).replaceAll(" ");
        n = n.replace("-", " ").replace("_", " ").replace("/", " ");
        n = RADEON_BEFORE_LINE.matcher(n).replaceAll("");
        n = n.replaceAll("\\bradeon\\s+instinct\\b", " ");
        n = BRAND_WORDS.matcher(n).replaceAll(" ");
        n = SIZE_AND_FORM.matcher(n).replaceAll(" ");
        n = n.replaceAll("\\bsuper\\b", "s")
                .replaceAll("\\bsff\\b", "s")
                .replaceAll("\\blaptop\\b", "m")
                .replaceAll("\\bmobile\\b", "m");
        String slug = n.replaceAll("[^a-z0-9]", "");
        return slug.isEmpty() ? null : slug;
    }
}
