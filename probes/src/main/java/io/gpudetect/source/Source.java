package io.gpudetect.source;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * The only way a probe touches a host. {@link LiveSource} runs tools and reads the real {@code /sys};
 * {@link BundleSource} answers the same questions from a recorded bundle folder, so a test fixture and a
 * user's bug report replay exactly as the host they came from.
 *
 * <p>Paths are absolute host paths ({@code /sys/bus/pci/devices}); a bundle maps them under its folder.
 */
public interface Source {

    /** Runs a tool (live) or returns its recorded output (bundle). Never throws. */
    ToolResult run(ToolCommand command);

    /** A small text file's content; empty when it does not exist. */
    Optional<String> readFile(String path) throws IOException;

    /**
     * The first {@code maxBytes} bytes of a file, exactly as stored (a binary file such as a PCI function's
     * {@code config}); fewer when the file is shorter or the kernel shows less of it, empty when it does not exist.
     * {@link #readFile} decodes text, which would corrupt bytes that are not UTF-8.
     */
    Optional<byte[]> readBytes(String path, int maxBytes) throws IOException;

    /**
     * The names in a directory, sorted, in a list that does not change; empty when it does not exist. A source may
     * answer the very list of an earlier call while the directory holds the same names ({@link LiveSource} does), so
     * a caller may take that list for the same names.
     */
    List<String> list(String directory) throws IOException;

    /** Where a symbolic link points, as the link says it; empty when the path is not a link. */
    Optional<String> readLink(String path) throws IOException;

    /** True when the path exists as a file, directory or link. */
    boolean exists(String path);

    /**
     * Why a file or folder the recording holds cannot be read (a bundle: permission denied, not a regular file, a
     * link out of the bundle); empty when it can be read or is not there. A live host is no recording: always empty.
     */
    default Optional<String> unreadable(String path) {
        return Optional.empty();
    }

    /** Words for messages: {@code this host} or {@code bundle /tmp/x}. */
    String describe();

    /** True for a recorded bundle: tables on the host (pci.ids) are then not consulted. */
    boolean isRecorded();

    /**
     * True where consulting a source costs the host something (a live host, where a tool loads drivers and
     * touches the tenants' GPUs): a pass then consults only what its probe plan needs. False for a bundle,
     * whose every recorded file is read.
     */
    default boolean consultsOnlyWhatIsNeeded() {
        return false;
    }
}
