import { graderSuite } from "./suite";

graderSuite("10-q4-0-rms-norm");
