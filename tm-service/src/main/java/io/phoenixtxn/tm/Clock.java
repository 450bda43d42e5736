package io.phoenixtxn.tm;

/** Wall clock seam, so tests can freeze, step or skew time. */
@FunctionalInterface
public interface Clock {
    Clock SYSTEM = System::currentTimeMillis;

    long millis();
}
