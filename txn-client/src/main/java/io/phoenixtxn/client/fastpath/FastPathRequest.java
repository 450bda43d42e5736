package io.phoenixtxn.client.fastpath;

import org.apache.hadoop.hbase.DoNotRetryIOException;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What a fast-path write asks of the region server, as it travels in {@link FastPathWire#WRITE} (VLDB'18 Alg. 4
 * putVersion; Lorra draft sec. 5.2 validateAndMutate): either the columns to write (bwc, wc) or a named server-side
 * function of the row's latest committed values (brwc), and the bound: the write aborts if the row has a version
 * committed above it ({@link #NO_BOUND} for a blind write).
 *
 * <pre>
 *   format (1 byte, {@value #FORMAT}) | kind (1: columns, 2: function) | bound (8)
 *   columns:  n (4) | n x [family length (4) | family | qualifier length (4) | qualifier | value length (4) | value]
 *   function: name length (4) | name (UTF-8) | arguments length (4) | arguments
 * </pre>
 */
public final class FastPathRequest {
    /** The fast path's write modes (architecture review 4.9: named, not told apart by a sentinel or a null). */
    public enum Mode {
        /** bwc: the columns, above whatever is committed ({@link #NO_BOUND}). */
        BLIND,
        /** wc: the columns, only if nothing committed to the row above the bound (the version br returned). */
        CONDITIONAL,
        /** brwc: what a named server-side function computes from the row's latest committed values. */
        FUNCTION
    }

    /** The bound of a blind write: whatever is committed, the write goes above it. */
    public static final long NO_BOUND = Long.MAX_VALUE;
    private static final byte FORMAT = 1;
    private static final byte COLUMNS = 1;
    private static final byte FUNCTION = 2;

    private final long bound;
    private final List<ColumnValue> columns;
    private final FastPathFunction function;

    private FastPathRequest(long bound, List<ColumnValue> columns, FastPathFunction function) {
        this.bound = bound;
        this.columns = columns;
        this.function = function;
    }

    /** bwc ({@link #NO_BOUND}) or wc (the version br returned). */
    public static FastPathRequest write(long bound, List<ColumnValue> columns) {
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("A fast-path write needs at least one column");
        }
        return new FastPathRequest(bound, List.copyOf(columns), null);
    }

    /** brwc: the function computes the new values from the latest committed ones, on the region server. */
    public static FastPathRequest function(FastPathFunction function) {
        return new FastPathRequest(NO_BOUND, List.of(), function);
    }

    public long bound() {
        return bound;
    }

    public Mode mode() {
        return function != null ? Mode.FUNCTION : bound == NO_BOUND ? Mode.BLIND : Mode.CONDITIONAL;
    }

    /** The columns of a write; empty for a function. */
    public List<ColumnValue> columns() {
        return columns;
    }

    /** The function of a brwc, or null. */
    public FastPathFunction function() {
        return function;
    }

    /** A family the request writes: where the carrier operation names its placeholder column. */
    public byte[] anyFamily() {
        return function != null ? function.family() : columns.get(0).family();
    }

    public byte[] encode() {
        int size = 1 + 1 + 8;
        byte[] name = function == null ? null : function.name().getBytes(StandardCharsets.UTF_8);
        if (function == null) {
            size += 4;
            for (ColumnValue c : columns) {
                size += 12 + c.family().length + c.qualifier().length + c.value().length;
            }
        } else {
            size += 4 + name.length + 4 + function.arguments().length;
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        out.put(FORMAT).put(function == null ? COLUMNS : FUNCTION).putLong(bound);
        if (function == null) {
            out.putInt(columns.size());
            for (ColumnValue c : columns) {
                putBytes(out, c.family());
                putBytes(out, c.qualifier());
                putBytes(out, c.value());
            }
        } else {
            putBytes(out, name);
            putBytes(out, function.arguments());
        }
        return out.array();
    }

    /** @throws DoNotRetryIOException for bytes this version cannot read (naming what is wrong) */
    public static FastPathRequest decode(byte[] bytes) throws DoNotRetryIOException {
        try {
            ByteBuffer in = ByteBuffer.wrap(bytes);
            byte format = in.get();
            if (format != FORMAT) {
                throw new DoNotRetryIOException("Fast-path request of format " + format + "; this region server reads"
                        + " format " + FORMAT + ": upgrade the region servers before the clients");
            }
            byte kind = in.get();
            long bound = in.getLong();
            FastPathRequest request;
            if (kind == COLUMNS) {
                int n = in.getInt();
                if (n <= 0 || n > in.remaining() / 12) {
                    throw new DoNotRetryIOException("Fast-path write declares " + n + " columns in " + bytes.length
                            + " bytes");
                }
                List<ColumnValue> columns = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    columns.add(new ColumnValue(getBytes(in), getBytes(in), getBytes(in)));
                }
                request = new FastPathRequest(bound, columns, null);
            } else if (kind == FUNCTION) {
                String name = new String(getBytes(in), StandardCharsets.UTF_8);
                request = new FastPathRequest(bound, List.of(), FastPathFunction.decode(name, getBytes(in)));
            } else {
                throw new DoNotRetryIOException("Fast-path request of unknown kind " + kind);
            }
            if (in.hasRemaining()) {
                throw new DoNotRetryIOException(in.remaining() + " bytes follow a fast-path request");
            }
            return request;
        } catch (java.nio.BufferUnderflowException | IllegalArgumentException e) {
            throw new DoNotRetryIOException("Malformed fast-path request (" + bytes.length + " bytes): " + e, e);
        }
    }

    private static void putBytes(ByteBuffer out, byte[] b) {
        out.putInt(b.length).put(b);
    }

    private static byte[] getBytes(ByteBuffer in) {
        int n = in.getInt();
        if (n < 0 || n > in.remaining()) {
            throw new IllegalArgumentException("length " + n + " with " + in.remaining() + " bytes left");
        }
        byte[] b = new byte[n];
        in.get(b);
        return b;
    }

    @Override
    public String toString() {
        return switch (mode()) {
            case BLIND -> "bwc " + columns;
            case CONDITIONAL -> "wc " + columns + " if nothing committed above " + bound;
            case FUNCTION -> "brwc " + function;
        };
    }
}
