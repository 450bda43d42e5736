package io.phoenixtxn.history.check;

import io.phoenixtxn.history.History;

/** Checks a history; never throws for an anomaly, only for a history it cannot interpret. */
public interface Checker {
    CheckResult check(History history);
}
