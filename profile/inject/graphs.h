/*
 * graphs.h - the kernels of instantiated CUDA graphs (graphs.c), read at instantiation and found
 * by executable graph when it is launched (inject.c; select.c matches -k against their names).
 * With au_g.lock.
 */
#ifndef ATOMUTIL_INJECT_GRAPHS_H
#define ATOMUTIL_INJECT_GRAPHS_H

#include <cuda.h>

#include <stddef.h>

/* The kernel nodes of an instantiated graph. */
typedef struct au_graph_kernels {
    long long index; /* the graph's number in this process (0, 1, ...) */
    char **names;    /* mangled names of its kernels, each once */
    size_t n, cap;
    size_t kernel_nodes;        /* kernel nodes, child graphs' included */
    unsigned grid[3], block[3]; /* the first kernel node's */
} au_graph_kernels;

void au_graph_instantiated(CUgraphExec exec, CUgraph g);
/* The graph's kernels, NULL if its instantiation was not seen. */
const au_graph_kernels *au_graph_find(CUgraphExec exec);

#endif
