package io.phoenixtxn.coprocessor;

import io.phoenixtxn.tm.Horizon;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The GC horizon as one process knows it: the highest {@link Horizon} the TM ever answered, {@link Horizon#UNKNOWN}
 * until the first answer. Invariant: it never goes down, and it is never above what the TM published (both its
 * parts are maxima of TM answers, each of which only grows at the TM). Without a TM, or with one that cannot tell
 * (a new primary's grace period), it stays where it was: a stale horizon is lower, which keeps more and refuses
 * fewer reads, hence is safe.
 */
final class HorizonTracker {
    private static final Logger LOG = LoggerFactory.getLogger(HorizonTracker.class);

    private final Supplier<TransactionManager> tm;
    private final AtomicReference<Horizon> known = new AtomicReference<>(Horizon.UNKNOWN);

    /** @param tm the TM to ask; may supply null (none reachable now) */
    HorizonTracker(Supplier<TransactionManager> tm) {
        this.tm = tm;
    }

    Horizon current() {
        return known.get();
    }

    /** Asks the TM once (may block for the TM client's request timeout: never call it on an RPC handler). */
    Horizon refresh() {
        TransactionManager manager = tm.get();
        if (manager == null) {
            return known.get();
        }
        Horizon answered;
        try {
            answered = manager.horizon();
        } catch (TmException | RuntimeException e) {
            LOG.debug("No GC horizon from the TM ({}); keeping {}", e.getMessage(), known.get());
            return known.get();
        }
        return merge(answered);
    }

    /** Raises the known horizon to {@code answered} where it is higher; an unknown answer changes nothing. */
    Horizon merge(Horizon answered) {
        if (answered == null || !answered.isKnown()) {
            return known.get();
        }
        return known.updateAndGet(old -> new Horizon(Math.max(old.gc(), answered.gc()),
                Math.max(old.commitPointSafe(), answered.commitPointSafe())));
    }
}
