package m0.server.log;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.Charset;

/**
 * Standard output and error that leave a line in one write(2). The JDK buffers them in 128 bytes,
 * so a longer line leaves in pieces; the supervisor's and every worker's lines share one stream (a
 * terminal, a pipe, journald), and two processes' pieces interleaved into garbled lines as the
 * workers started together. A line of up to PIPE_BUF (4096 bytes) is then whole on a pipe.
 */
public final class WholeLines {

    /** Room for any line m0serve writes; a longer one leaves in pieces of this. */
    static final int BUFFER = 8192;

    private WholeLines() {
    }

    /** Replaces System.out and System.err; first thing in a process's main. */
    public static void install() {
        Charset cs = Charset.defaultCharset();
        System.setOut(over(new FileOutputStream(FileDescriptor.out), cs));
        System.setErr(over(new FileOutputStream(FileDescriptor.err), cs));
    }

    /** A stream that writes {@code to} at each line's end, the line whole. */
    static PrintStream over(OutputStream to, Charset cs) {
        return new LineFlushing(to, cs);
    }

    /**
     * PrintStream's own autoflush flushes each piece a printf or println hands its buffer (the
     * text before an argument, the argument, the newline), so it flushes at the line's end only.
     */
    private static final class LineFlushing extends PrintStream {
        LineFlushing(OutputStream to, Charset cs) {
            super(new BufferedOutputStream(to, BUFFER), false, cs);
        }

        @Override
        public void write(int b) {
            super.write(b);
            if (b == '\n') {
                flush();
            }
        }

        @Override
        public void write(byte[] b, int off, int len) {
            int end = off + len;
            int lineEnd = end;
            while (lineEnd > off && b[lineEnd - 1] != '\n') {
                lineEnd--;
            }
            if (lineEnd == off) {
                super.write(b, off, len); // no line ends here: it waits for the rest of its line
                return;
            }
            super.write(b, off, lineEnd - off);
            flush();
            if (lineEnd < end) {
                super.write(b, lineEnd, end - lineEnd);
            }
        }
    }
}
