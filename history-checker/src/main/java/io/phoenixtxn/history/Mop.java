package io.phoenixtxn.history;

import java.util.List;
import java.util.Objects;

/**
 * One micro-operation of a transaction: a function name, a key and a value that is absent ({@code null}), one
 * {@code Long} or an immutable list of longs. Examples: {@code [r 3 [1 7]]} (read key 3, saw the list 1, 7),
 * {@code [append 3 9]}, {@code [r 2 100]} (an account balance), {@code [transfer 17 [0 4 25]]} (transfer 17 moves
 * 25 from account 0 to 4), {@code [ledger 0 [1 2 5]]} (the ledger's transfer ids).
 *
 * <p>Invariant: the value is null, a Long or an unmodifiable {@code List<Long>} without nulls.
 */
public record Mop(String f, long key, Object value) {
    public static final String READ = "r";
    public static final String APPEND = "append";

    public Mop {
        Objects.requireNonNull(f, "f");
        if (value instanceof List<?> list) {
            for (Object o : list) {
                if (!(o instanceof Long)) {
                    throw new IllegalArgumentException("list values of a micro-op hold longs only, got " + o);
                }
            }
            value = List.copyOf(list);
        } else if (value != null && !(value instanceof Long)) {
            throw new IllegalArgumentException("a micro-op value is null, a long or a list of longs, got "
                    + value.getClass().getSimpleName());
        }
    }

    public static Mop read(long key) {
        return new Mop(READ, key, null);
    }

    public static Mop read(long key, List<Long> seen) {
        return new Mop(READ, key, seen);
    }

    public static Mop read(long key, long seen) {
        return new Mop(READ, key, seen);
    }

    public static Mop append(long key, long element) {
        return new Mop(APPEND, key, element);
    }

    public boolean isRead() {
        return READ.equals(f);
    }

    public boolean isAppend() {
        return APPEND.equals(f);
    }

    /** The value as a list; fails with the micro-op in the message when it is not one. */
    @SuppressWarnings("unchecked")
    public List<Long> list() {
        if (!(value instanceof List)) {
            throw new IllegalStateException("micro-op " + this + " has no list value");
        }
        return (List<Long>) value;
    }

    /** The value as a long; fails with the micro-op in the message when it is not one. */
    public long number() {
        if (!(value instanceof Long)) {
            throw new IllegalStateException("micro-op " + this + " has no numeric value");
        }
        return (Long) value;
    }

    /** The same micro-op with another value (a read's result). */
    public Mop withValue(Object newValue) {
        return new Mop(f, key, newValue);
    }

    @Override
    public String toString() {
        return Edn.mop(this);
    }
}
