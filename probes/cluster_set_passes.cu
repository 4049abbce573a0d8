// cluster_set_passes.cu - offline (no GPU needed): how many passes the cluster counter set needs
// on a chip with each candidate counter added, from the CUPTI Profiler Host API.  The question it
// answers (docs/counters.md, "The cluster counter set"): which counter could give the passes of
// own-rank generic atomics beside the DSMEM counters in one pass?  Built as
// build/bin/cluster_set_passes (-DATOMUTIL_BUILD_PROBES=ON):
//   cluster_set_passes CHIP SUBSTRING...     e.g. cluster_set_passes GH100 mem_shared
// prints "<passes> <metric>.sum" for every base counter of CHIP whose name holds one of the
// substrings, after "cluster set: <passes> passes" for the set itself (model/src/metrics.c).
#include <cupti.h>
#include <cupti_profiler_host.h>

#include <stdio.h>
#include <string.h>
#include <string>
#include <vector>

static CUpti_Profiler_Host_Object *host(const char *chip)
{
    CUpti_Profiler_Host_Initialize_Params hi = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = chip;
    return cuptiProfilerHostInitialize(&hi) == CUPTI_SUCCESS ? hi.pHostObject : nullptr;
}

static void done(CUpti_Profiler_Host_Object *h)
{
    CUpti_Profiler_Host_Deinitialize_Params d = {CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
    d.pHostObject = h;
    cuptiProfilerHostDeinitialize(&d);
}

// passes of a configuration holding `m`; -1 if CUPTI refuses it
static int passes(const char *chip, std::vector<const char *> m)
{
    CUpti_Profiler_Host_Object *h = host(chip);
    if (!h)
        return -1;
    int n = -1;
    CUpti_Profiler_Host_ConfigAddMetrics_Params a = {CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    a.pHostObject = h;
    a.ppMetricNames = m.data();
    a.numMetrics = m.size();
    CUpti_Profiler_Host_GetConfigImageSize_Params s = {CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    s.pHostObject = h;
    if (cuptiProfilerHostConfigAddMetrics(&a) == CUPTI_SUCCESS &&
        cuptiProfilerHostGetConfigImageSize(&s) == CUPTI_SUCCESS) {
        std::vector<uint8_t> img(s.configImageSize);
        CUpti_Profiler_Host_GetConfigImage_Params ci = {CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
        ci.pHostObject = h;
        ci.configImageSize = img.size();
        ci.pConfigImage = img.data();
        CUpti_Profiler_Host_GetNumOfPasses_Params np = {CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
        np.configImageSize = img.size();
        np.pConfigImage = img.data();
        if (cuptiProfilerHostGetConfigImage(&ci) == CUPTI_SUCCESS &&
            cuptiProfilerHostGetNumOfPasses(&np) == CUPTI_SUCCESS)
            n = (int)np.numOfPasses;
    }
    done(h);
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: cluster_set_passes CHIP SUBSTRING...\n");
        return 2;
    }
    const char *chip = argv[1];
    // the cluster set of model/src/metrics.c (AU_SET_CLUSTER and AU_SET_BOTH counters)
    const std::vector<const char *> set = {"smsp__inst_executed_op_shared_atom.sum",
                                           "smsp__inst_executed_op_shared_atom_dot_cas.sum",
                                           "sm__cycles_active.avg",
                                           "sm__warps_active.avg.per_cycle_active",
                                           "sm__cycles_active.max",
                                           "smsp__inst_executed_op_generic_atom.sum",
                                           "l1tex__t_output_wavefronts_pipe_lsu_mem_dshared.sum",
                                           "l1tex__m_l1tex2xbar_req_cycles_active_mem_dshared.sum"};
    int base = passes(chip, set);
    if (base < 0) {
        fprintf(stderr, "cluster_set_passes: the Profiler Host API refused chip %s or the set\n", chip);
        return 1;
    }
    printf("cluster set: %d passes (chip %s)\n", base, chip);
    CUpti_Profiler_Host_Object *h = host(chip);
    CUpti_Profiler_Host_GetBaseMetrics_Params b = {CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE};
    b.pHostObject = h;
    b.metricType = CUPTI_METRIC_TYPE_COUNTER;
    if (!h || cuptiProfilerHostGetBaseMetrics(&b) != CUPTI_SUCCESS) {
        fprintf(stderr, "cluster_set_passes: no counter list for chip %s\n", chip);
        return 1;
    }
    std::vector<std::string> names(b.ppMetricNames, b.ppMetricNames + b.numMetrics);
    done(h);
    for (const std::string &n : names) {
        bool want = false;
        for (int k = 2; k < argc; ++k)
            want |= strstr(n.c_str(), argv[k]) != nullptr;
        if (!want)
            continue;
        std::string s = n + ".sum";
        std::vector<const char *> m = set;
        m.push_back(s.c_str());
        printf("%d %s\n", passes(chip, m), s.c_str());
    }
    return 0;
}
