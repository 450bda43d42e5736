package io.phoenixtxn.tm.net;

import io.phoenixtxn.tm.TmException;

/**
 * A request that never fully left this client (its channel was already closed, or the write failed): the TM
 * cannot have acted on it, so unlike other failures it is safe to send again on a fresh connection.
 */
final class NotSentException extends TmException {
    private static final long serialVersionUID = 1L;

    NotSentException(String message) {
        super(message);
    }
}
