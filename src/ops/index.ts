// fl.ops (unfused, one launch each) and fl.fused (fused), gathered from every op family.
import { elementwiseFused, elementwiseOps } from "./elementwise";
import { normFused, normOps } from "./norm";

export const ops = { ...elementwiseOps, ...normOps };
export const fused = { ...elementwiseFused, ...normFused };

export type { GeluApproximation, GeluOptions } from "./elementwise";
