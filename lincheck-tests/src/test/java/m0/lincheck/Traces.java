package m0.lincheck;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import m0.core.PageLayout;

/** Lincheck's failure report: kept whole under target/, and cut to the port accesses for the log. */
final class Traces {

    /** Where a row's call was made: " at Class.method(File.java:N)". */
    private static final Pattern AT = Pattern.compile(" at ([A-Za-z0-9$.]+)\\(([A-Za-z0-9]+\\.java:\\d+)\\)");
    /** A page access as Lincheck prints it: page.op(word, ...). */
    private static final Pattern PAGE_CALL = Pattern.compile("^page\\.(\\w+)\\((\\d+)(.*)$");
    /** A port reached through fields, as a mutant does: w.actor.page.op(...). */
    private static final Pattern PORT_PREFIX = Pattern.compile("^(?:\\w+\\.)+?(page|channel)\\.");
    /** Protocol steps the scenarios and workers call, shown as they happen. */
    private static final String[] STEPS = {
        "share.", "w.share.", "supervisor.", "drain.step", "replacement.share", "Mutants.", "w.kill", "w.die",
        "w.reaped", "world.serve", "w.closeUnserved", "world.closeUnserved", "w.closeNoSibling"
    };

    private Traces() {
    }

    /** Writes the whole report to {@code target/lincheck-traces/<name>.txt}; returns the path. */
    static Path save(String name, String report) {
        Path dir = Path.of("target", "lincheck-traces");
        try {
            Files.createDirectories(dir);
            Path file = dir.resolve(name + ".txt");
            Files.writeString(file, report);
            return file;
        } catch (IOException e) {
            throw new IllegalStateException("cannot save the trace of " + name, e);
        }
    }

    /** The first line that names the broken rule. */
    static String violation(String report) {
        for (String line : report.split("\n")) {
            if (line.startsWith("java.lang.AssertionError: ")) {
                return line.substring("java.lang.AssertionError: ".length());
            }
        }
        return "(no assertion in the report)";
    }

    /**
     * The detailed trace cut to what tells the story: each thread's protocol steps, the core's
     * (or the mutant's) page and channel accesses with the words named, and every thread
     * switch; the harness's own bookkeeping and the set-up before the first switch are left out.
     */
    static List<String> excerpt(String report, int maxLines) {
        List<String> out = new ArrayList<>();
        int at = report.indexOf("Detailed trace:");
        if (at < 0) {
            return out;
        }
        String[] threads = null;
        boolean concurrent = false;
        for (String row : report.substring(at).split("\n")) {
            if (!row.startsWith("|") || row.startsWith("| ---")) {
                continue;
            }
            String[] cells = row.split("\\|", -1);
            if (threads == null) {
                threads = new String[cells.length];
                for (int k = 0; k < cells.length; k++) {
                    threads[k] = cells[k].trim();
                }
                continue;
            }
            for (int k = 1; k < cells.length - 1; k++) {
                String cell = cells[k].strip();
                if (cell.isEmpty()) {
                    continue;
                }
                if (cell.startsWith("switch")) {
                    concurrent = true;
                }
                String shown = concurrent ? shown(cell) : null;
                if (shown != null) {
                    out.add(String.format("  %-11s %s", k < threads.length ? threads[k] : "thread " + k, shown));
                }
            }
        }
        if (out.size() > maxLines) {
            List<String> cut = new ArrayList<>(out.subList(0, maxLines / 4));
            cut.add("  ... " + (out.size() - maxLines) + " rows ...");
            cut.addAll(out.subList(out.size() - (maxLines - maxLines / 4), out.size()));
            return cut;
        }
        return out;
    }

    /** The row as shown in the excerpt, or null when it is bookkeeping. */
    private static String shown(String cell) {
        if (cell.startsWith("switch")) {
            return "-- " + cell + " --";
        }
        Matcher where = AT.matcher(cell);
        String caller = where.find() ? where.group(1) : "";
        String file = caller.isEmpty() ? "" : where.group(2);
        String call = where.replaceAll("").strip();
        boolean harness = caller.startsWith("World") || caller.startsWith("AtomicLongArrayPage");
        call = PORT_PREFIX.matcher(call).replaceFirst("$1.");
        if ((call.startsWith("page.") || call.startsWith("channel.")) && !harness) {
            return String.format("%-52s %s", named(call), file);
        }
        for (String step : STEPS) {
            if (call.startsWith(step) && !harness) {
                return String.format("%-52s %s", call, file);
            }
        }
        return null;
    }

    /** page.getAndAdd(18, 1) becomes page.getAndAdd(pending[1], 1). */
    private static String named(String call) {
        Matcher m = PAGE_CALL.matcher(call);
        if (!m.matches()) {
            return call;
        }
        int word = Integer.parseInt(m.group(2));
        String name;
        if (word == PageLayout.ROTATION_WORD) {
            name = "rotation";
        } else if (word < PageLayout.HEADER_WORDS) {
            name = "header" + word;
        } else {
            int i = (word - PageLayout.HEADER_WORDS) / PageLayout.LINE_WORDS;
            String[] offsets = {"state", "active", "counts", "sending", "busy", "w5", "w6", "w7"};
            name = offsets[(word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS] + "[" + i + "]";
        }
        return "page." + m.group(1) + "(" + name + m.group(3);
    }
}
