import { graderSuite } from "./suite";

graderSuite("05-rms-norm-warp");
