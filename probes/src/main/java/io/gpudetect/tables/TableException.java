package io.gpudetect.tables;

/** An id table that cannot be read or is not in its format; the message is one line for the user. */
public final class TableException extends Exception {

    public TableException(String message) {
        super(message);
    }
}
