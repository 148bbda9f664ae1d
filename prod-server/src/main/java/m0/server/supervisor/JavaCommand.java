package m0.server.supervisor;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * How a worker JVM is started: this JVM's own java binary and class path, the worker's JVM
 * options (the defaults, then {@code --worker-heap} and {@code --worker-java-opts}, which add to
 * them: {@link #workerOptions}), and its main class after.
 *
 * <p>Class-data sharing (docs/adr/0011, 0027): the launcher names the archive in the system
 * property {@value #CDS_PROPERTY} when it exists and is newer than the jar; its options go
 * before the JVM options, so a {@code --worker-java-opts} with {@code -Xshare:off} or another
 * archive wins. {@value #CDS_LIST_PROPERTY} is the build's training run: the worker lists the
 * classes it loads there instead, for the static archive the training dumps afterwards.
 */
public final class JavaCommand {

    /**
     * Sized from measurement (docs/adr/0011): a hello worker allocates ~170 bytes a request and
     * keeps ~2 MB live, so an 8 MB initial heap (its young generation ~2.7 MB) is plenty and
     * grows on demand up to 512 MB for an app that needs it. The trimmer hands back what C2's
     * warm-up freed to malloc (~30 MB a worker, else kept by glibc). Serial GC: one loop thread.
     * No trap-based speculation in C2 (docs/adr/0047): a branch the load has not taken yet (share
     * balancing after a spell of keeping, the first close after keep-alive) is compiled, not left
     * to an uncommon trap, so a change of load shape does not throw the loop back to the
     * interpreter and recompile it on the cores the load needs.
     */
    static final String DEFAULT_OPTS = "-XX:+UseSerialGC -Xms8m -Xss256k -XX:-UsePerfData"
            + " -XX:TrimNativeHeapInterval=1000 -XX:PerMethodTrapLimit=0";

    /**
     * The workers' JVM options: {@link #DEFAULT_OPTS}, {@code -Xmx} of {@code --worker-heap} (512m
     * by default), then {@code --worker-java-opts}, which add to the defaults and win where they
     * set the same (the JVM takes the last of a repeated option), never drop them.
     */
    static String workerOptions(String heap, String more) {
        return DEFAULT_OPTS + " -Xmx" + heap + (more == null || more.isBlank() ? "" : " " + more.strip());
    }

    /** The class-data archive (set by the launcher when the file is there and fresh). */
    static final String CDS_PROPERTY = "m0.cds.worker";
    /** The training run: the worker lists the classes it loads in this file. */
    static final String CDS_LIST_PROPERTY = "m0.cds.worker.classlist";
    /** Where jffi loads its native library from (the launcher's directory beside the jar). */
    private static final List<String> PASSED_ON = List.of("jffi.extract.dir", "jffi.boot.library.path");

    /**
     * Map the archive where it was dumped: JDK 17.0.15 relocates it by default
     * (ArchiveRelocationMode=1), which writes every page and so copies ~14 MB of archive into
     * each JVM's private memory; mapped in place the pages stay clean and shared by all JVMs.
     */
    static final List<String> CDS_MAPPING = List.of("-XX:+UnlockDiagnosticVMOptions", "-XX:ArchiveRelocationMode=0");

    private JavaCommand() {
    }

    /**
     * The java binary {@code process} runs (its executable, as the kernel names it), or this
     * JDK's when that cannot be read: a worker runs its supervisor's, and the class-data dump the
     * launcher's (the archive must be dumped by the JVM that maps it). No environment read.
     */
    public static String javaOf(ProcessHandle process) {
        return process.info().command().orElse(System.getProperty("java.home") + "/bin/java");
    }

    /** {@code javaOpts}: the worker JVM's options, whitespace-separated. */
    static List<String> workerPrefix(String javaOpts) {
        return workerPrefix(List.of(), javaOpts);
    }

    /**
     * {@code placed}: options the server's placement needs (ADR 0058), before {@code javaOpts},
     * the operator's, which win where they set the same.
     */
    static List<String> workerPrefix(List<String> placed, String javaOpts) {
        List<String> argv = new ArrayList<>();
        argv.add(javaOf(ProcessHandle.current()));
        argv.addAll(cdsOptions(archiveInUse() ? System.getProperty(CDS_PROPERTY) : null,
                System.getProperty(CDS_LIST_PROPERTY)));
        argv.addAll(placed);
        for (String o : javaOpts.trim().split("\\s+")) {
            if (!o.isEmpty()) {
                argv.add(o);
            }
        }
        for (String p : PASSED_ON) {
            String v = System.getProperty(p);
            if (v != null) {
                argv.add("-D" + p + "=" + v);
            }
        }
        argv.add("-cp");
        argv.add(System.getProperty("java.class.path"));
        return argv;
    }

    /**
     * Whether this JVM maps class data ("sharing" in {@code java.vm.info}). JDK 17 rejects an
     * archive it was given (another JDK, the jar moved: the class path no longer matches) without
     * a word, and then shares nothing, not even the JDK's own archive.
     */
    static boolean archiveInUse() {
        return System.getProperty("java.vm.info", "").contains("sharing");
    }

    /**
     * The one line for an archive the launcher passed and this JVM rejected; null when there is
     * none to say. Its workers then start without it, on the JDK's own archive.
     */
    static String rejectedArchive() {
        String archive = System.getProperty(CDS_PROPERTY);
        return archive == null || archive.isBlank() || archiveInUse() ? null
                : "m0serve: class-data archive not usable by this JVM (another JDK, or the jar moved), starting without it: "
                        + archive;
    }

    /**
     * The archive's options: list the loaded classes when training, else use the archive if it
     * is still there. A missing file is skipped here: JDK 17 given a missing
     * -XX:SharedArchiveFile silently turns off sharing altogether, the JDK's own archive included.
     */
    static List<String> cdsOptions(String archive, String classList) {
        List<String> o = new ArrayList<>();
        if (classList != null && !classList.isBlank()) {
            o.add("-XX:DumpLoadedClassList=" + classList);
            return o;
        }
        if (archive != null && !archive.isBlank() && Files.isReadable(Path.of(archive))) {
            o.add("-XX:SharedArchiveFile=" + archive);
            o.addAll(CDS_MAPPING);
        }
        return o;
    }
}
