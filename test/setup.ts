// Root hooks for every test file: new tensors start as NaN, so an output a
// kernel forgets to write fails its test instead of passing on leftover zeros.
import * as fl from "../src";

export const mochaHooks = {
  beforeAll(): void {
    fl.debug.poison = true;
  },
};
