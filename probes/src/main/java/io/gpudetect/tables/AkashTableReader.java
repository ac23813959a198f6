package io.gpudetect.tables;

import io.gpudetect.source.IoFailure;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Where Akash's GPU table is read from, as {@code --akash-table} says: a file, a URL, {@code none}, or by default
 * the address Akash's inventory operator reads ({@code <--provider-configs-url>/devices/gpus}, its default
 * provider-configs URL being {@value #OPERATOR_PROVIDER_CONFIGS}). gpu-detect ships no copy of the table: what a
 * provider's labels say is what the operator reads today, not what a build once took.
 *
 * <p>A table read from a URL is kept in the cache folder and read from there for a day, so a one-shot command
 * touches the network at most daily and a host that loses its network keeps naming cards as before. A fetch has a
 * short time limit and never fails the command: without a table the models are named by gpu-detect's own rules
 * and one info line says so ({@link AkashGpus#absent}).
 */
public final class AkashTableReader {

    /** The inventory operator's default {@code --provider-configs-url} ({@code defaultProviderConfigsURL}). */
    public static final String OPERATOR_PROVIDER_CONFIGS = "https://provider-configs.akash.network";
    /** {@code --akash-table none}: no table, and no network (an air-gapped host that wants no wait). */
    public static final String NONE = "none";
    /** How long a cached copy is used before it is fetched again. */
    static final Duration MAX_AGE = Duration.ofDays(1);
    /**
     * How long after a failed fetch the next command tries again: a host without a network would otherwise wait on
     * it at every start. The failure is kept beside the cache ({@code <cache>.failed}, its reason and time inside).
     */
    static final Duration RETRY_AFTER = Duration.ofHours(1);

    /** The table's text and where it came from, for errors and the output. */
    public record Text(String json, String origin) {
    }

    private final Path cacheDir;
    private final Duration timeout;
    private final Clock clock;

    /**
     * @param cacheDir where fetched tables are kept (created when first needed); null keeps none
     * @param timeout  the most a fetch may take, connecting and reading together
     */
    public AkashTableReader(Path cacheDir, Duration timeout, Clock clock) {
        this.cacheDir = cacheDir;
        this.timeout = timeout;
        this.clock = clock;
    }

    /** {@code $XDG_CACHE_HOME/gpu-detect}, else {@code $HOME/.cache/gpu-detect}; null when neither is set. */
    public static Path defaultCacheDir(Map<String, String> env) {
        String xdg = env.get("XDG_CACHE_HOME");
        if (xdg != null && !xdg.isBlank()) {
            return Path.of(xdg, "gpu-detect");
        }
        String home = env.get("HOME");
        return home == null || home.isBlank() ? null : Path.of(home, ".cache", "gpu-detect");
    }

    /** The address the operator reads for a provider-configs URL ({@code registryLoader}, {@code cmd.go}). */
    public static String tableUrl(String given) {
        if (given.endsWith(".json") || given.endsWith("/devices/gpus")) {
            return given;
        }
        String base = given;
        while (base.endsWith("/")) {
            base = base.substring(0, base.length() - 1);
        }
        return base + "/devices/gpus";
    }

    public static boolean isUrl(String given) {
        String lower = given.toLowerCase(Locale.ROOT);
        return lower.startsWith("http://") || lower.startsWith("https://");
    }

    /**
     * The table as {@code --akash-table} names it: null for the operator's address, {@code none}, a file or a URL.
     * A URL that cannot be fetched falls back to its cached copy however old; with none the table is absent, and
     * the returned table says why.
     *
     * @throws TableException a named file that cannot be read or is not a GPU table: input the user gave, which
     *                        gets one line rather than a silent fallback (a URL that answers badly falls back)
     */
    public AkashGpus read(String given) throws TableException {
        Text text = text(given);
        return text.json() == null ? AkashGpus.absent(text.origin()) : AkashGpus.parse(text.json(), text.origin());
    }

    /**
     * {@link #read} of {@code given}, kept in memory and read again once the copy is a day old (an hour where there was
     * none), for a process that runs for weeks, as the operator re-reads its registry: {@code gpu-detect agent}. A URL
     * that fails, or a cached file that is no table, leaves the table absent with the reason, never an error.
     */
    public Supplier<AkashGpus> refreshing(String given) {
        return new Supplier<>() {
            private AkashGpus table;
            private Instant readAt;

            @Override
            public synchronized AkashGpus get() {
                Instant now = clock.instant();
                Duration keep = table != null && table.present() ? MAX_AGE : RETRY_AFTER;
                if (table == null || Duration.between(readAt, now).compareTo(keep) >= 0) {
                    try {
                        table = read(given);
                    } catch (TableException e) {
                        table = AkashGpus.absent(e.getMessage());
                    }
                    readAt = now;
                }
                return table;
            }
        };
    }

    /** The text {@link #read} parses; {@code json} null when there is none, and {@code origin} then says why. */
    public Text text(String given) throws TableException {
        if (NONE.equals(given)) {
            return new Text(null, "--akash-table none");
        }
        if (given != null && !isUrl(given)) {
            Path file = Path.of(given);
            try {
                return new Text(IoFailure.readText(file), file.toString());
            } catch (IOException e) {
                throw new TableException("cannot read the Akash GPU table " + IoFailure.ofFile(e, file));
            } catch (RuntimeException e) {
                throw new TableException("cannot read the Akash GPU table " + file + ": " + describe(e));
            }
        }
        String url = tableUrl(given == null ? OPERATOR_PROVIDER_CONFIGS : given);
        Path cached = cacheDir == null ? null : cacheDir.resolve(cacheName(url));
        Instant fetchedAt = modified(cached);
        if (fetchedAt != null && Duration.between(fetchedAt, clock.instant()).compareTo(MAX_AGE) < 0) {
            String json = readOrNull(cached);
            if (json != null) {
                return new Text(json, url + " (cached " + cached + ")");
            }
        }
        Path failed = cached == null ? null : cached.resolveSibling(cached.getFileName() + ".failed");
        Instant failedAt = modified(failed);
        String failure = failedAt == null || Duration.between(failedAt, clock.instant()).compareTo(RETRY_AFTER) >= 0 ? null
                : readOrNull(failed);
        if (failure != null) {
            failure = failureLine(failure, failedAt);
        } else {
            try {
                String json = fetch(url);
                AkashGpus.parse(json, url);   // a broken answer must not replace a good cached copy
                store(cached, json);
                delete(failed);
                return new Text(json, url);
            } catch (TableException e) {
                failure = e.getMessage();
                // The times written with the reason, so that the starts of the next hour, which read this note, need
                // not format them (java.time's formatters: ~5 ms of an offline host's every start).
                Instant at = clock.instant().truncatedTo(ChronoUnit.SECONDS);
                store(failed, failure + "\n" + at + "\n" + at.plus(RETRY_AFTER) + "\n");
            }
        }
        String stale = fetchedAt == null ? null : readOrNull(cached);
        if (stale != null) {
            return new Text(stale, url + " (cached " + cached + " of " + fetchedAt + "; refreshing failed: " + failure + ")");
        }
        return new Text(null, failure + (cached == null ? "" : "; no copy cached in " + cached));
    }

    /**
     * {@code <reason> (at <time>; not tried again before <time>)} from a failure note: its first line, and the times
     * its next two lines hold, else (a note an older gpu-detect wrote) the file's own time.
     */
    private static String failureLine(String note, Instant failedAt) {
        String[] lines = note.strip().split("\n");
        if (lines.length < 3) {
            return lines[0].strip() + " (at " + failedAt.truncatedTo(ChronoUnit.SECONDS) + "; not tried again before "
                    + failedAt.plus(RETRY_AFTER).truncatedTo(ChronoUnit.SECONDS) + ")";
        }
        return lines[0].strip() + " (at " + lines[1].strip() + "; not tried again before " + lines[2].strip() + ")";
    }

    /** The default address keeps the plain name; any other gets its own file, told apart by a hash of the URL. */
    static String cacheName(String url) {
        return url.equals(tableUrl(OPERATOR_PROVIDER_CONFIGS)) ? "akash-gpus.json"
                : "akash-gpus-" + Integer.toHexString(url.hashCode()) + ".json";
    }

    private String fetch(String url) throws TableException {
        try {
            HttpClient client = HttpClient.newBuilder().connectTimeout(timeout)
                    .followRedirects(HttpClient.Redirect.NORMAL).build();
            HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(timeout).GET().build();
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            if (response.statusCode() != 200) {
                throw new TableException(url + " answered HTTP " + response.statusCode() + "; expected 200 with the GPU table");
            }
            return response.body();
        } catch (IOException | RuntimeException e) {
            throw new TableException("cannot fetch Akash's GPU table from " + url + ": " + networkFailure(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TableException("interrupted while fetching Akash's GPU table from " + url);
        }
    }

    /** Written whole or not at all, so a reader never sees half a table. A cache that cannot be written is no fault. */
    private static void store(Path cached, String json) {
        if (cached == null) {
            return;
        }
        try {
            Files.createDirectories(cached.getParent());
            Path partial = Files.createTempFile(cached.getParent(), cached.getFileName().toString(), ".partial");
            Files.writeString(partial, json, StandardCharsets.UTF_8);
            Files.move(partial, cached, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            // A read-only home (a container) still gets the table, fetched at each start.
        }
    }

    private static void delete(Path file) {
        try {
            if (file != null) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            // A stale failure note only delays the next fetch by an hour.
        }
    }

    private static Instant modified(Path file) {
        try {
            return file == null ? null : Files.getLastModifiedTime(file).toInstant();
        } catch (IOException e) {
            return null;
        }
    }

    private static String readOrNull(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Why a fetch failed, in words: the HTTP client's exceptions often carry no message ({@code ConnectException}
     * alone said nothing to a user, and named a Java class).
     */
    String networkFailure(Exception e) {
        String message = null;
        for (Throwable c = e; c != null; c = c.getCause()) {
            String m = c.getMessage() == null ? "" : c.getMessage().replace('\n', ' ').strip();
            if (c instanceof java.net.http.HttpConnectTimeoutException) {
                return "no connection within " + timeoutWords();
            }
            if (c instanceof java.net.http.HttpTimeoutException) {
                return "no answer within " + timeoutWords();
            }
            if (c instanceof java.net.ConnectException) {
                return "connection refused";
            }
            if (c instanceof java.net.UnknownHostException) {
                return "unknown host" + (m.isEmpty() ? "" : " " + m);
            }
            if (c instanceof javax.net.ssl.SSLException) {
                return "TLS failure" + (m.isEmpty() ? "" : ": " + m);
            }
            if (c instanceof IllegalArgumentException) {
                return "not a URL it can fetch" + (m.isEmpty() ? "" : " (" + m + ")");
            }
            if (message == null && !m.isEmpty()) {
                message = m;
            }
        }
        return message == null ? "the connection failed" : message;
    }

    private String timeoutWords() {
        long ms = timeout.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
    }

    private static String describe(Exception e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? IoFailure.inWords(e) : m.replace('\n', ' ');
    }
}
