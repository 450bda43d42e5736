package io.phoenixtxn.client.fastpath;

import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.util.Bytes;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

/**
 * A brwc function (Lorra draft sec. 5.3.1): the new values of one row computed from its latest committed values, on
 * the region server, in the same atomic step as the write. Only the built-in functions below exist: a request names
 * one and carries its arguments; no code travels. The same code computes the regular-path fallback on the client, so
 * both paths agree on what a function does.
 *
 * <p>Invariant: {@link #apply} is pure (the same values give the same answer) and writes only columns of
 * {@link #family()}: an increment every one of its columns, a compare-and-set its one column or nothing.
 */
public final class FastPathFunction {
    private static final String INCREMENT = "increment";
    private static final String COMPARE_AND_SET = "compare-and-set";

    /** The latest committed value of a column, or null when it has none (never written, or deleted). */
    @FunctionalInterface
    public interface CommittedValues {
        byte[] get(byte[] family, byte[] qualifier);
    }

    private final String name;
    private final byte[] family;
    /** The columns of the function: one for a compare-and-set, one or more for an increment. */
    private final byte[][] qualifiers;
    private final long[] deltas;
    private final byte[] expected;
    private final byte[] update;

    private FastPathFunction(String name, byte[] family, byte[][] qualifiers, long[] deltas, byte[] expected,
                             byte[] update) {
        this.name = name;
        this.family = family;
        this.qualifiers = qualifiers;
        this.deltas = deltas;
        this.expected = expected;
        this.update = update;
    }

    /**
     * Adds {@code delta} to an 8-byte big-endian long column ({@link Bytes#toBytes(long)}); a column without a value
     * counts as 0. A value of another length fails the operation, writing nothing.
     */
    public static FastPathFunction increment(byte[] family, byte[] qualifier, long delta) {
        return increment(family, new byte[][] {qualifier}, new long[] {delta});
    }

    /** Adds {@code deltas[i]} to column {@code qualifiers[i]} of {@code family}, all in one write. */
    public static FastPathFunction increment(byte[] family, byte[][] qualifiers, long[] deltas) {
        if (qualifiers.length == 0 || qualifiers.length != deltas.length) {
            throw new IllegalArgumentException("An increment needs one delta per column, at least one column: "
                    + qualifiers.length + " columns, " + deltas.length + " deltas");
        }
        byte[][] copies = new byte[qualifiers.length][];
        for (int i = 0; i < qualifiers.length; i++) {
            copies[i] = qualifiers[i].clone();
        }
        return new FastPathFunction(INCREMENT, family.clone(), copies, deltas.clone(), null, null);
    }

    /**
     * Writes {@code update} (null: deletes the column) if the column's value equals {@code expected} (null: the
     * column has no value); otherwise writes nothing.
     */
    public static FastPathFunction compareAndSet(byte[] family, byte[] qualifier, byte[] expected, byte[] update) {
        if (update != null && update.length == 0) {
            throw new IllegalArgumentException("An empty value is a delete in a transactional table: pass null");
        }
        return new FastPathFunction(COMPARE_AND_SET, family.clone(), new byte[][] {qualifier.clone()}, null,
                expected == null ? null : expected.clone(), update == null ? null : update.clone());
    }

    public String name() {
        return name;
    }

    /** The family whose columns the function writes. */
    public byte[] family() {
        return family.clone();
    }

    /**
     * The new column values, or null when the function writes nothing (a compare-and-set whose comparison failed).
     *
     * @throws DoNotRetryIOException when the committed value cannot be used (an increment of a non-long)
     */
    public List<ColumnValue> apply(CommittedValues current) throws DoNotRetryIOException {
        if (INCREMENT.equals(name)) {
            List<ColumnValue> out = new java.util.ArrayList<>(qualifiers.length);
            for (int i = 0; i < qualifiers.length; i++) {
                out.add(new ColumnValue(family, qualifiers[i],
                        Bytes.toBytes(longValue(current.get(family, qualifiers[i]), qualifiers[i]) + deltas[i])));
            }
            return out;
        }
        if (!Arrays.equals(current.get(family, qualifiers[0]), expected)) {
            return null;
        }
        return List.of(new ColumnValue(family, qualifiers[0], update == null ? new byte[0] : update));
    }

    private long longValue(byte[] value, byte[] qualifier) throws DoNotRetryIOException {
        if (value == null) {
            return 0;
        }
        if (value.length != Bytes.SIZEOF_LONG) {
            throw new DoNotRetryIOException("Cannot increment " + Bytes.toStringBinary(family) + ":"
                    + Bytes.toStringBinary(qualifier) + ": its value is " + value.length + " bytes, not an 8-byte long");
        }
        return Bytes.toLong(value);
    }

    /** The arguments as they travel in a {@link FastPathRequest}. */
    byte[] arguments() {
        int size = 4 + family.length + 4;
        for (byte[] q : qualifiers) {
            size += 4 + q.length + (INCREMENT.equals(name) ? 8 : 0);
        }
        if (!INCREMENT.equals(name)) {
            size += lengthOf(expected) + lengthOf(update);
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        out.putInt(family.length).put(family).putInt(qualifiers.length);
        for (int i = 0; i < qualifiers.length; i++) {
            out.putInt(qualifiers[i].length).put(qualifiers[i]);
            if (INCREMENT.equals(name)) {
                out.putLong(deltas[i]);
            }
        }
        if (!INCREMENT.equals(name)) {
            putNullable(out, expected);
            putNullable(out, update);
        }
        return out.array();
    }

    /** A built-in function from its name and arguments. */
    static FastPathFunction decode(String name, byte[] arguments) throws DoNotRetryIOException {
        boolean increment = INCREMENT.equals(name);
        if (!increment && !COMPARE_AND_SET.equals(name)) {
            throw new DoNotRetryIOException("Unknown fast-path function '" + name + "'; this region server knows "
                    + INCREMENT + " and " + COMPARE_AND_SET);
        }
        ByteBuffer in = ByteBuffer.wrap(arguments);
        byte[] family = bytes(in, in.getInt());
        int n = in.getInt();
        if (n <= 0 || n > in.remaining() / 4 || !increment && n != 1) {
            throw new DoNotRetryIOException("Fast-path function " + name + " with " + n + " columns");
        }
        byte[][] qualifiers = new byte[n][];
        long[] deltas = increment ? new long[n] : null;
        for (int i = 0; i < n; i++) {
            qualifiers[i] = bytes(in, in.getInt());
            if (increment) {
                deltas[i] = in.getLong();
            }
        }
        FastPathFunction function = increment ? new FastPathFunction(name, family, qualifiers, deltas, null, null)
                : new FastPathFunction(name, family, qualifiers, null, nullable(in), nullable(in));
        if (in.hasRemaining()) {
            throw new DoNotRetryIOException(in.remaining() + " bytes follow the arguments of fast-path function "
                    + name);
        }
        return function;
    }

    private static int lengthOf(byte[] nullable) {
        return 4 + (nullable == null ? 0 : nullable.length);
    }

    private static void putNullable(ByteBuffer out, byte[] b) {
        if (b == null) {
            out.putInt(-1);
        } else {
            out.putInt(b.length).put(b);
        }
    }

    private static byte[] nullable(ByteBuffer in) {
        int n = in.getInt();
        return n < 0 ? null : bytes(in, n);
    }

    private static byte[] bytes(ByteBuffer in, int n) {
        if (n < 0 || n > in.remaining()) {
            throw new IllegalArgumentException("length " + n + " with " + in.remaining() + " bytes left");
        }
        byte[] b = new byte[n];
        in.get(b);
        return b;
    }

    @Override
    public String toString() {
        StringBuilder columns = new StringBuilder();
        for (int i = 0; i < qualifiers.length; i++) {
            columns.append(i == 0 ? "" : ", ").append(Bytes.toStringBinary(family)).append(':')
                    .append(Bytes.toStringBinary(qualifiers[i]));
            if (deltas != null) {
                columns.append(deltas[i] < 0 ? " - " : " + ").append(Math.abs(deltas[i]));
            }
        }
        return INCREMENT.equals(name) ? name + "(" + columns + ")"
                : name + "(" + columns + ", " + (expected == null ? "absent" : Bytes.toStringBinary(expected)) + " -> "
                + (update == null ? "delete" : Bytes.toStringBinary(update)) + ")";
    }
}
