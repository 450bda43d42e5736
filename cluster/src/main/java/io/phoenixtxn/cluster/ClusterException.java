package io.phoenixtxn.cluster;

/**
 * A cluster operation failed: the message names the cause, the role and its log, and what to do (exit status 1).
 */
public final class ClusterException extends Exception {
    private static final long serialVersionUID = 1L;

    public ClusterException(String message) {
        super(message);
    }

    public ClusterException(String message, Throwable cause) {
        super(message, cause);
    }
}
