package io.phoenixtxn.chaos.client;

import io.phoenixtxn.client.ProtocolHooks;

/**
 * Two {@link ProtocolHooks} in order (the JVM holds one instance): the chaos client logs a decision
 * ({@link DecisionLog}) before its halt switch may end the JVM on it ({@link HaltSwitch}).
 */
final class ChainedHooks implements ProtocolHooks {
    private final ProtocolHooks first;
    private final ProtocolHooks second;

    ChainedHooks(ProtocolHooks first, ProtocolHooks second) {
        this.first = first;
        this.second = second;
    }

    @Override
    public void afterTmDecision(long txId, long commitTs) throws java.io.IOException {
        first.afterTmDecision(txId, commitTs);
        second.afterTmDecision(txId, commitTs);
    }

    @Override
    public void afterCommitPoint(long txId, long commitTs) throws java.io.IOException {
        first.afterCommitPoint(txId, commitTs);
        second.afterCommitPoint(txId, commitTs);
    }
}
