package io.phoenixtxn.indextool;

import io.phoenixtxn.phoenix.IndexBuildFence;
import io.phoenixtxn.phoenix.IndexToolMapperView;
import org.apache.phoenix.thirdparty.org.apache.commons.cli.CommandLine;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.util.ToolRunner;
import org.apache.phoenix.jdbc.PhoenixConnection;
import org.apache.phoenix.mapreduce.index.IndexTool;
import org.apache.phoenix.mapreduce.util.ConnectionUtil;
import org.apache.phoenix.mapreduce.util.PhoenixConfigurationUtil;
import org.apache.phoenix.schema.PIndexState;
import org.apache.phoenix.schema.PTable;
import org.apache.phoenix.schema.PTableType;
import org.apache.phoenix.util.IndexUtil;
import org.apache.phoenix.util.SchemaUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.SQLException;

/**
 * Phoenix's IndexTool (same arguments) with our fence semantics for transactional tables (design.md sec. 4.4,
 * "IndexTool"). Phoenix 5.2.1 builds an index of a transactional table with a MapReduce job that reads the data
 * table at a timestamp of its own (the index's creation millisecond) and writes every index row marked committed at
 * that timestamp; {@code CREATE INDEX ... ASYNC} takes no fence. This tool, on a transactional table:
 * <ol>
 *   <li>makes a disabled index BUILDING (so every writer that begins from now on maintains it), then draws the TM's
 *       write fence F on the data table, exactly as a synchronous CREATE INDEX does ({@link IndexBuildFence}):
 *       writers that began before F abort at commit (523), and F is held as an open transaction until the job ends,
 *       so the GC horizon stays at or below it;</li>
 *   <li>runs Phoenix's job with F as its {@code TX_SCN}: the map tasks scan the data table as a snapshot at F (the
 *       region observer reads Phoenix's MapReduce read timestamp as one) and write the index rows committed at F,
 *       below every later writer's index maintenance; their per-batch transactions are views at F
 *       ({@link IndexToolMapperView}), and only a writer at a fence drawn so is admitted;</li>
 *   <li>Phoenix's reducer marks the index ACTIVE.</li>
 * </ol>
 * The job runs in the foreground ({@code -runfg} is required: the fence is held by this process). Refused on
 * transactional tables with a message naming the way that works: {@code --partial-rebuild}, {@code --snapshot},
 * {@code --delete-all-and-rebuild} and {@code --split}/{@code --autosplit} (they would remove index rows that
 * writers after the fence maintained), {@code --tenant-id}, time ranges, local indexes, and indexes that are neither
 * BUILDING nor CREATE_DISABLE (they may hold rows a build at a fence would not remove). Non-transactional tables run
 * exactly as with Phoenix's tool.
 *
 * <pre>hbase io.phoenixtxn.indextool.TransactionalIndexTool -dt T -it T_IDX -runfg -op /tmp/t_idx</pre>
 */
public class TransactionalIndexTool extends IndexTool {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionalIndexTool.class);

    @Override
    public int run(String[] args) throws Exception {
        CommandLine cmd;
        try {
            cmd = parseOptions(args);
        } catch (IllegalStateException e) {
            return super.run(args); // Phoenix prints the error and the usage
        }
        String schema = cmd.getOptionValue("s");
        String dataName = cmd.getOptionValue("dt");
        String indexName = cmd.getOptionValue("it");
        Configuration conf = HBaseConfiguration.addHbaseResources(getConf());
        try (PhoenixConnection conn = ConnectionUtil.getInputConnection(conf).unwrap(PhoenixConnection.class)) {
            PTable data = conn.getTableNoCache(SchemaUtil.getQualifiedTableName(schema, dataName));
            if (!data.isTransactional()) {
                return super.run(args);
            }
            if (indexName == null) {
                throw refused("an index table (-it) is required");
            }
            refuseUnsupported(cmd);
            PTable index = conn.getTableNoCache(SchemaUtil.getQualifiedTableName(schema, indexName));
            checkBuildable(data, index);
            if (index.getIndexState() == PIndexState.CREATE_DISABLE) {
                // Before the fence: every writer that begins after it sees an index to maintain.
                IndexUtil.updateIndexState(conn, index.getName().getString(), PIndexState.BUILDING, null);
            }
            try (IndexBuildFence fence = IndexBuildFence.drawAndHold(conn, data)) {
                LOG.info("Building {} of {} at fence {}: writers of the table that began before it abort at commit",
                        index.getName().getString(), data.getName().getString(), fence.timestamp());
                Configuration original = getConf();
                setConf(new FencedJobConfiguration(conf, fence.timestamp()));
                int status;
                try {
                    status = super.run(args);
                } finally {
                    setConf(original);
                }
                if (status == 0) {
                    ensureActive(conn, index);
                }
                return status;
            }
        }
    }

    /**
     * Everything Phoenix would refuse later is refused here, before the fence aborts the table's writers. The index
     * must be an index of the table, global, and either BUILDING (an ASYNC index, maintained by every writer since it
     * was created) or CREATE_DISABLE (never written): an index that was ACTIVE and then disabled may hold rows of
     * values changed since, which rows written at the fence would not remove.
     */
    private static void checkBuildable(PTable data, PTable index) {
        String name = index.getName().getString();
        if (index.getType() != PTableType.INDEX || index.getParentName() == null
                || !index.getParentName().getString().equals(data.getName().getString())) {
            throw refused(name + " is not an index of " + data.getName().getString());
        }
        if (index.getIndexType() == PTable.IndexType.LOCAL) {
            throw refused(name + " is a local index, which phoenix-txn does not build");
        }
        PIndexState state = index.getIndexState();
        if (state != PIndexState.BUILDING && state != PIndexState.CREATE_DISABLE) {
            throw refused(name + " is " + state + ": it may hold rows that a build at a fence would not remove;"
                    + " rebuild it with ALTER INDEX ... REBUILD, which truncates it first");
        }
    }

    /**
     * Phoenix's reducer marks the index ACTIVE from a connection whose transaction is a view at the fence, so the
     * state cell carries the fence's millisecond; a BUILDING cell written later by a region server whose clock runs
     * ahead of the TM's would hide it. The job succeeded, so the index is complete: mark it ACTIVE at server time.
     */
    private static void ensureActive(PhoenixConnection conn, PTable index) throws SQLException {
        String name = index.getName().getString();
        // Phoenix began a transaction on this connection when it resolved the transactional table (before the job):
        // metadata read in it is as of its start. End it, so the state is read as of now.
        conn.rollback();
        PIndexState state = conn.getTableNoCache(name).getIndexState();
        if (state == PIndexState.BUILDING) { // not a state someone else set meanwhile (DISABLE, dropped)
            LOG.warn("{} is still BUILDING after a successful build (a state cell written at a later time hides the"
                    + " reducer's); marking it ACTIVE", name);
            IndexUtil.updateIndexState(conn, name, PIndexState.ACTIVE, null);
        }
    }

    private static void refuseUnsupported(CommandLine cmd) {
        if (!cmd.hasOption("runfg")) {
            throw refused("-runfg is required: this process holds the build's fence while the job reads at it");
        }
        if (cmd.hasOption("pr")) {
            throw refused("--partial-rebuild is not supported");
        }
        if (cmd.hasOption("snap")) {
            throw refused("--snapshot is not supported (an HBase snapshot has no transaction status)");
        }
        if (cmd.hasOption("deleteall")) {
            throw refused("--delete-all-and-rebuild is not supported (the truncation would remove index rows that"
                    + " writers after the fence maintained); ALTER INDEX ... REBUILD truncates before its fence");
        }
        if (cmd.hasOption("tenant")) {
            throw refused("--tenant-id is not supported");
        }
        if (cmd.hasOption("sp") || cmd.hasOption("spa")) {
            throw refused("--split and --autosplit are not supported (they recreate the index table during the"
                    + " build, removing rows that writers after the fence maintained)");
        }
        if (cmd.hasOption("st") || cmd.hasOption("et") || cmd.hasOption("rv")) {
            throw refused("--start-time, --end-time and --retry-verify do not apply to transactional tables");
        }
    }

    private static IllegalArgumentException refused(String why) {
        return new IllegalArgumentException("TransactionalIndexTool on a transactional table: " + why
                + ". Or build the index with ALTER INDEX <index> ON <table> REBUILD (docs/compatibility.md,"
                + " \"ASYNC indexes\")");
    }

    /**
     * The configuration Phoenix's IndexTool runs with: where Phoenix sets the job's transactional read timestamp
     * ({@code TX_SCN}, computed from the index's creation millisecond inside its private job factory), the build's
     * fence is stored instead, and with it the fence setting of the map tasks' views. Phoenix sets it after its own
     * connection is open and before it copies the configuration into the job, so only the job carries the fence.
     */
    static final class FencedJobConfiguration extends Configuration {
        private final String fence;

        FencedJobConfiguration(Configuration conf, long fence) {
            super(conf);
            this.fence = Long.toString(fence);
        }

        @Override
        public void set(String name, String value, String source) {
            if (PhoenixConfigurationUtil.TX_SCN_VALUE.equals(name)) {
                super.set(name, fence, source);
                super.set(IndexToolMapperView.FENCE, fence, source);
                return;
            }
            super.set(name, value, source);
        }
    }

    public static void main(String[] args) throws Exception {
        System.exit(ToolRunner.run(new TransactionalIndexTool(), args));
    }
}
