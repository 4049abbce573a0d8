/*
 * cluster_launch.cuh - the launch configuration of a grid in thread block clusters (sm_90 on),
 * shared by the dsmem calibration kernel (calibrate/kernels/dsmem.cu) and the validation's dsmem
 * class (validation/validation.cu): one home for the cluster-dimension attribute, which
 * cudaLaunchKernelEx and cudaOccupancyMaxActiveClusters take.
 */
#ifndef ATOMUTIL_CAL_CLUSTER_LAUNCH_CUH
#define ATOMUTIL_CAL_CLUSTER_LAUNCH_CUH

#include <cuda_runtime.h>

/* grid blocks of block threads (1-D), smem bytes of dynamic shared memory each, in clusters of
 * `cluster` blocks; *attr holds the cluster attribute and must live as long as the result. */
static inline cudaLaunchConfig_t au_cluster_config(unsigned grid, unsigned block, size_t smem, unsigned cluster,
                                                   cudaLaunchAttribute *attr)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(block);
    cfg.dynamicSmemBytes = smem;
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = cluster;
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cfg;
}

#endif
