"""A small model's forward passes in PyTorch (a ResNet-18 of torchvision, random weights, eval
mode, batch 16 of 224 x 224 images, PASSES forward passes, default 3: about 120 kernel launches of
cuDNN, cuBLAS and PyTorch's own kernels each), a framework target for atomutil-profile's overhead
benchmark (bench/bench_framework.sh).
Run: atomutil-profile -- python3 examples/python/torch_model.py [PASSES]
"""
import sys

import torch
import torchvision

if not torch.cuda.is_available():
    sys.exit("torch_model: no CUDA device")
passes = int(sys.argv[1]) if len(sys.argv) > 1 else 3
torch.manual_seed(0)
model = torchvision.models.resnet18(weights=None).cuda().eval()
x = torch.randn(16, 3, 224, 224, device="cuda")
with torch.no_grad():
    for _ in range(passes):
        y = model(x)
torch.cuda.synchronize()
assert y.shape == (16, 1000) and bool(torch.isfinite(y).all()), "bad output"
print("torch_model: ok")
