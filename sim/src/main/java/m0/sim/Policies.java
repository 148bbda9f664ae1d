package m0.sim;

import java.util.function.Supplier;
import m0.core.AcceptPolicy;

/** The real core under a named accept policy: {@code share} (the default), {@code race}, {@code fountain}. */
public final class Policies {

    private Policies() {
    }

    public static Protocol named(String policy) {
        return of(policy, () -> AcceptPolicy.named(policy));
    }

    /** The real core, each worker with its own policy from {@code policy} (mutants pass mis-tuned ones). */
    public static Protocol of(String name, Supplier<AcceptPolicy> policy) {
        return new Protocol() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public m0.core.WorkerShare<Conn> worker(Ports p, int self) {
                return Protocol.Core.worker(p, self, policy.get());
            }

            @Override
            public SupervisorOps<Conn> supervisor(Ports p) {
                return Protocol.core().supervisor(p);
            }
        };
    }
}
