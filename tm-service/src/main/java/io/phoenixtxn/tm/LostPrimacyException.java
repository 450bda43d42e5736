package io.phoenixtxn.tm;

/**
 * Another TM moved the timestamp reservation: this one is no longer primary and must stop issuing timestamps.
 */
public class LostPrimacyException extends TmException {
    private static final long serialVersionUID = 1L;

    public LostPrimacyException(String message) {
        super(message);
    }
}
