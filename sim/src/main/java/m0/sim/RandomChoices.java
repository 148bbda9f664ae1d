package m0.sim;

import java.util.SplittableRandom;

/** Random mode: every answer from one seeded PRNG, so a seed replays a run exactly. */
public final class RandomChoices implements ChoiceSource {

    private final SplittableRandom random;
    /** Out of 8, how often the running actor runs on: each seed draws its own burstiness. */
    private final int stickiness;

    public RandomChoices(long seed) {
        this.random = new SplittableRandom(seed);
        this.stickiness = new int[] {0, 4, 6, 7}[random.nextInt(4)];
    }

    /** A fixed burstiness (0..8), for measuring what a thread switch costs. */
    RandomChoices(long seed, int stickiness) {
        this.random = new SplittableRandom(seed);
        random.nextInt(4);
        this.stickiness = stickiness;
    }

    /**
     * Uniform over the enabled actors, except that with probability stickiness/8 the actor
     * that is running runs on: bursts of one actor's steps are how many races open (a sender
     * that gets from pick to send unpreempted), and they cost no thread switch. Every
     * interleaving keeps a nonzero probability.
     */
    @Override
    public int next(Enabled enabled) {
        int n = enabled.size();
        if (n == 1) {
            return 0;
        }
        int running = enabled.running();
        if (running >= 0 && stickiness > 0 && random.nextInt(8) < stickiness) {
            return running;
        }
        return random.nextInt(n);
    }

    @Override
    public int choose(int n) {
        return n == 1 ? 0 : random.nextInt(n);
    }

    @Override
    public boolean chance(char kind, long question, int oneIn) {
        return random.nextInt(oneIn) == 0;
    }
}
