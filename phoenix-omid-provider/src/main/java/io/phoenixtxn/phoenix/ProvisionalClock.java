package io.phoenixtxn.phoenix;

/**
 * The clock of provisional transaction ids (design.md sec. 4.11, Phoenix mapping): a context begun lazily shows
 * Phoenix its local clock, in the TM's layout, for metadata resolution. Test seam: a test installs a skewed clock to
 * show that nothing a write depends on is read at a provisional id (client clocks may lag or lead the TM's).
 * Production code installs nothing.
 */
@FunctionalInterface
public interface ProvisionalClock {
    ProvisionalClock SYSTEM = System::currentTimeMillis;

    /** Milliseconds since the epoch, as this client's clock has them. */
    long nowMs();

    static ProvisionalClock current() {
        return Holder.clock;
    }

    /** Installs {@code clock} JVM-wide (null: the system clock); returns the previous one. */
    static ProvisionalClock install(ProvisionalClock clock) {
        ProvisionalClock previous = Holder.clock;
        Holder.clock = clock == null ? SYSTEM : clock;
        return previous;
    }

    final class Holder {
        private static volatile ProvisionalClock clock = SYSTEM;

        private Holder() {
        }
    }
}
