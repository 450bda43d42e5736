package io.phoenixtxn.tm.net;

/**
 * A frame that cannot be decoded. If its request id was readable the receiver answers that request with an error
 * and keeps the connection; otherwise it closes the connection.
 */
final class MalformedFrameException extends Exception {
    private static final long serialVersionUID = 1L;

    private final boolean hasRequestId;
    private final long requestId;

    private MalformedFrameException(boolean hasRequestId, long requestId, String message) {
        super(message);
        this.hasRequestId = hasRequestId;
        this.requestId = requestId;
    }

    static MalformedFrameException forRequest(long requestId, String message) {
        return new MalformedFrameException(true, requestId, message);
    }

    static MalformedFrameException withoutRequestId(String message) {
        return new MalformedFrameException(false, Protocol.CONNECTION_REQUEST_ID, message);
    }

    boolean hasRequestId() {
        return hasRequestId;
    }

    long requestId() {
        return requestId;
    }
}
