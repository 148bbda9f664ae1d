package m0.sim;

/** An oracle's verdict: the rule broken, what was seen, and how to replay it. */
public final class Violation {

    public final String rule;
    public final String message;
    public final long step;

    Violation(String rule, String message, long step) {
        this.rule = rule;
        this.message = message;
        this.step = step;
    }

    @Override
    public String toString() {
        return rule + " at step " + step + ": " + message;
    }
}
