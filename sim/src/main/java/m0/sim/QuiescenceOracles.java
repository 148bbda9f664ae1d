package m0.sim;

/**
 * The rules judged once a run is quiet: every connection answered, or lost with its holder and
 * judged when that happened; the counts settled to what is queued; and, in the worlds that ask,
 * the spread (BALANCE), one place per connection (CONN), the moves a rebalance needed (MOVES),
 * and where the loads end (CONVERGE, PAIRED). The per-step rules are {@link Oracles}'.
 */
final class QuiescenceOracles {

    private QuiescenceOracles() {
    }

    /** At quiescence: every connection answered or lost with its holder; the counts settle. */
    static void atQuiescence(Sim s) {
        if (s.balanceOracle) {
            balance(s);
        }
        if (s.shapeSwitchBound >= 0) {
            for (Worker w : s.current) {
                if (w != null && w.shapeSwitches > s.shapeSwitchBound) {
                    s.violation("SHAPE-FLAP", w + " changed mode " + w.shapeSwitches + " times under a load at the"
                            + " threshold (at most " + s.shapeSwitchBound + ")");
                }
            }
        }
        s.listener.atQuiescence();
        if (s.rebalanceOracle) {
            connections(s);
            moves(s);
            converged(s);
            if (s.pairOracle) {
                paired(s);
            }
        }
        unanswered(s);
        counts(s);
    }

    /** STRANDED and the rule a queued connection was lost to: every connection answered or closed. */
    private static void unanswered(Sim s) {
        for (Conn c : s.conns) {
            if (c.served || c.eof != null) {
                continue;
            }
            if (c.inBacklog) {
                if (!s.stopping) {
                    s.violation("STRANDED", c + " was never accepted");
                }
                continue;
            }
            if (c.channel >= 0) {
                int i = c.channel;
                Worker w = s.current[i];
                String rule;
                String why;
                if (w == null || (!w.started && !w.dead && !s.givenUp[i])) {
                    rule = "NS";
                    why = "queued to w" + i + ", which never started";
                } else if (w.dead || s.givenUp[i]) {
                    if (s.givenUp[i] && s.giveUpDoneStep[i] >= 0 && c.sentStep > s.giveUpDoneStep[i]) {
                        rule = "LATE-SEND";
                        why = "queued to given-up w" + i + " after its drain finished, never re-homed";
                    } else if (s.givenUp[i] && c.sentStep < s.reapStep[i]) {
                        rule = "RB";
                        why = "queued to dead w" + i + " before its reap, still there after the give-up";
                    } else {
                        rule = "RP";
                        why = "queued to dead w" + i + (c.sentStep > s.reapStep[i] && s.reapStep[i] >= 0
                                ? " after its reap" : "") + ", never served";
                    }
                } else if (w.left || w.exited) {
                    rule = "B25-send";
                    why = "queued to w" + i + ", which has left and exited";
                } else {
                    rule = "STRANDED";
                    why = "queued to w" + i + ", never received";
                }
                c.violation = rule;
                s.violation(rule, c + " " + why + " (sent at step " + c.sentStep + ")");
                continue;
            }
            if (c.holder != null) {
                s.violation("STRANDED", c + " still held by " + c.holder);
            }
        }
    }

    /** R5, TAKEN and HEAL: each index's pending - taken settles to what is queued to it. */
    private static void counts(Sim s) {
        for (int i = 0; i < s.workers; i++) {
            long orphans = Oracles.orphaned(s, i);
            long p = Oracles.pending(s, i);
            long t = Oracles.taken(s, i);
            // What the living left unbalanced: every raise, receipt and retire of an actor that
            // did not die is matched by its send, take-back or retire (a mutant's is not).
            long diff = p - t - s.channels[i].size() - orphans + s.healed[i];
            if (diff != 0) {
                s.violation(diff < 0 ? "R5" : "TAKEN", "at quiescence pending[" + i + "]=" + p + " taken[" + i
                        + "]=" + t + ", in flight " + s.channels[i].size() + ", orphaned raises " + orphans
                        + ", healed " + s.healed[i]);
                continue; // a living actor's count is off: what a heal did is no longer the dead's to judge
            }
            long unhealed = orphans - s.healed[i];
            if (unhealed < 0) {
                s.violation("R5", "at quiescence a heal had taken " + s.healed[i] + " off pending[" + i
                        + "], more than the " + orphans + " the dead orphaned");
            } else if (unhealed > 0 && s.healOracle) {
                // HEAL: after any kill, once the index's recovery (a replacement's start, a give-up,
                // a live worker's heal) and quiescence have happened, pending - taken is exactly
                // what is queued to it. What a death orphaned and nobody healed makes every later
                // drain on the index wait out its bound, and pick read it busier than it is.
                s.violation("HEAL", "at quiescence pending[" + i + "]=" + p + " - taken[" + i + "]=" + t
                        + " is " + unhealed + " above the " + s.channels[i].size() + " queued to w" + i
                        + ": raises orphaned by a death were never healed");
            }
            s.orphans += unhealed;
            Worker w = s.current[i];
            boolean settled = w != null && w.started && !w.dead || s.givenUp[i];
            if (settled && t != 0) {
                s.violation("TAKEN", "at quiescence taken[" + i + "]=" + t + " after " + (w != null && w.started
                        ? w + " took the index over" : "the give-up"));
            }
        }
    }

    /**
     * How far apart the spread may end: one, for an odd burst. It was two while a sibling's load
     * was two words (ADR 0012: a pick that read a sibling's pending before its pass end retired a
     * receipt, and its active after the pass end published it, counted that connection twice, and
     * a burst of 4 ended 3/1); since ADR 0040 the load is one word and the bound is exact with one
     * acceptor (mutant-two-step-pass-end, the window put back, is caught by it). Two acceptors in
     * one burst kept a bound of two until ADR 0043: a send decided on a read of the target's
     * counts was raised blind a few steps later, while the target, accepting too, kept in between
     * (BURST: 1/3); the raise is now a compare-and-set on the counts the pick read
     * (mutant-blind-raise, the add put back, is caught by BURST). With three workers a keep
     * published blind on counts a sibling's send had raised since its pick left the third short
     * (BURST-three: 1/2/0) until ADR 0053 made the keep a compare-and-set too
     * (mutant-blind-keep).
     */
    static final long BALANCE_SLACK = 1;

    /** BALANCE: every connection is kept open, so the served counts are the spread. */
    private static void balance(Sim s) {
        long[] served = new long[s.workers];
        for (Conn c : s.conns) {
            if (c.served) {
                served[c.servedBy]++;
            }
        }
        long max = Long.MIN_VALUE;
        long min = Long.MAX_VALUE;
        for (long n : served) {
            max = Math.max(max, n);
            min = Math.min(min, n);
        }
        if (max - min > s.balanceSlack) {
            s.violation("BALANCE", "served per worker " + java.util.Arrays.toString(served) + ": max - min = " + (max - min));
        }
    }

    /**
     * CONN: every connection is in exactly one place, a live worker's hands or one channel, or
     * in none after a close the protocol allows (its holder died, a give-up or a leaver found no
     * live worker: those closes are judged when they happen). A connection in two places is
     * duplicated; in none without a close, lost (a leaver that exited holding it, say).
     */
    private static void connections(Sim s) {
        for (Conn c : s.conns) {
            int places = 0;
            Actor holder = null;
            for (Actor a : s.actors) {
                if (a.held.contains(c)) {
                    places++;
                    holder = a;
                }
            }
            for (int i = 0; i < s.workers; i++) {
                if (s.channels[i].contains(c)) {
                    places++;
                }
            }
            if (c.eof != null ? places != 0 : places != 1) {
                s.violation("CONN", c + " is in " + places + " places" + (c.eof == null ? "" : " after " + c.eof));
                return;
            }
            if (holder != null && (holder.worker == null || holder.state == Actor.DEAD || holder.worker.exited)) {
                s.violation("CONN", c + " is held by " + holder + ", which serves nothing");
                return;
            }
        }
    }

    /**
     * The initial excess: {@code sum over i of max(0, load_i - floor(mean))} over the loads the
     * run starts with, every index live. A move from the heaviest to the lightest across a gap of
     * two or more lowers it or leaves it where it ends (ADR 0014), so no more moves than this are
     * ever needed; connections that died with a killed worker add one possible move each.
     */
    static long initialExcess(Sim s) {
        long[] initial = s.settledOracle ? s.initialSettled : s.initialLoad;
        long total = 0;
        for (long l : initial) {
            total += l;
        }
        long floor = total / s.workers;
        long excess = 0;
        for (long l : initial) {
            excess += Math.max(0, l - floor);
        }
        return excess;
    }

    /**
     * The initial swaps (ADR 0057): {@code sum over i < j of min(held_i(j), held_j(i))}, where
     * held_i(j) counts the connections worker i starts with whose client pairs with worker j.
     * Each is two moves, a swap and its return, that leave the loads as they were.
     */
    static long initialSwaps(Sim s) {
        long swaps = 0;
        for (int i = 0; i < s.workers; i++) {
            for (int j = i + 1; j < s.workers; j++) {
                swaps += Math.min(s.initialPaired[i][j], s.initialPaired[j][i]);
            }
        }
        return swaps;
    }

    /**
     * PING-PONG: no more moves than the initial excess and two per initial swap (plus one per
     * connection a death took).
     */
    private static void moves(Sim s) {
        long bound = initialExcess(s) + 2 * initialSwaps(s) + s.diedWithHolder;
        if (s.moves > bound) {
            s.violation("PING-PONG", s.moves + " moves, over the initial excess " + initialExcess(s)
                    + (initialSwaps(s) > 0 ? " + 2 x " + initialSwaps(s) + " swaps" : "")
                    + (s.diedWithHolder > 0 ? " + " + s.diedWithHolder + " died with a killed worker" : ""));
        }
    }

    /**
     * PAIRED (ADR 0057): at quiescence no two live workers each hold a connection whose client
     * pairs with the other: every swap that would place two connections was made.
     */
    private static void paired(Sim s) {
        for (int i = 0; i < s.workers; i++) {
            for (int j = i + 1; j < s.workers; j++) {
                Worker a = s.current[i];
                Worker b = s.current[j];
                if (!servingAtEnd(s, a, i) || !servingAtEnd(s, b, j)) {
                    continue;
                }
                if (holdsPairedWith(a, j) && holdsPairedWith(b, i)) {
                    s.violation("PAIRED", "w" + i + " and w" + j + " each hold a connection that pairs with the other"
                            + " at quiescence: " + a.actor.held + " / " + b.actor.held);
                }
            }
        }
    }

    private static boolean servingAtEnd(Sim s, Worker w, int i) {
        return w != null && w.started && !w.dead && !w.exited && !w.left && !s.givenUp[i];
    }

    private static boolean holdsPairedWith(Worker w, int j) {
        for (Conn c : w.actor.held) {
            if (c.affinity == j) {
                return true;
            }
        }
        return false;
    }

    /**
     * CONVERGE: at quiescence the live workers' loads, as the page shows them (open connections
     * plus raises orphaned against the index by a dead sender), differ by at most one.
     */
    /** The mixed worlds' load (ADR 0059): settled connections held by worker i or queued to it. */
    private static long settled(Sim s, Worker w, int i) {
        long n = 0;
        for (Conn c : w.actor.held) {
            n += c.served && !c.unsettled ? 1 : 0;
        }
        for (Conn c : s.channels[i]) {
            n += c.unsettled ? 0 : 1;
        }
        return n;
    }

    private static void converged(Sim s) {
        long[] load = new long[s.workers];
        long max = Long.MIN_VALUE;
        long min = Long.MAX_VALUE;
        int live = 0;
        for (int i = 0; i < s.workers; i++) {
            Worker w = s.current[i];
            if (w == null || !w.started || w.dead || w.exited || w.left || s.givenUp[i]) {
                load[i] = -1;
                continue;
            }
            load[i] = s.settledOracle ? settled(s, w, i)
                    : w.actor.held.size() + s.channels[i].size() + Oracles.orphaned(s, i) - s.healed[i];
            max = Math.max(max, load[i]);
            min = Math.min(min, load[i]);
            live++;
        }
        if (live > 1 && max - min > 1) {
            s.violation("CONVERGE", (s.settledOracle ? "settled " : "") + "loads per worker " + java.util.Arrays.toString(load) + " (-1: not live):"
                    + " max - min = " + (max - min) + " at quiescence");
        }
    }
}
