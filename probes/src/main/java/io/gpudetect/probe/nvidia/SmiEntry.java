package io.gpudetect.probe.nvidia;

import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * One entry of {@code nvidia-smi -q} output in either of its forms: an element of the XML ({@link XmlElement}) or a
 * line of the indented text ({@link IndentedText.Node}). Both are trees of named entries; the walks over them are
 * written here once, and {@link SmiGpuMapping} reads a GPU from either.
 */
interface SmiEntry<E extends SmiEntry<E>> {

    /** The line the entry starts on. */
    int line();

    List<E> children();

    /** True when the entry has this name: exactly in XML, ignoring case in the text, whose spelling varies by driver. */
    boolean named(String name);

    /** The value the entry holds, as printed; null for one that holds other entries instead. */
    String value();

    /** How a diagnostic quotes the entry and its value: {@code 'Key' reads 'v' (line 3)} or {@code <name> reads 'v'}. */
    String quoted();

    /** The first entry along a path of names: {@code child("fb_memory_usage", "total")}. */
    @SuppressWarnings("unchecked")
    default Optional<E> child(String... path) {
        E at = (E) this;
        for (String step : path) {
            E next = null;
            for (E c : at.children()) {
                if (c.named(step)) {
                    next = c;
                    break;
                }
            }
            if (next == null) {
                return Optional.empty();
            }
            at = next;
        }
        return Optional.of(at);
    }

    default List<E> all(String name) {
        return children().stream().filter(c -> c.named(name)).toList();
    }

    /** Calls the visitor on this entry and every descendant. */
    @SuppressWarnings("unchecked")
    default void walk(Consumer<E> visitor) {
        visitor.accept((E) this);
        for (E c : children()) {
            c.walk(visitor);
        }
    }
}
