package io.gpudetect.model;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * A {@link Gpu}'s {@code sources} as its builder made them: one array slot per {@link GpuField}, read as an immutable
 * map whose entries come in the order of their names, as a {@code TreeMap}'s would (what the JSON output lists, and
 * what {@code equals} and {@code hashCode} of any map agree with). A records file of 5,000 nodes makes some 80,000
 * GPUs; a {@code TreeMap} of some 25 entries each, copied again by {@code Gpu}'s constructor, was the largest
 * allocation of reading it (docs/performance.md, "JSON records at 5,000 nodes").
 */
final class FieldSources extends AbstractMap<String, String> {

    /** Each field's name by its index. */
    private static final String[] NAMES = names();

    /**
     * Field indices in the order of the fields' names. Sorted by hand: a comparator's lambda or method reference is
     * a call site linked when the class loads, at every start of the command (docs/performance.md, "Start-up and
     * footprint tricks").
     */
    private static final int[] BY_NAME = byName();

    private static String[] names() {
        String[] names = new String[GpuField.ALL.size()];
        for (GpuField<?> field : GpuField.ALL) {
            names[field.index()] = field.name();
        }
        return names;
    }

    private static int[] byName() {
        int[] order = new int[NAMES.length];
        for (int i = 0; i < order.length; i++) {
            int j = i;
            while (j > 0 && NAMES[order[j - 1]].compareTo(NAMES[i]) > 0) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = i;
        }
        return order;
    }

    /** The source of each field by its index; null where none. Never written once given here ({@link #byIndex}). */
    private final String[] byIndex;
    private final int size;

    FieldSources(String[] byIndex) {
        this.byIndex = byIndex;
        int n = 0;
        for (String s : byIndex) {
            if (s != null) {
                n++;
            }
        }
        this.size = n;
    }

    /** The array behind this map, for a builder to share until it changes a source (it copies it first). */
    String[] byIndex() {
        return byIndex;
    }

    @Override
    public String get(Object key) {
        GpuField<?> field = key instanceof String name ? GpuField.named(name) : null;
        return field == null ? null : byIndex[field.index()];
    }

    @Override
    public boolean containsKey(Object key) {
        return get(key) != null;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public Set<Map.Entry<String, String>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Map.Entry<String, String>> iterator() {
                return new Iterator<>() {
                    private int next = advance(0);

                    private int advance(int from) {
                        int i = from;
                        while (i < BY_NAME.length && byIndex[BY_NAME[i]] == null) {
                            i++;
                        }
                        return i;
                    }

                    @Override
                    public boolean hasNext() {
                        return next < BY_NAME.length;
                    }

                    @Override
                    public Map.Entry<String, String> next() {
                        if (next >= BY_NAME.length) {
                            throw new NoSuchElementException();
                        }
                        int field = BY_NAME[next];
                        next = advance(next + 1);
                        return new AbstractMap.SimpleImmutableEntry<>(NAMES[field], byIndex[field]);
                    }
                };
            }

            @Override
            public int size() {
                return size;
            }
        };
    }
}
