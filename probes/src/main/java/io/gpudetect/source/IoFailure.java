package io.gpudetect.source;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.Locale;

/**
 * A file operation's failure in the words of the C library ({@code permission denied}, {@code read-only file
 * system}) and the file it concerned: Java's {@link AccessDeniedException} has only the path as its message,
 * which on its own tells a user nothing.
 */
public final class IoFailure {

    private IoFailure() {
    }

    /** Why the operation failed, lower case: {@code permission denied}, {@code no space left on device}. */
    public static String reason(IOException e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof NoSuchFileException) {
            return "no such file or folder";
        }
        if (e instanceof NotDirectoryException) {
            return "not a folder";
        }
        if (e instanceof FileAlreadyExistsException) {
            return "already exists";
        }
        if (e instanceof DirectoryNotEmptyException) {
            return "folder not empty";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return lowerFirst(f.getReason());
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : lowerFirst(e.getMessage());
    }

    /** {@code FILE: reason}, FILE being the one the system named (a parent folder, for example), else {@code fallback}. */
    public static String describe(IOException e, Object fallback) {
        Object file = e instanceof FileSystemException f && f.getFile() != null ? f.getFile() : fallback;
        return file + ": " + reason(e);
    }

    private static String lowerFirst(String s) {
        if (s.length() > 1 && Character.isUpperCase(s.charAt(0)) && Character.isLowerCase(s.charAt(1))) {
            return s.substring(0, 1).toLowerCase(Locale.ROOT) + s.substring(1);
        }
        return s;
    }
}
