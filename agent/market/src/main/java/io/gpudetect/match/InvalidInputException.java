package io.gpudetect.match;

/**
 * Input that {@code match} or {@code inventory} cannot use: a malformed SDL, a bad {@code --gpu} request,
 * an unreadable record file, a cluster that cannot be read (unreachable, forbidden, no GpuCapacity CRD).
 * {@code path} is where in the document ({@code profiles.compute.web.resources.gpu.units}),
 * {@code line} the line in the file when the parser knows it, {@code column} the column on it where a syntax error
 * gives one; the message says what was expected.
 */
public final class InvalidInputException extends Exception {

    private static final long serialVersionUID = 1L;

    private final String file;
    private final String path;
    private final Integer line;
    private final Integer column;
    private final String problem;

    public InvalidInputException(String file, String path, Integer line, String problem) {
        this(file, path, line, null, problem);
    }

    public InvalidInputException(String file, String path, Integer line, Integer column, String problem) {
        super(format(file, path, line, column, problem));
        this.file = file;
        this.path = path;
        this.line = line;
        this.column = line == null ? null : column;
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

    /** The column on {@link #line()}, in characters from 1, where known. */
    public Integer column() {
        return column;
    }

    public String problem() {
        return problem;
    }

    /** {@code deploy.yaml:23: profiles.compute.web.resources.gpu.units: expected ...}, parts left out when unknown. */
    static String format(String file, String path, Integer line, String problem) {
        return format(file, path, line, null, problem);
    }

    /** As {@link #format(String, String, Integer, String)}, with the column after the line: {@code dump.json:3:17: }. */
    static String format(String file, String path, Integer line, Integer column, String problem) {
        StringBuilder s = new StringBuilder();
        if (file != null) {
            s.append(file);
            if (line != null) {
                s.append(':').append(line);
                if (column != null) {
                    s.append(':').append(column);
                }
            }
            s.append(": ");
        }
        if (path != null && !path.isEmpty()) {
            s.append(path).append(": ");
        }
        return s.append(problem).toString();
    }
}
