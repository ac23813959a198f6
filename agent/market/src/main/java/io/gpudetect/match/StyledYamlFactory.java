package io.gpudetect.match;

import com.fasterxml.jackson.core.io.IOContext;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactoryBuilder;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.Reader;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.events.Event;
import org.yaml.snakeyaml.events.ScalarEvent;

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

        /** True when the current scalar was written {@code "quoted"}, {@code 'quoted'}, {@code |} or {@code >}. */
        boolean quotedScalar() {
            // The event the current token came from (getEvent() would pull the next one).
            Event e = _lastEvent;
            return e instanceof ScalarEvent s && !s.isPlain();
        }
    }
}
