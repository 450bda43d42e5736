package io.phoenixtxn.tm.ha;

/**
 * The local monotonic clock the lease is measured with. A seam so tests can simulate a process pause: a real pause
 * (garbage collection, SIGSTOP, a hung VM) stops every thread while this clock keeps running.
 */
@FunctionalInterface
public interface MonotonicClock {
    MonotonicClock SYSTEM = System::nanoTime;

    long nanos();
}
