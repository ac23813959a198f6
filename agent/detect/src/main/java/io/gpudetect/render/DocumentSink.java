package io.gpudetect.render;

import java.io.IOException;

/**
 * Where {@link InventoryWriter} puts a document, value by value: {@link PrettyJson} for JSON, a jackson-core
 * generator for YAML ({@link #of(com.fasterxml.jackson.core.JsonGenerator)}).
 */
interface DocumentSink {

    void startObject() throws IOException;

    void endObject() throws IOException;

    void startArray() throws IOException;

    void endArray() throws IOException;

    /** The next object member's name; its value follows. */
    void name(String name) throws IOException;

    void string(String value) throws IOException;

    void number(long value) throws IOException;

    void number(double value) throws IOException;

    void bool(boolean value) throws IOException;

    void nullValue() throws IOException;

    /** A jackson-core generator (the YAML one) as a sink. */
    static DocumentSink of(com.fasterxml.jackson.core.JsonGenerator g) {
        return new DocumentSink() {
            @Override public void startObject() throws IOException { g.writeStartObject(); }
            @Override public void endObject() throws IOException { g.writeEndObject(); }
            @Override public void startArray() throws IOException { g.writeStartArray(); }
            @Override public void endArray() throws IOException { g.writeEndArray(); }
            @Override public void name(String name) throws IOException { g.writeFieldName(name); }
            @Override public void string(String value) throws IOException { g.writeString(value); }
            @Override public void number(long value) throws IOException { g.writeNumber(value); }
            @Override public void number(double value) throws IOException { g.writeNumber(value); }
            @Override public void bool(boolean value) throws IOException { g.writeBoolean(value); }
            @Override public void nullValue() throws IOException { g.writeNull(); }
        };
    }
}
