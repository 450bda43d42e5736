package io.phoenixtxn.tm.net;

import io.netty.channel.SelectStrategy;
import io.netty.channel.SelectStrategyFactory;
import io.netty.util.IntSupplier;

/**
 * An event-loop select strategy that keeps polling (yielding the CPU between polls) for a short while after the
 * loop last had work, instead of sleeping in the kernel at once. A TM round trip is a few microseconds of work and
 * two wake-ups; on virtual machines waking a sleeping thread on an idle CPU can cost tens of microseconds, so a
 * loop that is still polling when the next frame arrives halves the latency of a pipelined client. Idle loops stop
 * polling after the window and cost nothing. A window of 0 is Netty's default strategy.
 *
 * <p>One instance per event loop (the factory makes a new one for each): its state is confined to the loop.
 */
final class AdaptiveSpin implements SelectStrategy {
    /** Upper bound of a configured window (0.1 s): polling longer than that is a misconfiguration. */
    static final long MAX_WINDOW_MICROS = io.phoenixtxn.tm.TxnSettings.MAX_SPIN_MICROS;

    private final long windowNanos;
    private long lastBusy;

    private AdaptiveSpin(long windowNanos) {
        this.windowNanos = windowNanos;
    }

    /** A factory giving each event loop its own strategy with a {@code windowMicros} polling window. */
    static SelectStrategyFactory factory(long windowMicros) {
        long window = windowMicros * 1_000;
        return () -> new AdaptiveSpin(window);
    }

    @Override
    public int calculateStrategy(IntSupplier selectNow, boolean hasTasks) throws Exception {
        if (hasTasks) {
            lastBusy = System.nanoTime();
            return selectNow.get();
        }
        if (windowNanos == 0) {
            return SelectStrategy.SELECT;
        }
        int ready = selectNow.get();
        long now = System.nanoTime();
        if (ready > 0) {
            lastBusy = now;
            return ready;
        }
        if (now - lastBusy < windowNanos) {
            Thread.yield(); // another runnable thread on this CPU (a caller, the other side) goes first
            return SelectStrategy.CONTINUE;
        }
        return SelectStrategy.SELECT;
    }
}
