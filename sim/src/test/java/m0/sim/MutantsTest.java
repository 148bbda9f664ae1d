package m0.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The checker finds each correction undone, names the rule, and prints a schedule that
 * replays the same violating trace byte for byte.
 */
class MutantsTest {

    static Stream<Arguments> mutants() {
        return Stream.of(
                Arguments.of(HandOffScenarios.R5, Mutants.R5, "R5"),
                Arguments.of(HandOffScenarios.B25_SEND, Mutants.B25_SEND, "B25-send"),
                Arguments.of(HandOffScenarios.B25_IDLE, Mutants.B25_IDLE, "B25-idle"),
                Arguments.of(HandOffScenarios.TAKEN, Mutants.TAKEN, "TAKEN"),
                Arguments.of(LifecycleScenarios.NS, Mutants.NS, "NS"),
                Arguments.of(LifecycleScenarios.RP, Mutants.RP, "RP"),
                Arguments.of(LifecycleScenarios.RB, Mutants.RB, "RB"),
                Arguments.of(HandOffScenarios.SENDER_KILLED, Mutants.R5, "R5"),
                Arguments.of(HandOffScenarios.TAKEN, Mutants.RETIRE_ORDER, "R5"),
                Arguments.of(LifecycleScenarios.LATE_SEND, Mutants.NO_WATCH, "LATE-SEND"),
                Arguments.of(LifecycleScenarios.WAIT_START, Mutants.NO_STARTING_COUNT, "WAIT-START"),
                Arguments.of(RebalanceScenarios.REBALANCE, Mutants.REBALANCE_NO_DEAD_BAND, "PING-PONG"),
                Arguments.of(RebalanceScenarios.REBALANCE_UNEVEN, Mutants.REBALANCE_ANY_SENDER, "PING-PONG"),
                Arguments.of(PairScenarios.PAIR_ONE_SIDED, Mutants.SWAP_ONE_SIDED, "PING-PONG"),
                Arguments.of(PairScenarios.PAIR, Mutants.SWAP_ANY_KIND, "PING-PONG"),
                Arguments.of(MixedScenarios.MIXED, Mutants.KEEPING_COUNTS_ALL, "PING-PONG"),
                Arguments.of(MixedScenarios.MIXED, Mutants.KEEPING_MOVES_NOTHING, "CONVERGE"),
                Arguments.of(MixedScenarios.MIXED_MODES, Mutants.KEEPING_SIBLINGS_ONLY, "CONVERGE"),
                Arguments.of(MixedScenarios.MIXED_FRESH, Mutants.BALANCING_IGNORES_SETTLED, "PING-PONG"),
                Arguments.of(HealScenarios.HEAL_SEND, Mutants.NO_HEAL, "HEAL"),
                Arguments.of(HealScenarios.HEAL_TAKE_BACK, Mutants.NO_HEAL, "HEAL"),
                Arguments.of(HealScenarios.HEAL_RECEIVE, Mutants.NO_HEAL, "HEAL"),
                Arguments.of(HealScenarios.HEAL_FORWARD, Mutants.NO_HEAL, "HEAL"),
                Arguments.of(HealScenarios.HEAL_BUSY, Mutants.HEAL_BLIND, "R5"),
                Arguments.of(HealScenarios.HEAL_BUSY, Mutants.HEAL_NO_RECHECK, "R5"),
                Arguments.of(HealScenarios.HEAL_BUSY, Mutants.SENDING_AFTER_RAISE, "R5"),
                Arguments.of(HealScenarios.HEAL_BUSY, Mutants.SENDING_CLEARED_EARLY, "HEAL"),
                Arguments.of(HandOffScenarios.TAKEN, Mutants.NO_HEAL, "HEAL"),
                Arguments.of(HealScenarios.HEAL_START, Mutants.NO_HEAL, "HEAL"),
                Arguments.of(HandOffScenarios.B25_SLOW, Mutants.FORWARD_SKIPS_SLOW, "B25-idle"),
                Arguments.of(BalanceScenarios.BURST, Mutants.DROPS_PUBLISH, "ACTIVE"),
                Arguments.of(BalanceScenarios.BURST, Mutants.BLIND_RAISE, "BALANCE"),
                Arguments.of(PickScenarios.BURST_THREE, Mutants.BLIND_KEEP, "BALANCE"),
                Arguments.of(BalanceScenarios.BALANCE_EVEN, Mutants.TWO_STEP_PASS_END, "BALANCE"),
                Arguments.of(PickScenarios.BURST_SLOW, Mutants.JUDGES_EACH_PICK, "BALANCE"),
                Arguments.of(PickScenarios.BURST_STALL, Mutants.ADMISSION_STAMPS, "BALANCE"),
                Arguments.of(PickScenarios.RECEIVE_STALL, Mutants.ADMISSION_STAMPS, "BALANCE"),
                Arguments.of(PickScenarios.PICK_SLOW, Mutants.NEVER_SKIPS_SLOW, "SLOW"),
                Arguments.of(BalanceScenarios.SHAPE_AFTER_CHURN, Mutants.SHAPE_NO_TIMER, "BALANCE"),
                Arguments.of(BalanceScenarios.SHAPE_FLAP, Mutants.SHAPE_NO_HYSTERESIS, "SHAPE-FLAP"),
                Arguments.of(LifecycleScenarios.LEAVE_UNSEEN, Mutants.COUNTS_ITSELF_STARTING, "STRANDED"),
                Arguments.of(TlsScenarios.TLS_REBALANCE, Mutants.MOVES_HANDSHAKEN, "PINNED"),
                Arguments.of(TlsScenarios.TLS_LEAVE, Mutants.MOVES_HANDSHAKEN, "PINNED"),
                Arguments.of(TlsScenarios.TLS_BURST, Mutants.HANDSHAKE_STAMPS, "BALANCE"));
    }

    @ParameterizedTest(name = "{0} finds {1}")
    @MethodSource("mutants")
    void checkerFindsTheMutant(Scenarios.Scenario scenario, Protocol mutant, String rule) {
        Explorer.Report r = Explorer.exhaustive(scenario, mutant, true);
        assertNotNull(r.first, scenario + ": no violation found in " + r.executions + " runs");
        Violation v = r.first.violations.get(0);
        System.out.println("== " + scenario + " / " + mutant.name() + ": found after " + r.executions + " runs: " + v);
        System.out.println("   replay: schedule \"" + r.first.schedule + "\"");
        System.out.print(excerpt(r.first.trace()));
        assertEquals(rule, v.rule, v.toString());

        RunResult again = Explorer.replay(scenario, mutant, r.first.schedule);
        assertFalse(again.ok());
        assertEquals(v.toString(), again.violations.get(0).toString());
        assertEquals(r.first.trace(), again.trace(), "the schedule replays the trace byte for byte");
    }

    /** The trace from the first step that is not setup, skipping idle polls. */
    static String excerpt(String trace) {
        StringBuilder sb = new StringBuilder();
        for (String line : trace.split("\n")) {
            if (!line.contains(" setup page.") && !line.endsWith("epoll -> idle")) {
                sb.append("   ").append(line).append('\n');
            }
        }
        return sb.toString();
    }

    @ParameterizedTest(name = "{0} passes under the real core")
    @MethodSource("fast")
    void realCorePassesEveryInterleaving(Scenarios.Scenario scenario) {
        Explorer.Report r = Explorer.exhaustive(scenario, Protocol.core(), false);
        System.out.println(r.row());
        assertTrue(r.complete);
        assertTrue(r.executions > 0);
        assertEquals(0, r.violations, () -> r.first.violations + "\n" + r.first.trace());
    }

    /**
     * The kill lands between raising pending and sending in some runs, and each such orphan is
     * healed: none is left at quiescence (ADR 0024; before it, the oracle accepted them).
     */
    @org.junit.jupiter.api.Test
    void aSenderKilledBetweenRaiseAndSendLeavesAnOrphanThatIsHealed() {
        Explorer.Report r = Explorer.exhaustive(HandOffScenarios.SENDER_KILLED, Protocol.core(), false);
        System.out.println("SENDER-KILLED: " + r.healedRuns + " of " + r.executions + " runs heal an orphaned raise, "
                + r.orphanRuns + " end with one");
        assertTrue(r.healedRuns > 0);
        assertEquals(0, r.orphanRuns);
        assertEquals(0, r.violations);
    }

    static Stream<Scenarios.Scenario> fast() {
        return Stream.of(HandOffScenarios.R5, HandOffScenarios.B25_SEND, HandOffScenarios.B25_IDLE, HandOffScenarios.TAKEN, LifecycleScenarios.NS,
                LifecycleScenarios.RB, HandOffScenarios.SENDER_KILLED, HandOffScenarios.B25_WIDE, LifecycleScenarios.LATE_SEND, LifecycleScenarios.WAIT_START,
                RebalanceScenarios.REBALANCE_KILL_SENDER, HealScenarios.HEAL_SEND, HealScenarios.HEAL_RECEIVE, HealScenarios.HEAL_START,
                HealScenarios.HEAL_FORWARD, LifecycleScenarios.LEAVE_UNSEEN, TlsScenarios.TLS_REBALANCE, TlsScenarios.TLS_LEAVE,
                TlsScenarios.TLS_BURST);
    }
}
