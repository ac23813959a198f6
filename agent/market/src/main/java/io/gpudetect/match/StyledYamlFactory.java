package io.gpudetect.match;

import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.IOContext;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactoryBuilder;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.io.Reader;
import java.util.HashMap;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.events.Event;
import org.yaml.snakeyaml.events.ScalarEvent;
import org.yaml.snakeyaml.nodes.NodeId;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * Jackson's YAML parser, which also says whether the scalar at hand was written quoted or as a block: SnakeYAML's
 * event carries the style, Jackson's token does not. Knowing it from the event, instead of looking at the text where
 * the token starts, lets a document be read from a stream that is never held whole.
 */
final class StyledYamlFactory extends YAMLFactory {

    StyledYamlFactory(LoaderOptions options) {
        super(withDefaults(YAMLFactory.builder().loaderOptions(options)));
    }

    /** The parser features {@code new YAMLFactory()} has on (an empty value is null), which a builder starts without. */
    private static YAMLFactoryBuilder withDefaults(YAMLFactoryBuilder builder) {
        for (YAMLParser.Feature f : YAMLParser.Feature.values()) {
            if (f.enabledByDefault()) {
                builder.enable(f);
            }
        }
        return builder;
    }

    /** Only readers are parsed here ({@link YamlNode} never hands Jackson a string or bytes). */
    @Override
    protected YAMLParser _createParser(Reader r, IOContext ctxt) {
        return new Parser(ctxt, _parserFeatures, _yamlParserFeatures, _loaderOptions, _objectCodec, r);
    }

    static final class Parser extends YAMLParser {

        Parser(IOContext ctxt, int parserFeatures, int yamlFeatures, LoaderOptions options,
               com.fasterxml.jackson.core.ObjectCodec codec, Reader reader) {
            super(ctxt, parserFeatures, yamlFeatures, options, codec, reader);
        }

        /**
         * The first characters of a plain scalar that SnakeYAML's implicit resolvers are registered for (booleans,
         * numbers, null, timestamps, {@code <<}, {@code !&*}): {@code Resolver.addImplicitResolvers}, as Jackson's
         * parser uses it (a plain {@code new Resolver()}).
         */
        private static final String RESOLVED_FIRST = "yYnNtTfFoO-+0123456789.<~!&*";

        /** Every character the resolver's int, float and timestamp patterns can match. */
        private static final String NUMBER_OR_TIME = "0123456789abcdefABCDEFxinItNTZ_-+.: \t";

        /** The longest plain scalar the resolver tries as an int or float ({@code Resolver}'s default limit). */
        private static final int NUMBER_LIMIT = 1024;

        /** How many of the resolver's answers are kept ({@link #resolved}) before they are forgotten at once. */
        private static final int RESOLVED_KEPT = 4096;

        /**
         * The resolver's answer for each plain scalar it was asked about, by value: it is a function of the value
         * alone, and a dump repeats most of them (a PCI id, a driver version, {@code True} of every Ready condition).
         */
        private final Map<String, Tag> resolved = new HashMap<>();

        /**
         * A plain, untagged scalar is decoded as Jackson decodes it, without SnakeYAML's resolver matching it against
         * its regular expressions each time (they were a tenth of reading a large YAML file: JFR, 5,000 nodes,
         * docs/performance.md):
         * <ul>
         *   <li>one that starts with none of {@link #RESOLVED_FIRST} is a string: the resolver tries no pattern but
         *       the empty value's and says {@code str}, which Jackson makes {@link JsonToken#VALUE_STRING};</li>
         *   <li>decimal digits not starting with 0 ({@code 4803000000}): its int pattern matches first, and the
         *       number is decoded as Jackson does;</li>
         *   <li>one that starts with a digit and holds a character no int, float or timestamp can
         *       ({@code 1843269236Ki}, {@code 6.8.0-45-generic}) is a string;</li>
         *   <li>any other takes the resolver's answer for its value, asked once ({@link #resolved}), and Jackson's
         *       decoding of that answer; a float is left to Jackson whole (its decoding is private).</li>
         * </ul>
         * A tagged or quoted scalar is Jackson's, as before ({@code StyledYamlFactoryTest} compares the two token by
         * token).
         */
        @Override
        protected JsonToken _decodeScalar(ScalarEvent scalar) throws IOException {
            String value = scalar.getValue();
            String tag = scalar.getTag();
            if (value.isEmpty() || (tag != null && !tag.equals("!")) || !scalar.getImplicit().canOmitTagInPlainScalar()) {
                return super._decodeScalar(scalar);
            }
            char first = value.charAt(0);
            if (RESOLVED_FIRST.indexOf(first) < 0) {
                return text(value, JsonToken.VALUE_STRING);
            }
            if (first >= '1' && first <= '9' && value.length() <= NUMBER_LIMIT) {
                boolean digits = true;
                boolean other = false;
                for (int i = 1; i < value.length() && !other; i++) {
                    char c = value.charAt(i);
                    digits &= c >= '0' && c <= '9';
                    other = !digits && NUMBER_OR_TIME.indexOf(c) < 0;
                }
                if (digits) {
                    text(value, null);
                    return _decodeNumberScalar(value, value.length());
                }
                if (other) {
                    return text(value, JsonToken.VALUE_STRING);
                }
            }
            Tag resolvedTag = resolved.get(value);
            if (resolvedTag == null) {
                resolvedTag = _yamlResolver.resolve(NodeId.scalar, value, true);
                if (resolved.size() >= RESOLVED_KEPT) {
                    resolved.clear();
                }
                resolved.put(value, resolvedTag);
            }
            // As YAMLParser._decodeScalar goes on from the resolver's answer.
            if (resolvedTag == Tag.FLOAT) {
                return super._decodeScalar(scalar);
            }
            text(value, null);
            if (resolvedTag == Tag.INT) {
                return _decodeNumberScalar(value, value.length());
            }
            if (resolvedTag == Tag.BOOL) {
                Boolean b = _matchYAMLBoolean(value, value.length());
                return b == null ? JsonToken.VALUE_STRING : b ? JsonToken.VALUE_TRUE : JsonToken.VALUE_FALSE;
            }
            return resolvedTag == Tag.NULL ? JsonToken.VALUE_NULL : JsonToken.VALUE_STRING;
        }

        /** Sets the current scalar's text, as Jackson does before decoding it; gives {@code token}. */
        private JsonToken text(String value, JsonToken token) {
            _textValue = value;
            _cleanedTextValue = null;
            return token;
        }

        /** True when the current scalar was written {@code "quoted"}, {@code 'quoted'}, {@code |} or {@code >}. */
        boolean quotedScalar() {
            // The event the current token came from (getEvent() would pull the next one).
            Event e = _lastEvent;
            return e instanceof ScalarEvent s && !s.isPlain();
        }
    }
}
