package io.phoenixtxn.coprocessor;

import io.phoenixtxn.tm.EmbeddedTm;
import io.phoenixtxn.tm.TransactionManager;

/**
 * The TM a region server asks about pending writers. A region server never starts a TM of its own: it uses the
 * JVM's embedded TM when there is one (the embedded stack, tests), and otherwise answers null, so readers fall back
 * to the Omid LL rule (wait, then force-abort), which is always correct.
 */
final class RegionServerTm {
    private RegionServerTm() {
    }

    static TransactionManager current() {
        return EmbeddedTm.existing();
    }
}
