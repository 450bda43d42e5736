package io.phoenixtxn.client;

/** Coordinates of one tentative cell a transaction wrote: what post-commit marks and rollback removes. */
public final class WrittenCell {
    private final byte[] row;
    private final byte[] family;
    private final byte[] qualifier;
    private final long version;

    public WrittenCell(byte[] row, byte[] family, byte[] qualifier, long version) {
        this.row = row;
        this.family = family;
        this.qualifier = qualifier;
        this.version = version;
    }

    public byte[] row() {
        return row;
    }

    public byte[] family() {
        return family;
    }

    public byte[] qualifier() {
        return qualifier;
    }

    public long version() {
        return version;
    }
}
