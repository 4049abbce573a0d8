# make_exports.py - writes the exports of this directory (README.md says what each holds):
#   cd tests/data/names && python3 make_exports.py
HEAD = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
        '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"\n').encode()

def q(b):
    return b'"' + b.replace(b'"', b'""') + b'"'

def launch(i, pid, kernel, device, ns, jobs, wave, active, sms=132):
    rows = []
    metrics = [(b"device__attribute_display_name", b"", device),
               (b"device__attribute_multiprocessor_count", b"", str(sms).encode()),
               (b"gpu__time_duration.sum", b"ns", str(ns).encode()),
               (b"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum", b"", str(wave).encode()),
               (b"sm__cycles_active.avg", b"cycle", str(active).encode()),
               (b"sm__warps_active.avg.per_cycle_active", b"warp", b"32"),
               (b"smsp__inst_executed_op_shared_atom.sum", b"inst", str(jobs).encode()),
               (b"smsp__inst_executed_op_shared_atom_dot_cas.sum", b"inst", b"0")]
    for m, u, v in metrics:
        f = [str(i).encode(), str(pid).encode(), b"app", b"127.0.0.1", kernel, b"1", b"7", b"(256, 1, 1)",
             b"(528, 1, 1)", b"0", b"9.0", b"Command line profiler metrics", m, u, v]
        rows.append(b",".join(q(x) for x in f) + b"\n")
    return b"".join(rows)

h200 = b"NVIDIA H200"
# ESC [31m (colour), an invalid byte 0xFF, a quote and a backslash in a kernel name; a multi-byte
# UTF-8 name wider than the table's column; a device name with an OSC title sequence (ESC ] ... BEL)
hostile = b'evil\x1b[31mred\xff"q"\\z(int)'
wide = "void カーネル_核心_ядро_é_wide_kernel_name(float *)".encode()
with open("hostile-names.ncu.csv", "wb") as f:
    f.write(HEAD)
    f.write(launch(0, 100, hostile, h200, 10000, 132000, 132000, 4000))
    f.write(launch(1, 200, wide, b"NVIDIA H200\x1b]0;pwned\x07\xc3", 10000, 132000, 132000, 4000))

# two template kernels whose names share their first 300+ characters (a 256-byte key merged them)
prefix = "cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, "
while len(prefix) < 300:
    prefix += "cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized<4>, "
k1 = ("void " + prefix + "cutlass::arch::Sm90, 1>>(Params)").encode()
k2 = ("void " + prefix + "cutlass::arch::Sm90, 2>>(Params)").encode()
# A: k1 U = 1000 jobs/SM * S(a=1) 1 / 4000 = 25 %, k2 U = 1000 * 32 / 64000 = 50 %, only_in_a 2000 / 10000 = 20 %
# B: k1 U = 1000 / 2000 = 50 %, k2 U = 32000 / 32000 = 100 %, only_in_b 1000 / 5000 = 20 %
with open("compare-a.ncu.csv", "wb") as f:
    f.write(HEAD)
    f.write(launch(0, 1, k1, h200, 10000, 132000, 132000, 4000))
    f.write(launch(1, 1, k2, h200, 20000, 132000, 4224000, 64000))
    f.write(launch(2, 1, b"void only_in_a(int)", h200, 20000, 264000, 264000, 10000))
with open("compare-b.ncu.csv", "wb") as f:
    f.write(HEAD)
    f.write(launch(0, 1, k2, h200, 30000, 132000, 4224000, 32000))
    f.write(launch(1, 1, k1, h200, 5000, 132000, 132000, 2000))
    f.write(launch(2, 1, b"void only_in_b(int)", h200, 7000, 132000, 132000, 5000))
