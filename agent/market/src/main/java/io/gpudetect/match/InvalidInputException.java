package io.gpudetect.match;

/**
 * Input that {@code match} or {@code inventory} cannot use: a malformed SDL, a bad {@code --gpu} request,
 * an unreadable record file, a cluster that cannot be read (unreachable, forbidden, no GpuCapacity CRD).
 * {@code path} is where in the document ({@code profiles.compute.web.resources.gpu.units}),
 * {@code line} the line in the file when the parser knows it; the message says what was expected.
 */
public final class InvalidInputException extends Exception {

    private static final long serialVersionUID = 1L;

    private final String file;
    private final String path;
    private final Integer line;
    private final String problem;

    public InvalidInputException(String file, String path, Integer line, String problem) {
        super(format(file, path, line, problem));
        this.file = file;
        this.path = path;
        this.line = line;
        this.problem = problem;
    }

    public String file() {
        return file;
    }

    public String path() {
        return path;
    }

    public Integer line() {
        return line;
    }

    public String problem() {
        return problem;
    }

    /** {@code deploy.yaml:23: profiles.compute.web.resources.gpu.units: expected ...}, parts left out when unknown. */
    static String format(String file, String path, Integer line, String problem) {
        StringBuilder s = new StringBuilder();
        if (file != null) {
            s.append(file);
            if (line != null) {
                s.append(':').append(line);
            }
            s.append(": ");
        }
        if (path != null && !path.isEmpty()) {
            s.append(path).append(": ");
        }
        return s.append(problem).toString();
    }
}
