package io.gpudetect.match;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.IOContext;
import com.fasterxml.jackson.core.json.UTF8StreamJsonParser;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Jackson's JSON parser with a faster {@link JsonParser#skipChildren()}: the value is skimmed over as bytes (brackets,
 * strings, numbers and words checked against JSON's grammar) instead of being cut into tokens whose field names are
 * looked up in the symbol table. A Node as the kubelet writes it is two thirds of a dump's bytes, nearly all of them
 * in parts no command reads (images, managed fields); Jackson's own skip over them was a fifth of reading a
 * 5,000-node file (docs/performance.md, "Records at cluster scale: skimming").
 *
 * <p>The skim answers only for JSON that it knows to be right. Anything else (a syntax error, the end of the input
 * inside the value, a key or number long enough that one of Jackson's limits might refuse it, nesting deeper than
 * {@link Parser#MAX_DEPTH}) stops it with {@link Refused}, and the caller reads the text again with Jackson's own
 * parser: a broken file is then reported by exactly the words, line and column it always was, and a file that only
 * looked odd is read as it always was. Lines are counted as Jackson counts them, so that a later value's line is
 * the same.
 */
final class SkimmingJson {

    private SkimmingJson() {
    }

    /** The skim met something it does not vouch for: read the text again with Jackson's own parser. */
    static final class Refused extends IOException {
        private static final long serialVersionUID = 1L;

        Refused() {
            super("the skim over a skipped value stopped; the text is read again by Jackson's own parser");
        }
    }

    /**
     * A factory whose parsers over bytes skim: UTF-8 input without a byte-order mark (what kubectl writes) gets a
     * {@link Parser}; any other input (a mark, UTF-16 or UTF-32) Jackson's own parser, as {@link JsonFactory} makes it.
     */
    static final class Factory extends JsonFactory {
        private static final long serialVersionUID = 1L;

        @Override
        protected JsonParser _createParser(InputStream in, IOContext ctxt) throws IOException {
            // Jackson's ByteSourceJsonBootstrapper tells the encoding by the first four bytes; with no zero byte
            // among them and an ASCII first byte it is UTF-8 without a mark, and the parser it makes is this one's
            // superclass over the same bytes, from the first.
            byte[] buffer = ctxt.allocReadIOBuffer();
            int n = 0;
            while (n < 4) {
                int count = in.read(buffer, n, buffer.length - n);
                if (count < 0) {
                    break;
                }
                n += count;
            }
            boolean plain = n > 0 && buffer[0] > 0;
            for (int i = 0; i < Math.min(n, 4); i++) {
                plain &= buffer[i] != 0;
            }
            if (plain) {
                return new Parser(ctxt, _parserFeatures, in, _objectCodec, _byteSymbolCanonicalizer.makeChild(
                        _factoryFeatures), buffer, n);
            }
            byte[] head = Arrays.copyOf(buffer, n);
            ctxt.releaseReadIOBuffer(buffer);
            return super._createParser(new SequenceInputStream(new ByteArrayInputStream(head), in), ctxt);
        }
    }

    /** {@link UTF8StreamJsonParser} whose {@link #skipChildren()} skims (see the class comment). */
    static final class Parser extends UTF8StreamJsonParser {

        /**
         * The most levels of objects and lists a skimmed value may have, its own counted; deeper, Jackson's own parser
         * judges (its limit is 1,000 for the whole document).
         */
        static final int MAX_DEPTH = 200;
        /** The longest key the skim passes: Jackson refuses keys of more than 50,000 bytes, so longer ones go to it. */
        static final int MAX_KEY = 1_000;
        /** The longest number the skim passes: Jackson refuses numbers of more than 1,000 characters. */
        static final int MAX_NUMBER = 500;

        // What a byte means inside a string: 0 an ordinary ASCII character, 1 the quote, 2 a backslash, 3 a control
        // character (never allowed raw), 4-6 the lead byte of a 2-4 byte UTF-8 sequence, 7 a byte no sequence starts
        // with.
        private static final byte[] IN_STRING = new byte[256];

        static {
            for (int c = 0; c < 0x20; c++) {
                IN_STRING[c] = 3;
            }
            IN_STRING['"'] = 1;
            IN_STRING['\\'] = 2;
            for (int c = 0x80; c < 0x100; c++) {
                IN_STRING[c] = (byte) (c >= 0xC0 && c <= 0xDF ? 4 : c >= 0xE0 && c <= 0xEF ? 5
                        : c >= 0xF0 && c <= 0xF7 ? 6 : 7);
            }
        }

        /**
         * Eight bytes of the buffer as one long, the first in the lowest bits: the skim looks at eight bytes at a time
         * where it can, which is what makes it faster than Jackson's tokens under C1 (a loop over single bytes was
         * not).
         */
        private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class,
                ByteOrder.LITTLE_ENDIAN);
        private static final long ONES = 0x0101010101010101L;
        private static final long HIGH = 0x8080808080808080L;
        private static final long SPACES = 0x2020202020202020L;

        /**
         * The high bit of each byte of {@code v} that is a quote, a backslash, a control character or not ASCII, and
         * maybe of bytes above such a one (the usual borrow of the zero-byte test): the lowest bit set is exact.
         */
        private static long special(long v) {
            long quote = v ^ 0x2222222222222222L;
            long backslash = v ^ 0x5C5C5C5C5C5C5C5CL;
            return ((quote - ONES) & ~quote | (backslash - ONES) & ~backslash | (v - SPACES) & ~v | v) & HIGH;
        }

        // What the skim expects next.
        private static final int VALUE = 0;
        private static final int VALUE_OR_CLOSE = 1;
        private static final int KEY = 2;
        private static final int KEY_OR_CLOSE = 3;
        private static final int COLON = 4;
        private static final int AFTER_VALUE = 5;

        /** Whether each open level of the skipped value is an object (else a list). */
        private final boolean[] objects = new boolean[MAX_DEPTH];

        Parser(IOContext ctxt, int features, InputStream in, com.fasterxml.jackson.core.ObjectCodec codec,
               com.fasterxml.jackson.core.sym.ByteQuadsCanonicalizer symbols, byte[] buffer, int end) {
            super(ctxt, features, in, codec, symbols, buffer, 0, end, 0, true);
        }

        @Override
        public JsonParser skipChildren() throws IOException {
            JsonToken open = _currToken;
            if (open != JsonToken.START_OBJECT && open != JsonToken.START_ARRAY) {
                return this;
            }
            boolean object = skim(open == JsonToken.START_OBJECT);
            // Where Jackson's own skip leaves the parser: at the closing bracket, its level closed.
            int ptr = _inputPtr;
            _tokenInputRow = _currInputRow;
            _tokenInputTotal = _currInputProcessed + ptr;
            _tokenInputCol = ptr - _currInputRowStart;
            _parsingContext = _parsingContext.clearAndGetParent();
            _updateToken(object ? JsonToken.END_OBJECT : JsonToken.END_ARRAY);
            return this;
        }

        /**
         * Moves past the value whose opening bracket was just read, up to and with its closing bracket; true when it
         * was an object. Line breaks are counted as Jackson counts them (CR, LF and CR LF are one each).
         */
        private boolean skim(boolean object) throws IOException {
            final boolean[] objects = this.objects;
            final byte[] buf = _inputBuffer;
            int depth = 0;
            objects[0] = object;
            int state = object ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
            int ptr = _inputPtr;
            int end = _inputEnd;
            while (true) {
                if (ptr >= end) {
                    _inputPtr = ptr;
                    if (!_loadMore()) {
                        throw refused();
                    }
                    ptr = _inputPtr;
                    end = _inputEnd;
                }
                int c = buf[ptr++];
                if (c == ' ') {
                    // Indentation: the rest of the run eight bytes at a time.
                    while (ptr + 8 <= end) {
                        long other = (long) LONGS.get(buf, ptr) ^ SPACES;
                        if (other != 0) {
                            ptr += Long.numberOfTrailingZeros(other) >>> 3;
                            break;
                        }
                        ptr += 8;
                    }
                    continue;
                }
                if (c == '\n') {
                    _currInputRow++;
                    _currInputRowStart = ptr;
                    continue;
                }
                if (c == '\t') {
                    continue;
                }
                if (c == '\r') {
                    _inputPtr = ptr;
                    if (_inputPtr < _inputEnd || _loadMore()) {
                        if (buf[_inputPtr] == '\n') {
                            _inputPtr++;
                        }
                    }
                    ptr = _inputPtr;
                    end = _inputEnd;
                    _currInputRow++;
                    _currInputRowStart = ptr;
                    continue;
                }
                switch (state) {
                    case KEY_OR_CLOSE, KEY -> {
                        if (c == '"') {
                            _inputPtr = ptr;
                            string(MAX_KEY);
                            ptr = _inputPtr;
                            end = _inputEnd;
                            state = COLON;
                        } else if (c == '}' && state == KEY_OR_CLOSE) {
                            if (depth == 0) {
                                _inputPtr = ptr;
                                return true;
                            }
                            depth--;
                            state = AFTER_VALUE;
                        } else {
                            throw refused();
                        }
                    }
                    case COLON -> {
                        if (c != ':') {
                            throw refused();
                        }
                        state = VALUE;
                    }
                    case AFTER_VALUE -> {
                        boolean inObject = objects[depth];
                        if (c == ',') {
                            state = inObject ? KEY : VALUE;
                        } else if (c == (inObject ? '}' : ']')) {
                            if (depth == 0) {
                                _inputPtr = ptr;
                                return inObject;
                            }
                            depth--;
                        } else {
                            throw refused();
                        }
                    }
                    default -> { // VALUE, VALUE_OR_CLOSE
                        if (c == '"') {
                            _inputPtr = ptr;
                            string(Integer.MAX_VALUE);
                            ptr = _inputPtr;
                            end = _inputEnd;
                            state = AFTER_VALUE;
                        } else if (c == '{' || c == '[') {
                            if (++depth == MAX_DEPTH) {
                                throw refused();
                            }
                            objects[depth] = c == '{';
                            state = c == '{' ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
                        } else if (c == ']' && state == VALUE_OR_CLOSE) {
                            if (depth == 0) {
                                _inputPtr = ptr;
                                return false;
                            }
                            depth--;
                            state = AFTER_VALUE;
                        } else {
                            _inputPtr = ptr;
                            if (c == '-' || (c >= '0' && c <= '9')) {
                                number(c);
                            } else if (c == 't') {
                                word("rue");
                            } else if (c == 'f') {
                                word("alse");
                            } else if (c == 'n') {
                                word("ull");
                            } else {
                                throw refused();
                            }
                            ptr = _inputPtr;
                            end = _inputEnd;
                            state = AFTER_VALUE;
                        }
                    }
                }
            }
        }

        /**
         * Past the rest of a string whose opening quote was read; refused when it has more than {@code most} bytes
         * (escapes counted as one).
         */
        private void string(int most) throws IOException {
            final byte[] buf = _inputBuffer;
            final byte[] kinds = IN_STRING;
            int ptr = _inputPtr;
            int end = _inputEnd;
            int mark = ptr;
            long length = 0; // bytes before mark
            while (true) {
                if (ptr >= end) {
                    length += ptr - mark;
                    _inputPtr = ptr;
                    if (!_loadMore()) {
                        throw refused();
                    }
                    ptr = _inputPtr;
                    mark = ptr;
                    end = _inputEnd;
                }
                // Eight bytes at a time up to the first that may end the string or need a look of its own.
                while (ptr + 8 <= end) {
                    long special = special((long) LONGS.get(buf, ptr));
                    if (special != 0) {
                        ptr += Long.numberOfTrailingZeros(special) >>> 3;
                        break;
                    }
                    ptr += 8;
                }
                if (ptr >= end) {
                    continue;
                }
                int kind = kinds[buf[ptr++] & 0xFF];
                if (kind == 0) {
                    continue;
                }
                length += ptr - mark;
                _inputPtr = ptr;
                if (kind == 1) {
                    if (length - 1 > most) { // the closing quote is no part of the string
                        throw refused();
                    }
                    return;
                }
                if (kind == 2) {
                    int e = next();
                    if (e == 'u') {
                        for (int i = 0; i < 4; i++) {
                            int h = next();
                            if (!(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F')) {
                                throw refused();
                            }
                        }
                    } else if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' && e != 'r'
                            && e != 't') {
                        throw refused();
                    }
                } else if (kind >= 4 && kind <= 6) {
                    // As Jackson's skip checks a sequence: each byte after the lead one is 10xxxxxx.
                    for (int i = kind - 3; i > 0; i--) {
                        if ((next() & 0xC0) != 0x80) {
                            throw refused();
                        }
                    }
                } else {
                    throw refused(); // a control character or a byte no UTF-8 sequence starts with
                }
                ptr = _inputPtr;
                mark = ptr;
                end = _inputEnd;
            }
        }

        /** The next byte (0-255), loading more input when needed. */
        private int next() throws IOException {
            if (_inputPtr >= _inputEnd && !_loadMore()) {
                throw refused();
            }
            return _inputBuffer[_inputPtr++] & 0xFF;
        }

        /** The next byte without moving past it, or -1 at the end of the input. */
        private int peek() throws IOException {
            if (_inputPtr >= _inputEnd && !_loadMore()) {
                return -1;
            }
            return _inputBuffer[_inputPtr] & 0xFF;
        }

        /** Past the rest of a number whose first character {@code first} was read, as JSON writes numbers. */
        private void number(int first) throws IOException {
            int length = 1;
            int c = first;
            if (c == '-') {
                c = next();
                length++;
                if (c < '0' || c > '9') {
                    throw refused();
                }
            }
            if (c == '0') {
                int d = peek();
                if (d >= '0' && d <= '9') {
                    throw refused(); // a leading zero
                }
            } else {
                length += digits();
            }
            if (peek() == '.') {
                _inputPtr++;
                int n = digits();
                if (n == 0) {
                    throw refused();
                }
                length += n + 1;
            }
            int e = peek();
            if (e == 'e' || e == 'E') {
                _inputPtr++;
                int sign = peek();
                if (sign == '+' || sign == '-') {
                    _inputPtr++;
                }
                int n = digits();
                if (n == 0) {
                    throw refused();
                }
                length += n + 2;
            }
            if (length > MAX_NUMBER) {
                throw refused();
            }
        }

        /** Past the decimal digits that follow; how many. */
        private int digits() throws IOException {
            int n = 0;
            for (int d = peek(); d >= '0' && d <= '9'; d = peek()) {
                _inputPtr++;
                n++;
            }
            return n;
        }

        /** Past {@code rest}, the rest of true, false or null. */
        private void word(String rest) throws IOException {
            for (int i = 0; i < rest.length(); i++) {
                if (next() != rest.charAt(i)) {
                    throw refused();
                }
            }
        }

        private static Refused refused() {
            return new Refused();
        }
    }
}
