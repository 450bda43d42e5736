package io.phoenixtxn.it.failover;

import io.phoenixtxn.stack.EmbeddedStack;
import io.phoenixtxn.tm.EmbeddedTm;
import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManagerCore;
import io.phoenixtxn.tm.ha.HaConfig;
import io.phoenixtxn.tm.ha.TmHaService;
import io.phoenixtxn.tm.ha.ZooKeeperClients;
import io.phoenixtxn.tm.ha.ZooKeeperFenceStore;
import io.phoenixtxn.tm.net.TmServerConfig;
import org.apache.curator.framework.CuratorFramework;
import org.apache.hadoop.conf.Configuration;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * An embedded stack whose TM is a primary/backup pair of {@link TmHaService}s on the minicluster's ZooKeeper (as
 * the stack's --serve mode runs one). This JVM's TM ({@link EmbeddedTm#adopt}) is whichever member is primary at
 * the moment of each call, so Phoenix clients and the region server's readers follow a failover by themselves.
 * {@link #crashPrimary} kills the primary the way a crash would: its ZooKeeper session is closed without
 * releasing the lease, so the backup takes over only once the lease has run out.
 *
 * <p>Adopts the JVM's TM: use it only in a JVM of its own (the {@code tm-failover-its} failsafe execution), never
 * next to {@code SharedStack}.
 */
final class HaPairStack implements AutoCloseable {
    /**
     * Renewed at 80%: a renewal answered later than the other 20% (1.6 s: a loaded machine, a GC pause) makes the
     * primary answer "not primary" for a moment, which would fail a test. A failover takes at most one lease.
     */
    static final long LEASE_MS = 8_000;
    private static final long AWAIT_PRIMARY_S = 60;

    private final EmbeddedStack stack;
    private final Function<String, String> settings;
    private final HaConfig ha;
    /** Every member ever started, for {@link #primary()} and {@link #close()}; crashed ones stay until closed. */
    private final List<Member> members = new CopyOnWriteArrayList<>();
    private final Set<Member> crashed = ConcurrentHashMap.newKeySet();
    private final CuratorFramework observer;
    private int started;

    /** One TM process of the pair: its own ZooKeeper session and its HA service. */
    record Member(String name, CuratorFramework zk, TmHaService service) {
        boolean isPrimary() {
            return service.isPrimary();
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private HaPairStack(EmbeddedStack stack, Function<String, String> settings) throws TmException {
        this.stack = stack;
        this.settings = settings;
        this.ha = HaConfig.from(settings);
        if (!ha.isEnabled()) {
            throw new IllegalStateException("The stack's configuration names no ZooKeeper quorum: " + ha);
        }
        this.observer = ZooKeeperClients.connect(ha);
    }

    /** Starts the minicluster, then a primary and a backup TM, and makes the primary this JVM's TM. */
    static HaPairStack start() throws Exception {
        EmbeddedStack stack = EmbeddedStack.start();
        HaPairStack pair = null;
        try {
            Configuration conf = stack.configuration();
            Map<String, String> overrides = Map.of(
                    HaConfig.LEASE_MS, Long.toString(LEASE_MS),
                    HaConfig.ZK_CONNECT_TIMEOUT_MS, "10000",
                    HaConfig.ADVERTISED_HOST, "127.0.0.1",
                    // Any free port: other miniclusters and TMs run on this machine at the same time.
                    TmServerConfig.HOST, "127.0.0.1",
                    TmServerConfig.PORT, "0");
            Function<String, String> settings = key -> overrides.containsKey(key) ? overrides.get(key) : conf.get(key);
            pair = new HaPairStack(stack, settings);
            Member first = pair.startMember();
            first.service().awaitPrimary(AWAIT_PRIMARY_S, TimeUnit.SECONDS);
            pair.startMember();
            // Before the first transaction of this JVM: every TM call from now on goes to the current primary.
            EmbeddedTm.adopt(pair::currentCore);
            return pair;
        } catch (Exception | Error e) {
            try {
                if (pair != null) {
                    pair.close();
                } else {
                    stack.close();
                }
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private synchronized Member startMember() throws TmException {
        String name = "tm-" + (char) ('a' + started++);
        CuratorFramework zk = ZooKeeperClients.connect(ha);
        try {
            Member m = new Member(name, zk, TmHaService.start(zk, TmConfig.from(settings),
                    TmServerConfig.from(settings), ha));
            members.add(m);
            return m;
        } catch (TmException | RuntimeException e) {
            zk.close();
            throw e;
        }
    }

    /** The serving primary's TM, or null between a primary's loss and the backup's takeover. */
    private TransactionManagerCore currentCore() {
        for (Member m : members) {
            if (m.isPrimary()) {
                TransactionManagerCore core = m.service().transactionManager().orElse(null);
                if (core != null && core.isServing()) {
                    return core;
                }
            }
        }
        return null;
    }

    /** The member that is primary now; fails if none is. */
    Member primary() {
        for (Member m : members) {
            if (m.isPrimary()) {
                return m;
            }
        }
        throw new IllegalStateException("No transaction manager is primary now among " + members);
    }

    /** The TM core of the current primary. */
    TransactionManagerCore primaryCore() {
        return primary().service().transactionManager().orElseThrow();
    }

    /**
     * Crashes the primary (its ZooKeeper session is closed: no renewal, no release, no graceful handover) and waits
     * until the backup is primary and the crashed one has stopped deciding; then starts a fresh backup, so the pair
     * can fail over again. Returns the new primary.
     */
    Failover crashPrimary() throws InterruptedException, TimeoutException, TmException {
        Member old = primary();
        List<Member> backups = new ArrayList<>();
        for (Member m : members) {
            if (m != old && !crashed.contains(m)) {
                backups.add(m);
            }
        }
        if (backups.size() != 1) {
            throw new IllegalStateException("Expected one live backup of " + old + ", found " + backups);
        }
        Member next = backups.get(0);
        long epochBefore = old.service().transactionManager().orElseThrow().epochBase();
        long crashedAt = System.nanoTime();
        crashed.add(old);
        old.zk().close();
        next.service().awaitPrimary(AWAIT_PRIMARY_S, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(AWAIT_PRIMARY_S);
        while (old.isPrimary() || !next.isPrimary()) {
            if (System.nanoTime() - deadline > 0) {
                throw new TimeoutException("After crashing " + old + ", " + next + " did not become the only primary"
                        + " (old primary: " + old.isPrimary() + ", backup: " + next.isPrimary() + ")");
            }
            TimeUnit.MILLISECONDS.sleep(10); // polling a condition, not waiting for luck
        }
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - crashedAt);
        startMember();
        return new Failover(old, next, epochBefore, next.service().transactionManager().orElseThrow(), tookMs);
    }

    /** What a crash-failover did. */
    record Failover(Member crashed, Member newPrimary, long oldEpochBase, TransactionManagerCore newCore,
                    long tookMs) {
    }

    /** Every fence persisted in ZooKeeper (what a new primary loads), through a session of its own. */
    Map<Long, Long> persistedFences() throws TmException {
        return new ZooKeeperFenceStore(observer, ha.paths()).loadAll();
    }

    EmbeddedStack stack() {
        return stack;
    }

    Connection connect(Properties properties) throws SQLException {
        return stack.connect(properties);
    }

    /** Stops every TM (backups first, so the primary's close hands over to nobody), then the stack. */
    @Override
    public void close() {
        IllegalStateException failure = new IllegalStateException("Closing the HA pair stack failed");
        List<Member> order = new ArrayList<>();
        members.stream().filter(m -> !m.isPrimary()).forEach(order::add);
        members.stream().filter(Member::isPrimary).forEach(order::add);
        for (Member m : order) {
            try {
                m.service().close();
            } catch (RuntimeException e) {
                failure.addSuppressed(e);
            } finally {
                m.zk().close();
            }
        }
        observer.close();
        try {
            stack.close(); // also drops the adopted TM (EmbeddedTm.shutdown)
        } catch (Exception e) {
            failure.addSuppressed(e);
        }
        if (failure.getSuppressed().length > 0) {
            throw failure;
        }
    }
}
