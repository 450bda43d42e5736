package io.phoenixtxn.history.workload;

import io.phoenixtxn.history.Mop;
import io.phoenixtxn.history.Names;
import io.phoenixtxn.history.check.Checker;
import io.phoenixtxn.history.check.CheckerOptions;
import io.phoenixtxn.history.check.ListAppendChecker;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * List-append registers on Phoenix (Elle's workload): table {@code (K BIGINT PRIMARY KEY, V VARCHAR)
 * TRANSACTIONAL=true}, where V holds the key's list as comma-separated elements. An append is a read-modify-write
 * in the transaction (read V, upsert V + "," + e), elements are unique, so every read names the exact version it
 * saw and the checker recovers ww, wr and rw dependencies from reads alone (no timestamps, no trust in the
 * database).
 *
 * <p>Operations: {@code txn} reads and appends 1..n keys (sometimes twice to one key, with a read between, which
 * makes Phoenix send the first write before the second: intermediate versions for G1b; sometimes reads one more
 * key it does not write, for rw edges and write skew); {@code read} reads several keys (in one transaction, or
 * each in its own in the broken {@link ReadMode#PER_KEY_TRANSACTIONS} mode); {@code final-read} reads every key
 * ever used with one scan.
 */
public final class ListAppendWorkload implements Workload {
    private final String table;
    private final Options options;
    private final KeyPool keys;
    private final AtomicLong nextElement = new AtomicLong(1);

    /**
     * @param activeKeys       keys in use at a time (fewer: more conflicts)
     * @param appendsPerKey    appends before a key is retired
     * @param maxKeysPerTxn    keys a read-write transaction appends to, at most
     * @param readOnlyFraction share of read-only operations
     */
    public record Options(int activeKeys, int appendsPerKey, int maxKeysPerTxn, double readOnlyFraction,
                          ReadMode readMode, BetweenReads betweenReads) {
        public static Options defaults() {
            return new Options(6, 32, 3, 0.35, ReadMode.SNAPSHOT, BetweenReads.NOTHING);
        }

        public Options withReadMode(ReadMode mode, BetweenReads between) {
            return new Options(activeKeys, appendsPerKey, maxKeysPerTxn, readOnlyFraction, mode, between);
        }
    }

    public ListAppendWorkload(String table, Options options) {
        this.table = table;
        this.options = options;
        this.keys = new KeyPool(options.activeKeys(), options.appendsPerKey());
    }

    @Override
    public String name() {
        return "list-append";
    }

    @Override
    public List<Mop> setUp(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute("CREATE TABLE " + table + " (K BIGINT NOT NULL PRIMARY KEY, V VARCHAR) TRANSACTIONAL=true");
        }
        return List.of();
    }

    @Override
    public Invocation next(Random random) {
        if (random.nextDouble() < options.readOnlyFraction()) {
            int n = 2 + random.nextInt(Math.max(1, keys.activeCount() - 1));
            List<Mop> reads = new ArrayList<>();
            for (long k : keys.pick(random, n)) {
                reads.add(Mop.read(k));
            }
            return new Invocation(Names.READ, reads);
        }
        int writes = 1 + random.nextInt(options.maxKeysPerTxn());
        List<Long> picked = keys.pick(random, writes + 1);
        List<Mop> mops = new ArrayList<>();
        for (int i = 0; i < Math.min(writes, picked.size()); i++) {
            long k = picked.get(i);
            int appends = random.nextInt(8) == 0 ? 2 : 1;
            for (int a = 0; a < appends; a++) {
                mops.add(Mop.read(k));
                mops.add(Mop.append(k, nextElement.getAndIncrement()));
            }
            keys.used(k, appends);
        }
        if (picked.size() > writes && random.nextBoolean()) {
            mops.add(Mop.read(picked.get(writes)));
        }
        return new Invocation(Names.TXN, mops);
    }

    @Override
    public List<Mop> apply(Session session, Invocation invocation) throws SQLException, InterruptedException {
        return switch (invocation.f()) {
            case Names.READ -> read(session, invocation.value());
            case Names.TXN -> readWrite(session, invocation.value());
            case Names.FINAL_READ -> finalRead(session, invocation.value());
            default -> throw new IllegalArgumentException("list-append has no operation " + invocation.f());
        };
    }

    private List<Mop> read(Session session, List<Mop> asked) throws SQLException, InterruptedException {
        List<Mop> result = new ArrayList<>();
        try (PreparedStatement select = select(session)) {
            for (int i = 0; i < asked.size(); i++) {
                Mop m = asked.get(i);
                result.add(m.withValue(read(select, m.key())));
                if (options.readMode() == ReadMode.PER_KEY_TRANSACTIONS && i + 1 < asked.size()) {
                    session.commitReads();
                    options.betweenReads().afterRead();
                }
            }
        }
        session.commitReads();
        return result;
    }

    private List<Mop> readWrite(Session session, List<Mop> asked) throws SQLException {
        List<Mop> result = new ArrayList<>();
        Map<Long, List<Long>> current = new HashMap<>();
        try (PreparedStatement select = select(session);
             PreparedStatement upsert = session.connection().prepareStatement("UPSERT INTO " + table
                     + " (K, V) VALUES (?, ?)")) {
            for (Mop m : asked) {
                if (m.isRead()) {
                    List<Long> seen = read(select, m.key());
                    current.put(m.key(), seen);
                    result.add(m.withValue(seen));
                } else if (m.isAppend()) {
                    List<Long> base = current.get(m.key());
                    if (base == null) {
                        base = read(select, m.key());
                    }
                    List<Long> next = new ArrayList<>(base);
                    next.add(m.number());
                    upsert.setLong(1, m.key());
                    upsert.setString(2, encode(next));
                    upsert.executeUpdate();
                    current.put(m.key(), next);
                    result.add(m);
                } else {
                    throw new IllegalArgumentException("list-append has no micro-op " + m);
                }
            }
        }
        session.commitWrites();
        return result;
    }

    private List<Mop> finalRead(Session session, List<Mop> asked) throws SQLException {
        Map<Long, List<Long>> all = new HashMap<>();
        try (Statement s = session.connection().createStatement();
             ResultSet rs = s.executeQuery("SELECT K, V FROM " + table)) {
            while (rs.next()) {
                all.put(rs.getLong(1), decode(rs.getString(2)));
            }
        }
        session.commitReads();
        List<Mop> result = new ArrayList<>();
        for (Mop m : asked) {
            result.add(m.withValue(all.getOrDefault(m.key(), List.of())));
        }
        return result;
    }

    @Override
    public Invocation finalRead() {
        List<Mop> reads = new ArrayList<>();
        for (long k = 0; k < keys.keysUsed(); k++) {
            reads.add(Mop.read(k));
        }
        return new Invocation(Names.FINAL_READ, reads);
    }

    @Override
    public Checker checker(CheckerOptions checkerOptions) {
        return new ListAppendChecker(checkerOptions);
    }

    private PreparedStatement select(Session session) throws SQLException {
        return session.connection().prepareStatement("SELECT V FROM " + table + " WHERE K = ?");
    }

    private static List<Long> read(PreparedStatement select, long key) throws SQLException {
        select.setLong(1, key);
        try (ResultSet rs = select.executeQuery()) {
            return rs.next() ? decode(rs.getString(1)) : List.of();
        }
    }

    static String encode(List<Long> list) {
        StringBuilder sb = new StringBuilder();
        for (long e : list) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(e);
        }
        return sb.toString();
    }

    /** The stored list; a value that is not a list of numbers fails loudly rather than being read as something. */
    static List<Long> decode(String value) {
        List<Long> list = new ArrayList<>();
        if (value == null || value.isEmpty()) {
            return list;
        }
        for (String part : value.split(",", -1)) {
            try {
                list.add(Long.parseLong(part));
            } catch (NumberFormatException e) {
                throw new IllegalStateException("list-append value is not a list of numbers: '" + value + "'", e);
            }
        }
        return list;
    }
}
