package io.gpudetect.probe.nvidia;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A small read-only XML tree that remembers the line each element started on, so a diagnostic can say
 * where a bad value is. Built by {@link SafeXml}; only element names, attributes and text are kept.
 */
public final class XmlElement implements SmiEntry<XmlElement> {

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

    @Override
    public int line() {
        return line;
    }

    public Optional<String> attribute(String key) {
        return Optional.ofNullable(attributes.get(key));
    }

    @Override
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

    @Override
    public boolean named(String childName) {
        return name.equals(childName);
    }

    /** The text of an element without children; null for one that holds other elements. */
    @Override
    public String value() {
        return children.isEmpty() ? text() : null;
    }

    @Override
    public String quoted() {
        return "<" + name + "> reads '" + text() + "'";
    }
}
