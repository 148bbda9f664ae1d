package m0.core;

/** The knob-off arm: whoever wins accept serves. Shares nothing, so it costs nothing. */
final class RacePolicy implements AcceptPolicy {

    static final RacePolicy INSTANCE = new RacePolicy();

    private RacePolicy() {
    }

    @Override
    public String name() {
        return "race";
    }

    @Override
    public boolean shares() {
        return false;
    }

    @Override
    public int pick(Siblings siblings, int self, long open) {
        return self;
    }
}
