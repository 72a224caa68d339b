// fuselab: GPU operator fusion from TypeScript notebooks. Everything a notebook
// or a grader uses is exported here.
export {
  DType, DTYPES, DTYPE_BYTES, HostArray, NumberDType, isDType, f32ToF16Bits, f16BitsToF32, f32ToBf16Bits, bf16BitsToF32,
} from "./dtype";
export { Device, DeviceInfo, DeviceKind, DeviceOptions, DeviceRequest, backends, device, devices } from "./device";
export {
  MAX_DIMS, MAX_ELEMENTS, NestedNumbers, RandomDType, RandomOptions, Tensor, TensorData, TensorDataOptions, TensorOptions, TensorView,
  debug, empty, full, ones, rand, randn, tensor, zeros,
} from "./tensor";
export { Dim, Kernel, KernelArg, KernelParam, LaunchConfig, LaunchRecord, ModuleVariable, PreparedLaunch, StructValue } from "./kernel";
export { Constant, KernelStats, KernelStatsOptions, Module, builtins } from "./module";
export {
  CommittedBench, CommittedBenchRow, CommittedResults, committedBench, committedResults, kernelFiles, kernelSource, resultsFiles,
} from "./source";
export { CompileCheckOptions, CompileCheckResult, CompileOptions, CxxStandard, compile, compileAsync, compileCheck } from "./compile";
export { packageRoot } from "./native";
export { CloseOptions, Comparable, CompareReport, Mismatch, allclose, assertClose, compare } from "./compare";
export { ArgumentError, DeviceError, FuselabError } from "./errors";
export {
  DequantizeOptions, FusedOpDeclaration, Gather, GeluApproximation, GeluOptions, KernelsByDType, MadeKind, MakeTensor, NormOptions,
  OpDeclaration, OpExample, OutOptions, PartialAccess, Q4_0RmsNormOptions, Q4_0RmsNormVariant, QkNormRopeOptions, RopeAppendOptions,
  RopePositionsOptions, Scatter, declarations, fused, ops, quant, unfused,
} from "./ops";
export { Ledger, TrafficEntry, traffic } from "./traffic";
export { BenchCase, BenchOptions, BenchResult, BenchResults, CopyCeiling, CopyCeilingOptions, bench, copyCeiling } from "./bench";
export { Displayable, RichOutput, display } from "./display";
export { SweepOptions, SweepResults, sweep } from "./sweep";
export {
  Figure, PlotOptions, PlotlyObject, RooflineCeilings, RooflinePoint, SpeedupOptions, SweepPlotOptions, Theme, plot,
} from "./plot";
export { CheckOptions, CheckResult, check } from "./grading/check";
export * as onnx from "./frameworks/onnx";
