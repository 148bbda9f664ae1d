package m0.packaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.sun.security.auth.module.UnixSystem;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Debian package as an operator meets it: {@code dpkg -i} installs it (its postinst makes the
 * m0serve user and the class-data archive), {@code /usr/bin/m0serve} run as that user serves a
 * request from the installed files, SIGTERM by pid stops it and its worker, and
 * {@code dpkg --purge} leaves none of its files. Root only; under CI=true a machine that cannot
 * run it (no dpkg, not root) fails the test instead of skipping it. It never touches an m0serve
 * package it did not install.
 */
class DebianPackageIT {

    private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)/");
    private static final Path LAUNCHER = Path.of("/usr/bin/m0serve");
    private static final Path LIB = Path.of("/usr/lib/m0serve");
    private static final Path CONF = Path.of("/etc/m0serve/m0serve.conf");
    private static final List<Path> UNITS = List.of(
            Path.of("/lib/systemd/system/m0serve.service"), Path.of("/lib/systemd/system/m0serve.socket"));

    @Test
    @Timeout(300)
    void installsServesAndPurges() throws Exception {
        Path deb = Path.of(System.getProperty("m0.deb", "target/missing.deb"));
        boolean ci = "true".equals(System.getenv("CI"));
        boolean dpkg = Files.isExecutable(Path.of("/usr/bin/dpkg"));
        boolean root = new UnixSystem().getUid() == 0;
        if (!ci) {
            Assumptions.assumeTrue(dpkg && root, "installing a package needs dpkg and root");
        }
        assertTrue(dpkg, "dpkg is missing (CI=true: this test may not skip)");
        assertTrue(root, "not root (CI=true: this test may not skip)");
        assertTrue(Files.isRegularFile(deb), "no package at " + deb + ": run package first");
        assertTrue(run("dpkg", "-s", "m0serve").exit != 0,
                "an m0serve package is installed already: this test installs and purges its own only");

        boolean installed = false;
        try {
            Ran install = run("dpkg", "-i", deb.toString());
            installed = true;
            assertEquals(0, install.exit, "dpkg -i: " + install.out);
            assertTrue(Files.isExecutable(LAUNCHER), LAUNCHER + " after install");
            for (Path unit : UNITS) {
                assertTrue(Files.isRegularFile(unit), unit + " after install");
            }
            assertTrue(Files.isRegularFile(LIB.resolve("m0serve.jsa")),
                    "postinst made the class-data archive: " + install.out);
            // The service's settings: a conffile the server reads as the service will.
            assertTrue(Files.isRegularFile(CONF), CONF + " after install");
            Ran show = run("setpriv", "--reuid=m0serve", "--regid=m0serve", "--init-groups", LAUNCHER.toString(),
                    "config", "--show", "--config", CONF.toString());
            assertEquals(0, show.exit, "config --show: " + show.out);
            assertTrue(Pattern.compile("(?m)^workers = 2 +# file " + Pattern.quote(CONF.toString()) + "$")
                    .matcher(show.out).find(), "workers from the packaged file: " + show.out);
            Ran user = run("getent", "passwd", "m0serve");
            assertEquals(0, user.exit, "postinst made the m0serve user");
            int uid = Integer.parseInt(user.out.split(":")[2]);
            assertTrue(uid < 1000, "m0serve is a system user: " + user.out);

            servesAsTheUser();

            Ran purge = run("dpkg", "--purge", "m0serve");
            assertEquals(0, purge.exit, "dpkg --purge: " + purge.out);
            installed = false;
            assertFalse(Files.exists(LAUNCHER), LAUNCHER + " after purge");
            assertFalse(Files.exists(LIB), LIB + " after purge (the class-data archive included): " + purge.out);
            for (Path unit : UNITS) {
                assertFalse(Files.exists(unit), unit + " after purge");
            }
            assertFalse(Files.exists(CONF), CONF + " after purge (a conffile goes with --purge)");
            assertFalse(Files.exists(Path.of("/var/log/m0serve")), "the logs after purge");
            assertTrue(run("dpkg", "-s", "m0serve").exit != 0, "dpkg still lists m0serve after purge");
        } finally {
            if (installed) {
                run("dpkg", "--purge", "m0serve");
            }
        }
    }

    /** /usr/bin/m0serve as the package's user: one worker, one 200, SIGTERM by pid, exit 0. */
    private static void servesAsTheUser() throws Exception {
        ProcessBuilder pb = new ProcessBuilder("setpriv", "--reuid=m0serve", "--regid=m0serve", "--init-groups",
                LAUNCHER.toString(), "--bind", "127.0.0.1:0", "--workers", "1")
                .directory(Path.of("/").toFile())
                .redirectErrorStream(true);
        Process p = pb.start();
        List<ProcessHandle> tree = new ArrayList<>();
        StringBuilder log = new StringBuilder();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            CompletableFuture<Integer> port = new CompletableFuture<>();
            CompletableFuture<Void> ready = new CompletableFuture<>();
            Thread reader = new Thread(() -> {
                try {
                    for (String line; (line = out.readLine()) != null; ) {
                        synchronized (log) {
                            log.append(line).append('\n');
                        }
                        Matcher m = LISTENING.matcher(line);
                        if (m.find()) {
                            port.complete(Integer.parseInt(m.group(1)));
                        }
                        if (line.contains("m0serve: ready:")) {
                            ready.complete(null);
                        }
                    }
                } catch (IOException e) {
                    // the stream closed with the process
                }
                port.complete(-1);
                ready.complete(null);
            }, "m0serve-output");
            reader.setDaemon(true);
            reader.start();
            int bound = port.get(120, TimeUnit.SECONDS);
            ready.get(120, TimeUnit.SECONDS);
            assertTrue(bound > 0 && p.isAlive(), "m0serve did not start: " + logOf(log));
            p.descendants().forEach(tree::add);
            assertEquals(1, tree.size(), "one worker: " + tree);
            // The supervisor maps the archive postinst made: the class-data archive works where it is installed.
            String maps = Files.readString(Path.of("/proc/" + p.pid() + "/maps"));
            assertTrue(maps.contains(LIB.resolve("m0serve.jsa").toString()), "the supervisor runs without the class-data archive: " + logOf(log));

            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + bound + "/"))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), "GET /: " + r.body());

            p.destroy(); // SIGTERM to the supervisor's pid: it drains its worker and exits 0
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "m0serve did not stop on SIGTERM: " + logOf(log));
            assertEquals(0, p.exitValue(), "m0serve's exit on SIGTERM: " + logOf(log));
            for (ProcessHandle h : tree) {
                h.onExit().get(30, TimeUnit.SECONDS);
            }
        } finally {
            for (ProcessHandle h : tree) {
                h.destroyForcibly();
            }
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static String logOf(StringBuilder log) {
        synchronized (log) {
            return log.toString();
        }
    }

    private record Ran(int exit, String out) {
    }

    private static Ran run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail(String.join(" ", cmd) + " did not finish: " + out);
        }
        System.out.println("$ " + String.join(" ", cmd) + " -> " + p.exitValue() + "\n" + out);
        return new Ran(p.exitValue(), out);
    }
}
