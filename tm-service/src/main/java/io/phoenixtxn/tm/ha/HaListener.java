package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.net.TmEndpoint;

/**
 * Hears about primacy changes of a {@link TmHaService}. {@link #lostPrimacy} is the panic hook: when it runs, the TM
 * has already stopped deciding, its server is closed and its advertisement withdrawn; what is left to decide is what
 * the process does next. The default does nothing, and the service goes back to being a backup; a deployment that
 * wants Apache Omid's behaviour (exit and let a supervisor restart it) exits here. Never exit inside tests.
 */
public interface HaListener {
    HaListener NONE = new HaListener() {
    };

    default void becamePrimary(TmEndpoint endpoint) {
    }

    default void lostPrimacy(String reason) {
    }
}
