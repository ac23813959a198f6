package io.gpudetect.source;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A file operation's failure in the words of the C library ({@code permission denied}, {@code read-only file
 * system}) and the file it concerned: Java's {@link AccessDeniedException} has only the path as its message,
 * which on its own tells a user nothing.
 *
 * <p>Every file a user names (an SDL, a records file, an Akash table, the agent's config, a bundle's file) is read
 * with {@link #readText} and its failure said with {@link #ofFile}: {@code FILE: no such file}, {@code FILE:
 * permission denied}, {@code FILE: is a folder}, as a bundle folder's failure is said with {@link #describe}.
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
            return plain(f.getReason());
        }
        // Reading a folder as a file fails with a bare IOException that says only "Is a directory".
        return e.getMessage() == null ? inWords(e) : plain(e.getMessage());
    }

    /**
     * Why a file the user named could not be read, lower case: {@code no such file}, {@code permission denied},
     * {@code is a folder}: {@link #reason} where a missing path is known to be a file.
     */
    public static String fileReason(IOException e) {
        return e instanceof NoSuchFileException ? "no such file" : reason(e);
    }

    /**
     * {@code FILE: reason} for a file the user named: FILE as given (or the folder on its way that the system
     * named), the reason as {@link #fileReason}.
     */
    public static String ofFile(IOException e, Path file) {
        Object named = e instanceof FileSystemException f && f.getFile() != null
                && !f.getFile().equals(file.toString()) ? f.getFile() : file;
        return named + ": " + fileReason(e);
    }

    /**
     * The whole text of a file the user named, as UTF-8. A folder is refused as such (the JDK would open it and
     * fail at the first read with no file named).
     */
    public static String readText(Path file) throws IOException {
        refuseFolder(file);
        return Files.readString(file, StandardCharsets.UTF_8);
    }

    /** A reader of a file the user named, as UTF-8, from its start; a folder is refused as {@link #readText} does. */
    public static Reader openReader(Path file) throws IOException {
        refuseFolder(file);
        return Files.newBufferedReader(file, StandardCharsets.UTF_8);
    }

    /** The JDK opens a folder as a file and fails only at the first read, naming no file: said before that. */
    private static void refuseFolder(Path file) throws FileSystemException {
        if (Files.isDirectory(file)) {
            throw new FileSystemException(file.toString(), null, "is a folder");
        }
    }

    /**
     * A failure that carries no message, named by its type in words ({@code ClosedChannelException}: "closed
     * channel"): what happened, without a Java class name in front of a user.
     */
    public static String inWords(Throwable e) {
        String bare = e.getClass().getSimpleName().replaceAll("(Exception|Error)$", "");
        String words = bare.replaceAll("([a-z0-9])([A-Z])", "$1 $2").toLowerCase(Locale.ROOT);
        return words.isBlank() ? "no reason given" : words;
    }

    private static String plain(String reason) {
        String r = lowerFirst(reason);
        return r.equals("is a directory") ? "is a folder" : r.equals("not a directory") ? "not a folder" : r;
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
