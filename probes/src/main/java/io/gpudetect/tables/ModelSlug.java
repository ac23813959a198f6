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
    /**
     * An Instinct model number ({@code MI250}, {@code MI300X}, {@code MI300A}): the product, whatever packaging
     * and board words the board's name adds ({@code (MCM) OAM AC MBA}, {@code VF} for an SR-IOV function).
     */
    private static final Pattern INSTINCT_MODEL = Pattern.compile("\\bmi\\d{2,3}[a-z]?\\b");
    /** A bare "Radeon" is the brand; kept where nothing else names the card ("Radeon VII"). */
    private static final Pattern RADEON_BEFORE_LINE = Pattern.compile("\\bradeon\\s+(?=(rx|pro|r\\d|hd|mi|vega|instinct)\\b)");

    /** Words that name the maker, not the product, in names outside Akash's lines ("Apple M4 Pro", "ARM Mali"). */
    private static final Pattern MAKER_WORDS = Pattern.compile(
            "\\b(apple|arm|qualcomm|imagination|technologies|intel|corporation|inc|ltd|co)\\b");
    /** A core revision after the product ("Mali-G610 r0p0"): not part of what is sold. */
    private static final Pattern CORE_REVISION = Pattern.compile("\\s+r\\d+p\\d+\\b.*$");

    /**
     * Internal names ARM's Mali kernel driver and libmali print for Valhall/Bifrost GPUs, with the product
     * each is sold as (the driver's own gpuinfo table: {@code GPU_ID2_PRODUCT_LODX} is "Mali-G610").
     */
    private static final java.util.Map<String, String> MALI_PRODUCTS = java.util.Map.ofEntries(
            java.util.Map.entry("tmix", "Mali-G71"), java.util.Map.entry("thex", "Mali-G72"),
            java.util.Map.entry("tsix", "Mali-G51"), java.util.Map.entry("tnox", "Mali-G76"),
            java.util.Map.entry("tdvx", "Mali-G31"), java.util.Map.entry("tgox", "Mali-G52"),
            java.util.Map.entry("ttrx", "Mali-G77"), java.util.Map.entry("tbex", "Mali-G78"),
            java.util.Map.entry("tbax", "Mali-G78AE"), java.util.Map.entry("lbex", "Mali-G68"),
            java.util.Map.entry("tnax", "Mali-G57"), java.util.Map.entry("todx", "Mali-G710"),
            java.util.Map.entry("lodx", "Mali-G610"), java.util.Map.entry("tgrx", "Mali-G510"),
            java.util.Map.entry("tvax", "Mali-G310"), java.util.Map.entry("ttux", "Mali-G715"),
            java.util.Map.entry("ltux", "Mali-G615"));
    private static final Pattern MALI_INTERNAL = Pattern.compile("(?i)\\bmali[- ]([lt][a-z]{2}x)\\b");

    /**
     * The details an OpenCL driver adds to a device's name, in parentheses after it: Mesa's rusticl and Clover
     * print {@code AMD Radeon Graphics (radeonsi, gfx1151, LLVM 19.1.7, DRM 3.63, 6.14.0-...)} and {@code AMD
     * Radeon RX 5500 XT (navi14, LLVM 15.0.7, DRM 3.52, ...)}. They name the driver, compiler and kernel, never a
     * product; a group counts as details when it names LLVM, DRM, a Mesa driver or a gfx target. A cut name may
     * have lost the closing parenthesis.
     */
    private static final Pattern DRIVER_DETAILS = Pattern.compile(
            "(?i)\\s*\\((?=[^)]*\\b(llvm|drm|radeonsi|r600|iris|crocus|zink|llvmpipe|gfx[0-9a-f]{3,4})\\b)[^)]*(\\)|$)");
    /** The rules of {@link #readable} and {@link #fromName}, compiled once rather than at each call. */
    private static final Pattern NOT_ALPHANUMERIC_RUN = Pattern.compile("[^a-z0-9]+");
    private static final Pattern EDGE_HYPHENS = Pattern.compile("^-+|-+$");
    private static final Pattern MAX_Q = Pattern.compile("\\bmax q\\b");
    private static final Pattern RADEON_INSTINCT = Pattern.compile("\\bradeon\\s+instinct\\b");
    private static final Pattern SUPER_OR_SFF = Pattern.compile("\\b(super|sff)\\b");
    private static final Pattern LAPTOP_OR_MOBILE = Pattern.compile("\\b(laptop|mobile)\\b");
    private static final Pattern NOT_ALPHANUMERIC = Pattern.compile("[^a-z0-9]");
    /**
     * Words on a name that tell a batch or a board revision of one product, never another product: "OEM", "Rev. 2",
     * "Rev. A", "Lite Hash Rate" (LHR, the Ampere boards with the mining limiter). Akash's table names each such id as the
     * product ("GeForce GTX 960 OEM" is gtx960, "GeForce RTX 3060 Lite Hash Rate" rtx3060).
     */
    private static final Pattern BATCH_WORDS = Pattern.compile("\\b(oem|rev\\.?\\s*[0-9a-z]|lite hash rate|lhr)\\b");
    /**
     * "with Max-Q Design": how NVIDIA's driver named a Max-Q laptop part before "Laptop GPU" (Turing and older,
     * "Quadro RTX 5000 with Max-Q Design"); those drivers gave a laptop part its desktop name otherwise, and Akash's
     * table names the ids so (Quadro RTX 5000 Mobile / Max-Q is rtx5000).
     */
    private static final Pattern WITH_MAX_Q_DESIGN = Pattern.compile("\\bwith max q design\\b");
    /**
     * NVIDIA's RTX PRO line (Blackwell on): the product is "pro" and its number, the architecture word left out,
     * then the edition by its initials as Akash writes them: Max-Q Workstation Edition {@code mq}, Workstation
     * Edition {@code we}, Server Edition {@code se}, a laptop {@code m} ("RTX PRO 6000 Blackwell Max-Q Workstation
     * Edition" is pro6000mq).
     */
    private static final Pattern RTX_PRO = Pattern.compile("\\brtx pro (\\d{3,4})\\b(.*)$");
    private static final Pattern ARCHITECTURE_WORDS = Pattern.compile("\\b(blackwell|rubin|generation)\\b");
    /** Two laptop words ("Mobile / Max-Q" in pci.ids) are one laptop part. */
    private static final Pattern REPEATED_M = Pattern.compile("\\bm(\\s+m)+\\b");
    /**
     * Where Akash's table spells one product against its own rule for the product's line, the slug our rules give
     * and Akash's spelling: the RTX A5000 is {@code a5000} where the RTX A2000 and A6000 are {@code rtxa2000} and
     * {@code rtxa6000}. Providers' nodes are labelled with Akash's spelling, so a host without the table must give the
     * same; any other card of the line keeps the rule. Each entry is one product whose spelling a rule cannot give,
     * never a copy of the table's entries (OfflineSlugTest checks the rules against the whole table).
     */
    private static final java.util.Map<String, String> AKASH_IRREGULAR = java.util.Map.of("rtxa5000", "a5000",
            // The RTX 2000 and 2000E Ada share one device id (28b0), which Akash names after the 2000E.
            "rtx2000ada", "rtx2000eada");
    /**
     * A vGPU profile's name ("GRID P4-1Q", "GRID T4-16C", "NVIDIA A100-4C"): the card it runs on, then the
     * framebuffer in GB and the profile's type letter (A, B, C, Q). The model is the card's.
     */
    private static final Pattern VGPU_PROFILE = Pattern.compile("^(?:nvidia\\s+)?(?:grid\\s+)?(.+?)-\\d{1,3}[abcq]$");
    private static final Pattern GFX_TARGET = Pattern.compile("(?i)\\b(gfx[0-9a-f]{3,4})\\b");

    private ModelSlug() {
    }

    /** The edition of an RTX PRO card by its initials ({@link #RTX_PRO}); empty for the plain card. */
    private static String rtxProEdition(String rest) {
        String words = " " + ARCHITECTURE_WORDS.matcher(rest).replaceAll(" ") + " ";
        if (MAX_Q.matcher(words).find()) {
            return "mq";
        }
        if (LAPTOP_OR_MOBILE.matcher(words).find()) {
            return "m";
        }
        if (words.contains(" workstation edition ")) {
            return "we";
        }
        if (words.contains(" server edition ")) {
            return "se";
        }
        return "";
    }

    /** The name without an OpenCL driver's details ({@link #DRIVER_DETAILS}); the name itself when it has none. */
    public static String withoutDriverDetails(String name) {
        if (name == null || name.indexOf('(') < 0) {
            return name;
        }
        String cleaned = DRIVER_DETAILS.matcher(name).replaceAll("").strip();
        return cleaned.isEmpty() ? name : cleaned;
    }

    /** The gfx target an OpenCL driver's details name ({@code gfx1151}), or null: the chip, where the name is generic. */
    public static String gfxTargetInDriverDetails(String name) {
        if (name == null || name.indexOf('(') < 0) {
            return null;
        }
        java.util.regex.Matcher d = DRIVER_DETAILS.matcher(name);
        while (d.find()) {
            java.util.regex.Matcher g = GFX_TARGET.matcher(d.group());
            if (g.find()) {
                return g.group(1).toLowerCase(Locale.ROOT);
            }
        }
        return null;
    }

    /**
     * The product a Mali internal name stands for ({@code Mali-LODX r0p0} is {@code Mali-G610}); the name
     * itself when it is not one.
     */
    public static String maliProduct(String name) {
        if (name == null) {
            return null;
        }
        java.util.regex.Matcher m = MALI_INTERNAL.matcher(name);
        if (m.find()) {
            String product = MALI_PRODUCTS.get(m.group(1).toLowerCase(Locale.ROOT));
            if (product != null) {
                return product;
            }
        }
        return name;
    }

    /**
     * The model slug for a product of any maker. Akash's lines (NVIDIA, AMD, Intel's discrete cards) follow
     * Akash's rules ({@link #fromName}); everything else gets a readable slug, words joined by hyphens with
     * the maker left out: {@code Apple M4 Pro} is {@code m4-pro}, {@code Mali-LODX r0p0} is {@code mali-g610},
     * {@code Intel(R) HD Graphics} is {@code hd-graphics}, never a fragment ({@code hd}) or the maker glued
     * to the model ({@code applem4pro}).
     */
    public static String forProduct(io.gpudetect.model.Vendor vendor, String name) {
        if (name == null || name.isBlank()) {
            return null;
        }
        if (vendor == io.gpudetect.model.Vendor.NVIDIA || vendor == io.gpudetect.model.Vendor.AMD) {
            return fromName(name);
        }
        if (vendor == io.gpudetect.model.Vendor.INTEL) {
            // Akash's rules drop "Graphics": right for "UHD Graphics 770" (uhd770), a fragment for
            // "HD Graphics" (hd) or "Iris Xe Graphics" (irisxe), which keep their words instead.
            String akash = fromName(name);
            return akash != null && akash.chars().anyMatch(Character::isDigit) ? akash : readable(name);
        }
        return readable(maliProduct(name));
    }

    /** Lower-case words joined by hyphens, without trademarks, maker words or a core revision. */
    public static String readable(String name) {
        if (name == null) {
            return null;
        }
        String n = CORE_REVISION.matcher(name.strip()).replaceAll("").toLowerCase(Locale.ROOT);
        n = TRADEMARKS.matcher(n).replaceAll(" ");
        n = MAKER_WORDS.matcher(n).replaceAll(" ");
        String slug = EDGE_HYPHENS.matcher(NOT_ALPHANUMERIC_RUN.matcher(n).replaceAll("-")).replaceAll("");
        return slug.isEmpty() ? null : slug;
    }

    public static String fromName(String name) {
        if (name == null || name.isBlank()) {
            return null;
        }
        String n = name.toLowerCase(Locale.ROOT).strip();
        java.util.regex.Matcher vgpu = VGPU_PROFILE.matcher(n);
        if (vgpu.matches()) {
            n = vgpu.group(1);
        }
        n = TRADEMARKS.matcher(n).replaceAll(" ");
        java.util.regex.Matcher mi = INSTINCT_MODEL.matcher(n);
        if (mi.find()) {
            String model = mi.group();
            // One model number, however often it is named; "MI250X / MI250" names two and is left to the rules.
            boolean another = false;
            while (mi.find()) {
                another |= !mi.group().equals(model);
            }
            if (!another) {
                return model;
            }
        }
        n = n.replace("-", " ").replace("_", " ").replace("/", " ");
        n = BATCH_WORDS.matcher(n).replaceAll(" ");
        n = WITH_MAX_Q_DESIGN.matcher(n).replaceAll(" ");
        java.util.regex.Matcher pro = RTX_PRO.matcher(n);
        if (pro.find()) {
            return "pro" + pro.group(1) + rtxProEdition(pro.group(2));
        }
        // Max-Q is NVIDIA's name for a laptop part tuned for thin laptops: a laptop GPU like "Mobile" and "Laptop".
        n = MAX_Q.matcher(n).replaceAll(" mobile ");
        n = RADEON_BEFORE_LINE.matcher(n).replaceAll("");
        n = RADEON_INSTINCT.matcher(n).replaceAll(" ");
        n = BRAND_WORDS.matcher(n).replaceAll(" ");
        n = SIZE_AND_FORM.matcher(n).replaceAll(" ");
        n = SUPER_OR_SFF.matcher(n).replaceAll("s");
        n = LAPTOP_OR_MOBILE.matcher(n).replaceAll("m");
        n = REPEATED_M.matcher(n).replaceAll("m");
        String slug = NOT_ALPHANUMERIC.matcher(n).replaceAll("");
        return slug.isEmpty() ? null : AKASH_IRREGULAR.getOrDefault(slug, slug);
    }
}
