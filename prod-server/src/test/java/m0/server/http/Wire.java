package m0.server.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executor;

/** Test support: a session driven like the loop drives it, with a fake clock and a manual pool. */
final class Wire {
    final HttpSession session;
    final ManualPool pool;
    long now;
    int wakes;

    Wire(HttpConfig config, App app, boolean withPool) {
        this(config, app, withPool, null, null);
    }

    /** Parsing in {@code in} and encoding in {@code out}, scratches it may share with other wires. */
    Wire(HttpConfig config, App app, boolean withPool, Scratch in, Scratch out) {
        this.pool = withPool ? new ManualPool() : null;
        this.now = 1_000_000_000L;
        this.session = new HttpSession(config, app, pool, () -> wakes++, now, null, in, out);
    }

    static Wire of(App app) {
        return new Wire(HttpConfig.defaults(), app, false);
    }

    Wire feed(String s) {
        return feed(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    Wire feed(byte[] b) {
        // A direct buffer, as a real read would give.
        ByteBuffer in = ByteBuffer.allocateDirect(b.length);
        in.put(b).flip();
        session.onBytes(in, now);
        if (in.hasRemaining()) throw new AssertionError("onBytes left " + in.remaining() + " bytes");
        return this;
    }

    /** Everything output() has now, written in full. */
    String drain() {
        StringBuilder sb = new StringBuilder();
        ByteBuffer b;
        int guard = 0;
        while ((b = session.output()) != null) {
            if (++guard > 10_000) throw new AssertionError("output never drains");
            byte[] chunk = new byte[b.remaining()];
            b.get(chunk);
            sb.append(new String(chunk, StandardCharsets.ISO_8859_1));
            session.written(chunk.length);
        }
        return sb.toString();
    }

    /** Everything {@code s} outputs, each buffer written in full at {@code now}; fails if it never ends. */
    static byte[] drainBytes(HttpSession s, long now) {
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        ByteBuffer o;
        for (int guard = 0; (o = s.output()) != null; guard++) {
            if (guard >= 10_000) throw new AssertionError("output never drains");
            byte[] b = new byte[o.remaining()];
            o.duplicate().get(b);
            all.write(b, 0, b.length);
            s.written(b.length, now);
        }
        return all.toByteArray();
    }

    /** A parsed response. */
    record Resp(int status, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    /** Splits a byte stream of responses (each with a Content-Length unless bodyless). */
    static List<Resp> parse(String wire) {
        List<Resp> out = new ArrayList<>();
        int p = 0;
        while (p < wire.length()) {
            int end = wire.indexOf("\r\n\r\n", p);
            if (end < 0) throw new AssertionError("truncated head at " + p + ": " + wire.substring(p));
            String[] lines = wire.substring(p, end).split("\r\n");
            if (!lines[0].startsWith("HTTP/1.1 ")) throw new AssertionError("bad status line: " + lines[0]);
            int status = Integer.parseInt(lines[0].substring(9, 12));
            Map<String, String> headers = new LinkedHashMap<>();
            for (int i = 1; i < lines.length; i++) {
                int c = lines[i].indexOf(':');
                String name = lines[i].substring(0, c).toLowerCase(Locale.ROOT);
                if (headers.put(name, lines[i].substring(c + 1).trim()) != null) {
                    throw new AssertionError("duplicate header " + name);
                }
            }
            p = end + 4;
            int len = status == 100 ? 0 : Integer.parseInt(headers.getOrDefault("content-length", "0"));
            if (p + len > wire.length()) throw new AssertionError("truncated body");
            out.add(new Resp(status, headers, wire.substring(p, p + len)));
            p += len;
        }
        return out;
    }

    List<Resp> responses() {
        return parse(drain());
    }

    /** An Executor that runs nothing until told: completions in any order, no sleeps. */
    static final class ManualPool implements Executor {
        final List<Runnable> tasks = new ArrayList<>();
        final ArrayDeque<Runnable> order = new ArrayDeque<>();
        boolean reject;

        @Override
        public void execute(Runnable r) {
            if (reject) throw new java.util.concurrent.RejectedExecutionException("full");
            tasks.add(r);
        }

        void run(int index) {
            Runnable r = tasks.set(index, null);
            if (r == null) throw new AssertionError("task " + index + " already ran or never came");
            r.run();
        }

        int submitted() {
            return tasks.size();
        }
    }
}
