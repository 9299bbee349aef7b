"""What SkyPilot catalog rows mean, as tables and pure functions: GCP machine families and their GPUs,
accelerators that are not GPUs, and a GPU's memory and form factor as the row's text gives them."""

from __future__ import annotations

import re

from pricing.names import normalise_name

# GCP machine type -> the accelerator name of its GPUs in the catalog; the count is in the name. A `-nolssd`
# machine is the same machine without local SSDs (a3-ultragpu-8g-nolssd, a3-edgegpu-8g-nolssd).
_NOLSSD = r"(?:-nolssd)?$"
GCP_MACHINE_GPUS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^a3-(?:highgpu|edgegpu)-(\d+)g" + _NOLSSD), "H100"),
    (re.compile(r"^a3-megagpu-(\d+)g" + _NOLSSD), "H100-MEGA"),
    (re.compile(r"^a3-ultragpu-(\d+)g" + _NOLSSD), "H200"),
    (re.compile(r"^a4-highgpu-(\d+)g" + _NOLSSD), "B200"),
    (re.compile(r"^a4x-highgpu-(\d+)g" + _NOLSSD), "GB200"),
    (re.compile(r"^a4x-maxgpu-(\d+)g" + _NOLSSD), "GB300"),
    (re.compile(r"^a2-ultragpu-(\d+)g" + _NOLSSD), "A100-80GB"),
    (re.compile(r"^a2-(?:highgpu|megagpu)-(\d+)g" + _NOLSSD), "A100"),
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

# How a catalog writes GpuInfo's SizeInMiB, by the (normalised) name of the provider whose file it is: the whole
# instance's memory (Vast: 2x A100 SXM4 40 GB is 81,920; Prime Intellect: 8x A100 80GB is 655,360) or one GPU's
# (Lambda: 8x V100 is 16,384; Spheron: 8x H100 is 81,920). Other catalogs: a value above one GPU's maximum is a
# total, anything else one GPU's.
PER_INSTANCE, PER_GPU = "instance", "gpu"
MEMORY_WRITTEN_AS = {
    normalise_name(provider): written_as
    for provider, written_as in (
        ("Vast.ai", PER_INSTANCE),
        ("Prime Intellect", PER_INSTANCE),
        ("Lambda", PER_GPU),
        ("Spheron", PER_GPU),
    )
}

# Vast's instance types name the GPU as Vast does (`1x-RTX_3060_Ti-32-65536`), while the accelerator column drops
# a variant's suffix (`RTX3060`): the instance type's name is the GPU's.
_VAST_INSTANCE = re.compile(r"^\d+x-(.+)-\d+-\d+$")
# Upstream providers whose instance ids name the form factor by a rule of theirs: Hyperstack's `n3-` flavours are
# PCIe cards (its own catalog: n3-A100x1 is A100-80G-PCIe, n3-H100x8-NVLink H100-80G-PCIe-NVLink) unless named SXM.
UPSTREAM_FORM_FACTORS = {"hyperstack": ((re.compile(r"^n3-(?!.*sxm)", re.I), "PCIe"),)}


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


def gpu_memory_gb(gpu_info: str, gpus: int, written_as: str = "") -> int | None:
    """Memory of one GPU from GpuInfo, or None when absent or impossible (upstream files have errors).
    `written_as` is the catalog's way (`MEMORY_WRITTEN_AS`); blank: a value above one GPU's maximum is a total."""
    match = _INFO_MEMORY.search(gpu_info)
    if not match:
        return None
    try:
        mib = float(match.group(1))
    except ValueError:
        return None
    low, high = GPU_MEMORY_MIB
    if written_as == PER_INSTANCE or (not written_as and mib > high and gpus > 1 and low <= mib / gpus <= high):
        mib /= gpus
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


def upstream_form_factor(upstream: str, upstream_id: str) -> str:
    """The form factor an upstream provider's own instance id implies by its naming rule, or ""."""
    for pattern, label in UPSTREAM_FORM_FACTORS.get(upstream.lower(), ()):
        if pattern.search(upstream_id):
            return label
    return ""


def vast_instance_gpu(instance: str, accelerator: str) -> str:
    """The GPU Vast's instance type names when it says more than the accelerator column (a variant), else ""."""
    match = _VAST_INSTANCE.match(instance)
    if not match:
        return ""
    named = match.group(1)
    key, short = normalise_name(named), normalise_name(accelerator)
    return named if key != short and key.startswith(short) else ""
