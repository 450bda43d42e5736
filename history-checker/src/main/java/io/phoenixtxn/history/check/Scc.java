package io.phoenixtxn.history.check;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Strongly connected components (Tarjan), iterative so that long dependency chains of big histories cannot
 * overflow the stack. Only components that can hold a cycle are returned: more than one node (the graphs here
 * have no self-loops).
 */
final class Scc {
    private Scc() {
    }

    static List<int[]> of(int nodes, IntFunction<int[]> successors) {
        int[] index = new int[nodes];
        int[] low = new int[nodes];
        boolean[] onStack = new boolean[nodes];
        Arrays.fill(index, -1);
        int[] stack = new int[nodes];
        int stackSize = 0;
        int[] callNode = new int[nodes];
        int[] callEdge = new int[nodes];
        int[][] callSucc = new int[nodes][];
        int counter = 0;
        List<int[]> components = new ArrayList<>();
        for (int root = 0; root < nodes; root++) {
            if (index[root] != -1) {
                continue;
            }
            int depth = 0;
            callNode[0] = root;
            callEdge[0] = 0;
            callSucc[0] = successors.apply(root);
            index[root] = low[root] = counter++;
            stack[stackSize++] = root;
            onStack[root] = true;
            while (depth >= 0) {
                int v = callNode[depth];
                int[] succ = callSucc[depth];
                if (callEdge[depth] < succ.length) {
                    int w = succ[callEdge[depth]++];
                    if (index[w] == -1) {
                        index[w] = low[w] = counter++;
                        stack[stackSize++] = w;
                        onStack[w] = true;
                        depth++;
                        callNode[depth] = w;
                        callEdge[depth] = 0;
                        callSucc[depth] = successors.apply(w);
                    } else if (onStack[w]) {
                        low[v] = Math.min(low[v], index[w]);
                    }
                    continue;
                }
                if (low[v] == index[v]) {
                    int start = stackSize;
                    do {
                        start--;
                    } while (stack[start] != v);
                    int[] component = Arrays.copyOfRange(stack, start, stackSize);
                    for (int w : component) {
                        onStack[w] = false;
                    }
                    stackSize = start;
                    if (component.length > 1) {
                        components.add(component);
                    }
                }
                callSucc[depth] = null;
                depth--;
                if (depth >= 0) {
                    int parent = callNode[depth];
                    low[parent] = Math.min(low[parent], low[v]);
                }
            }
        }
        return components;
    }
}
