"""Which GPUs an AWS instance type or an Azure VM size carries: the feeds price instances, not GPUs.

The GPU names are looked up in the alias table like any file's, so a name here is one a GPU model or alias
has (`A100 40GB SXM`, `H100 SXM`); an instance family that is not listed is said to be unknown, not guessed.
"""

from __future__ import annotations

import re

# AWS instance family (the instance type before the dot) → the GPU it carries, or why it has none to price.
AWS_GPU_FAMILIES = {
    "p6-b300": "B300",
    "p6-b200": "B200",
    "p6e-gb200": "GB200",
    "p5en": "H200 SXM",
    "p5e": "H200 SXM",
    "p5": "H100 SXM",
    "p4de": "A100 80GB SXM",
    "p4d": "A100 40GB SXM",
    "p3dn": "V100 32GB",
    "p3": "V100 16GB",
    "p2": "K80",
    "g6e": "L40S",
    "g6": "L4",
    "gr6": "L4",
    "g5": "A10G",
    "g5g": "T4G",
    "g4dn": "T4",
    "g4ad": "Radeon Pro V520",
    "g3": "M60",
    "g3s": "M60",
    "dl1": "Gaudi HL-205",
}
AWS_NOT_GPUS = {
    "inf1": "AWS Inferentia",
    "inf2": "AWS Inferentia2",
    "trn1": "AWS Trainium",
    "trn1n": "AWS Trainium",
    "trn2": "AWS Trainium2",
    "dl2q": "Qualcomm AI 100",
    "f1": "an FPGA",
    "f2": "an FPGA",
    "vt1": "a Xilinx video transcoder",
    "g6f": "a fractional L4 share",
    "gr6f": "a fractional L4 share",
}

# Azure VM size (without `Standard_`) → GPU name and GPUs per vCPU count; sizes matched whole, any case.
AZURE_GPU_SIZES: tuple[tuple[re.Pattern[str], str, dict[int, int]], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), gpu, counts)
    for pattern, gpu, counts in (
        (r"ND(\d+)isr_H100_v5", "H100 SXM", {96: 8}),
        (r"ND(\d+)isr_H200_v5", "H200 SXM", {96: 8}),
        (r"ND(\d+)isr_MI300X_v5", "MI300X", {96: 8}),
        (r"ND(\d+)amsr_A100_v4", "A100 80GB SXM", {96: 8}),
        (r"ND(\d+)asr_v4", "A100 40GB SXM", {96: 8}),
        (r"ND(\d+)rs_v2", "V100 32GB", {40: 8}),
        (r"NC(\d+)ads_A100_v4", "A100 80GB PCIe", {24: 1, 48: 2, 96: 4}),
        (r"NCC?(\d+)ads_H100_v5", "H100 NVL", {40: 1, 80: 2}),
        (r"NC(\d+)adis_H100_v5", "H100 NVL", {80: 2}),
        (r"NC(\d+)as_T4_v3", "T4", {4: 1, 8: 1, 16: 1, 64: 4}),
        (r"NC(\d+)r?s_v3", "V100 16GB", {6: 1, 12: 2, 24: 4}),
        (r"NC(\d+)r?s_v2", "P100", {6: 1, 12: 2, 24: 4}),
        (r"ND(\d+)r?s", "P40", {6: 1, 12: 2, 24: 4}),
        (r"NV(\d+)s_v3", "M60", {12: 1, 24: 2, 48: 4}),
        (r"NV(\d+)ads_A10_v5", "A10", {36: 1, 72: 2}),
        (r"NC(\d+)r?", "K80", {6: 1, 12: 2, 24: 4}),
    )
)
_AZURE_GPU_SERIES = re.compile(r"N[CDGV]", re.IGNORECASE)


def azure_size_gpus(arm_sku_name: str) -> tuple[int, str] | str:
    """(GPUs, GPU name) of an Azure VM size such as `Standard_ND96isr_H100_v5` (8, H100 SXM), or why none."""
    size = arm_sku_name.removeprefix("Standard_")
    for pattern, gpu, counts in AZURE_GPU_SIZES:
        if match := pattern.fullmatch(size):
            gpus = counts.get(int(match.group(1)))
            return (gpus, gpu) if gpus else f"a fractional {gpu} share (no whole GPU to price)"
    if _AZURE_GPU_SERIES.match(size):
        return f"an N-series size with no GPU rule ({size}): its GPUs are not known"
    return "no GPU (CPU-only VM size)"
