package io.phoenixtxn.coprocessor.fastpath;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Fresh TM slots a region server holds in reserve for its {@link LocalVersionClock}, fetched in the background before
 * they are needed, so a clock whose slot is used up continues in a fresh one without waiting for the TM (issue 12:
 * running out of sequence numbers never stalls). At most {@link #TARGET} are held; one request is in flight at a time.
 *
 * <p>A reserved slot is usable only while it is above the clock (readers bump the clock into newer slots); older ones
 * are dropped when met. Any reserved slot is safe to use later: the TM issued it, so every later TM timestamp is above
 * all of its offsets (design.md sec. 2).
 */
final class SlotReserve {
    private static final Logger LOG = LoggerFactory.getLogger(SlotReserve.class);
    /** Slots held ahead: one to switch to, one more to cover the fetch of the next. */
    static final int TARGET = 2;

    private final TimestampSource source;
    private final ConcurrentSkipListSet<Long> slots = new ConcurrentSkipListSet<>();
    private final AtomicBoolean fetching = new AtomicBoolean();

    SlotReserve(TimestampSource source) {
        this.source = source;
    }

    /** The oldest reserved slot above {@code floor}, taken out of the reserve; -1 if none. Drops older ones. */
    long takeAbove(long floor) {
        while (true) {
            Long oldest = slots.pollFirst();
            if (oldest == null) {
                return -1;
            }
            if (oldest > floor) {
                return oldest;
            }
        }
    }

    /** Puts back a slot taken but not used (another thread moved the clock first). */
    void giveBack(long slot) {
        slots.add(slot);
    }

    /**
     * Drops the slots at or below {@code floor} (the clock is past them) and starts a fetch if fewer than
     * {@link #TARGET} remain and none is in flight. Never blocks and never throws (a failed fetch is retried by a later
     * call); a TM in this process may answer before it returns.
     */
    void refill(long floor) {
        slots.headSet(floor, true).clear();
        if (slots.size() >= TARGET || !fetching.compareAndSet(false, true)) {
            return;
        }
        CompletableFuture<Long> fresh;
        try {
            fresh = source.fresh();
        } catch (RuntimeException e) {
            // The caller is a fast-path write that its current slot may still number: a TM client that throws
            // instead of failing its future must not fail that write. The next draw asks again.
            LOG.debug("No fresh slot for the fast-path version clock: {}", e.toString());
            fetching.set(false);
            return;
        }
        fresh.whenComplete((slot, failure) -> {
            if (failure == null && slot != null) {
                slots.add(slot);
            }
            fetching.set(false);
            if (failure == null && slots.size() < TARGET) {
                refill(floor);
            }
        });
    }

    /** Slots held now (monitoring, tests). */
    int size() {
        return slots.size();
    }
}
