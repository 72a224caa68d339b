#!/usr/bin/env bash
# Compile-checks every kernel source (kernels/*.hip) for AMD GPUs with hipcc
# (HIP_PLATFORM=amd), for each architecture in FUSELAB_HIP_ARCHS (default:
# gfx90a gfx1030). Compiling (not only parsing) also runs the device back end,
# so code that only fails at code generation for an AMD target is caught too.
# Exits 1 naming each file that fails; CI runs it (.ci/run).
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
hipcc="${HIPCC:-hipcc}"
archs="${FUSELAB_HIP_ARCHS:-gfx90a gfx1030}"

if ! command -v "$hipcc" >/dev/null 2>&1; then
  echo "check-amd: $hipcc not found: install hipcc (Debian: apt-get install hipcc) or set HIPCC" >&2
  exit 1
fi

shopt -s nullglob
sources=("$root"/kernels/*.hip)
if [ ${#sources[@]} -eq 0 ]; then
  echo "check-amd: no kernel sources found in $root/kernels" >&2
  exit 1
fi

offload=()
for arch in ${archs//;/ }; do offload+=("--offload-arch=$arch"); done

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

echo "check-amd: $(HIP_PLATFORM=amd "$hipcc" --version 2>/dev/null | head -n 1); targets: ${offload[*]}"
failed=()
for source in "${sources[@]}"; do
  name="$(basename "$source")"
  if HIP_PLATFORM=amd "$hipcc" -x hip -std=c++17 -O3 "${offload[@]}" -I"$root/kernels" \
       -c "$source" -o "$out/$name.o"; then
    echo "ok    kernels/$name"
  else
    echo "FAIL  kernels/$name"
    failed+=("kernels/$name")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "check-amd: ${#failed[@]} of ${#sources[@]} kernel sources do not compile for AMD: ${failed[*]}" >&2
  exit 1
fi
echo "check-amd: all ${#sources[@]} kernel sources compile for AMD"
