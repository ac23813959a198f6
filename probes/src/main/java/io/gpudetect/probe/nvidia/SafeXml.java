package io.gpudetect.probe.nvidia;

import java.io.StringReader;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Parses tool XML without ever loading a DTD or expanding an entity: a {@code DOCTYPE} naming
 * {@code nvsmi_device_v12.dtd} is skipped, an entity declaration (the way to build an "XML bomb") and
 * an internal DTD subset are refused. Reading stops at the first error; everything closed before it is kept, so a truncated file
 * still yields the GPUs it finished describing.
 */
public final class SafeXml {

    /** nvidia-smi nests about 8 deep; anything much deeper is not its output. */
    static final int MAX_DEPTH = 64;

    /** What was read, and the error that stopped reading (null when the document was complete). */
    public record Parsed(XmlElement root, String doctype, String error, Integer errorLine) {
    }

    private SafeXml() {
    }

    public static Parsed parse(String text) {
        if (text.contains("<!ENTITY")) {
            return new Parsed(null, null, "entity declarations are not accepted (nvidia-smi never writes them)",
                    lineOf(text, text.indexOf("<!ENTITY")));
        }
        int doctypeAt = text.indexOf("<!DOCTYPE");
        if (doctypeAt >= 0) {
            int end = text.indexOf('>', doctypeAt);
            int subset = text.indexOf('[', doctypeAt);
            if (subset >= 0 && (end < 0 || subset < end)) {
                // The JDK's reader mishandles odd characters in an internal subset (it throws
                // MissingResourceException and prints to stdout, which would corrupt --output json).
                return new Parsed(null, null, "a DOCTYPE with an internal subset ('[...]') is not accepted"
                        + " (nvidia-smi never writes one)", lineOf(text, subset));
            }
        }
        // The JDK's own reader, without the service lookup newFactory() does (a scan of every jar on the class
        // path and of jaxp.properties, about a tenth of a replay's start: docs/performance.md, "Start-up and
        // footprint tricks", row "XML reader without a factory lookup"); the safety settings below apply to it as ever.
        XMLInputFactory factory = XMLInputFactory.newDefaultFactory();
        factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        factory.setProperty(XMLInputFactory.IS_REPLACING_ENTITY_REFERENCES, false);
        Deque<XmlElement> open = new ArrayDeque<>();
        XmlElement root = null;
        String doctype = null;
        XMLStreamReader reader = null;
        try {
            reader = factory.createXMLStreamReader(new StringReader(text));
            while (reader.hasNext()) {
                int event = reader.next();
                switch (event) {
                    case XMLStreamConstants.DTD -> doctype = reader.getText();
                    case XMLStreamConstants.START_ELEMENT -> {
                        if (open.size() >= MAX_DEPTH) {
                            return new Parsed(root, doctype, "elements nested deeper than " + MAX_DEPTH,
                                    reader.getLocation().getLineNumber());
                        }
                        Map<String, String> attributes = new HashMap<>();
                        for (int i = 0; i < reader.getAttributeCount(); i++) {
                            attributes.put(reader.getAttributeLocalName(i), reader.getAttributeValue(i));
                        }
                        XmlElement e = new XmlElement(reader.getLocalName(), reader.getLocation().getLineNumber(), attributes);
                        if (open.isEmpty()) {
                            if (root != null) {
                                return new Parsed(root, doctype, "more than one root element", e.line());
                            }
                            root = e;
                        } else {
                            open.peek().add(e);
                        }
                        open.push(e);
                    }
                    case XMLStreamConstants.CHARACTERS, XMLStreamConstants.CDATA -> {
                        if (!open.isEmpty()) {
                            open.peek().appendText(reader.getText());
                        }
                    }
                    case XMLStreamConstants.END_ELEMENT -> open.pop().close();
                    default -> {
                        // comments, processing instructions, whitespace: nothing to keep
                    }
                }
            }
            if (root == null) {
                return new Parsed(null, doctype, "no XML element found", 1);
            }
            return new Parsed(root, doctype, null, null);
        } catch (XMLStreamException e) {
            // The reader reports an end of input it did not expect at row -1: that is the last line.
            int row = e.getLocation() == null ? 0 : e.getLocation().getLineNumber();
            Integer line = row > 0 ? row : lineOf(text, text.length());
            String message = e.getMessage() == null ? "malformed XML" : e.getMessage().replaceFirst("(?s)^ParseError at \\[row,col]:\\[-?\\d+,-?\\d+]\\s*Message:\\s*", "");
            if (!open.isEmpty()) {
                message = "XML ends or breaks inside <" + open.peek().name() + "> (opened on line " + open.peek().line()
                        + "): " + message.strip();
            }
            return new Parsed(root, doctype, message.strip(), line);
        } catch (RuntimeException e) {
            // The JDK's reader has bugs of its own: an odd character inside a DOCTYPE's internal subset
            // makes it throw MissingResourceException("InvalidCharInDTD") instead of a parse error.
            int row = reader == null || reader.getLocation() == null ? 0 : reader.getLocation().getLineNumber();
            return new Parsed(root, doctype, "malformed XML (the XML reader gave up: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : " " + e.getMessage()) + ")", row > 0 ? row : lineOf(text, text.length()));
        } finally {
            if (reader != null) {
                try {
                    reader.close();
                } catch (XMLStreamException ignored) {
                    // nothing was held open
                }
            }
        }
    }

    private static int lineOf(String text, int index) {
        int line = 1;
        for (int i = 0; i < index && i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }
}
