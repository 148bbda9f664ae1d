package m0.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A stand-in built on {@link ForwardingWorkerShare} changes only what it overrides: every other
 * operation of {@link WorkerShare} reaches the delegate once, with the same arguments, and its
 * answer comes back unchanged. Checked for every method the interface declares, so an operation
 * added to the interface and not forwarded (or forwarded with an argument or answer lost) fails
 * here rather than silently running the default in a checker's observer or a server's fault.
 */
class ForwardingWorkerShareTest {

    private static final class Plain extends ForwardingWorkerShare<String> {
        Plain(WorkerShare<String> delegate) {
            super(delegate);
        }
    }

    /** One call as the delegate saw it. */
    private record Call(String method, Object[] args) {
    }

    /** Run twice with different answers, so that an answer replaced by any constant shows. */
    @Test
    void everyOperationReachesTheDelegateOnceWithItsArgumentsAndItsAnswerComesBack() throws Exception {
        forwardsEverything(false);
        forwardsEverything(true);
    }

    private static void forwardsEverything(boolean round) throws Exception {
        List<Call> calls = new ArrayList<>();
        @SuppressWarnings("unchecked")
        WorkerShare<String> delegate = (WorkerShare<String>) Proxy.newProxyInstance(
                WorkerShare.class.getClassLoader(), new Class<?>[] {WorkerShare.class}, (proxy, m, args) -> {
                    calls.add(new Call(m.getName(), args == null ? new Object[0] : args));
                    return answerFor(m.getReturnType(), round);
                });
        Plain forwarding = new Plain(delegate);
        int checked = 0;
        for (Method m : WorkerShare.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            Method own = ForwardingWorkerShare.class.getMethod(m.getName(), m.getParameterTypes());
            if (own.getDeclaringClass() != ForwardingWorkerShare.class) {
                continue; // the interface's own composition (passOn): runs over the forwarded parts
            }
            calls.clear();
            Object[] args = argumentsFor(m.getParameterTypes());
            Object answer;
            try {
                answer = m.invoke(forwarding, args);
            } catch (InvocationTargetException e) {
                throw new AssertionError(m.getName() + " threw", e.getCause());
            }
            assertEquals(1, calls.size(), m.getName() + ": calls reaching the delegate " + calls);
            assertEquals(m.getName(), calls.get(0).method(), m.getName() + " reached the delegate as another call");
            assertArrayEquals(args, calls.get(0).args(), m.getName() + ": the arguments the delegate got");
            assertEquals(answerFor(m.getReturnType(), round), answer, m.getName() + ": the delegate's answer");
            checked++;
        }
        assertTrue(checked >= 20, "the interface's operations were found: " + checked);
    }

    @Test
    void passOnIsComposedOverTheForwardedOperationsSoAnOverrideIsSeen() {
        List<String> seen = new ArrayList<>();
        Fixture f = new Fixture(2).started();
        ForwardingWorkerShare<String> observed = new ForwardingWorkerShare<>(f.workers.get(0)) {
            @Override
            public int pick(long open) {
                seen.add("pick");
                return super.pick(open);
            }
        };
        observed.passStart();
        observed.passOn("c1", 0);
        assertEquals(List.of("pick"), seen, "passOn went through this object's pick");
    }

    /** Distinct, non-default values, so that a lost or swapped argument shows. */
    private static Object[] argumentsFor(Class<?>[] types) {
        Object[] args = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            args[i] = valueOf(types[i], i + 7);
        }
        return args;
    }

    private static Object valueOf(Class<?> type, int seed) {
        if (type == int.class) {
            return seed;
        }
        if (type == long.class) {
            return 1000L + seed;
        }
        if (type == boolean.class) {
            return true;
        }
        if (type == Consumer.class) {
            return (Consumer<Object>) x -> { };
        }
        if (type == Object.class) {
            return "connection-" + seed;
        }
        if (type.isEnum()) {
            Object[] constants = type.getEnumConstants();
            return constants[constants.length - 1];
        }
        throw new AssertionError("no test value for a parameter of type " + type);
    }

    /** What the delegate answers in a round: never 0 or null, and each round its own. */
    private static final AcceptPolicy[] POLICIES = {AcceptPolicy.fountain(), AcceptPolicy.race()};
    private static final String[] CONNECTIONS = {"received-a", "received-b"};

    private static Object answerFor(Class<?> type, boolean round) {
        int r = round ? 1 : 0;
        if (type == void.class) {
            return null;
        }
        if (type == int.class) {
            return round ? -3 : 41;
        }
        if (type == long.class) {
            return round ? -77L : 4242L;
        }
        if (type == boolean.class) {
            return round;
        }
        if (type == AcceptPolicy.class) {
            return POLICIES[r];
        }
        if (type == Object.class) {
            return CONNECTIONS[r];
        }
        throw new AssertionError("no test answer of type " + type);
    }
}
