package io.gpudetect.cli;

import io.gpudetect.source.IoFailure;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * The agent's settings from outside its command line: the {@code --config} properties file and the
 * {@code GPU_DETECT_*} environment variables. A key or variable the agent does not know is refused, naming it,
 * where it stands and the known one it is closest to: {@code intervl=5s} read quietly as nothing would leave the
 * agent at its default interval with no word of why.
 */
final class AgentConfigFile {

    /** Every key the agent reads from its config file. */
    static final List<String> KEYS = List.of("profiles", "akash-operator", "prefix", "interval", "refresh", "heartbeat",
            "startup-jitter", "min-trigger-interval", "nfd-output", "nvidia-mig-strategy", "nvidia-sharing",
            "nvidia-replicas", "health-condition", "health-events", "health-taint", "device-taints");

    /** The prefix of gpu-detect's own environment variables. */
    static final String ENV_PREFIX = "GPU_DETECT_";

    /**
     * Every {@code GPU_DETECT_*} variable something of gpu-detect reads: the agent ({@code PROFILES},
     * {@code AKASH_OPERATOR}, {@code HEALTH_CONDITION}, {@code HEALTH_EVENTS}, {@code HEALTH_TAINT},
     * {@code DEVICE_TAINTS}), its detection ({@code DRIVER_ROOT}, {@code AKASH_TABLE}), the launcher
     * ({@code JAVA_OPTS}), the records files of {@code inventory}, {@code match} and {@code akash}
     * ({@code YAML_LIMIT_MIB}), the build and the tests ({@code RUNTIME_JMODS}, {@code SHARED}): a variable set for
     * one of them is no typo where the agent runs.
     */
    static final Set<String> VARIABLES = Set.of(AgentCommand.ENV_PROFILES, AgentCommand.ENV_AKASH_OPERATOR,
            AgentCommand.ENV_HEALTH_CONDITION, AgentCommand.ENV_HEALTH_EVENTS, AgentCommand.ENV_HEALTH_TAINT,
            AgentCommand.ENV_DEVICE_TAINTS,
            HostOptions.DRIVER_ROOT_VARIABLE, HostOptions.AKASH_TABLE_VARIABLE, "GPU_DETECT_JAVA_OPTS",
            RecordInput.YAML_LIMIT_VARIABLE, "GPU_DETECT_RUNTIME_JMODS", "GPU_DETECT_RUNTIME_JMODS_AARCH64",
            "GPU_DETECT_SHARED");

    private AgentConfigFile() {
    }

    /**
     * The settings in {@code file}.
     *
     * @throws IllegalArgumentException the file cannot be read, or a line sets a key the agent does not know
     */
    static Properties read(Path file) {
        String text;
        try {
            text = IoFailure.readText(file);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read config file " + IoFailure.ofFile(e, file));
        }
        String[] lines = text.split("\r\n|\r|\n", -1);
        boolean continued = false;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].stripLeading();
            boolean continuation = continued;
            continued = endsWithOddBackslashes(line);
            if (continuation || line.isEmpty() || line.startsWith("#") || line.startsWith("!")) {
                continue;
            }
            String key = key(line);
            if (!KEYS.contains(key)) {
                throw new IllegalArgumentException(file + ":" + (i + 1) + ": unknown key '" + key + "'"
                        + suggestion(key, KEYS) + "; the keys are " + String.join(", ", KEYS));
            }
        }
        Properties p = new Properties();
        try {
            p.load(new StringReader(text));
        } catch (IOException | IllegalArgumentException e) {
            // A malformed \\uXXXX escape: Properties says only that, with no line.
            throw new IllegalArgumentException(file + ": " + e.getMessage());
        }
        return p;
    }

    /**
     * Refuses a {@code GPU_DETECT_*} variable in {@code env} that nothing of gpu-detect reads.
     *
     * @throws IllegalArgumentException naming the first such variable (by name) and the known one closest to it
     */
    static void checkEnvironment(Map<String, String> env) {
        for (String name : new TreeSet<>(env.keySet())) {
            if (name.startsWith(ENV_PREFIX) && !VARIABLES.contains(name)) {
                throw new IllegalArgumentException("environment variable " + name + ": unknown"
                        + suggestion(name, VARIABLES) + "; gpu-detect reads " + String.join(", ", new TreeSet<>(VARIABLES)));
            }
        }
    }

    /** A properties line's key: up to the first {@code =}, {@code :} or blank that no backslash escapes. */
    private static String key(String line) {
        StringBuilder key = new StringBuilder();
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\\' && i + 1 < line.length()) {
                key.append(line.charAt(++i));
            } else if (c == '=' || c == ':' || Character.isWhitespace(c)) {
                break;
            } else {
                key.append(c);
            }
        }
        return key.toString();
    }

    private static boolean endsWithOddBackslashes(String line) {
        int n = 0;
        for (int i = line.length() - 1; i >= 0 && line.charAt(i) == '\\'; i--) {
            n++;
        }
        return n % 2 == 1;
    }

    /** {@code " (did you mean interval?)"} for the known name closest to {@code given}; empty when none is close. */
    static String suggestion(String given, Collection<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String k : known) {
            int d = distance(given.toLowerCase(Locale.ROOT), k.toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                best = k;
                bestDistance = d;
            }
        }
        // Within a third of the name's length: a typo, not a different word.
        return best != null && bestDistance <= Math.max(2, best.length() / 3) ? " (did you mean " + best + "?)" : "";
    }

    /** Levenshtein distance: insertions, deletions and substitutions. */
    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
