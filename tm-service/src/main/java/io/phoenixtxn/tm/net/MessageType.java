package io.phoenixtxn.tm.net;

/** The type byte of a frame; see {@link Protocol} for the payload of each. */
enum MessageType {
    HELLO(0x01),
    BEGIN(0x02),
    COMMIT(0x03),
    FENCE(0x04),
    LOW_WATER_MARK(0x05),
    PING(0x06),
    PENDING_STATUS(0x07),
    FINISHED(0x08),
    KEEP_ALIVE(0x09),
    HORIZON(0x0A),
    NEW_TIMESTAMP(0x0B),
    STATUS_REPORT(0x0C),
    BULK_LOAD(0x0D),

    HELLO_OK(0x41),
    TIMESTAMP(0x42),
    COMMITTED(0x43),
    ABORTED(0x44),
    ERROR(0x45),
    PONG(0x46),
    STATUS(0x47),
    DONE(0x48),
    TXIDS(0x49),
    HORIZON_IS(0x4A),
    REPORT(0x4B);

    private static final MessageType[] BY_CODE = new MessageType[256];

    static {
        for (MessageType type : values()) {
            BY_CODE[type.code] = type;
        }
    }

    private final int code;

    MessageType(int code) {
        this.code = code;
    }

    byte code() {
        return (byte) code;
    }

    /** The type with this code, or null if this protocol version has none. */
    static MessageType of(byte code) {
        return BY_CODE[code & 0xFF];
    }

    @Override
    public String toString() {
        return name() + String.format("(0x%02x)", code);
    }
}
