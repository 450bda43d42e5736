package io.phoenixtxn.tm;

import io.phoenixtxn.tm.Setting.Reader;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Every configuration key of phoenix-txn, declared once: key, default, bounds, who reads it and what it does. The
 * config classes of each component ({@link TmConfig}, {@code TmServerConfig}, {@code RemoteTmConfig},
 * {@code HaConfig}, {@code TxnClientConfig}, the region server's {@code GcConfig} and {@code FastPathConfig}, the
 * launchers) read their keys through these {@link Setting}s, and the README's configuration table is
 * {@link #readmeTable()} (a unit test keeps the two equal; {@code main} prints the table).
 *
 * <p>Invariant: one declaration per key (checked when the class loads); a key that is not declared here is not a
 * phoenix-txn setting. The registry lives in tm-service, the lowest module that reads configuration: the client,
 * region-server and launcher modules all depend on it.
 */
public final class TxnSettings {
    /** The README's sections of the configuration table, in order; a null title has no header row. */
    enum Group {
        GENERAL(null),
        TRANSACTION_MANAGER("**transaction manager**"),
        TM_SERVER("**TM server** (`bin/tm-server`, stack `--serve`)"),
        TM_CLIENT("**TM client**"),
        HA("**high availability and discovery**"),
        DATA_PLANE("**data plane**"),
        STORAGE("**storage lifecycle (compaction-time GC)**"),
        LAUNCHER("**launchers**");

        private final String title;

        Group(String title) {
            this.title = title;
        }
    }

    private static final List<Setting<?>> ALL = new ArrayList<>();
    private static final Set<String> KEYS = new HashSet<>();

    /** Largest TM frame body by default, both sides. */
    public static final long DEFAULT_MAX_FRAME_BYTES = 16 << 20;
    /** Smallest frame limit that still fits a handshake and an error text. */
    public static final long MIN_MAX_FRAME_BYTES = 1024;
    /** The frame length field is an int and the decoder adds its own 4 bytes to the limit. */
    public static final long MAX_MAX_FRAME_BYTES = Integer.MAX_VALUE - 4;
    /** Longest spin window of an I/O thread (0.1 s: past it, sleeping costs less than polling). */
    public static final long MAX_SPIN_MICROS = 100_000;
    /** Upper bound of the TM client's millisecond timeouts and intervals (one hour). */
    public static final long MAX_CLIENT_MILLIS = 3_600_000;

    private static final class R {
        static final Reader TM = Reader.TM;
        static final Reader CLIENT = Reader.CLIENT;
        static final Reader RS = Reader.RS;
        static final Reader LAUNCHER = Reader.LAUNCHER;
    }

    public static final Setting<Boolean> PHOENIX_TRANSACTIONS_ENABLED = add(Setting.flag(Group.GENERAL,
            "phoenix.transactions.enabled", false,
            "Phoenix's own switch; `true` to create or use transactional tables",
            R.CLIENT));

    public static final Setting<Boolean> ALTER_TO_TRANSACTIONAL = add(Setting.flag(Group.GENERAL,
            "phoenix.txn.alter.to.transactional", true,
            "`true` lets Phoenix make a live non-transactional table transactional (`ALTER TABLE t SET "
                    + "TRANSACTIONAL=true`: the provider answers `isUnsupported(ALTER_NONTX_TO_TX)` with `false`; "
                    + "docs/compatibility.md, \"Making a table transactional\"); `false` makes Phoenix refuse it "
                    + "(error 1093). A system property because Phoenix asks without any configuration",
            R.CLIENT).readFrom("JVM system property"));

    public static final Setting<String> TM_MODE = add(Setting.choice(Group.GENERAL,
            "phoenix.txn.tm.mode", "auto", List.of("auto", "embedded", "remote"),
            "one TM per cluster. `auto`: the TM this JVM serves (stack `--serve`), if any; else, on a "
                    + "cluster where a TM server has ever run (`<zk.path>/timestamp` exists in its ZooKeeper), the "
                    + "advertised primary, waiting up to `phoenix.txn.tm.discovery.timeout.ms` during a failover and "
                    + "then failing: never a TM of its own; on a cluster that never had a TM server, an embedded TM "
                    + "(registered under `<zk.path>/embedded`: a TM server started later waits until those JVMs stop,"
                    + " naming them in its log); ZooKeeper unreachable: an error, no TM. `embedded`: in-process, for "
                    + "one JVM; refused on a cluster that has a TM server. `remote`: only the advertised TM",
            R.CLIENT));

    public static final Setting<Long> TM_CONFLICT_ENTRIES = add(Setting.number(Group.TRANSACTION_MANAGER,
            "phoenix.txn.tm.conflict.entries", 1 << 22, 1, Integer.MAX_VALUE,
            "conflict-table entries (16 bytes each): more entries, fewer false aborts of long transactions",
            R.TM));

    public static final Setting<Long> TM_CONFLICT_ASSOCIATIVITY = add(Setting.number(Group.TRANSACTION_MANAGER,
            "phoenix.txn.tm.conflict.associativity", 16, 1, Integer.MAX_VALUE,
            "slots per conflict-table bucket (16 = four cache lines per bucket, FAST'17's \"32 integers\");"
                    + " a commit scans each bucket it writes, so more ways cost time per row, fewer make long "
                    + "transactions abort sooner (CONFLICT_HISTORY_FULL)",
            R.TM));

    public static final Setting<Long> TM_TIMESTAMP_RESERVATION_MS = add(Setting.number(Group.TRANSACTION_MANAGER,
            "phoenix.txn.tm.timestamp.reservation.ms", 10_000, 1, 86_400_000L,
            "size of each timestamp epoch reserved in storage by compare-and-set",
            R.TM));

    public static final Setting<Long> TM_MAX_WRITE_SET = add(Setting.number(Group.TRANSACTION_MANAGER,
            "phoenix.txn.tm.max.writeset.size", 1 << 20, 1, Integer.MAX_VALUE,
            "largest write set (rows) a commit may carry; larger ones are refused with this key in the "
                    + "error",
            R.TM));

    public static final Setting<Long> TM_DECISIONS_RETAINED = add(Setting.number(Group.TRANSACTION_MANAGER,
            "phoenix.txn.tm.decisions.retained", 1 << 18, 1, Integer.MAX_VALUE,
            "recent commit decisions kept to answer readers about pending writers",
            R.TM));

    public static final Setting<String> TM_SERVER_HOST = add(Setting.text(Group.TM_SERVER,
            "phoenix.txn.tm.server.host", "127.0.0.1",
            "address to bind",
            R.TM));

    public static final Setting<Long> TM_SERVER_PORT = add(Setting.number(Group.TM_SERVER,
            "phoenix.txn.tm.server.port", 24680, 0, 65_535,
            "port (0 = any free port)",
            R.TM));

    public static final Setting<Long> TM_SERVER_MAX_FRAME_BYTES = add(Setting.number(Group.TM_SERVER,
            "phoenix.txn.tm.server.max.frame.bytes", DEFAULT_MAX_FRAME_BYTES, MIN_MAX_FRAME_BYTES, MAX_MAX_FRAME_BYTES,
            "largest request frame; longer ones close the connection with a logged reason",
            R.TM));

    public static final Setting<Long> TM_SERVER_IDLE_TIMEOUT_S = add(Setting.number(Group.TM_SERVER,
            "phoenix.txn.tm.server.idle.timeout.s", 60, 1, Integer.MAX_VALUE / 1000,
            "a client silent this long is disconnected (clients ping)",
            R.TM));

    public static final Setting<Long> TM_SERVER_IO_THREADS = add(Setting.number(Group.TM_SERVER,
            "phoenix.txn.tm.server.io.threads", 4, 1, 1024,
            "Netty I/O threads (they decide BEGIN, COMMIT and FINISHED in batches, one flush per batch). "
                    + "Netty's epoll transport is used on Linux (`phoenix.txn.tm.netty.nio` forces NIO)",
            R.TM).computedDefault(() -> (long) ConfigValues.defaultThreads(4), "cores, at most 4"));

    public static final Setting<Long> TM_SERVER_WORKER_THREADS = add(Setting.number(Group.TM_SERVER,
            "phoenix.txn.tm.server.worker.threads", 8, 1, 1024,
            "threads running the other TM calls, and batches that would wait for ZooKeeper (a fence being "
                    + "persisted, a timestamp reservation to extend)",
            R.TM).computedDefault(() -> (long) ConfigValues.defaultThreads(8), "cores, at most 8"));

    public static final Setting<String> TM_SERVER_TLS_CERT_FILE = add(Setting.text(Group.TM_SERVER,
            "phoenix.txn.tm.server.tls.cert.file", null,
            "PEM certificate chain; with `phoenix.txn.tm.server.tls.key.file`: TLS on",
            R.TM));

    public static final Setting<String> TM_SERVER_TLS_KEY_FILE = add(Setting.text(Group.TM_SERVER,
            "phoenix.txn.tm.server.tls.key.file", null,
            "PEM private key (unencrypted PKCS#8) of the certificate",
            R.TM));

    public static final Setting<Long> TM_SERVER_SPIN_US = add(Setting.number(Group.TM_SERVER,
            "phoenix.txn.tm.server.spin.us", 50, 0, MAX_SPIN_MICROS,
            "microseconds an I/O thread keeps polling for the next request after its last work before it "
                    + "sleeps (a sleeping thread costs a wake-up per request, tens of microseconds on virtual "
                    + "machines); 0 = sleep at once",
            R.TM));

    public static final Setting<Long> TM_METRICS_PORT = add(Setting.number(Group.TM_SERVER,
            "phoenix.txn.tm.metrics.port", -1, -1, 65_535,
            "port of the TM server's Prometheus text endpoint `http://<phoenix.txn.tm.server.host>:<port>/metrics` "
                    + "(every metrics2 source of the process; `docs/operations.md` lists them); -1 = no endpoint, 0 = "
                    + "any free port (printed at start). The metrics are in JMX and metrics2 sinks either way",
            R.TM));

    public static final Setting<Boolean> TM_NETTY_NIO = add(Setting.flag(Group.TM_SERVER,
            "phoenix.txn.tm.netty.nio", false,
            "`true` makes the TM server and TM clients use Netty's NIO transport instead of epoll on Linux",
            R.TM, R.CLIENT, R.RS).readFrom("JVM system property"));

    public static final Setting<Long> TM_CLIENT_CONNECTIONS = add(Setting.number(Group.TM_CLIENT,
            "phoenix.txn.tm.client.connections", 2, 1, 64,
            "connections per client; requests from all threads are pipelined over them",
            R.CLIENT));

    public static final Setting<Long> TM_CLIENT_REQUEST_TIMEOUT_MS = add(Setting.number(Group.TM_CLIENT,
            "phoenix.txn.tm.client.request.timeout.ms", 5_000, 1, MAX_CLIENT_MILLIS,
            "per request; on timeout the transaction rolls back (before its commit point)",
            R.CLIENT));

    public static final Setting<Long> TM_CLIENT_STATUS_TIMEOUT_MS = add(Setting.number(Group.TM_CLIENT,
            "phoenix.txn.tm.client.status.timeout.ms", 500, 1, MAX_CLIENT_MILLIS,
            "how long a reader that found a pending writer waits for the TM's answer; then the answer is "
                    + "UNKNOWN (the reader waits `phoenix.txn.reader.pending.wait.ms`, then force-aborts the writer)."
                    + " Such a question never waits for a connection or for discovery, so a TM failover cannot stall "
                    + "region-server handlers",
            R.RS));

    public static final Setting<Long> TM_CLIENT_CONNECT_TIMEOUT_MS = add(Setting.number(Group.TM_CLIENT,
            "phoenix.txn.tm.client.connect.timeout.ms", 3_000, 1, MAX_CLIENT_MILLIS,
            "TCP connect timeout",
            R.CLIENT));

    public static final Setting<Long> TM_CLIENT_PING_INTERVAL_MS = add(Setting.number(Group.TM_CLIENT,
            "phoenix.txn.tm.client.ping.interval.ms", 10_000, 1, MAX_CLIENT_MILLIS,
            "keepalive",
            R.CLIENT));

    public static final Setting<Long> TM_CLIENT_MAX_FRAME_BYTES = add(Setting.number(Group.TM_CLIENT,
            "phoenix.txn.tm.client.max.frame.bytes", DEFAULT_MAX_FRAME_BYTES, MIN_MAX_FRAME_BYTES, MAX_MAX_FRAME_BYTES,
            "oversize commits are refused locally",
            R.CLIENT));

    public static final Setting<Boolean> TM_CLIENT_TLS_ENABLED = add(Setting.flag(Group.TM_CLIENT,
            "phoenix.txn.tm.client.tls.enabled", false,
            "TLS to the TM",
            R.CLIENT));

    public static final Setting<String> TM_CLIENT_TLS_TRUST_FILE = add(Setting.text(Group.TM_CLIENT,
            "phoenix.txn.tm.client.tls.trust.file", null,
            "trusted certificates (PEM) for TLS to the TM; unset: the JDK's default trust store",
            R.CLIENT));

    public static final Setting<Long> TM_CLIENT_SPIN_US = add(Setting.number(Group.TM_CLIENT,
            "phoenix.txn.tm.client.spin.us", 50, 0, MAX_SPIN_MICROS,
            "microseconds the client's I/O threads keep polling after their last work, and a thread waiting"
                    + " alone for the TM's answer spins, before they sleep; 0 = sleep at once",
            R.CLIENT));

    public static final Setting<String> TM_ZK_QUORUM = add(Setting.text(Group.HA,
            "phoenix.txn.tm.zk.quorum", null,
            "ZooKeeper for the lease, epochs, fences and discovery (falls back to "
                    + "`hbase.client.zookeeper.quorum`, then `hbase.zookeeper.quorum` + "
                    + "`hbase.zookeeper.property.clientPort`)",
            R.TM, R.CLIENT).shownAs("HBase's quorum"));

    public static final Setting<String> TM_ZK_PATH = add(Setting.text(Group.HA,
            "phoenix.txn.tm.zk.path", "/phoenix-txn",
            "base znode",
            R.TM, R.CLIENT));

    public static final Setting<Long> TM_LEASE_MS = add(Setting.number(Group.HA,
            "phoenix.txn.tm.lease.ms", 10_000, 1, Long.MAX_VALUE,
            "primary lease, renewed at 80%; a primary that cannot renew stops deciding",
            R.TM));

    public static final Setting<Long> TM_ZK_CONNECT_TIMEOUT_MS = add(Setting.number(Group.HA,
            "phoenix.txn.tm.zk.connect.timeout.ms", 15_000, 1, Long.MAX_VALUE,
            "ZooKeeper client connect timeout",
            R.TM, R.CLIENT));

    public static final Setting<Long> TM_ZK_SESSION_TIMEOUT_MS = add(Setting.number(Group.HA,
            "phoenix.txn.tm.zk.session.timeout.ms", 30_000, 1, Long.MAX_VALUE,
            "ZooKeeper client session timeout",
            R.TM, R.CLIENT));

    public static final Setting<Long> TM_DISCOVERY_TIMEOUT_MS = add(Setting.number(Group.HA,
            "phoenix.txn.tm.discovery.timeout.ms", 30_000, 1, Long.MAX_VALUE,
            "how long a client waits for a primary to be advertised",
            R.CLIENT));

    public static final Setting<String> TM_ADVERTISED_HOST = add(Setting.text(Group.HA,
            "phoenix.txn.tm.advertised.host", null,
            "host name clients should use",
            R.TM).shownAs("bind host"));

    public static final Setting<String> COMMIT_TABLE = add(Setting.text(Group.DATA_PLANE,
            "phoenix.txn.commit.table", "OMID_COMMIT_TABLE",
            "commit table; Omid's `omid.committable.tablename` is honoured too",
            R.CLIENT, R.RS));

    public static final Setting<Long> COMMIT_TABLE_REGIONS = add(Setting.number(Group.DATA_PLANE,
            "phoenix.txn.commit.table.regions", 1, 0, Long.MAX_VALUE,
            "pre-split of the commit table when we create it (up to 8 useful)",
            R.CLIENT));

    public static final Setting<String> POST_COMMIT_MODE = add(Setting.choice(Group.DATA_PLANE,
            "phoenix.txn.postcommit.mode", "async", List.of("async", "sync"),
            "`async`: commit returns at the commit point; `sync`: after the commit cells are written (a "
                    + "failure writing them is logged, not thrown: the transaction is committed, and readers and the "
                    + "cleaner finish it)",
            R.CLIENT));

    public static final Setting<Long> READER_PENDING_WAIT_MS = add(Setting.number(Group.DATA_PLANE,
            "phoenix.txn.reader.pending.wait.ms", 50, 0, Long.MAX_VALUE,
            "how long a reader waits for a writer that the TM decided (below the reader's start) before "
                    + "force-aborting it",
            R.RS));

    public static final Setting<Long> CLEANER_INTERVAL_MS = add(Setting.number(Group.DATA_PLANE,
            "phoenix.txn.cleaner.interval.ms", 60_000, 0, Long.MAX_VALUE,
            "how often a client completes the post-commits of crashed clients (entries older than this); 0 "
                    + "= never",
            R.CLIENT));

    public static final Setting<Long> TRANSACTION_LEASE_MS = add(Setting.number(Group.STORAGE,
            "phoenix.txn.tm.transaction.lease.ms", 60_000, 1, Long.MAX_VALUE,
            "how long a transaction (or an index build's fence) holds the GC horizon without a word from "
                    + "its client (begin, keep-alive); past it the transaction is expired: it cannot commit (EXPIRED)"
                    + " and region servers refuse its reads (\"Snapshot too old\"); clients read the same key and "
                    + "stop reading and committing a transaction they could not renew for it",
            R.TM, R.CLIENT));

    public static final Setting<Long> COMMIT_POINT_HORIZON_LAG_MS = add(Setting.number(Group.STORAGE,
            "phoenix.txn.tm.commit.point.horizon.lag.ms", 120_000, 1, Long.MAX_VALUE,
            "how long after the GC horizon passed a transaction that transaction can no longer write its "
                    + "commit point; below this commit-point horizon GC deletes invalid markers and readers take a "
                    + "writer without commit as aborted without asking. Must exceed the clients' commit-point timeout"
                    + " plus their TM request timeout",
            R.TM));

    public static final Setting<Long> KEEP_ALIVE_INTERVAL_MS = add(Setting.number(Group.STORAGE,
            "phoenix.txn.keepalive.interval.ms", 20_000, 1, Long.MAX_VALUE,
            "open transactions older than this are renewed with the TM (checked every half interval); ended"
                    + " ones are told to the TM in batches (phoenix.txn.finished.flush.ms)",
            R.CLIENT));

    public static final Setting<Long> FINISHED_FLUSH_MS = add(Setting.number(Group.STORAGE,
            "phoenix.txn.finished.flush.ms", 10, 1, 60_000,
            "ended transactions (committed, rolled back, read-only) are told to the TM in one batch this often; until"
                    + " then they hold the GC horizon, so compactions keep what was written meanwhile. A client sends one"
                    + " such request per interval (earlier when 512 ended ones are queued)",
            R.CLIENT));

    public static final Setting<Long> COMMIT_POINT_TIMEOUT_MS = add(Setting.number(Group.STORAGE,
            "phoenix.txn.commit.point.timeout.ms", 30_000, 1, Integer.MAX_VALUE,
            "the commit point must be written within this after the TM's decision arrives (past it the "
                    + "transaction aborts, unwritten), and bounds each commit-table operation; the TM's commit-point "
                    + "lag must exceed it plus the TM request timeout",
            R.CLIENT));

    public static final Setting<Long> GC_HORIZON_REFRESH_MS = add(Setting.number(Group.STORAGE,
            "phoenix.txn.gc.horizon.refresh.ms", 5_000, 10, 3_600_000,
            "how often a region server asks the TM for the GC horizon, in the background (reads and "
                    + "compactions never wait for the TM; the horizon only grows)",
            R.RS));

    public static final Setting<Long> GC_ROW_MAX_CELLS = add(Setting.number(Group.STORAGE,
            "phoenix.txn.gc.row.max.cells", 100_000, 2, Integer.MAX_VALUE,
            "GC buffers one row of one store at a time up to this many cells; a larger row is decided in two "
                    + "passes by compactions (next key) and written unchanged by flushes (logged once per flush)",
            R.RS));

    public static final Setting<Long> GC_ROW_STREAM_MAX_CELLS = add(Setting.number(Group.STORAGE,
            "phoenix.txn.gc.row.stream.max.cells", 2_000_000, 0, Integer.MAX_VALUE,
            "a compaction decides a row above `phoenix.txn.gc.row.max.cells` in two passes (a second scanner over "
                    + "its input, about 100-200 bytes of heap per cell while the row is decided) up to this many "
                    + "cells; beyond, the row is written unchanged (0: never stream)",
            R.RS));

    public static final Setting<Long> FASTPATH_BOOTSTRAP_WAIT_MS = add(Setting.number(Group.STORAGE,
            "phoenix.txn.fastpath.bootstrap.wait.ms", 1_000, 0, 60_000,
            "how long the first fast-path write to a region opened on this server (move, split, crash "
                    + "recovery) waits, before it locks its row, for the fresh TM timestamp its version clock "
                    + "bootstraps with; past it the write aborts (`SLOT_UNAVAILABLE`) and the client retries it as a "
                    + "regular transaction",
            R.RS));

    public static final Setting<Long> FASTPATH_READ_WAIT_MS = add(Setting.number(Group.STORAGE,
            "phoenix.txn.fastpath.read.wait.ms", 30_000, 1, 600_000,
            "how long a transactional read waits for a fast-path write in flight that drew a version below "
                    + "its start (HBase reads take no row lock); past it the read fails rather than miss that write",
            R.RS));

    public static final Setting<Long> FASTPATH_SLOT_MAX_AGE_MS = add(Setting.number(Group.STORAGE,
            "phoenix.txn.fastpath.slot.max.age.ms", 1_000, 10, 3_600_000,
            "how far the millisecond of the version clock's slot may lag the wall clock for a fast-path "
                    + "version to be drawn from it (versions expire by family TTL by their millisecond; an idle clock"
                    + " would lag by minutes). An older slot, or reserved slot, is left for a fresh TM timestamp, "
                    + "waited for before the row is locked (up to `phoenix.txn.fastpath.bootstrap.wait.ms`); without "
                    + "one the write aborts (`SLOT_UNAVAILABLE`). Keep it above the clock skew between TM and region "
                    + "servers",
            R.RS));

    public static final Setting<String> COMMITTED_BELOW_TABLE_ATTRIBUTE = add(Setting.text(Group.STORAGE,
            "phoenix.txn.committed.below", null,
            "written when the switch of a table converted by `ALTER TABLE ... SET TRANSACTIONAL=true` (Phoenix "
                    + "marks such tables `data.tx.read.pre.existing=true`) is completed, by the next transaction "
                    + "of the ALTER's connection or the first transactional use of the table: the write fence drawn "
                    + "once every region refuses non-transactional writes, so that it is drawn once per table. "
                    + "Until it is present, transactional reads and writes of the table wait for the switch to "
                    + "complete (up to 60 s for Phoenix's own modifyTable) and complete it",
            R.CLIENT).readFrom("table descriptor attribute").shownAs("absent"));

    public static final Setting<String> FASTPATH_TABLE_ATTRIBUTE = add(Setting.text(Group.STORAGE,
            "phoenix.txn.fastpath", null,
            "the fast path is opt-in: only `true` enables it (`PhoenixFastPath.enable` for a Phoenix table, "
                    + "which refuses one with an index; `FastPathSwitch.enable` at the HBase level); absent or anything else, every region refuses fast-path writes (`FENCED`). CREATE "
                    + "INDEX turns it off (`FastPathSwitch.disable`: Admin.modifyTable, which reopens every region) "
                    + "before it draws the index fence",
            R.RS).readFrom("table descriptor attribute").shownAs("absent (disabled)"));

    public static final Setting<Boolean> FASTPATH_ROUTING = add(Setting.flag(Group.DATA_PLANE,
            "phoenix.txn.fastpath.routing", true,
            "`true`: Phoenix statements on auto-commit connections begin lazily (no TM round trip until a snapshot "
                    + "is needed), and an auto-commit single-row `UPSERT VALUES` or point `DELETE` of a table with the "
                    + "fast path on and no index commits as one bwc; `false`: every statement takes the regular path, "
                    + "begun eagerly",
            R.CLIENT));

    public static final Setting<Long> FASTPATH_SWITCH_CACHE_MS = add(Setting.number(Group.DATA_PLANE,
            "phoenix.txn.fastpath.switch.cache.ms", 5_000, 0, MAX_CLIENT_MILLIS,
            "how long a client trusts what it read of a table's `phoenix.txn.fastpath` attribute when routing "
                    + "statements (a stale \"on\" is refused by the region server as FENCED and retried by Phoenix)",
            R.CLIENT));

    public static final Setting<Long> FASTPATH_SWITCH_READ_TIMEOUT_MS = add(Setting.number(Group.DATA_PLANE,
            "phoenix.txn.fastpath.switch.read.timeout.ms", 1_000, 1, MAX_CLIENT_MILLIS,
            "how long a client waits for the master when it reads a table's `phoenix.txn.fastpath` attribute (one "
                    + "Admin call, few retries); past it the switch is unknown and statements take the regular path",
            R.CLIENT));

    public static final Setting<Long> FASTPATH_SWITCH_FAILURE_CACHE_MS = add(Setting.number(Group.DATA_PLANE,
            "phoenix.txn.fastpath.switch.failure.cache.ms", 2_000, 0, MAX_CLIENT_MILLIS,
            "how long a client remembers that it could not read a table's `phoenix.txn.fastpath` attribute (master "
                    + "down or slow): meanwhile the table's statements take the regular path without asking again",
            R.CLIENT));

    public static final Setting<Long> METADATA_REPAIR_MS = add(Setting.number(Group.DATA_PLANE,
            "phoenix.txn.metadata.repair.ms", 1_000, 0, MAX_CLIENT_MILLIS,
            "how often each Phoenix connection service removes from its metadata cache a transactional table that "
                    + "lists an index whose own entry the cache evicted (after another client's DROP INDEX such a "
                    + "table fails every query with 1012; design.md sec. 4.10); also done when a transaction that "
                    + "wrote nothing rolls back. 0: only then",
            R.CLIENT));

    public static final Setting<Boolean> INDEX_POPULATION_ON_REGION_SERVERS = add(Setting.flag(Group.DATA_PLANE,
            "phoenix.txn.index.population.on.region.servers", true,
            "`true`: CREATE INDEX on a transactional table populates the index on the region servers, one scan per "
                    + "key range (the regions, cut at the table's guideposts) at the fence, nothing held on the client (design.md sec. 4.4); `false`, and for view, "
                    + "partial and uncovered indexes: Phoenix's own pass, an UPSERT SELECT through the client",
            R.CLIENT));

    public static final Setting<Long> INDEX_POPULATION_THREADS = add(Setting.number(Group.DATA_PLANE,
            "phoenix.txn.index.population.threads", 8, 1, 1024,
            "key ranges a region-server population works on at once (its regions, cut at the table's guideposts "
                    + "into at most 4 ranges per thread); keep it well below the region servers' "
                    + "`hbase.regionserver.handler.count`: a page holds a handler of its region server while it "
                    + "writes index rows, which need a handler of the index region's server",
            R.CLIENT));

    public static final Setting<Long> INDEX_POPULATION_PAGE_ROWS = add(Setting.number(Group.DATA_PLANE,
            "phoenix.txn.index.population.page.rows", 10_000, 1, Integer.MAX_VALUE,
            "data rows a region server populates per scan call before it reports progress (and the point a "
                    + "resumed scan restarts from)",
            R.CLIENT));

    public static final Setting<Long> INDEX_POPULATION_PAGE_MS = add(Setting.number(Group.DATA_PLANE,
            "phoenix.txn.index.population.page.ms", 1_000, 1, 60_000,
            "time a region server populates per scan call before it reports progress; keep it well below "
                    + "`hbase.client.scanner.timeout.period`",
            R.CLIENT));

    public static final Setting<Long> INDEX_POPULATION_BATCH_ROWS = add(Setting.number(Group.DATA_PLANE,
            "phoenix.txn.index.population.batch.rows", 1_000, 1, 1_000_000,
            "index rows a region server writes per batch: the memory one population scan holds there",
            R.CLIENT));

    public static final Setting<Long> INDEX_POPULATION_ATTEMPTS = add(Setting.number(Group.DATA_PLANE,
            "phoenix.txn.index.population.attempts", 3, 1, 100,
            "attempts per key range before a region-server population fails CREATE INDEX (each one resumes after the "
                    + "last row reported; HBase's client scanner already retries region moves, splits and crashes "
                    + "inside an attempt)",
            R.CLIENT));

    public static final Setting<Long> INDEX_POPULATION_LOAD_SHARE_PERCENT = add(Setting.number(Group.DATA_PLANE,
            "phoenix.txn.index.population.load.share.percent", 25, 0, 100_000,
            "while a region server's transactional tables serve other reads and writes (seen within "
                    + "`phoenix.txn.index.population.load.window.ms`), the index populations running there together "
                    + "work at most this share of one handler's time, in percent: each one pauses after each batch "
                    + "(design.md sec. 4.4). A quiet build is never paced; `0` turns pacing off",
            R.RS));

    public static final Setting<Long> INDEX_POPULATION_LOAD_WINDOW_MS = add(Setting.number(Group.DATA_PLANE,
            "phoenix.txn.index.population.load.window.ms", 1_000, 1, 60_000,
            "how recent other reads or writes of a region server's transactional tables must be for its index "
                    + "populations to yield to them (`phoenix.txn.index.population.load.share.percent`)",
            R.RS));

    public static final Setting<Boolean> TM_TLS_ENABLED = add(Setting.flag(Group.TM_SERVER,
            "phoenix.txn.tm.tls.enabled", false,
            "mutual TLS on the TM connection from key and trust stores: a TM server refuses, in the handshake and "
                    + "before reading any request, every client without a certificate its trust store accepts; "
                    + "clients and region servers show theirs (docs/operations.md)",
            R.TM, R.CLIENT, R.RS));

    public static final Setting<String> TM_TLS_KEYSTORE_LOCATION = add(Setting.text(Group.TM_SERVER,
            "phoenix.txn.tm.tls.keystore.location", null,
            "this process's certificate chain and private key, a key store file (needed when "
                    + "`phoenix.txn.tm.tls.enabled` is true)",
            R.TM, R.CLIENT, R.RS));

    public static final Setting<String> TM_TLS_KEYSTORE_PASSWORD = add(Setting.text(Group.TM_SERVER,
            "phoenix.txn.tm.tls.keystore.password", null, "the key store's password", R.TM, R.CLIENT, R.RS));

    public static final Setting<String> TM_TLS_KEYSTORE_TYPE = add(Setting.text(Group.TM_SERVER,
            "phoenix.txn.tm.tls.keystore.type", "PKCS12", "the key store's type (`PKCS12` or `JKS`)",
            R.TM, R.CLIENT, R.RS));

    public static final Setting<String> TM_TLS_TRUSTSTORE_LOCATION = add(Setting.text(Group.TM_SERVER,
            "phoenix.txn.tm.tls.truststore.location", null,
            "the CA certificates the other side's certificate must chain to, a trust store file",
            R.TM, R.CLIENT, R.RS));

    public static final Setting<String> TM_TLS_TRUSTSTORE_PASSWORD = add(Setting.text(Group.TM_SERVER,
            "phoenix.txn.tm.tls.truststore.password", null, "the trust store's password", R.TM, R.CLIENT, R.RS));

    public static final Setting<String> TM_TLS_TRUSTSTORE_TYPE = add(Setting.text(Group.TM_SERVER,
            "phoenix.txn.tm.tls.truststore.type", "PKCS12", "the trust store's type (`PKCS12` or `JKS`)",
            R.TM, R.CLIENT, R.RS));

    public static final Setting<Long> TM_TLS_HANDSHAKE_TIMEOUT_MS = add(Setting.number(Group.TM_SERVER,
            "phoenix.txn.tm.tls.handshake.timeout.ms", 10_000, 1, 3_600_000,
            "a connection whose TLS handshake has not finished this long after it was accepted is closed",
            R.TM));

    public static final Setting<String> TM_ZK_ACL = add(Setting.text(Group.HA,
            "phoenix.txn.tm.zk.acl", null,
            "ZooKeeper ACL of every node the TM creates under the base path, `scheme:id:perms,...` (e.g. "
                    + "`sasl:tm:cdrwa,world:anyone:r`); clients and region servers only read; unset: open",
            R.TM));

    public static final Setting<String> TM_ZK_AUTH = add(Setting.text(Group.HA,
            "phoenix.txn.tm.zk.auth", null,
            "`scheme:credentials` the TM's ZooKeeper session adds (`digest:tm:secret`); Kerberos sessions use the "
                    + "JVM's JAAS `Client` section instead",
            R.TM));

    public static final Setting<Long> STACK_STARTUP_TIMEOUT_S = add(Setting.number(Group.LAUNCHER,
            "phoenix.txn.stack.startup.timeout.s", 300, 1, 86_400,
            "how long `bin/phoenix-txn-stack` waits for the minicluster, the TM and Phoenix to start before it "
                    + "exits with an error (`bin/phoenix-txn-stack -Dphoenix.txn.stack.startup.timeout.s=600`)",
            R.LAUNCHER));

    private TxnSettings() {
    }

    private static <T> Setting<T> add(Setting<T> setting) {
        if (!KEYS.add(setting.key())) {
            throw new IllegalStateException(setting.key() + " is declared twice in TxnSettings");
        }
        ALL.add(setting);
        return setting;
    }

    /** Every setting, in the README's order. */
    public static List<Setting<?>> all() {
        return Collections.unmodifiableList(ALL);
    }

    /** The README's configuration table (Markdown), header included, one row per setting. */
    public static String readmeTable() {
        StringBuilder table = new StringBuilder("| key | default | read by | meaning |\n| --- | --- | --- | --- |\n");
        Group current = Group.GENERAL;
        for (Setting<?> setting : ALL) {
            if (setting.group() != current) {
                current = setting.group();
                table.append("| ").append(current.title).append(" | | | |\n");
            }
            table.append(setting.tableRow()).append('\n');
        }
        return table.toString();
    }

    /** Prints {@link #readmeTable()}: paste it over the README's table after changing a setting. */
    public static void main(String[] args) {
        System.out.print(readmeTable());
    }
}
