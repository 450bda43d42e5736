package io.phoenixtxn.tm.net;

import io.netty.buffer.ByteBuf;

import java.util.Arrays;

/**
 * The requests of one connection read in one pass of its event loop, in primitive arrays, for the server's
 * pipeline: read a batch, decide it, reply once ({@link BatchDecider}). Only the hot request types are parsed
 * here (BEGIN, NEW_TIMESTAMP, COMMIT, FINISHED); every other type, and any frame whose layout does not check out, takes the
 * general path ({@link WireCodec}, {@link RequestDispatcher}), which also words the errors. Reused from batch to
 * batch: nothing is allocated once the arrays have grown to the connection's largest batch.
 *
 * <p>Confined to one thread at a time: the connection's event loop fills it, then the decider reads it (on the same
 * thread, or on a worker, in which case the connection starts a new batch).
 */
final class RequestBatch {
    private static final int INITIAL = 16;

    int size;
    int begins;
    /** NEW_TIMESTAMP requests: bare timestamps of region servers' fast-path clocks (no transaction opened). */
    int timestamps;
    int commits;
    MessageType[] types = new MessageType[INITIAL];
    long[] requestIds = new long[INITIAL];
    long[] txIds = new long[INITIAL];
    long[] conflictsSince = new long[INITIAL];
    /** COMMIT rows / FINISHED ids: {@code longs[firstLong[i], firstLong[i] + rowCount[i])}. */
    int[] firstLong = new int[INITIAL];
    int[] rowCount = new int[INITIAL];
    /** COMMIT tables: {@code longs[firstTable[i], firstTable[i] + tableCount[i])}. */
    int[] firstTable = new int[INITIAL];
    int[] tableCount = new int[INITIAL];
    long[] longs = new long[256];
    int longsUsed;

    boolean isEmpty() {
        return size == 0;
    }

    void clear() {
        size = 0;
        begins = 0;
        timestamps = 0;
        commits = 0;
        longsUsed = 0;
    }

    /**
     * Appends the request in {@code body} (type byte and request id already read) if it is a hot type with a
     * well-formed payload; false leaves the batch as it was, and the frame to the general path.
     */
    boolean add(MessageType type, long requestId, ByteBuf body) {
        switch (type) {
            case BEGIN:
                if (body.isReadable()) {
                    return false;
                }
                int b = next(type, requestId);
                begins++;
                txIds[b] = 0;
                return true;
            case NEW_TIMESTAMP:
                if (body.isReadable()) {
                    return false;
                }
                next(type, requestId);
                timestamps++;
                return true;
            case COMMIT:
                return addCommit(requestId, body);
            case FINISHED:
                return addFinished(requestId, body);
            default:
                return false;
        }
    }

    private boolean addCommit(long requestId, ByteBuf body) {
        int readable = body.readableBytes();
        if (readable < 8 + 8 + 4) {
            return false;
        }
        int start = body.readerIndex();
        int rows = body.getInt(start + 16);
        if (rows < 0 || readable < 8 + 8 + 4 + 8L * rows + 4) {
            return false;
        }
        int tables = body.getInt(start + 20 + 8 * rows);
        if (tables < 0 || readable != 8 + 8 + 4 + 8L * rows + 4 + 8L * tables) {
            return false;
        }
        int i = next(MessageType.COMMIT, requestId);
        commits++;
        txIds[i] = body.readLong();
        conflictsSince[i] = body.readLong();
        body.skipBytes(4);
        firstLong[i] = readLongs(body, rows);
        rowCount[i] = rows;
        body.skipBytes(4);
        firstTable[i] = readLongs(body, tables);
        tableCount[i] = tables;
        return true;
    }

    private boolean addFinished(long requestId, ByteBuf body) {
        int readable = body.readableBytes();
        if (readable < 4) {
            return false;
        }
        int n = body.getInt(body.readerIndex());
        if (n < 0 || readable != 4 + 8L * n) {
            return false;
        }
        int i = next(MessageType.FINISHED, requestId);
        body.skipBytes(4);
        firstLong[i] = readLongs(body, n);
        rowCount[i] = n;
        return true;
    }

    private int readLongs(ByteBuf body, int n) {
        if (longsUsed + n > longs.length) {
            longs = Arrays.copyOf(longs, Math.max(longs.length * 2, longsUsed + n));
        }
        int first = longsUsed;
        for (int k = 0; k < n; k++) {
            longs[first + k] = body.readLong();
        }
        longsUsed += n;
        return first;
    }

    private int next(MessageType type, long requestId) {
        if (size == types.length) {
            int capacity = size * 2;
            types = Arrays.copyOf(types, capacity);
            requestIds = Arrays.copyOf(requestIds, capacity);
            txIds = Arrays.copyOf(txIds, capacity);
            conflictsSince = Arrays.copyOf(conflictsSince, capacity);
            firstLong = Arrays.copyOf(firstLong, capacity);
            rowCount = Arrays.copyOf(rowCount, capacity);
            firstTable = Arrays.copyOf(firstTable, capacity);
            tableCount = Arrays.copyOf(tableCount, capacity);
        }
        int i = size++;
        types[i] = type;
        requestIds[i] = requestId;
        return i;
    }
}
