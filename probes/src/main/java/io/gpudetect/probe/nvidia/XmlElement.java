package io.gpudetect.probe.nvidia;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A small read-only XML tree that remembers the line each element started on, so a diagnostic can say
 * where a bad value is. Built by {@link SafeXml}; only element names, attributes and text are kept.
 */
public final class XmlElement {

    private final String name;
    private final int line;
    private final Map<String, String> attributes;
    private final List<XmlElement> children = new ArrayList<>();
    private final StringBuilder text = new StringBuilder();
    private boolean closed;

    XmlElement(String name, int line, Map<String, String> attributes) {
        this.name = name;
        this.line = line;
        this.attributes = attributes;
    }

    public String name() {
        return name;
    }

    public int line() {
        return line;
    }

    public Optional<String> attribute(String key) {
        return Optional.ofNullable(attributes.get(key));
    }

    public List<XmlElement> children() {
        return children;
    }

    /** The element's own text, trimmed. */
    public String text() {
        return text.toString().strip();
    }

    void appendText(String s) {
        if (text.length() < 4096) {
            text.append(s, 0, Math.min(s.length(), 4096 - text.length()));
        }
    }

    /** False for an element the document ended inside (a truncated file). */
    public boolean closed() {
        return closed;
    }

    void close() {
        closed = true;
    }

    void add(XmlElement child) {
        children.add(child);
    }

    public List<XmlElement> all(String childName) {
        return children.stream().filter(c -> c.name.equals(childName)).toList();
    }

    /** The first element along a path of child names: {@code child("fb_memory_usage", "total")}. */
    public Optional<XmlElement> child(String... path) {
        XmlElement at = this;
        for (String step : path) {
            XmlElement next = null;
            for (XmlElement c : at.children) {
                if (c.name.equals(step)) {
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

    /** Calls the visitor on this element and every descendant. */
    public void walk(java.util.function.Consumer<XmlElement> visitor) {
        visitor.accept(this);
        for (XmlElement c : children) {
            c.walk(visitor);
        }
    }
}
