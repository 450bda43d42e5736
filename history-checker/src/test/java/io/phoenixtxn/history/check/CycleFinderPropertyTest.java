package io.phoenixtxn.history.check;

import io.phoenixtxn.history.Names;
import io.phoenixtxn.history.Op;
import io.phoenixtxn.history.OpType;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cycle finder against the definition, on thousands of small random dependency graphs: a graph violates
 * snapshot isolation exactly when one of its simple cycles lacks two adjacent rw edges (enumerated by brute force
 * here). Every reported cycle must exist edge by edge and have the shape its kind says.
 */
class CycleFinderPropertyTest {
    private static final EdgeKind[] KINDS = EdgeKind.values();

    @Test
    void findsAProhibitedCycleExactlyWhenOneExistsAndNamesItsShape() {
        Random random = new Random(20240614);
        int violating = 0;
        int skewOnly = 0;
        for (int round = 0; round < 4000; round++) {
            int n = 2 + random.nextInt(5);
            int[][] kinds = new int[n][n];
            List<Op> ops = new ArrayList<>();
            DependencyGraph g = new DependencyGraph();
            for (int i = 0; i < n; i++) {
                Op op = new Op(i, i, Names.TXN, OpType.OK, i, i + 1, n + i, List.of(), List.of(), null);
                ops.add(op);
                g.addNode(op);
            }
            double density = 0.15 + random.nextDouble() * 0.35;
            for (int a = 0; a < n; a++) {
                for (int b = 0; b < n; b++) {
                    if (a != b && random.nextDouble() < density) {
                        EdgeKind k = random.nextInt(2) == 0 ? EdgeKind.RW : KINDS[random.nextInt(KINDS.length)];
                        kinds[a][b] |= k.bit();
                        g.addEdge(ops.get(a), ops.get(b), k, "test");
                        if (random.nextInt(6) == 0) {
                            EdgeKind k2 = KINDS[random.nextInt(KINDS.length)];
                            kinds[a][b] |= k2.bit();
                            g.addEdge(ops.get(a), ops.get(b), k2, "test");
                        }
                    }
                }
            }
            Brute brute = new Brute(kinds);
            List<Anomaly> found = CycleFinder.find(g);
            boolean reportedProhibited = found.stream().anyMatch(a -> a.kind().prohibited());
            assertEquals(brute.violation, reportedProhibited, "round " + round + ": " + describe(kinds) + found);
            for (Anomaly a : found) {
                checkShape(a, kinds, round);
            }
            if (brute.violation) {
                violating++;
            } else if (brute.anyCycle) {
                skewOnly++;
                assertTrue(found.stream().anyMatch(a -> a.kind() == AnomalyKind.G2_ITEM),
                        "round " + round + ": write-skew cycles are shown as allowed");
            }
        }
        assertTrue(violating > 500 && skewOnly > 100, violating + " violating, " + skewOnly + " write-skew-only");
    }

    private static void checkShape(Anomaly a, int[][] kinds, int round) {
        List<Edge> edges = a.edges();
        assertTrue(edges.size() >= 2, "round " + round + ": " + a.describe());
        int rw = 0;
        boolean adjacentRw = false;
        boolean allWw = true;
        for (int i = 0; i < edges.size(); i++) {
            Edge e = edges.get(i);
            Edge next = edges.get((i + 1) % edges.size());
            assertEquals(e.to(), next.from(), "round " + round + ": a closed walk: " + a.describe());
            assertTrue((kinds[e.from().id()][e.to().id()] & e.kind().bit()) != 0, "round " + round + ": edge exists: "
                    + e);
            rw += e.kind() == EdgeKind.RW ? 1 : 0;
            adjacentRw |= e.kind() == EdgeKind.RW && next.kind() == EdgeKind.RW;
            allWw &= e.kind() == EdgeKind.WW;
        }
        switch (a.kind()) {
            case G0 -> assertTrue(allWw, a.describe());
            case G1C -> assertTrue(rw == 0 && !allWw, a.describe());
            case G_SINGLE -> assertEquals(1, rw, a.describe());
            case G_NONADJACENT -> assertTrue(rw >= 2 && !adjacentRw, a.describe());
            case G2_ITEM -> assertTrue(adjacentRw, a.describe());
            default -> throw new AssertionError("unexpected kind " + a.kind());
        }
    }

    /** Every simple cycle, by depth-first enumeration, over every choice of kind per edge. */
    private static final class Brute {
        final int[][] kinds;
        final int n;
        boolean violation;
        boolean anyCycle;

        Brute(int[][] kinds) {
            this.kinds = kinds;
            this.n = kinds.length;
            for (int start = 0; start < n; start++) {
                List<Integer> path = new ArrayList<>();
                path.add(start);
                walk(start, path, new boolean[n]);
            }
        }

        private void walk(int start, List<Integer> path, boolean[] used) {
            int v = path.get(path.size() - 1);
            used[v] = true;
            for (int w = 0; w < n; w++) {
                if (kinds[v][w] == 0) {
                    continue;
                }
                if (w == start) {
                    anyCycle = true;
                    List<Integer> cycle = new ArrayList<>(path);
                    if (hasLabellingWithoutAdjacentRw(cycle)) {
                        violation = true;
                    }
                } else if (w > start && !used[w]) {
                    path.add(w);
                    walk(start, path, used);
                    path.remove(path.size() - 1);
                }
            }
            used[v] = false;
        }

        /** Some choice of one kind per edge leaves no two cyclically adjacent rw edges. */
        private boolean hasLabellingWithoutAdjacentRw(List<Integer> cycle) {
            int m = cycle.size();
            boolean[] canNonRw = new boolean[m];
            for (int i = 0; i < m; i++) {
                int k = kinds[cycle.get(i)][cycle.get((i + 1) % m)];
                canNonRw[i] = (k & ~EdgeKind.RW.bit()) != 0;
            }
            // rw is forced exactly where no other kind exists; choose non-rw wherever possible
            for (int i = 0; i < m; i++) {
                if (!canNonRw[i] && !canNonRw[(i + 1) % m]) {
                    return false;
                }
            }
            return true;
        }
    }

    private static String describe(int[][] kinds) {
        StringBuilder sb = new StringBuilder();
        for (int a = 0; a < kinds.length; a++) {
            for (int b = 0; b < kinds.length; b++) {
                if (kinds[a][b] != 0) {
                    sb.append(a).append("->").append(b).append(':').append(Integer.toBinaryString(kinds[a][b]))
                            .append(' ');
                }
            }
        }
        return sb.toString();
    }
}
