/*
 * cluster_dims_probe.cu - what a CUPTI launch callback can read of a kernel's compile-time cluster
 * dimensions (__cluster_dims__).  The CUDA runtime passes a CUkernel handle in the CUfunction slot
 * of cuLaunchKernel/cuLaunchKernelEx: cuFuncGetAttribute refuses it (CUDA_ERROR_INVALID_HANDLE,
 * 400) while cuKernelGetAttribute on the context's device reads the width; a launch-time cluster
 * (cudaLaunchKernelEx) comes as launch attribute 4 (CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION).  The
 * injection reads both (profile/inject/inject.c, func_attr).  Standalone, sm_90:
 *   nvcc -arch=sm_90 -o cluster_dims_probe probes/cluster_dims_probe.cu -lcupti -lcuda \
 *        -I/usr/local/cuda/extras/CUPTI/include -L/usr/local/cuda/extras/CUPTI/lib64
 */
#include <cuda.h>
#include <cupti.h>
#include <cstdio>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void __cluster_dims__(2, 1, 1) kc(int *p)
{
    cg::this_cluster().sync();
    if (p)
        p[0] = 1;
}
__global__ void kn(int *p)
{
    if (p)
        p[0] = 1;
}
static void CUPTIAPI cb(void *, CUpti_CallbackDomain d, CUpti_CallbackId id, const void *data)
{
    const CUpti_CallbackData *c = (const CUpti_CallbackData *)data;
    if (c->callbackSite != CUPTI_API_ENTER)
        return;
    CUfunction f = 0;
    if (id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel || id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz)
        f = ((const cuLaunchKernel_params *)c->functionParams)->f;
    else if (id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx || id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz) {
        const cuLaunchKernelEx_params *p = (const cuLaunchKernelEx_params *)c->functionParams;
        f = p->f;
        printf("  Ex: numAttrs %u\n", p->config ? p->config->numAttrs : 0);
        for (unsigned i = 0; p->config && i < p->config->numAttrs; ++i)
            printf("   attr id %d\n", (int)p->config->attrs[i].id);
    } else
        return;
    int x = -1, must = -1;
    CUresult r = cuFuncGetAttribute(&x, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, f);
    CUresult r2 = cuFuncGetAttribute(&must, CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET, f);
    int kx = -1;
    CUdevice dev;
    cuCtxGetDevice(&dev);
    CUresult r3 = cuKernelGetAttribute(&kx, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, (CUkernel)f, dev);
    const char *nm = 0;
    CUresult r4 = cuFuncGetName(&nm, f);
    printf("cbid %u %s: cuFuncGetAttribute rc %d width %d; must_be_set rc %d = %d; cuKernelGetAttribute rc %d width "
           "%d; name rc %d\n",
           id, c->symbolName, r, x, r2, must, r3, kx, r4);
}
int main()
{
    CUpti_SubscriberHandle s;
    cuptiSubscribe(&s, cb, 0);
    cuptiEnableDomain(1, s, CUPTI_CB_DOMAIN_DRIVER_API);
    kc<<<4, 32>>>(0);
    kn<<<1, 32>>>(0);
    cudaDeviceSynchronize();
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = 4;
    cfg.blockDim = 32;
    cudaLaunchAttribute a;
    a.id = cudaLaunchAttributeClusterDimension;
    a.val.clusterDim.x = 2;
    a.val.clusterDim.y = 1;
    a.val.clusterDim.z = 1;
    cfg.attrs = &a;
    cfg.numAttrs = 1;
    cudaLaunchKernelEx(&cfg, kn, (int *)0);
    cudaDeviceSynchronize();
    cudaFuncAttributes fa;
    cudaFuncGetAttributes(&fa, kc);
    printf("runtime: requiredClusterWidth %d clusterDimMustBeSet %d\n", fa.requiredClusterWidth,
           fa.clusterDimMustBeSet);
    printf("done: %s\n", cudaGetErrorString(cudaGetLastError()));
}
