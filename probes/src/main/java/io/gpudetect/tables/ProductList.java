package io.gpudetect.tables;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A pci.ids device entry read as what it is: a chip and the products sold on it. pci.ids writes
 * {@code Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]} and {@code AD107M [GeForce RTX 4060 Max-Q / Mobile]}: the
 * chip, then in brackets a list of products that share the device id, written short. Run together, the list is
 * no model ({@code navi21rx68006800xt6900xt}); read here, it is three products of chip Navi 21, or one (the
 * laptop RTX 4060) of chip AD107M.
 *
 * @param chip     what stands before the brackets ({@code Navi 21}, {@code Aldebaran/MI200}), or null
 * @param products the products, each written out ({@code Radeon RX 6900 XT}); one for an entry that lists none
 */
public record ProductList(String chip, List<String> products) {

    /** A pci.ids entry: text before brackets that hold the products. Names without brackets are one product. */
    private static final Pattern ENTRY = Pattern.compile("^\\s*([^\\[\\]]*?)\\s*\\[([^\\[\\]]+)]\\s*$");

    /** A word that carries a model number: "6800", "MI250X", "RTX"? no: only words with a digit. */
    private static final Pattern HAS_DIGIT = Pattern.compile(".*\\d.*");
    private static final Pattern GROUP_SEPARATOR = Pattern.compile("\\s+/\\s+");
    private static final Pattern WHITESPACE = Pattern.compile("\\s+");

    public ProductList {
        products = List.copyOf(products);
    }

    /**
     * Reads a pci.ids entry ({@code Chip [A/B / C]}) or the bracketed part alone ({@code Radeon RX 6800/6800 XT}).
     * A name with neither brackets nor a list is one product and no chip.
     */
    public static ProductList parse(String name) {
        if (name == null || name.isBlank()) {
            return new ProductList(null, List.of());
        }
        Matcher m = ENTRY.matcher(name);
        String chip = null;
        String list = name.strip();
        if (m.matches()) {
            chip = m.group(1).isBlank() ? null : m.group(1).strip();
            list = m.group(2).strip();
        }
        return new ProductList(chip, expand(list));
    }

    /** True when the entry names more than one thing: a chip with its products, or several products. */
    public boolean isList() {
        return chip != null || products.size() > 1;
    }

    /**
     * The products a short list stands for. Groups are split at {@code " / "}, then at {@code "/"}; an item that
     * starts with a number takes the line words of the first product ({@code 6900 XT} is {@code Radeon RX 6900
     * XT}); an item without a number is a variant of the first product's model ({@code Mobile} after
     * {@code GeForce RTX 4060 Max-Q} is {@code GeForce RTX 4060 Mobile}); an item that starts with its own line
     * words ({@code Radeon Instinct MI50 32GB}) stands as written. Words after the last item's model number
     * ({@code Ada Generation} in {@code RTX 2000 / 2000E Ada Generation}) belong to every item that has none, when
     * they are more than a suffix such as {@code XT} (which names a product of its own: RX 6800 and RX 6800 XT).
     */
    static List<String> expand(String list) {
        List<String> items = new ArrayList<>();
        for (String group : GROUP_SEPARATOR.split(list)) {
            for (String item : group.split("/")) {
                if (!item.isBlank()) {
                    items.add(item.strip());
                }
            }
        }
        if (items.size() <= 1) {
            return items;
        }
        String first = items.get(0);
        String[] firstWords = WHITESPACE.split(first);
        int modelWord = -1;
        for (int i = 0; i < firstWords.length; i++) {
            if (HAS_DIGIT.matcher(firstWords[i]).matches()) {
                modelWord = i;
                break;
            }
        }
        String lineWords = modelWord <= 0 ? "" : String.join(" ", java.util.Arrays.copyOfRange(firstWords, 0, modelWord)) + " ";
        String modelOnly = modelWord < 0 ? first : String.join(" ", java.util.Arrays.copyOfRange(firstWords, 0, modelWord + 1));
        List<String> out = new ArrayList<>();
        out.add(first);
        for (int i = 1; i < items.size(); i++) {
            String item = items.get(i);
            String firstWord = WHITESPACE.split(item)[0];
            if (!lineWords.isEmpty() && firstWord.equalsIgnoreCase(firstWords[0])) {
                out.add(item);
            } else if (HAS_DIGIT.matcher(firstWord).matches()) {
                out.add(lineWords + item);
            } else if (!HAS_DIGIT.matcher(item).matches()) {
                out.add(modelOnly + " " + item);
            } else {
                // Its own line words, other than the first's ("MI250" after "Instinct MI250X" is handled above).
                out.add(lineWords.isEmpty() || item.toLowerCase(java.util.Locale.ROOT).startsWith(lineWords.toLowerCase(java.util.Locale.ROOT))
                        ? item : lineWords + item);
            }
        }
        String last = out.get(out.size() - 1);
        String tail = tailAfterModel(last);
        if (tail.length() > 3) {
            for (int i = 0; i < out.size() - 1; i++) {
                if (tailAfterModel(out.get(i)).isEmpty()) {
                    out.set(i, out.get(i) + " " + tail);
                }
            }
        }
        return out;
    }

    /** The words after the last word that holds a number: "Ada Generation" in "RTX 2000E Ada Generation". */
    private static String tailAfterModel(String product) {
        String[] words = product.split("\\s+");
        int last = -1;
        for (int i = 0; i < words.length; i++) {
            if (HAS_DIGIT.matcher(words[i]).matches()) {
                last = i;
            }
        }
        if (last < 0 || last == words.length - 1) {
            return "";
        }
        return String.join(" ", java.util.Arrays.copyOfRange(words, last + 1, words.length));
    }
}
