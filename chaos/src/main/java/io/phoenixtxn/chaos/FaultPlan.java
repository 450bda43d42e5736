package io.phoenixtxn.chaos;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * The order of faults in a run, from the seed: first every enabled fault once, one at a time (so each kind's
 * unavailability is measured alone); then mixed steps, two faults of different groups in effect together, alternating
 * with further single passes, until the run's time is up. Deterministic for a seed: the same seed gives the same
 * sequence (what happens inside the cluster is not).
 */
final class FaultPlan {
    /** One step: a single fault, or two overlapping ones (the second injected a little after the first). */
    record Step(List<FaultKind> faults) {
        Step {
            faults = List.copyOf(faults);
        }

        boolean mixed() {
            return faults.size() > 1;
        }
    }

    private final List<FaultKind> enabled;
    private final Random random;
    private final List<Step> pending = new ArrayList<>();
    private int passes;
    private int handedOut;

    FaultPlan(Set<FaultKind> enabled, long seed) {
        this.enabled = new ArrayList<>(enabled);
        Collections.sort(this.enabled);
        this.random = new Random(seed);
    }

    /** The next step; never ends (the run stops asking when its time is up). */
    Step next() {
        if (pending.isEmpty()) {
            if (passes % 2 == 1 && mixable()) {
                pending.addAll(mixedPass());
            } else {
                pending.addAll(singlePass());
            }
            passes++;
        }
        handedOut++;
        return pending.remove(0);
    }

    /** True once the first pass (every enabled fault once, alone) was handed out. */
    boolean firstPassDone() {
        return handedOut >= enabled.size();
    }

    private List<Step> singlePass() {
        List<FaultKind> order = new ArrayList<>(enabled);
        Collections.shuffle(order, random);
        List<Step> steps = new ArrayList<>();
        order.forEach(k -> steps.add(new Step(List.of(k))));
        return steps;
    }

    private boolean mixable() {
        for (FaultKind a : enabled) {
            for (FaultKind b : enabled) {
                if (a.mixesWith(b)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Each enabled fault once, each paired with a random partner of another group. */
    private List<Step> mixedPass() {
        List<FaultKind> order = new ArrayList<>(enabled);
        Collections.shuffle(order, random);
        List<Step> steps = new ArrayList<>();
        for (FaultKind first : order) {
            List<FaultKind> partners = new ArrayList<>();
            for (FaultKind k : enabled) {
                if (first.mixesWith(k)) {
                    partners.add(k);
                }
            }
            if (partners.isEmpty()) {
                steps.add(new Step(List.of(first)));
            } else {
                steps.add(new Step(List.of(first, partners.get(random.nextInt(partners.size())))));
            }
        }
        return steps;
    }
}
