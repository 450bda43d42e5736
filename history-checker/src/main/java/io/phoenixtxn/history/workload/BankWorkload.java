package io.phoenixtxn.history.workload;

import io.phoenixtxn.history.Mop;
import io.phoenixtxn.history.Names;
import io.phoenixtxn.history.check.BankChecker;
import io.phoenixtxn.history.check.Checker;
import io.phoenixtxn.history.check.CheckerOptions;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bank transfers with a ledger: accounts {@code (ID BIGINT PRIMARY KEY, BAL BIGINT)} and a ledger {@code (ID
 * BIGINT PRIMARY KEY, SRC, DST, AMT)}, both TRANSACTIONAL=true. A transfer reads both balances, refuses an
 * overdraft (writes nothing: a certain fail), and in one transaction writes both balances and its ledger row under
 * a unique id. Readers read every balance in one transaction (or each account in its own, in the broken {@link
 * ReadMode#PER_KEY_TRANSACTIONS} mode). The final read returns every balance and every ledger id, so the checker can
 * tell which unknown transfers committed and hold the balances to exactly those.
 */
public final class BankWorkload implements Workload {
    private final String accounts;
    private final String ledger;
    private final Options options;
    private final AtomicLong nextId = new AtomicLong(1);

    /**
     * @param accounts     number of accounts (ids 0 .. n-1)
     * @param initial      each account's initial balance
     * @param maxAmount    transfers move 1 .. maxAmount
     * @param readFraction share of read operations
     */
    public record Options(int accounts, long initial, long maxAmount, double readFraction, ReadMode readMode,
                          BetweenReads betweenReads) {
        public static Options defaults() {
            return new Options(5, 100, 20, 0.4, ReadMode.SNAPSHOT, BetweenReads.NOTHING);
        }

        public Options withReadMode(ReadMode mode, BetweenReads between) {
            return new Options(accounts, initial, maxAmount, readFraction, mode, between);
        }
    }

    /** Tables {@code table} (accounts) and {@code table + "_LEDGER"}. */
    public BankWorkload(String table, Options options) {
        if (options.accounts() < 2) {
            throw new IllegalArgumentException("a bank needs at least 2 accounts, got " + options.accounts());
        }
        this.accounts = table;
        this.ledger = table + "_LEDGER";
        this.options = options;
    }

    @Override
    public String name() {
        return "bank";
    }

    @Override
    public List<Mop> setUp(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute("CREATE TABLE " + accounts + " (ID BIGINT NOT NULL PRIMARY KEY, BAL BIGINT) TRANSACTIONAL=true");
            s.execute("CREATE TABLE " + ledger + " (ID BIGINT NOT NULL PRIMARY KEY, SRC BIGINT, DST BIGINT,"
                    + " AMT BIGINT) TRANSACTIONAL=true");
        }
        List<Mop> initial = new ArrayList<>();
        try (PreparedStatement upsert = connection.prepareStatement("UPSERT INTO " + accounts
                + " (ID, BAL) VALUES (?, ?)")) {
            for (int a = 0; a < options.accounts(); a++) {
                upsert.setLong(1, a);
                upsert.setLong(2, options.initial());
                upsert.executeUpdate();
                initial.add(new Mop(Names.WRITE, a, options.initial()));
            }
        }
        connection.commit();
        return initial;
    }

    @Override
    public Invocation next(Random random) {
        if (random.nextDouble() < options.readFraction()) {
            List<Mop> reads = new ArrayList<>();
            for (int a = 0; a < options.accounts(); a++) {
                reads.add(Mop.read(a));
            }
            return new Invocation(Names.READ, reads);
        }
        long from = random.nextInt(options.accounts());
        long to = (from + 1 + random.nextInt(options.accounts() - 1)) % options.accounts();
        long amount = 1 + random.nextInt((int) options.maxAmount());
        return new Invocation(Names.TRANSFER, List.of(new Mop(Names.TRANSFER, nextId.getAndIncrement(),
                List.of(from, to, amount))));
    }

    @Override
    public List<Mop> apply(Session session, Invocation invocation) throws SQLException, OperationNotApplied,
            InterruptedException {
        return switch (invocation.f()) {
            case Names.TRANSFER -> transfer(session, invocation.value().get(0));
            case Names.READ -> read(session, invocation.value());
            case Names.FINAL_READ -> finalRead(session);
            default -> throw new IllegalArgumentException("bank has no operation " + invocation.f());
        };
    }

    private List<Mop> transfer(Session session, Mop transfer) throws SQLException, OperationNotApplied {
        long from = transfer.list().get(0);
        long to = transfer.list().get(1);
        long amount = transfer.list().get(2);
        Connection c = session.connection();
        Map<Long, Long> balances = new TreeMap<>();
        try (PreparedStatement select = c.prepareStatement("SELECT ID, BAL FROM " + accounts + " WHERE ID IN (?, ?)")) {
            select.setLong(1, from);
            select.setLong(2, to);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    balances.put(rs.getLong(1), rs.getLong(2));
                }
            }
        }
        if (!balances.containsKey(from) || !balances.containsKey(to)) {
            throw new OperationNotApplied("accounts " + from + " and " + to + " not both found: " + balances);
        }
        if (balances.get(from) < amount) {
            throw new OperationNotApplied("insufficient funds: account " + from + " holds " + balances.get(from)
                    + " < " + amount);
        }
        try (PreparedStatement upsert = c.prepareStatement("UPSERT INTO " + accounts + " (ID, BAL) VALUES (?, ?)");
             PreparedStatement log = c.prepareStatement("UPSERT INTO " + ledger
                     + " (ID, SRC, DST, AMT) VALUES (?, ?, ?, ?)")) {
            upsert.setLong(1, from);
            upsert.setLong(2, balances.get(from) - amount);
            upsert.executeUpdate();
            upsert.setLong(1, to);
            upsert.setLong(2, balances.get(to) + amount);
            upsert.executeUpdate();
            log.setLong(1, transfer.key());
            log.setLong(2, from);
            log.setLong(3, to);
            log.setLong(4, amount);
            log.executeUpdate();
        }
        session.commitWrites();
        return List.of(Mop.read(from, balances.get(from)), Mop.read(to, balances.get(to)), transfer);
    }

    private List<Mop> read(Session session, List<Mop> asked) throws SQLException, InterruptedException {
        if (options.readMode() == ReadMode.SNAPSHOT) {
            Map<Long, Long> balances = allBalances(session.connection());
            session.commitReads();
            List<Mop> result = new ArrayList<>();
            for (Map.Entry<Long, Long> e : balances.entrySet()) {
                result.add(Mop.read(e.getKey(), e.getValue()));
            }
            return result;
        }
        List<Mop> result = new ArrayList<>();
        try (PreparedStatement select = session.connection().prepareStatement("SELECT BAL FROM " + accounts
                + " WHERE ID = ?")) {
            for (int i = 0; i < asked.size(); i++) {
                select.setLong(1, asked.get(i).key());
                try (ResultSet rs = select.executeQuery()) {
                    if (rs.next()) {
                        result.add(Mop.read(asked.get(i).key(), rs.getLong(1)));
                    }
                }
                session.commitReads();
                if (i + 1 < asked.size()) {
                    options.betweenReads().afterRead();
                }
            }
        }
        return result;
    }

    private List<Mop> finalRead(Session session) throws SQLException {
        Map<Long, Long> balances = allBalances(session.connection());
        List<Long> ids = new ArrayList<>();
        try (Statement s = session.connection().createStatement();
             ResultSet rs = s.executeQuery("SELECT ID FROM " + ledger)) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
        }
        session.commitReads();
        List<Mop> result = new ArrayList<>();
        for (Map.Entry<Long, Long> e : balances.entrySet()) {
            result.add(Mop.read(e.getKey(), e.getValue()));
        }
        result.add(new Mop(Names.LEDGER, 0, ids));
        return result;
    }

    private Map<Long, Long> allBalances(Connection c) throws SQLException {
        Map<Long, Long> balances = new TreeMap<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT ID, BAL FROM " + accounts)) {
            while (rs.next()) {
                balances.put(rs.getLong(1), rs.getLong(2));
            }
        }
        return balances;
    }

    @Override
    public Invocation finalRead() {
        List<Mop> asked = new ArrayList<>();
        for (int a = 0; a < options.accounts(); a++) {
            asked.add(Mop.read(a));
        }
        asked.add(new Mop(Names.LEDGER, 0, null));
        return new Invocation(Names.FINAL_READ, asked);
    }

    @Override
    public Checker checker(CheckerOptions checkerOptions) {
        return new BankChecker();
    }
}
