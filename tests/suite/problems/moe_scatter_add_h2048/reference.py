import torch


def make_routed_inputs(axes_and_scalars, device):
    tokens, top_k, hidden = axes_and_scalars["tokens"], axes_and_scalars["top_k"], 2048
    routed = tokens * top_k
    return {
        "hidden_states": torch.randn(tokens, hidden, dtype=torch.bfloat16, device=device),
        "expert_out": torch.randn(routed, hidden, dtype=torch.bfloat16, device=device),
        "token_index": torch.arange(tokens, device=device, dtype=torch.int32).repeat_interleave(top_k)[torch.randperm(routed, device=device)],
        "route_weight": torch.rand(routed, device=device),
    }


def run(hidden_states, expert_out, token_index, route_weight):
    acc = hidden_states.float().index_add(0, token_index.long(), expert_out.float() * route_weight[:, None])
    return acc.to(hidden_states.dtype)
