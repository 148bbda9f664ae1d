package m0.sim;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/** The fountain and herd scenarios, the protocol each runs under, and each one's mutant and rule. */
final class FountainCases {

    private FountainCases() {
    }

    static final Protocol FOUNTAIN = Policies.named("fountain");

    /** scenario, real protocol, mutant, the rule the mutant breaks. */
    static final Object[][] PAIRS = {
        {FountainScenarios.STUCK, FOUNTAIN, FountainMutants.TRUSTS_THE_HEAD, "WAIT"},
        {FountainScenarios.LEAVE, FOUNTAIN, FountainMutants.LEFT_READS_PARKED, "WAIT"},
        {FountainScenarios.KILL, FOUNTAIN, FountainMutants.TRUSTS_THE_HEAD, "WAIT"},
        {FountainScenarios.FILL, FOUNTAIN, FountainMutants.TAKES_AT_ONCE, "FILL"},
        {FountainScenarios.FILL, FOUNTAIN, FountainMutants.NEVER_FREE, "TAKE-BACK"},
        {FountainScenarios.FLAP, FOUNTAIN, FountainMutants.UNSAMPLED, "FLAP"},
        {FountainScenarios.FLAP, FOUNTAIN, FountainMutants.NO_BAND, "FLAP"},
        {FountainScenarios.FILL, FOUNTAIN, FountainMutants.IGNORES_END_BATCH, "OVERFILL"},
        {FountainScenarios.BATCH_END, FOUNTAIN, LoopMutants.BATCH_PAST_END, "BATCH-END"},
        {FountainScenarios.NUDGE, FOUNTAIN, LoopMutants.NO_NUDGE, "WAIT"},
        {FountainScenarios.NUDGE, FOUNTAIN, LoopMutants.NUDGE_UNSEEN, "WAIT"},
        {FountainScenarios.CAP, FOUNTAIN, LoopMutants.NO_CAP, "CAP"},
        {FountainScenarios.EMFILE, FOUNTAIN, LoopMutants.NO_BACKOFF, "SPIN"},
        {FountainScenarios.CAP, FOUNTAIN, FountainMutants.IGNORES_HELD, "WAIT"},
        {FountainScenarios.EMFILE, FOUNTAIN, FountainMutants.IGNORES_HELD, "WAIT"},
        {FountainScenarios.LEAVE_HOLDING, FOUNTAIN, FountainMutants.MOVES, "MOVED"},
        {FountainScenarios.HERD, Policies.named("share"), FountainMutants.wakesTheFirstRegistered("share"), "HERD"},
        {FountainScenarios.HERD, Policies.named("race"), FountainMutants.wakesTheFirstRegistered("race"), "HERD"},
    };

    static Stream<Arguments> mutants() {
        return Stream.of(PAIRS).map(p -> Arguments.of(p[0], p[2], p[3]));
    }

    /** Each scenario once with the protocol it runs under. */
    static Stream<Arguments> scenarios() {
        return Stream.of(PAIRS).map(p -> List.of(p[0], p[1])).distinct().map(l -> Arguments.of(l.get(0), l.get(1)));
    }
}
