// <cub/block/block_load.cuh> on the CPU emulator, which does not emulate cub::BlockLoad.
#error "cub::BlockLoad is not emulated on the CPU: move a thread's items with a loop (BlockReduce, BlockScan, WarpReduce and WarpScan are emulated; on an NVIDIA GPU, NVRTC compiles cub's own)"
