/*
 * graphs.c - the kernels of instantiated CUDA graphs, for measuring graph launches (range.c):
 * at each cuGraphInstantiate* the graph's kernel nodes (child graphs included) are read once and
 * kept by executable graph: their mangled names (for the kernels' code, cubins.c, and the
 * "graph:" line that tells atomutil-profile which kernels a graph row holds) and the first
 * kernel's grid and block (the row's shape, as Nsight Compute's graph profiling shows it).
 */
#include "graphs.h"

#include "atomutil/util.h"

#include <stdlib.h>
#include <string.h>

typedef struct graph_info {
    CUgraphExec exec;
    au_graph_kernels k;
} graph_info;

static struct {
    graph_info *v;
    size_t n, cap;
} s;

static void add_name(au_graph_kernels *k, const char *name)
{
    for (size_t i = 0; i < k->n; ++i)
        if (strcmp(k->names[i], name) == 0)
            return;
    if (au_grow(&k->names, &k->cap, k->n, sizeof *k->names, 8) != 0)
        return;
    char *copy = strdup(name);
    if (copy)
        k->names[k->n++] = copy;
}

/* Kernel nodes of g (and of its child graphs, to a depth of 8). */
static void collect(CUgraph g, au_graph_kernels *k, int depth)
{
    size_t n = 0;
    if (depth > 8 || cuGraphGetNodes(g, NULL, &n) != CUDA_SUCCESS || n == 0)
        return;
    CUgraphNode *nodes = malloc(n * sizeof *nodes);
    if (!nodes)
        return;
    if (cuGraphGetNodes(g, nodes, &n) == CUDA_SUCCESS)
        for (size_t i = 0; i < n; ++i) {
            CUgraphNodeType type;
            if (cuGraphNodeGetType(nodes[i], &type) != CUDA_SUCCESS)
                continue;
            if (type == CU_GRAPH_NODE_TYPE_GRAPH) {
                CUgraph child;
                if (cuGraphChildGraphNodeGetGraph(nodes[i], &child) == CUDA_SUCCESS)
                    collect(child, k, depth + 1);
                continue;
            }
            if (type != CU_GRAPH_NODE_TYPE_KERNEL)
                continue;
            k->kernel_nodes++;
            CUDA_KERNEL_NODE_PARAMS p;
            memset(&p, 0, sizeof p);
            const char *name = NULL;
            if (cuGraphKernelNodeGetParams(nodes[i], &p) != CUDA_SUCCESS || !p.func ||
                cuFuncGetName(&name, p.func) != CUDA_SUCCESS || !name)
                continue;
            if (k->n == 0) {
                k->grid[0] = p.gridDimX, k->grid[1] = p.gridDimY, k->grid[2] = p.gridDimZ;
                k->block[0] = p.blockDimX, k->block[1] = p.blockDimY, k->block[2] = p.blockDimZ;
            }
            add_name(k, name);
        }
    free(nodes);
}

static void clear(au_graph_kernels *k)
{
    for (size_t i = 0; i < k->n; ++i)
        free(k->names[i]);
    free(k->names);
    memset(k, 0, sizeof *k);
}

void au_graph_instantiated(CUgraphExec exec, CUgraph g)
{
    if (!exec || !g)
        return;
    graph_info *gi = NULL;
    for (size_t i = 0; i < s.n && !gi; ++i)
        if (s.v[i].exec == exec) /* a handle of a destroyed graph, used again */
            gi = &s.v[i];
    if (!gi) {
        if (au_grow(&s.v, &s.cap, s.n, sizeof *s.v, 8) != 0)
            return;
        gi = &s.v[s.n++];
        memset(gi, 0, sizeof *gi);
        gi->exec = exec;
    }
    clear(&gi->k);
    gi->k.index = (long long)(gi - s.v);
    collect(g, &gi->k, 0);
}

const au_graph_kernels *au_graph_find(CUgraphExec exec)
{
    for (size_t i = 0; i < s.n; ++i)
        if (s.v[i].exec == exec)
            return &s.v[i].k;
    return NULL;
}
