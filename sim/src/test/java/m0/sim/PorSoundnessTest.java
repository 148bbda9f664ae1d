package m0.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import m0.core.PageLayout;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The reduction loses nothing: on small worlds, DPOR with sleep sets reaches exactly the
 * terminal states (page words, every connection's fate, the verdicts) that the unreduced
 * odometer reaches by running every sequence of scheduling answers.
 */
class PorSoundnessTest {

    /** w0 hands a connection to w1 while w1 leaves (the B25 handshake, both sides). */
    static void miniB25(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1).accepts(false);
        s.setup(() -> {
            for (Worker w : new Worker[] {w0, w1}) {
                w.bind();
                w.start();
            }
        });
        s.clients(1);
        s.loop(w0, () -> sendThenDrain(s, w0));
        s.loop(w1, () -> scriptedLeave(s, w1));
    }

    /** The core's leave and its drain, stepped a tick apart (what a leaver admits, it closes as idle). */
    static void scriptedLeave(Sim s, Worker w) {
        w.share().leave();
        while (w.share().leaveStep(s.ledger::closeIdle)) {
            s.sleep(s.tick);
        }
    }

    /** One scripted pass: the heal look, receive to EAGAIN (each connection served), the pass end. */
    static void scriptedPass(Sim s, Worker w) {
        w.share().healDue();
        Conn c;
        while ((c = w.share().receive()) != null) {
            s.ledger.serve(w, c);
        }
        w.share().passEnd(w.open());
    }

    /** miniB25, and a SIGKILL of w0 at any point of its hand-off (the orphaned raise). */
    static void miniB25Kill(Sim s) {
        miniB25(s);
        Worker w0 = s.current[0];
        s.actor("killer", () -> s.kill(w0));
    }

    /** w0 hands a connection to stopped w1, which is killed; the supervisor gives up on it. */
    static void miniRb(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1).accepts(false);
        s.setup(() -> {
            for (Worker w : new Worker[] {w0, w1}) {
                w.bind();
                w.start();
            }
        });
        s.clients(1);
        SupervisorOps<Conn> sup = s.supervisorOps();
        s.loop(w0, () -> sendThenDrain(s, w0));
        // w1 is stopped: no loop
        s.actor("sup", () -> {
            s.kill(w1);
            s.reap(1, sup);
            s.giveUp(sup, 1);
        });
    }

    /**
     * The heal's request (ADR 0024): w0 hands an idle connection to w1 and is killed at any
     * point of it, then reaped, which asks w1 to heal when w0 died mid-hand-off (its SENDING read
     * and cleared, w1's counts compare-and-set); a tick later w1 wakes, receives and heals.
     */
    static void miniHealReap(Sim s) {
        Worker w0 = s.worker(0).accepts(false);
        Worker w1 = s.worker(1).accepts(false);
        startedBoth(s, w0, w1);
        SupervisorOps<Conn> sup = s.supervisorOps();
        s.loop(w0, () -> w0.share().sendWith(1, w0.actor.held.get(0)));
        s.loop(w1, () -> {
            s.sleep(s.tick);
            scriptedPass(s, w1);
        });
        s.setup(() -> s.holds(w0, 1));
        s.actor("sup", () -> {
            s.kill(w0);
            s.reap(0, sup);
        });
    }

    /**
     * The heal against a live hand-off: w1 has been asked to heal (its HEAL bit set, nothing
     * orphaned) and wakes while w0 hands it an idle connection: every read of the heal (the
     * counts, each SENDING word, its last receive) and its compare-and-set race the hand-off.
     */
    static void miniHealLive(Sim s) {
        Worker w0 = s.worker(0).accepts(false);
        Worker w1 = s.worker(1).accepts(false);
        startedBoth(s, w0, w1);
        s.loop(w0, () -> w0.share().sendWith(1, w0.actor.held.get(0)));
        s.loop(w1, () -> scriptedPass(s, w1));
        s.setup(() -> {
            s.holds(w0, 1);
            int counts = PageLayout.countsWord(1);
            s.page.compareAndSet(counts, s.page.getVolatile(counts), m0.core.Counts.requestHeal(s.page.getVolatile(counts)));
        });
    }

    private static void startedBoth(Sim s, Worker w0, Worker w1) {
        s.setup(() -> {
            for (Worker w : new Worker[] {w0, w1}) {
                w.bind();
                w.start();
            }
        });
    }

    /** w0: accept, sendWith to w1 (or keep it), and a tick later take what was forwarded to it. */
    static void sendThenDrain(Sim s, Worker w0) {
        Conn c = s.ledger.accept();
        if (!w0.share().sendWith(1, c)) {
            s.ledger.serve(w0, c);
        }
        s.sleep(2 * s.tick); // by then the leaver has forwarded, or the give-up re-homed
        scriptedPass(s, w0);
    }

    /**
     * The epoll model's wake-up (ADR 0019's onWake, now for the channel too): w1 runs the core's
     * loop, blocked in its wait, while w0 hands it an idle connection; the send wakes it, or its
     * look finds the datagram already queued.
     */
    static void miniWake(Sim s) {
        Worker w0 = s.worker(0).accepts(false);
        Worker w1 = s.worker(1).accepts(false);
        startedBoth(s, w0, w1);
        s.loop(w0, () -> w0.share().sendWith(1, w0.actor.held.get(0)));
        s.loop(w1, () -> w1.run(Sim.T0 + s.tick));
        s.setup(() -> s.holds(w0, 1));
    }

    static String signature(Sim s, RunResult r) {
        StringBuilder sb = new StringBuilder();
        for (int w = PageLayout.HEADER_WORDS; w < s.raw.words(); w++) {
            sb.append(s.raw.getVolatile(w)).append(',');
        }
        for (Conn c : s.conns) {
            sb.append(' ').append(c).append(c.served ? "=served@w" + c.servedBy : c.eof != null ? "=eof"
                    : c.channel >= 0 ? "=queued@w" + c.channel : "=?");
        }
        // which rules broke, not how many steps each stayed broken (that varies with the
        // placement of independent steps, which is exactly what the reduction ignores)
        new TreeSet<>(r.violations.stream().map(v -> v.rule).collect(java.util.stream.Collectors.toList()))
                .forEach(rule -> sb.append(" !").append(rule));
        return sb.toString();
    }

    static Set<String> outcomes(Consumer<Sim> world, Protocol p, ChoiceSource src, java.util.function.BooleanSupplier next) {
        Set<String> out = new TreeSet<>();
        do {
            Sim s = new Sim(2, p, src, false);
            s.stopOnViolation = false;
            world.accept(s);
            RunResult r = s.run();
            if (!r.sleepBlocked) {
                out.add(signature(s, r));
            }
        } while (next.getAsBoolean());
        return out;
    }

    Set<String> same(Consumer<Sim> world, Protocol p) {
        return same(world, p, true);
    }

    Set<String> same(Consumer<Sim> world, Protocol p, boolean print) {
        Odometer odo = new Odometer();
        Set<String> all = outcomes(world, p, odo, odo::nextExecution);
        Dpor dpor = new Dpor();
        Set<String> reduced = outcomes(world, p, dpor, dpor::nextExecution);
        if (print) {
            System.out.printf("%s: odometer %d runs, DPOR %d runs (%d redundant), %d terminal states%n", p.name(),
                odo.runs(), dpor.executions(), dpor.sleepBlocked(), all.size());
            all.forEach(x -> System.out.println("   " + x));
        }
        assertEquals(all, reduced);
        assertTrue(dpor.executions() < odo.runs());
        return all;
    }

    @Test
    void b25HandshakeCore() {
        assertTrue(same(PorSoundnessTest::miniB25, Protocol.core()).stream().noneMatch(x -> x.contains("!")));
    }

    @Test
    void b25HandshakeMutant() {
        same(PorSoundnessTest::miniB25, Mutants.B25_SEND);
    }

    /** No supervisor here: a dead w0 is never reaped, so some outcomes strand (the world, not the core). */
    @Test
    @Tag("model-check")
    void b25HandshakeWithAKillCore() {
        same(PorSoundnessTest::miniB25Kill, Protocol.core());
    }

    @Test
    @Tag("model-check")
    void b25HandshakeWithAKillR5Mutant() {
        same(PorSoundnessTest::miniB25Kill, Mutants.R5);
    }

    @Test
    void killAndGiveUpCore() {
        assertTrue(same(PorSoundnessTest::miniRb, Protocol.core()).stream().noneMatch(x -> x.contains("!")));
    }

    @Test
    void killAndGiveUpMutant() {
        same(PorSoundnessTest::miniRb, Mutants.RB);
    }

    @Test
    void healRequestedByAReapCore() {
        Set<String> all = same(PorSoundnessTest::miniHealReap, Protocol.core());
        assertTrue(all.stream().noneMatch(x -> x.contains("!")), all::toString);
    }

    @Test
    void healRequestedByAReapMutant() {
        Set<String> all = same(PorSoundnessTest::miniHealReap, Mutants.NO_HEAL);
        assertTrue(all.stream().anyMatch(x -> x.contains("!HEAL")), all::toString);
    }

    @Test
    void healAgainstALiveHandOffCore() {
        Set<String> all = same(PorSoundnessTest::miniHealLive, Protocol.core());
        assertTrue(all.stream().noneMatch(x -> x.contains("!")), all::toString);
    }

    @Test
    void healAgainstALiveHandOffMutant() {
        Set<String> all = same(PorSoundnessTest::miniHealLive, Mutants.HEAL_BLIND);
        assertTrue(all.stream().anyMatch(x -> x.contains("!R5")), all::toString);
    }

    @Test
    void theLoopWokenByAHandOffCore() {
        Set<String> all = same(PorSoundnessTest::miniWake, Protocol.core());
        assertTrue(all.stream().allMatch(x -> x.contains("served@w1")), all::toString);
    }

    @Test
    void theLoopWokenByAHandOffR5Mutant() {
        Set<String> all = same(PorSoundnessTest::miniWake, Mutants.R5);
        assertTrue(all.stream().anyMatch(x -> x.contains("!R5")), all::toString);
    }

    @Test
    void oracleVerdictsAreInTheSignatures() {
        Odometer odo = new Odometer();
        Set<String> all = outcomes(PorSoundnessTest::miniB25, Mutants.B25_SEND, odo, odo::nextExecution);
        assertTrue(all.stream().anyMatch(x -> x.contains("!B25-send")), all::toString);
        assertTrue(Arrays.stream(all.toArray(new String[0])).anyMatch(x -> !x.contains("!")));
    }
}
