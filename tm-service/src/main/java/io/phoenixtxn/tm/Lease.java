package io.phoenixtxn.tm;

/**
 * Primary lease seam. The TM asks it before every commit decision leaves the process: a primary that was paused
 * past its lease must not commit anything afterwards (FAST'17 sec. 6).
 */
@FunctionalInterface
public interface Lease {
    /** A lease that is always held: a single TM without HA. */
    Lease ALWAYS_HELD = () -> true;

    /** True while this process may still act as primary; must be cheap (called on every commit). */
    boolean isHeld();
}
