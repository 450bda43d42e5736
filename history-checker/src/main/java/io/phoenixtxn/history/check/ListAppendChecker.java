package io.phoenixtxn.history.check;

import io.phoenixtxn.history.History;
import io.phoenixtxn.history.Mop;
import io.phoenixtxn.history.Names;
import io.phoenixtxn.history.Op;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a list-append history (Elle's inference, reimplemented): keys hold lists, transactions append unique
 * elements and read whole lists, so each read names the exact version it saw and the version order of a key is
 * the longest read of it. From that: ww, wr and rw edges between committed transactions, plus session and
 * real-time order (strong snapshot isolation: a transaction invoked after another was acknowledged must see it),
 * and their cycles ({@link CycleFinder}); and direct checks:
 *
 * <ul>
 *   <li>G1a: an acknowledged read contains an element of a failed transaction; garbage: of nobody;</li>
 *   <li>G1b: a read ends at an element its writer followed with another append to the key;</li>
 *   <li>internal: a transaction's read disagrees with its own earlier read plus its own appends;</li>
 *   <li>lost update: two committed transactions read the same version of a key and both appended to it;</li>
 *   <li>fractured read: a transaction saw one append of a committed transaction and missed one on another key;</li>
 *   <li>stale read: a read missed an append acknowledged before the reader was invoked (real time, configurable
 *       per operation function: {@link CheckerOptions});</li>
 *   <li>lost write: an acknowledged append is missing from the final read.</li>
 * </ul>
 *
 * <p>Unknown outcomes: an info operation is committed only if one of its elements was read by an acknowledged
 * operation (reads never invent elements); otherwise it contributes nothing, so no finding depends on guessing its
 * outcome. Only acknowledged operations' reads are used (an info operation's reads were never returned). A
 * transaction's "external" read of a key is its first read of that key before its own first append to it: that
 * is the snapshot's version, which edges and snapshot checks use; later reads are checked for internal
 * consistency only.
 */
public final class ListAppendChecker implements Checker {
    /** One read of an acknowledged operation. */
    record Read(Op op, long key, List<Long> list) {
    }

    private final CheckerOptions options;

    public ListAppendChecker(CheckerOptions options) {
        this.options = options;
    }

    @Override
    public CheckResult check(History history) {
        return new Run(history.ops()).check(history);
    }

    private final class Run {
        private final List<Op> ops;
        private final Appends appends;
        private final List<Read> reads = new ArrayList<>();
        private final Map<Integer, Map<Long, List<Long>>> external = new HashMap<>();
        private final Set<Integer> observed = new HashSet<>();
        private final List<Anomaly> anomalies = new ArrayList<>();
        private VersionOrders orders;

        Run(List<Op> ops) {
            this.ops = ops;
            this.appends = new Appends(ops);
            for (Op op : ops) {
                if (op.isOk()) {
                    collectReads(op);
                }
            }
        }

        CheckResult check(History history) {
            orders = new VersionOrders(reads);
            anomalies.addAll(orders.anomalies());
            abortedAndGarbageReads();   // also learns which unknown outcomes were observed, i.e. committed
            duplicates();
            intermediateReads();
            internal();
            anomalies.addAll(CycleFinder.find(graph()));
            lostUpdates();
            fracturedReads();
            staleReads();
            lostWrites();
            return new CheckResult("list-append", history.counts(), anomalies);
        }

        private void collectReads(Op op) {
            Map<Long, List<Long>> first = new LinkedHashMap<>();
            Set<Long> appended = new HashSet<>();
            for (Mop m : op.value()) {
                if (m.isAppend()) {
                    appended.add(m.key());
                } else if (m.isRead()) {
                    if (!(m.value() instanceof List)) {
                        throw new IllegalArgumentException(op.name() + " read key " + m.key()
                                + " without a list value: not a list-append history (" + op + ")");
                    }
                    reads.add(new Read(op, m.key(), m.list()));
                    if (!appended.contains(m.key())) {
                        first.putIfAbsent(m.key(), m.list());
                    }
                }
            }
            external.put(op.id(), first);
        }

        private Map<Long, List<Long>> externalReads(Op op) {
            return external.getOrDefault(op.id(), Map.of());
        }

        private boolean committed(Op op) {
            return op.isOk() || (op.isInfo() && observed.contains(op.id()));
        }

        private void abortedAndGarbageReads() {
            Set<String> reported = new HashSet<>();
            for (Read r : reads) {
                for (long e : r.list()) {
                    Op w = appends.writer(r.key(), e);
                    if (w == null) {
                        if (reported.add("garbage " + r.op().id())) {
                            anomalies.add(Anomaly.of(AnomalyKind.GARBAGE_READ, r.op().name() + " read key "
                                    + r.key() + " = " + abbrev(r.list()) + ": nobody appended " + e, r.op()));
                        }
                    } else if (w.isFail()) {
                        if (reported.add("g1a " + w.id() + " " + r.op().id())) {
                            anomalies.add(Anomaly.of(AnomalyKind.G1A, r.op().name() + " read key " + r.key()
                                    + " = " + abbrev(r.list()) + ", which holds " + e + " appended by "
                                    + w.name() + ", a transaction that failed (" + w.error() + ")", w, r.op()));
                        }
                    } else if (w != r.op()) {
                        observed.add(w.id());
                    }
                }
            }
        }

        private void duplicates() {
            Set<Integer> reported = new HashSet<>();
            for (Read r : reads) {
                if (new HashSet<>(r.list()).size() != r.list().size() && reported.add(r.op().id())) {
                    anomalies.add(Anomaly.of(AnomalyKind.DUPLICATE_ELEMENTS, r.op().name() + " read key " + r.key()
                            + " = " + r.list() + ": an element appears twice", r.op()));
                }
            }
        }

        private void intermediateReads() {
            for (Op reader : ops) {
                for (Map.Entry<Long, List<Long>> e : externalReads(reader).entrySet()) {
                    List<Long> list = e.getValue();
                    if (list.isEmpty()) {
                        continue;
                    }
                    long last = list.get(list.size() - 1);
                    Op w = appends.writer(e.getKey(), last);
                    if (w != null && w != reader && !w.isFail() && !appends.isLastOf(w, e.getKey(), last)) {
                        anomalies.add(Anomaly.of(AnomalyKind.G1B, reader.name() + " read key " + e.getKey() + " = "
                                + abbrev(list) + ", ending at " + last + ", which " + w.name()
                                + " followed with " + appends.of(w).get(e.getKey()) + " in the same transaction",
                                w, reader));
                    }
                }
            }
        }

        private void internal() {
            for (Op op : ops) {
                if (!op.isOk()) {
                    continue;
                }
                Map<Long, List<Long>> known = new HashMap<>();
                Map<Long, List<Long>> ownSinceUnknown = new HashMap<>();
                for (Mop m : op.value()) {
                    if (m.isAppend()) {
                        List<Long> k = known.get(m.key());
                        if (k != null) {
                            List<Long> next = new ArrayList<>(k);
                            next.add(m.number());
                            known.put(m.key(), next);
                        } else {
                            ownSinceUnknown.computeIfAbsent(m.key(), x -> new ArrayList<>()).add(m.number());
                        }
                    } else if (m.isRead()) {
                        List<Long> expected = known.get(m.key());
                        List<Long> suffix = ownSinceUnknown.getOrDefault(m.key(), List.of());
                        List<Long> got = m.list();
                        boolean ok = expected != null ? expected.equals(got)
                                : got.size() >= suffix.size()
                                && got.subList(got.size() - suffix.size(), got.size()).equals(suffix);
                        if (!ok) {
                            anomalies.add(Anomaly.of(AnomalyKind.INTERNAL, op.name() + " read key " + m.key()
                                    + " = " + abbrev(got) + " but its own earlier reads and appends say "
                                    + (expected != null ? abbrev(expected) : "[... " + suffix + "]"), op));
                            break;
                        }
                        known.put(m.key(), got);
                        ownSinceUnknown.remove(m.key());
                    }
                }
            }
        }

        private DependencyGraph graph() {
            DependencyGraph g = new DependencyGraph();
            for (Op op : ops) {
                if (committed(op)) {
                    g.addNode(op);
                }
            }
            writeWriteEdges(g);
            readEdges(g);
            processEdges(g);
            realTimeEdges(g);
            return g;
        }

        private void writeWriteEdges(DependencyGraph g) {
            Set<Long> keys = new HashSet<>();
            for (Read r : reads) {
                keys.add(r.key());
            }
            for (long key : keys) {
                if (!orders.compatible(key)) {
                    continue;
                }
                List<Long> order = orders.order(key);
                for (int i = 0; i + 1 < order.size(); i++) {
                    Op a = appends.writer(key, order.get(i));
                    Op b = appends.writer(key, order.get(i + 1));
                    if (a != null && b != null && a != b && g.contains(a) && g.contains(b)) {
                        g.addEdge(a, b, EdgeKind.WW, "key " + key + ": " + a.name() + " appended " + order.get(i)
                                + ", " + b.name() + " appended " + order.get(i + 1) + " right after it (order read by "
                                + orders.source(key).name() + ")");
                    }
                }
            }
        }

        private void readEdges(DependencyGraph g) {
            for (Op reader : ops) {
                if (!reader.isOk()) {
                    continue;
                }
                for (Map.Entry<Long, List<Long>> e : externalReads(reader).entrySet()) {
                    long key = e.getKey();
                    List<Long> list = e.getValue();
                    if (!list.isEmpty()) {
                        long last = list.get(list.size() - 1);
                        Op w = appends.writer(key, last);
                        if (w != null && w != reader && g.contains(w)) {
                            g.addEdge(w, reader, EdgeKind.WR, reader.name() + " read key " + key + " = "
                                    + abbrev(list) + ", last appended by " + w.name());
                        }
                    }
                    List<Long> order = orders.order(key);
                    if (orders.compatible(key) && list.size() < order.size()) {
                        long next = order.get(list.size());
                        Op w = appends.writer(key, next);
                        if (w != null && w != reader && g.contains(w)) {
                            g.addEdge(reader, w, EdgeKind.RW, reader.name() + " read key " + key + " = "
                                    + abbrev(list) + "; " + w.name() + " appended the next element, " + next
                                    + " (order read by " + orders.source(key).name() + ")");
                        }
                    }
                }
            }
        }

        /** Session order: a process's committed operations, in order, when real time applies to them. */
        private void processEdges(DependencyGraph g) {
            Map<Integer, Op> lastOfProcess = new HashMap<>();
            for (Op op : ops) {
                if (!g.contains(op) || !options.realTimeOrdered(op.f())) {
                    continue;
                }
                Op previous = lastOfProcess.put(op.process(), op);
                if (previous != null) {
                    g.addEdge(previous, op, EdgeKind.PROCESS, "process " + op.process() + " ran " + previous.name()
                            + " before " + op.name());
                }
            }
        }

        /**
         * Real-time order, transitively reduced (as Elle does): an acknowledged operation stays on the frontier
         * until an operation invoked after it completes, which then stands for it; each invocation gets an edge from
         * every operation on the frontier. Edges are O(operations x concurrency). An unknown outcome may commit
         * after its error was seen, so it gets edges in (it began after them) but none out.
         */
        private void realTimeEdges(DependencyGraph g) {
            List<long[]> events = new ArrayList<>();      // {event index, 0 = invoke / 1 = completion, op index}
            for (int i = 0; i < ops.size(); i++) {
                Op op = ops.get(i);
                if (g.contains(op) && options.realTimeOrdered(op.f())) {
                    events.add(new long[] {op.id(), 0, i});
                    if (op.isOk()) {
                        events.add(new long[] {op.completeIndex(), 1, i});
                    }
                }
            }
            events.sort(Comparator.comparingLong(e -> e[0]));
            Set<Op> frontier = new java.util.LinkedHashSet<>();
            Map<Integer, List<Op>> frontierAtInvoke = new HashMap<>();
            for (long[] e : events) {
                Op op = ops.get((int) e[2]);
                if (e[1] == 0) {
                    for (Op before : frontier) {
                        g.addEdge(before, op, EdgeKind.REALTIME, before.name() + " was acknowledged at "
                                + ms(before.completeTime()) + " ms, before " + op.name() + " was invoked at "
                                + ms(op.invokeTime()) + " ms");
                    }
                    if (op.isOk()) {
                        frontierAtInvoke.put(op.id(), new ArrayList<>(frontier));
                    }
                } else {
                    frontier.removeAll(frontierAtInvoke.remove(op.id()));
                    frontier.add(op);
                }
            }
        }

        private void lostUpdates() {
            Map<Long, Map<List<Long>, List<Op>>> byVersion = new HashMap<>();
            for (Op op : ops) {
                if (!op.isOk()) {
                    continue;
                }
                Map<Long, List<Long>> ext = externalReads(op);
                for (long key : appends.of(op).keySet()) {
                    List<Long> read = ext.get(key);
                    if (read != null) {
                        byVersion.computeIfAbsent(key, k -> new HashMap<>())
                                .computeIfAbsent(read, k -> new ArrayList<>()).add(op);
                    }
                }
            }
            for (Map.Entry<Long, Map<List<Long>, List<Op>>> perKey : byVersion.entrySet()) {
                for (Map.Entry<List<Long>, List<Op>> e : perKey.getValue().entrySet()) {
                    if (e.getValue().size() > 1) {
                        anomalies.add(new Anomaly(AnomalyKind.LOST_UPDATE, names(e.getValue())
                                + " all read key " + perKey.getKey() + " = " + abbrev(e.getKey())
                                + " and appended to it, and all committed", e.getValue(), List.of()));
                    }
                }
            }
        }

        private void fracturedReads() {
            for (Op reader : ops) {
                if (!reader.isOk()) {
                    continue;
                }
                Map<Long, List<Long>> ext = externalReads(reader);
                Map<Long, Set<Long>> seen = new HashMap<>();
                Set<Integer> writersDone = new HashSet<>();
                for (Map.Entry<Long, List<Long>> e : ext.entrySet()) {
                    for (long element : e.getValue()) {
                        Op w = appends.writer(e.getKey(), element);
                        if (w == null || w == reader || !committed(w) || !writersDone.add(w.id())) {
                            continue;
                        }
                        for (Map.Entry<Long, List<Long>> other : appends.of(w).entrySet()) {
                            List<Long> otherRead = ext.get(other.getKey());
                            if (other.getKey() == e.getKey().longValue() || otherRead == null) {
                                continue;
                            }
                            long last = other.getValue().get(other.getValue().size() - 1);
                            if (!seen.computeIfAbsent(other.getKey(), k -> new HashSet<>(otherRead)).contains(last)) {
                                anomalies.add(Anomaly.of(AnomalyKind.FRACTURED_READ, reader.name() + " saw "
                                        + w.name() + "'s append of " + element + " to key " + e.getKey()
                                        + " but read key " + other.getKey() + " = " + abbrev(otherRead)
                                        + ", without " + w.name() + "'s append of " + last, w, reader));
                                break;
                            }
                        }
                    }
                }
            }
        }

        /** Per key, acknowledged appends by completion time, so a reader finds the newest it must see. */
        private void staleReads() {
            Map<Long, List<Op>> ackedWriters = new HashMap<>();
            for (Op op : ops) {
                if (op.isOk() && options.realTimeOrdered(op.f())) {
                    for (long key : appends.of(op).keySet()) {
                        ackedWriters.computeIfAbsent(key, k -> new ArrayList<>()).add(op);
                    }
                }
            }
            Map<Long, Deadlines> deadlines = new HashMap<>();
            for (Map.Entry<Long, List<Op>> e : ackedWriters.entrySet()) {
                if (orders.compatible(e.getKey())) {
                    deadlines.put(e.getKey(), new Deadlines(e.getKey(), e.getValue()));
                }
            }
            for (Op reader : ops) {
                if (!reader.isOk() || !options.realTimeOrdered(reader.f()) || Names.FINAL_READ.equals(reader.f())) {
                    continue;
                }
                for (Map.Entry<Long, List<Long>> e : externalReads(reader).entrySet()) {
                    Deadlines d = deadlines.get(e.getKey());
                    Op missed = d == null ? null : d.missedBy(reader.invokeTime(), e.getValue().size());
                    if (missed != null) {
                        anomalies.add(Anomaly.of(AnomalyKind.STALE_READ, reader.name() + " was invoked at "
                                + ms(reader.invokeTime()) + " ms, after " + missed.name() + " was acknowledged at "
                                + ms(missed.completeTime()) + " ms, but read key " + e.getKey() + " = "
                                + abbrev(e.getValue()) + " without its append of "
                                + appends.of(missed).get(e.getKey()), missed, reader));
                    }
                }
            }
        }

        /** Acknowledged appends to one key sorted by completion, with the furthest version each prefix reached. */
        private final class Deadlines {
            private final long[] completed;
            private final int[] furthest;
            private final Op[] furthestOp;

            Deadlines(long key, List<Op> writers) {
                List<Op> sorted = new ArrayList<>(writers);
                sorted.sort(Comparator.comparingLong(Op::completeTime));
                completed = new long[sorted.size()];
                furthest = new int[sorted.size()];
                furthestOp = new Op[sorted.size()];
                for (int i = 0; i < sorted.size(); i++) {
                    Op w = sorted.get(i);
                    int pos = 0;
                    for (long element : appends.of(w).get(key)) {
                        int p = orders.position(key, element);
                        pos = Math.max(pos, p < 0 ? Integer.MAX_VALUE : p + 1);
                    }
                    completed[i] = w.completeTime();
                    boolean further = i == 0 || pos > furthest[i - 1];
                    furthest[i] = further ? pos : furthest[i - 1];
                    furthestOp[i] = further ? w : furthestOp[i - 1];
                }
            }

            /** The acknowledged writer a read of {@code length} elements invoked at {@code invoked} misses. */
            Op missedBy(long invoked, int length) {
                int before = lowerBound(invoked);
                if (before == 0 || furthest[before - 1] <= length) {
                    return null;
                }
                return furthestOp[before - 1];
            }

            /** How many writers completed strictly before {@code time}. */
            private int lowerBound(long time) {
                int i = Arrays.binarySearch(completed, time);
                if (i < 0) {
                    return -i - 1;
                }
                while (i > 0 && completed[i - 1] == time) {
                    i--;
                }
                return i;
            }
        }

        private void lostWrites() {
            for (Op end : ops) {
                if (!end.isOk() || !Names.FINAL_READ.equals(end.f())) {
                    continue;
                }
                Map<Long, List<Long>> finalLists = externalReads(end);
                Map<Long, Set<Long>> present = new HashMap<>();
                for (Op w : ops) {
                    if (!w.isOk() || w.completeTime() >= end.invokeTime()) {
                        continue;
                    }
                    for (Map.Entry<Long, List<Long>> e : appends.of(w).entrySet()) {
                        List<Long> list = finalLists.get(e.getKey());
                        if (list == null) {
                            continue;
                        }
                        Set<Long> set = present.computeIfAbsent(e.getKey(), k -> new HashSet<>(list));
                        List<Long> missing = e.getValue().stream().filter(x -> !set.contains(x)).toList();
                        if (!missing.isEmpty()) {
                            anomalies.add(Anomaly.of(AnomalyKind.LOST_WRITE, w.name() + " was acknowledged but its"
                                    + " append of " + missing + " to key " + e.getKey() + " is missing from the final"
                                    + " read " + end.name() + " = " + abbrev(list), w, end));
                            break;
                        }
                    }
                }
            }
        }
    }

    private static String names(List<Op> ops) {
        return String.join(", ", ops.stream().map(Op::name).toList());
    }

    private static String ms(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.3f", nanos / 1e6);
    }

    /** A list, or its last elements when long: reports stay readable for long-lived keys. */
    static String abbrev(List<Long> list) {
        if (list.size() <= 8) {
            return list.toString();
        }
        return "[... " + list.subList(list.size() - 5, list.size()).toString().replace("[", "").replace("]", "")
                + "] (" + list.size() + " elements)";
    }
}
