package io.phoenixtxn.index;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.Pair;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Client side of an index population on the region servers (VLDB'18 sec. 6.1, at the fence): one
 * {@link PopulationScan} per key range ({@link PopulationRanges}: the regions of the data table as they are when the
 * population starts, cut at its guideposts), run in parallel. The
 * region servers scan their rows at the population's snapshot and write the index rows committed at its version;
 * the client only receives one progress result per page, so its memory does not grow with the table.
 *
 * <p>Failures: HBase's client scanner already reopens a scan after a region move, split or region-server crash,
 * right after the last row a page reported. A range whose scanner still fails is retried from that row up to
 * {@code attempts} times. Index rows are the same cells whenever they are written (version and commit timestamp
 * are the population's), so rows written again change nothing.
 */
public final class RegionServerPopulation {
    private static final Logger LOG = LoggerFactory.getLogger(RegionServerPopulation.class);

    /** Opens a transactional scan of the data table at the population's snapshot. */
    @FunctionalInterface
    public interface ScanOpener {
        ResultScanner open(Scan scan) throws IOException;
    }

    /** How a population runs: parallel ranges, page limits, write batch size, attempts per range. */
    public record Settings(int threads, int pageRows, int pageMillis, int batchRows, int attempts) {
    }

    /** A region server answered a population scan with data rows: it does not run the population (older jar). */
    public static final class NotSupportedException extends IOException {
        private static final long serialVersionUID = 1L;

        NotSupportedException(String message) {
            super(message);
        }
    }

    private static final long FIRST_PAUSE_MS = 500;
    private static final long MAX_PAUSE_MS = 10_000;
    private static final long STOP_WAIT_S = 60;

    private final ScanOpener opener;
    private final Settings settings;

    public RegionServerPopulation(ScanOpener opener, Settings settings) {
        this.opener = opener;
        this.settings = settings;
    }

    /**
     * Populates the indexes {@code maintainers} describes from every range in {@code startEndKeys} (a region
     * locator's start and end keys), writing at {@code version}. Returns when every range is done; throws the first
     * failure once its attempts are spent (the other ranges are then stopped).
     */
    public void run(Pair<byte[][], byte[][]> startEndKeys, byte[] maintainers, long version,
                    IndexBuildProgress progress) throws IOException {
        int ranges = startEndKeys.getFirst().length;
        int threads = Math.max(1, Math.min(settings.threads(), ranges));
        AtomicInteger threadNumber = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "phoenix-txn-population-" + progress.getFenceTimestamp() + "-"
                    + threadNumber.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        AtomicBoolean cancelled = new AtomicBoolean();
        CompletionService<Void> done = new ExecutorCompletionService<>(pool);
        try {
            for (int i = 0; i < ranges; i++) {
                byte[] start = startEndKeys.getFirst()[i];
                byte[] stop = startEndKeys.getSecond()[i];
                done.submit(() -> {
                    populateRange(start, stop, maintainers, version, progress, cancelled);
                    return null;
                });
            }
            for (int i = 0; i < ranges; i++) {
                done.take().get(); // in completion order: the first failure stops the others at once
            }
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new IOException("Index population on the region servers failed: " + cause, cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted while populating the index on the region servers");
        } finally {
            // No range may open a scan at the fence once the population's transaction can end.
            cancelled.set(true);
            pool.shutdownNow();
            awaitStopped(pool);
        }
    }

    private static void awaitStopped(ExecutorService pool) {
        try {
            if (!pool.awaitTermination(STOP_WAIT_S, TimeUnit.SECONDS)) {
                LOG.warn("Index population threads still running {} s after the population ended", STOP_WAIT_S);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void populateRange(byte[] start, byte[] stop, byte[] maintainers, long version,
                               IndexBuildProgress progress, AtomicBoolean cancelled) throws IOException {
        byte[] resumeAfter = null;
        for (int attempt = 1; ; attempt++) {
            if (cancelled.get()) {
                throw new InterruptedIOException("Index population stopped (another range failed)");
            }
            Scan scan = new Scan().withStartRow(resumeAfter == null ? start : resumeAfter, resumeAfter == null)
                    .withStopRow(stop, false).setCaching(1).setCacheBlocks(false);
            PopulationScan.mark(scan, maintainers, version, settings.pageRows(), settings.pageMillis(),
                    settings.batchRows());
            try (ResultScanner scanner = opener.open(scan)) {
                for (Result result = scanner.next(); result != null && !cancelled.get(); result = scanner.next()) {
                    PopulationScan.Page page = PopulationScan.page(result);
                    if (page == null) {
                        throw new NotSupportedException("The region server holding row "
                                + Bytes.toStringBinary(result.getRow()) + " answered an index population scan with data"
                                + " rows: it runs a phoenix-txn region-server jar without region-server population");
                    }
                    resumeAfter = page.lastRow();
                    progress.page(page.scanned(), page.written());
                }
                if (cancelled.get()) {
                    throw new InterruptedIOException("Index population stopped (another range failed)");
                }
                progress.rangeDone();
                return;
            } catch (NotSupportedException | InterruptedIOException e) {
                throw e;
            } catch (IOException | RuntimeException e) {
                if (attempt >= settings.attempts() || Thread.currentThread().isInterrupted() || cancelled.get()) {
                    throw new IOException("Index population of rows [" + Bytes.toStringBinary(start) + ", "
                            + Bytes.toStringBinary(stop) + ") failed after " + attempt + " attempts (last row done: "
                            + (resumeAfter == null ? "none" : Bytes.toStringBinary(resumeAfter)) + "): " + e, e);
                }
                long pauseMs = Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS << Math.min(attempt - 1, 10));
                LOG.warn("Index population of rows [{}, {}) failed (attempt {} of {}), resuming after {} in {} ms: {}",
                        Bytes.toStringBinary(start), Bytes.toStringBinary(stop), attempt, settings.attempts(),
                        resumeAfter == null ? "the range's start" : Bytes.toStringBinary(resumeAfter), pauseMs,
                        e.toString());
                try {
                    Thread.sleep(pauseMs); // a crashed server's regions take the master a while to reassign
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("Interrupted while retrying an index population range");
                }
            }
        }
    }
}
