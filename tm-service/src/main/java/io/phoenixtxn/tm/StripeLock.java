package io.phoenixtxn.tm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The lock of one stripe of a TM table (open transactions, decision log): critical sections of a few memory
 * accesses, taken several times per transaction by the embedded TM on its callers' threads. Waiters spin briefly,
 * then yield; they never park. A monitor parks its waiters, so with more caller threads than cores a holder
 * descheduled for a scheduler slice collects parked waiters, and every release then costs a wake-up (a system call)
 * while the convoy drains. Extended by the stripe itself, so the lock word shares the stripe's object.
 */
abstract class StripeLock {
    private static final VarHandle STATE;
    private static final int SPINS_BEFORE_YIELD = 100;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(StripeLock.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // through STATE
    private volatile int state;

    final void lock() {
        if (!STATE.compareAndSet(this, 0, 1)) {
            contended();
        }
    }

    final void unlock() {
        STATE.setRelease(this, 0);
    }

    private void contended() {
        int spins = 0;
        while (state != 0 || !STATE.compareAndSet(this, 0, 1)) {
            if (++spins < SPINS_BEFORE_YIELD) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
    }
}
