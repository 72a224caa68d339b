// How result files are named: <device slug>-<YYYY-MM-DD>, so that the newest run of a device sorts last.

/** "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3". */
export function slug(text: string): string {
  return text.toLowerCase().replace(/\(r\)|\(tm\)/g, "").replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
}
