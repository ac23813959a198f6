package io.gpudetect.daemonset;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The last stage of {@code daemonset/Dockerfile} (the image that ships): its base, user, entrypoint, command,
 * environment and what it copies in from which stage ({@code stages}: each stage's name and the image it starts
 * from). Only the instructions that stage uses are understood: exec-form
 * (JSON) ENTRYPOINT and CMD, ENV {@code KEY=VALUE}, COPY --from; anything else there fails the parse, so a new
 * instruction cannot pass the image check unread.
 */
record DockerfileRecipe(String from, String user, List<String> entrypoint, List<String> cmd, Map<String, String> env,
        List<Copy> copies, Map<String, String> stages) {

    /** {@code COPY --from=STAGE SOURCE DESTINATION}, with the image the stage starts from. */
    record Copy(String stage, String source, String destination) {
    }

    static final Path FILE = Chart.MODULE.resolve("Dockerfile");

    static DockerfileRecipe read() {
        try {
            return parse(Files.readString(FILE));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static DockerfileRecipe parse(String text) {
        List<String> instructions = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : text.lines().toList()) {
            String stripped = line.strip();
            if (current.isEmpty() && (stripped.isEmpty() || stripped.startsWith("#"))) {
                continue;
            }
            if (stripped.startsWith("#")) {
                continue; // a comment inside a continued instruction
            }
            if (stripped.endsWith("\\")) {
                current.append(stripped, 0, stripped.length() - 1).append(' ');
            } else {
                current.append(stripped);
                instructions.add(current.toString().strip());
                current.setLength(0);
            }
        }
        int last = -1;
        Map<String, String> stages = new LinkedHashMap<>();
        for (int i = 0; i < instructions.size(); i++) {
            if (keyword(instructions.get(i)).equals("FROM")) {
                last = i;
                String[] words = argument(instructions.get(i)).split("\\s+");
                if (words.length == 3 && words[1].equalsIgnoreCase("AS")) {
                    stages.put(words[2], words[0]);
                }
            }
        }
        if (last < 0) {
            throw new IllegalArgumentException("no FROM in the Dockerfile");
        }
        String from = argument(instructions.get(last)).split("\\s+")[0];
        String user = null;
        List<String> entrypoint = null;
        List<String> cmd = null;
        Map<String, String> env = new LinkedHashMap<>();
        List<Copy> copies = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        for (String instruction : instructions.subList(last + 1, instructions.size())) {
            String argument = argument(instruction);
            try {
                switch (keyword(instruction)) {
                    case "USER" -> user = argument;
                    case "ENTRYPOINT" -> entrypoint = json.readValue(argument, new TypeReference<List<String>>() { });
                    case "CMD" -> cmd = json.readValue(argument, new TypeReference<List<String>>() { });
                    case "ENV" -> {
                        for (String pair : argument.split("\\s+")) {
                            int eq = pair.indexOf('=');
                            if (eq <= 0) {
                                throw new IllegalArgumentException("ENV without KEY=VALUE: " + instruction);
                            }
                            env.put(pair.substring(0, eq), pair.substring(eq + 1));
                        }
                    }
                    case "COPY" -> {
                        String[] words = argument.split("\\s+");
                        if (words.length != 3 || !words[0].startsWith("--from=")) {
                            throw new IllegalArgumentException("the image check reads COPY --from=STAGE SRC DEST only: "
                                    + instruction);
                        }
                        copies.add(new Copy(words[0].substring("--from=".length()), words[1], words[2]));
                    }
                    default -> throw new IllegalArgumentException("the image check does not read " + instruction);
                }
            } catch (IOException e) {
                throw new IllegalArgumentException("not exec form (JSON): " + instruction, e);
            }
        }
        return new DockerfileRecipe(from, user, entrypoint, cmd, Map.copyOf(env), List.copyOf(copies), Map.copyOf(stages));
    }

    private static String keyword(String instruction) {
        return instruction.split("\\s+", 2)[0].toUpperCase(java.util.Locale.ROOT);
    }

    private static String argument(String instruction) {
        String[] parts = instruction.split("\\s+", 2);
        return parts.length > 1 ? parts[1].strip() : "";
    }

    /** The arguments of {@code buildah config} that give an image this stage's user, entrypoint, command and env. */
    List<String> buildahConfig() {
        ObjectMapper json = new ObjectMapper();
        List<String> args = new ArrayList<>();
        try {
            args.addAll(List.of("--user", user, "--entrypoint", json.writeValueAsString(entrypoint), "--cmd",
                    json.writeValueAsString(cmd)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        env.forEach((k, v) -> args.addAll(List.of("--env", k + "=" + v)));
        return args;
    }
}
