/*
 * test_names.c - kernel names for humans (model/src/render_names.c): the function name as Nsight
 * Compute's --kernel-name-base function prints it, on names of real frameworks (PyTorch, CUTLASS,
 * Triton, CUB) with nested templates, lambdas, anonymous namespaces and operator names; and the
 * human tables' name cells, numbered where a name is cut or shared, with the names in full after.
 */
#include "atomutil/model.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* au_kernel_function(kernel) as a string */
static const char *function(const char *kernel)
{
    static char buf[512];
    const char *s;
    size_t n = au_kernel_function(kernel, &s);
    snprintf(buf, sizeof buf, "%.*s", (int)n, s);
    return buf;
}

#define CHECK_FUNCTION(kernel, want)                                                      \
    do {                                                                                  \
        const char *got_ = function(kernel);                                              \
        CHECK(strcmp(got_, want) == 0);                                                   \
        if (strcmp(got_, want) != 0)                                                      \
            fprintf(stderr, "  function of '%s': '%s', want '%s'\n", kernel, got_, want); \
    } while (0)

static void test_function_names(void)
{
    /* PyTorch: a lambda in the template arguments and in the parameters */
    CHECK_FUNCTION("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<at::native::"
                   "AddFunctor<float> >(at::TensorIteratorBase&, at::native::AddFunctor<float> const&)::"
                   "{lambda(int)#1}>(int, at::native::gpu_kernel_impl<at::native::AddFunctor<float> >("
                   "at::TensorIteratorBase&, at::native::AddFunctor<float> const&)::{lambda(int)#1})",
                   "elementwise_kernel");
    /* an anonymous namespace, and the operator() of lambdas inside the template arguments */
    CHECK_FUNCTION("void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<unsigned "
                   "int, 4, at::native::templates::cuda::random_from_to_kernel<at::CUDAGeneratorImpl*>("
                   "at::TensorIteratorBase&, unsigned long, long, at::CUDAGeneratorImpl*)::{lambda()#1}::"
                   "operator()() const::{lambda(unsigned int)#1}>(at::TensorIteratorBase&, at::CUDAGeneratorImpl*)",
                   "distribution_elementwise_grid_stride_kernel");
    CHECK_FUNCTION("void {anonymous}::k_scan<int>(int*)", "k_scan");
    /* CUTLASS: nested templates, ">>" closing two at once */
    CHECK_FUNCTION("void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, "
                   "int>, cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized"
                   "<4>, cutlass::arch::Sm90, 1>>>(cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, "
                   "int>>::Params)",
                   "device_kernel");
    /* CUB: a versioned namespace */
    CHECK_FUNCTION("void cub::CUB_300000_SM_900::DeviceHistogramSweepKernel<cub::CUB_300000_SM_900::"
                   "DeviceHistogramPolicy<unsigned char, 1, 1>::Policy900, 1, 1, unsigned char const*, int, "
                   "cub::CUB_300000_SM_900::detail::histogram::Transforms<unsigned char, int, int>::ScaleTransform, "
                   "int>(unsigned char const*, cub::CUB_300000_SM_900::ArrayWrapper<int*, 1>)",
                   "DeviceHistogramSweepKernel");
    /* Triton: plain names without a parameter list */
    CHECK_FUNCTION("triton_poi_fused_add_mul_0", "triton_poi_fused_add_mul_0");
    /* a CUDA graph launch's row (profile/inject/inject.c) is its name whole; a kernel named graph is not */
    CHECK_FUNCTION("graph 3 (12 kernel nodes)", "graph 3 (12 kernel nodes)");
    CHECK_FUNCTION("graph (kernels unknown: instantiated before atomutil attached)",
                   "graph (kernels unknown: instantiated before atomutil attached)");
    CHECK_FUNCTION("graph(int*)", "graph");
    CHECK_FUNCTION("triton_red_fused__softmax_1", "triton_red_fused__softmax_1");
    /* a class template's member: the last component, the class's arguments dropped with it */
    CHECK_FUNCTION("void ns::outer<ns::inner<int>, 3>::kern<float>(int)", "kern");
    /* operator names keep their symbol: their '<', '>', '(' are no brackets */
    CHECK_FUNCTION("void ns::operator<(int, int)", "operator<");
    CHECK_FUNCTION("void ns::S::operator<< <int>(int)", "operator<<");
    CHECK_FUNCTION("void ns::S::operator<<<int>(int)", "operator<<");
    CHECK_FUNCTION("void ns::Functor::operator()(int) const", "operator()");
    CHECK_FUNCTION("void ns::P::operator->()", "operator->");
    CHECK_FUNCTION("void ns::cmp<&ns::operator<, 2>::run(int)", "run");
    CHECK_FUNCTION("void ns::apply<ns::less, &operator>>(int)", "apply");
    /* an identifier that only starts with "operator" is a name like any other */
    CHECK_FUNCTION("void operators::operator_kernel<int>(int)", "operator_kernel");
    /* a mangled name (the demangler failed) and odd names stay whole */
    CHECK_FUNCTION("_Z3fooPi", "_Z3fooPi");
    CHECK_FUNCTION("<lambda>", "<lambda>");
    CHECK_FUNCTION("", "");
    CHECK_FUNCTION("hist_asread_popc(uchar4 const*, unsigned long, unsigned int*, unsigned int*)", "hist_asread_popc");
}

/* The cells written to a file, read back. */
static char *cells(au_names *nm, const size_t *order, size_t n)
{
    FILE *f = tmpfile();
    if (!f)
        return NULL;
    for (size_t i = 0; i < n; ++i) {
        fputc('|', f);
        au_names_put(nm, order[i], 1, f);
    }
    fputs("|\n", f);
    au_names_notes(nm, 0, f);
    long len = ftell(f);
    char *text = calloc((size_t)len + 1, 1);
    rewind(f);
    if (text && fread(text, 1, (size_t)len, f) != (size_t)len)
        text[0] = '\0';
    fclose(f);
    return text;
}

static void test_cells(void)
{
    static const char *const full[] = {
        "at::native::reduce_kernel<512, 1, MinNan>",
        "hist_asread_popc",
        "at::native::reduce_kernel<512, 1, MaxNan>",
        "at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<4>",
    };
    au_names nm;
    CHECK_EQ_INT(au_names_init(&nm, full, 4, 20), AU_OK);
    CHECK_EQ_INT(nm.width, 20);
    /* numbered in the order the cells are written: the shared name, then the cut one */
    static const size_t order[] = {2, 1, 3, 0, 2};
    char *text = cells(&nm, order, 5);
    const char *want = "|reduce_kernel[1]    |hist_asread_popc    |distribution_ele~[2]|reduce_kernel[3]    "
                       "|reduce_kernel[1]    |\n"
                       "\nkernel names numbered above, in full:\n"
                       "[1] at::native::reduce_kernel<512, 1, MaxNan>\n"
                       "[2] at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<4>\n"
                       "[3] at::native::reduce_kernel<512, 1, MinNan>\n";
    CHECK(text && strcmp(text, want) == 0);
    if (text && strcmp(text, want) != 0)
        fprintf(stderr, "  got:\n%s  want:\n%s", text, want);
    free(text);
    au_names_free(&nm);

    /* width 0: as wide as the widest function name (with its number), nothing cut */
    CHECK_EQ_INT(au_names_init(&nm, full, 4, 0), AU_OK);
    CHECK_EQ_INT(nm.width, strlen("distribution_elementwise_grid_stride_kernel"));
    static const size_t all[] = {3, 0};
    text = cells(&nm, all, 2);
    const char *row = "|distribution_elementwise_grid_stride_kernel|reduce_kernel[1]   ";
    CHECK(text && strncmp(text, row, strlen(row)) == 0);
    CHECK(text && strstr(text, "[1] at::native::reduce_kernel<512, 1, MinNan>\n") != NULL);
    CHECK(text && strstr(text, "[2]") == NULL);
    free(text);
    au_names_free(&nm);

    /* a name that fits and is the only one of its function: no number, no notes; the column as
     * wide as the header "kernel" at least, the widest name at most */
    static const char *const one[] = {"k<1>"}; /* short names: no return type, no parameters */
    CHECK_EQ_INT(au_names_init(&nm, one, 1, 8), AU_OK);
    static const size_t first[] = {0};
    text = cells(&nm, first, 1);
    CHECK(text && strcmp(text, "|k     |\n") == 0);
    free(text);
    au_names_free(&nm);
}

int main(void)
{
    test_function_names();
    test_cells();
    return check_report("test_names");
}
