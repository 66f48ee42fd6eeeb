import torch, torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
q, k, v = (torch.randn(32, 32, 512, 64, device="cuda", dtype=torch.bfloat16) for _ in range(3))
with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
    for _ in range(3):
        F.scaled_dot_product_attention(q, k, v)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("sdpa")
    F.scaled_dot_product_attention(q, k, v)
    torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
