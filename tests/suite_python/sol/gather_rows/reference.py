# Socratic's own SOL-style reference.py (tests/suite_python): the custom inputs' generator.
import torch


def make_gather_inputs(axes_and_scalars, device):
    table_rows, picks = axes_and_scalars["table_rows"], axes_and_scalars["picks"]
    table = torch.randn(table_rows, 16, device=device)
    index = torch.randint(0, table_rows, (picks,), dtype=torch.int64, device=device)
    return {"table": table, "index": index}
