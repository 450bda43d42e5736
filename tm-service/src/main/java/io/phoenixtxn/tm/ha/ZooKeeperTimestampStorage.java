package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.TimestampStorage;
import io.phoenixtxn.tm.TmException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;

import java.util.UUID;

/**
 * The persistent max-timestamp ("maxTS", FAST'17 sec. 6.3) in one znode. Compare-and-set is a versioned
 * {@code setData}: it succeeds only if nobody wrote the node since the version this TM last saw, so two TMs can never
 * both move the reservation from the same value, and a new primary's epoch starts above every timestamp an old one
 * could issue.
 *
 * <p>The version of this TM's own last write is cached, so a renewal costs one round trip; a stale cache (another TM
 * wrote) shows up as a version mismatch and is re-read before the answer is decided.
 *
 * <p>Unclear answers. A write may be applied while its answer is lost: the call fails with CONNECTIONLOSS, or
 * Curator retries it and the retry finds the version moved (by the first attempt). Read back, such a write is a
 * value this TM did not expect, which would look like another TM's reservation and stop the TM for a lease period.
 * So each write carries a token ({@link ReservationCodec}): this instance's writer id and the number of the move,
 * where a move is the change away from one expected value, kept over the calls that retry it. A re-read that finds
 * the token of the open move proves the node went from {@code expected} to what it holds by this move's writes
 * only: each of them was a versioned write at a version that held {@code expected} or this move's token, and
 * every other writer's bytes carry another token. The move then goes on from there as if its write had been
 * answered. Anything else (another token, or none) is another writer: the answer is false, as before. Writer ids
 * are random per instance, so no other TM, and no earlier term of this process, can hold this move's token.
 *
 * <p>Thread-safe: both operations are synchronized (the oracle calls them under its own lock anyway).
 */
public final class ZooKeeperTimestampStorage implements TimestampStorage {
    private final VersionedZNode node;
    private final String writerId;
    /** Value, version and writer of the node as this instance last read or wrote it; null = unknown. */
    private Versioned known;
    /** The move whose last write had an unclear outcome, to be finished by the next call from the same value. */
    private Move open;
    private long moves;

    private record Versioned(long value, int version, String writer) {
    }

    /** Moving the node away from {@code from}; every write of the move carries {@code token}. */
    private record Move(long from, String token) {
        /** The node may be moved on by this move: it still holds the start value, or this move wrote it. */
        boolean canGoOnFrom(Versioned node) {
            return node.value() == from || wrote(node);
        }

        boolean wrote(Versioned node) {
            return token.equals(node.writer());
        }
    }

    public ZooKeeperTimestampStorage(CuratorFramework zk, String path) {
        this(VersionedZNode.of(zk, path));
    }

    public ZooKeeperTimestampStorage(CuratorFramework zk, ZkPaths paths) {
        this(zk, paths.timestamp());
    }

    /** On any implementation of the node's operations (tests inject failures there). */
    ZooKeeperTimestampStorage(VersionedZNode node) {
        this.node = node;
        this.writerId = ProcessHandle.current().pid() + "/" + UUID.randomUUID();
    }

    @Override
    public synchronized long getMaxTimestamp() throws TmException {
        return read().value();
    }

    @Override
    public synchronized boolean compareAndSet(long expected, long newMax) throws TmException {
        Move move = open != null && open.from() == expected ? open : new Move(expected, writerId + "#" + ++moves);
        open = move; // until this call knows the outcome
        Versioned current = known;
        while (true) {
            if (current == null || !move.canGoOnFrom(current)) {
                current = read();
                if (!move.canGoOnFrom(current)) {
                    open = null;
                    return false; // another TM wrote after `expected`
                }
            }
            if (move.wrote(current) && current.value() == newMax) {
                open = null;
                return true; // an earlier write of this move, answered unclearly, put exactly this value there
            }
            try {
                int version = node.setData(current.version(), ReservationCodec.encode(newMax, move.token()));
                known = new Versioned(newMax, version, move.token());
                open = null;
                return true;
            } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
                // Someone wrote after our last look, perhaps this very move (a retried write): decide on a re-read.
                current = null;
            } catch (Exception e) {
                // The write may or may not have happened; the move stays open and the next call reads the token.
                known = null;
                throw ZooKeeperClients.failure(node.client(), "compare-and-set the max timestamp at", node.path(),
                        e);
            }
        }
    }

    private Versioned read() throws TmException {
        while (true) {
            try {
                VersionedZNode.Data data = node.read();
                ReservationCodec.Reservation reservation = ReservationCodec.decode(data.bytes(), node.path());
                Versioned v = new Versioned(reservation.max(), data.version(), reservation.writer());
                known = v;
                return v;
            } catch (KeeperException.NoNodeException e) {
                createIfAbsent();
            } catch (Exception e) {
                throw ZooKeeperClients.failure(node.client(), "read the max timestamp at", node.path(), e);
            }
        }
    }

    /** First use ever: several TMs may race here; whoever loses the create simply reads the winner's node. */
    private void createIfAbsent() throws TmException {
        try {
            node.create(LongCodec.encode(0));
        } catch (KeeperException.NodeExistsException e) {
            // Created concurrently by another TM: fine.
        } catch (Exception e) {
            throw ZooKeeperClients.failure(node.client(), "create the max timestamp node", node.path(), e);
        }
    }
}
