"""What SkyPilot catalog rows mean, as tables and pure functions: GCP machine families and their GPUs,
accelerators that are not GPUs, and a GPU's memory and form factor as the row's text gives them."""

from __future__ import annotations

import re

# GCP machine type -> the accelerator name of its GPUs in the catalog; the count is in the name.
GCP_MACHINE_GPUS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^a3-(?:highgpu|edgegpu)-(\d+)g$"), "H100"),
    (re.compile(r"^a3-megagpu-(\d+)g$"), "H100-MEGA"),
    (re.compile(r"^a3-ultragpu-(\d+)g$"), "H200"),
    (re.compile(r"^a4-highgpu-(\d+)g$"), "B200"),
    (re.compile(r"^a4x-highgpu-(\d+)g$"), "GB200"),
    (re.compile(r"^a4x-maxgpu-(\d+)g$"), "GB300"),
    (re.compile(r"^a2-ultragpu-(\d+)g$"), "A100-80GB"),
    (re.compile(r"^a2-(?:highgpu|megagpu)-(\d+)g$"), "A100"),
]
# Machine families whose GPU count follows from the vCPUs: family -> (accelerator, {vCPUs: GPUs}).
GCP_SIZED_FAMILIES = {
    "g2": ("L4", {4: 1, 8: 1, 12: 1, 16: 1, 24: 2, 32: 1, 48: 4, 96: 8}),
    "g4": ("RTXPRO6000", {48: 1, 96: 2, 192: 4, 384: 8}),
}
_SIZED = re.compile(r"^([a-z0-9]+)-standard-(\d+)$")
GCP_GPU_FAMILIES = frozenset({"a2", "a3", "a4", "a4x", "g2", "g4"})
GCP_CPU_FAMILIES = frozenset(
    {"e2", "n1", "n2", "n2d", "n4", "n4a", "n4d", "c2", "c2d", "c3", "c3d", "c4", "c4a", "c4d", "h3", "h4d"}
    | {"m1", "m2", "m3", "m4", "t2a", "t2d", "x4", "z3", "f1", "g1"}
)
NOT_GPUS = (("tpu", "a TPU"), ("inferentia", "AWS Inferentia"), ("trainium", "AWS Trainium"))

_FORMS = (
    (re.compile(r"sxm"), "SXM"),
    (re.compile(r"pci(?:e|[^a-z]|$)"), "PCIe"),
    (re.compile(r"nvl(?!ink)"), "NVL"),
)
INFO_NAME = re.compile(r"""['"]Name['"]\s*:\s*['"]([^'"]+)['"]""")
_INFO_MEMORY = re.compile(r"""['"]SizeInMiB['"]\s*:\s*['"]?([\d.]+)""")
MIB_PER_GB = 1024
GPU_MEMORY_MIB = (4 * MIB_PER_GB, 320 * MIB_PER_GB)  # what one GPU can have; anything else is an upstream error


def gcp_machine_gpus(machine_type: str) -> tuple[str, int] | None:
    for pattern, accelerator in GCP_MACHINE_GPUS:
        if match := pattern.match(machine_type):
            return accelerator, int(match.group(1))
    if (match := _SIZED.match(machine_type)) and match.group(1) in GCP_SIZED_FAMILIES:
        accelerator, sizes = GCP_SIZED_FAMILIES[match.group(1)]
        if int(match.group(2)) in sizes:
            return accelerator, sizes[int(match.group(2))]
    return None


def not_a_gpu(accelerator: str) -> str | None:
    lowered = accelerator.lower()
    return next((label for prefix, label in NOT_GPUS if lowered.startswith(prefix)), None)


def gpu_memory_gb(gpu_info: str, gpus: int) -> int | None:
    """Memory of one GPU from GpuInfo, or None when absent or impossible (upstream files have errors)."""
    match = _INFO_MEMORY.search(gpu_info)
    if not match:
        return None
    try:
        mib = float(match.group(1))
    except ValueError:
        return None
    low, high = GPU_MEMORY_MIB
    if mib > high and gpus > 1 and low <= mib / gpus <= high:
        mib /= gpus  # the total of the instance, given as one GPU's
    if not low <= mib <= high:
        return None
    return round(mib / MIB_PER_GB)


def form_factor(*texts: str) -> str:
    for text in texts:
        lowered = text.lower()
        for pattern, label in _FORMS:
            if pattern.search(lowered):
                return label
    return ""
