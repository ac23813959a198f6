package io.gpudetect.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Help.Column;
import picocli.CommandLine.Help.TextTable;
import picocli.CommandLine.Model.UsageMessageSpec;

/**
 * Help whose text wraps at spaces only, so that a URL, a path or an example can be copied from it whole.
 *
 * <p>Why: picocli wraps its help columns with the JDK's line {@link java.text.BreakIterator}, which also breaks after
 * a '.' or a '/' inside a word: {@code https://provider-configs.akash.} / {@code network/devices/gpus}, {@code ~/.} /
 * {@code cache/gpu-detect}, {@code driver>=550.} / {@code 54} (issue 35). picocli offers no other break rule, so the
 * sections made of columns (description, parameters, options, commands, exit statuses) are laid out here in tables
 * that break a line only at a space, with picocli's own columns, widths and indents. A word longer than its column
 * still has to be cut; the help's texts keep their words shorter than the narrowest column they are shown in
 * ({@code CopyableHelpTest} renders every command at several widths).
 */
final class CopyableHelp {

    private CopyableHelp() {
    }

    /** Lays out every command's help (this one and its subcommands) with {@link SpaceWrappedTable}s. */
    static void install(CommandLine cli) {
        Map<String, CommandLine.IHelpSectionRenderer> sections = new LinkedHashMap<>(cli.getHelpSectionMap());
        sections.put(UsageMessageSpec.SECTION_KEY_DESCRIPTION, CopyableHelp::description);
        sections.put(UsageMessageSpec.SECTION_KEY_PARAMETER_LIST, help -> help.parameterList(layout(help), help.parameterLabelRenderer()));
        sections.put(UsageMessageSpec.SECTION_KEY_OPTION_LIST,
                help -> help.optionList(layout(help), help.createDefaultOptionSort(), help.parameterLabelRenderer()));
        sections.put(UsageMessageSpec.SECTION_KEY_COMMAND_LIST, CopyableHelp::commandList);
        sections.put(UsageMessageSpec.SECTION_KEY_EXIT_CODE_LIST, CopyableHelp::exitCodeList);
        cli.setHelpSectionMap(sections);
        for (CommandLine sub : cli.getSubcommands().values()) {
            install(sub);
        }
    }

    /** picocli's layout for options and parameters: its columns, in a table that breaks at spaces. */
    private static Help.Layout layout(Help help) {
        Help.Layout standard = help.createDefaultLayout();
        return new Help.Layout(help.colorScheme(), SpaceWrappedTable.like(help, standard.textTable()),
                help.createDefaultOptionRenderer(), help.createDefaultParameterRenderer());
    }

    private static String description(Help help) {
        String[] lines = help.commandSpec().usageMessage().description();
        if (lines.length == 0) {
            return "";
        }
        SpaceWrappedTable table = new SpaceWrappedTable(help.colorScheme(), new Column(help.commandSpec().usageMessage().width(), 0, Column.Overflow.WRAP));
        table.indentWrappedLines = 0;
        for (String line : lines) {
            table.addRowValues(help.colorScheme().text(String.format(line)));
        }
        return table.toString();
    }

    /** As picocli's command list: each subcommand's name and the first line of its description. */
    private static String commandList(Help help) {
        Map<String, Help> subcommands = help.subcommands();
        if (subcommands.isEmpty()) {
            return "";
        }
        int nameWidth = subcommands.keySet().stream().mapToInt(String::length).max().orElse(0);
        SpaceWrappedTable table = new SpaceWrappedTable(help.colorScheme(),
                new Column(nameWidth + 2, 2, Column.Overflow.SPAN), new Column(help.commandSpec().usageMessage().width() - (nameWidth + 2), 2, Column.Overflow.WRAP));
        for (Map.Entry<String, Help> e : subcommands.entrySet()) {
            String[] description = e.getValue().commandSpec().usageMessage().description();
            table.addRowValues(e.getValue().commandNamesText(", "),
                    help.colorScheme().text(description.length == 0 ? "" : String.format(description[0])));
        }
        return table.toString();
    }

    private static String exitCodeList(Help help) {
        Map<String, String> codes = help.commandSpec().usageMessage().exitCodeList();
        if (codes.isEmpty()) {
            return "";
        }
        TextTable standard = help.createTextTable(codes);
        SpaceWrappedTable table = SpaceWrappedTable.like(help, standard);
        for (Map.Entry<String, String> e : codes.entrySet()) {
            table.addRowValues(help.colorScheme().text(String.format(e.getKey())), help.colorScheme().text(String.format(e.getValue())));
        }
        return table.toString();
    }

    /** A picocli table whose wrapping columns break lines at spaces only. */
    static final class SpaceWrappedTable extends TextTable {

        SpaceWrappedTable(Help.ColorScheme scheme, Column... columns) {
            super(scheme, columns);
        }

        /** An empty table with {@code standard}'s columns and indents. */
        static SpaceWrappedTable like(Help help, TextTable standard) {
            Column[] columns = standard.columns();
            Column[] copies = new Column[columns.length];
            for (int i = 0; i < columns.length; i++) {
                copies[i] = new Column(columns[i].width, columns[i].indent, columns[i].overflow);
            }
            SpaceWrappedTable table = new SpaceWrappedTable(help.colorScheme(), copies);
            table.indentWrappedLines = standard.indentWrappedLines;
            return table;
        }

        /**
         * One line of a cell: a wrapping column's text is cut at spaces into rows that each fit, continuation rows
         * indented as picocli indents them; a word too long for that indent hangs at the column's own indent. Text
         * with colours, and the other columns, are left to picocli.
         */
        @Override
        public Cell putValue(int row, int col, Help.Ansi.Text value) {
            Column column = columns()[col];
            String plain = value == null ? "" : value.plainString();
            if (column.overflow != Column.Overflow.WRAP || plain.isEmpty() || !plain.equals(value.toString())) {
                return super.putValue(row, col, value);
            }
            int first = column.width - column.indent;
            List<String> rows = wrap(plain, first, indentWrappedLines);
            Cell cell = null;
            for (int i = 0; i < rows.size(); i++) {
                while (row + i >= rowCount()) {
                    addEmptyRow();
                }
                cell = super.putValue(row + i, col, Help.Ansi.OFF.text(rows.get(i)));
            }
            return cell;
        }

        /** Rows of at most {@code width} characters, cut at spaces; rows after the first indented by {@code indent}. */
        static List<String> wrap(String text, int width, int indent) {
            List<String> rows = new ArrayList<>();
            StringBuilder line = new StringBuilder();
            for (String word : text.strip().split(" +")) {
                String prefix = rows.isEmpty() ? "" : " ".repeat(indent);
                if (line.length() > 0 && line.length() + 1 + word.length() <= width) {
                    line.append(' ').append(word);
                    continue;
                }
                if (line.length() > 0) {
                    rows.add(line.toString());
                    prefix = " ".repeat(indent);
                }
                line.setLength(0);
                // A word that does not fit after the indent hangs at the column's edge rather than be cut; one longer
                // than the column is cut, as nothing else can be done (and the help's test fails).
                line.append(prefix.length() + word.length() <= width ? prefix : "");
                while (line.length() + word.length() > width) {
                    int room = width - line.length();
                    rows.add(line.append(word, 0, room).toString());
                    word = word.substring(room);
                    line.setLength(0);
                }
                line.append(word);
            }
            if (line.length() > 0) {
                rows.add(line.toString());
            }
            return rows;
        }
    }
}
