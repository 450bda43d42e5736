package io.phoenixtxn.history.check;

import io.phoenixtxn.history.Op;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;

import static io.phoenixtxn.history.check.DependencyGraph.mask;

/**
 * Finds dependency cycles and names them (Adya; Elle; Cerone and Gotsman, "Analysing snapshot isolation", JACM
 * 2018). Snapshot isolation (with session order) holds exactly when no cycle lacks two adjacent rw edges, that is
 * when the relation (ww | wr | process) ; rw? is acyclic. That relation's cycles are the cycles of a product graph
 * whose states are (transaction, "entered by an rw edge"), where an rw edge may not leave a state entered by one.
 * Process and real-time edges say "the later transaction's snapshot includes the earlier one", like ww and wr
 * (strong session / strong snapshot isolation).
 *
 * <ul>
 *   <li>G0: a cycle of ww edges; G1c: a cycle of ww, wr, process and real-time edges with at least one that is
 *       not ww;</li>
 *   <li>G-single: exactly one rw edge; G-nonadjacent: several, none adjacent (e.g. long fork);</li>
 *   <li>G2-item: every other cycle (each has two adjacent rw edges: write skew), allowed and reported as such.</li>
 * </ul>
 *
 * One cycle is reported per strongly connected component and kind: shortest found by breadth-first search, so the
 * printed sub-history is small. Searches are bounded per component so that a huge component cannot stall a check.
 */
final class CycleFinder {
    private static final int WW = mask(EdgeKind.WW);
    private static final int NON_RW = mask(EdgeKind.WW, EdgeKind.WR, EdgeKind.PROCESS, EdgeKind.REALTIME);
    private static final int RW = mask(EdgeKind.RW);
    private static final int ALL = NON_RW | RW;
    private static final int MAX_SEARCHES_PER_COMPONENT = 200;
    private static final int NONE = Integer.MIN_VALUE;

    private final DependencyGraph g;
    private final List<Anomaly> found = new ArrayList<>();
    private final BitSet inProhibitedCycle;

    private CycleFinder(DependencyGraph g) {
        this.g = g;
        this.inProhibitedCycle = new BitSet(g.size());
    }

    static List<Anomaly> find(DependencyGraph g) {
        CycleFinder finder = new CycleFinder(g);
        finder.g0();
        finder.g1c();
        finder.snapshotViolations();
        finder.writeSkew();
        return finder.found;
    }

    private void g0() {
        for (int[] component : Scc.of(g.size(), v -> g.successors(v, WW))) {
            BitSet members = members(component);
            List<Integer> cycle = cycleThrough(component[0], WW, members);
            if (cycle != null) {
                report(AnomalyKind.G0, steps(cycle, WW));
            }
        }
    }

    private void g1c() {
        int seeds = mask(EdgeKind.WR, EdgeKind.PROCESS, EdgeKind.REALTIME);
        for (int[] component : Scc.of(g.size(), v -> g.successors(v, NON_RW))) {
            BitSet members = members(component);
            int searches = 0;
            search:
            for (int a : component) {
                for (int b : g.successors(a, seeds)) {
                    if (!members.get(b)) {
                        continue;
                    }
                    if (++searches > MAX_SEARCHES_PER_COMPONENT) {
                        break search;
                    }
                    List<Integer> back = path(b, a, NON_RW, members);
                    if (back != null) {
                        List<Edge> edges = new ArrayList<>();
                        edges.add(g.edge(a, b, preferred(g.kinds(a, b) & seeds)));
                        edges.addAll(steps(back, NON_RW));
                        report(AnomalyKind.G1C, edges);
                        break search;
                    }
                }
            }
        }
    }

    /** G-single and G-nonadjacent: cycles of the product graph (no two adjacent rw edges). */
    private void snapshotViolations() {
        int n = g.size();
        for (int[] component : Scc.of(2 * n, this::productSuccessors)) {
            BitSet states = members(component);
            BitSet nodes = new BitSet(n);
            for (int s : component) {
                nodes.set(s / 2);
            }
            if (gSingle(nodes)) {
                continue;
            }
            for (int s : component) {
                if (s % 2 == 1) {                 // entered by an rw edge: the walk back holds one
                    List<Integer> walk = productCycleThrough(s, states);
                    if (walk != null) {
                        List<Edge> edges = productSteps(walk);
                        long rw = edges.stream().filter(e -> e.kind() == EdgeKind.RW).count();
                        report(rw == 1 ? AnomalyKind.G_SINGLE : AnomalyKind.G_NONADJACENT, edges);
                    }
                    break;
                }
            }
        }
    }

    private boolean gSingle(BitSet nodes) {
        int searches = 0;
        for (int a = nodes.nextSetBit(0); a >= 0; a = nodes.nextSetBit(a + 1)) {
            for (int b : g.successors(a, RW)) {
                if (!nodes.get(b)) {
                    continue;
                }
                if (++searches > MAX_SEARCHES_PER_COMPONENT) {
                    return false;
                }
                List<Integer> back = path(b, a, NON_RW, nodes);
                if (back != null) {
                    List<Edge> edges = new ArrayList<>();
                    edges.add(g.edge(a, b, EdgeKind.RW));
                    edges.addAll(steps(back, NON_RW));
                    report(AnomalyKind.G_SINGLE, edges);
                    return true;
                }
            }
        }
        return false;
    }

    /** Cycles of the whole graph that held no prohibited cycle: write skew, allowed under snapshot isolation. */
    private void writeSkew() {
        for (int[] component : Scc.of(g.size(), v -> g.successors(v, ALL))) {
            BitSet members = members(component);
            if (members.intersects(inProhibitedCycle)) {
                continue;
            }
            int searches = 0;
            search:
            for (int a : component) {
                for (int b : g.successors(a, RW)) {
                    if (!members.get(b)) {
                        continue;
                    }
                    if (++searches > MAX_SEARCHES_PER_COMPONENT) {
                        break search;
                    }
                    List<Integer> back = path(b, a, ALL, members);
                    if (back != null) {
                        List<Edge> edges = new ArrayList<>();
                        edges.add(g.edge(a, b, EdgeKind.RW));
                        edges.addAll(steps(back, ALL));
                        report(AnomalyKind.G2_ITEM, edges);
                        break search;
                    }
                }
            }
        }
    }

    private int[] productSuccessors(int state) {
        int v = state / 2;
        boolean enteredByRw = state % 2 == 1;
        int[] next = g.successors(v, ALL);
        int[] result = new int[next.length * 2];
        int n = 0;
        for (int w : next) {
            int kinds = g.kinds(v, w);
            if ((kinds & NON_RW) != 0) {
                result[n++] = 2 * w;
            }
            if ((kinds & RW) != 0 && !enteredByRw) {
                result[n++] = 2 * w + 1;
            }
        }
        return Arrays.copyOf(result, n);
    }

    /** Shortest path of nodes from {@code from} to {@code to} inside {@code members}, or null. */
    private List<Integer> path(int from, int to, int mask, BitSet members) {
        return bfs(new int[] {from}, -1, to, members, v -> g.successors(v, mask));
    }

    /** Shortest cycle through {@code v} inside {@code members}: v, ..., v. */
    private List<Integer> cycleThrough(int v, int mask, BitSet members) {
        return bfs(g.successors(v, mask), v, v, members, w -> g.successors(w, mask));
    }

    private List<Integer> productCycleThrough(int state, BitSet states) {
        return bfs(productSuccessors(state), state, state, states, this::productSuccessors);
    }

    /**
     * Breadth-first search from {@code starts} to {@code target} inside {@code members}; returns the path of
     * nodes from a start to the target, preceded by {@code origin} when it is not -1 (a cycle: origin, ..., target).
     */
    private static List<Integer> bfs(int[] starts, int origin, int target, BitSet members,
                                     IntFunction<int[]> successors) {
        Map<Integer, Integer> parent = new HashMap<>();
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        for (int s : starts) {
            if (members.get(s) && !parent.containsKey(s)) {
                parent.put(s, NONE);
                queue.add(s);
            }
        }
        while (!queue.isEmpty()) {
            int v = queue.poll();
            if (v == target) {
                List<Integer> path = new ArrayList<>();
                for (int at = v; at != NONE; at = parent.get(at)) {
                    path.add(at);
                }
                if (origin != -1) {
                    path.add(origin);
                }
                Collections.reverse(path);
                return path;
            }
            for (int w : successors.apply(v)) {
                if (members.get(w) && !parent.containsKey(w)) {
                    parent.put(w, v);
                    queue.add(w);
                }
            }
        }
        return null;
    }

    /** Edges along a node path, each labelled with the most telling kind the mask allows. */
    private List<Edge> steps(List<Integer> nodes, int mask) {
        List<Edge> edges = new ArrayList<>();
        for (int i = 0; i + 1 < nodes.size(); i++) {
            int a = nodes.get(i);
            int b = nodes.get(i + 1);
            edges.add(g.edge(a, b, preferred(g.kinds(a, b) & mask)));
        }
        return edges;
    }

    /** Edges along a product-graph walk: entering a state flagged "by rw" is the rw edge. */
    private List<Edge> productSteps(List<Integer> states) {
        List<Edge> edges = new ArrayList<>();
        for (int i = 0; i + 1 < states.size(); i++) {
            int a = states.get(i) / 2;
            int b = states.get(i + 1) / 2;
            EdgeKind kind = states.get(i + 1) % 2 == 1 ? EdgeKind.RW : preferred(g.kinds(a, b) & NON_RW);
            edges.add(g.edge(a, b, kind));
        }
        return edges;
    }

    private static EdgeKind preferred(int kinds) {
        for (EdgeKind k : new EdgeKind[] {EdgeKind.WW, EdgeKind.WR, EdgeKind.PROCESS, EdgeKind.REALTIME,
                EdgeKind.RW}) {
            if ((kinds & k.bit()) != 0) {
                return k;
            }
        }
        throw new IllegalStateException("no edge kind in mask " + kinds);
    }

    private void report(AnomalyKind kind, List<Edge> edges) {
        Set<Op> ops = new LinkedHashSet<>();
        StringBuilder chain = new StringBuilder();
        for (Edge e : edges) {
            ops.add(e.from());
            ops.add(e.to());
            if (chain.length() == 0) {
                chain.append(e.from().name());
            }
            chain.append(" -").append(e.kind().label()).append("-> ").append(e.to().name());
        }
        if (kind.prohibited()) {
            for (Op op : ops) {
                inProhibitedCycle.set(g.node(op));
            }
        }
        found.add(new Anomaly(kind, "cycle of " + ops.size() + " transactions: " + chain, new ArrayList<>(ops),
                edges));
    }

    private static BitSet members(int[] component) {
        BitSet set = new BitSet();
        for (int v : component) {
            set.set(v);
        }
        return set;
    }
}
