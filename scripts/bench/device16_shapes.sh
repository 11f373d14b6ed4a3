# SPDX-License-Identifier: BSD-3-Clause
# Sourced by device16.sh and device16_ab.sh: the 16-core redist cases, 8 grid changes (block
# 64 unless named) at each order of REDIST_NS (default 4,000 and 8,000), into the array shapes.
shapes=()
for n in ${REDIST_NS:-4000 8000}; do
  shapes+=("${n}x${n}:64x64@1x2:64x64@2x1" "${n}x${n}:64x64@1x2:64x64@2x2" "${n}x${n}:64x64@2x4:64x64@4x2"
           "${n}x${n}:64x64@2x2:64x64@3x3" "${n}x${n}:64x64@3x3:100x100@3x3" "${n}x${n}:64x64@3x3:64x64@3x4"
           "${n}x${n}:64x64@3x3:64x64@4x4" "${n}x${n}:64x64@4x4:64x64@2x2")
done
